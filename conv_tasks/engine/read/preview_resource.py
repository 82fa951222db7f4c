"""One existing resource's preview entry: what its update node would do to it (the same
`decide` the node asks, an action under way finished first), the properties that differ
(masked where they derive from a hidden value), what is uncertain, and how the real object
differs from what the stack last made it (its type's `observe`). Only reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from conv_tasks.db import ResourceVersion, StackRow
from conv_tasks.engine.definition import PreparedResource, StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.node import (
    Decision,
    Verdict,
    decide,
    masked,
    observing_context,
    repaired_in_place,
)
from conv_tasks.engine.payload import read_stored_output
from conv_tasks.engine.read.preview_entries import (
    ADOPTS,
    CREATE,
    HIDDEN_CHANGE,
    REPLACE,
    UNCHANGED,
    UPDATE,
    resource_entry,
)
from conv_tasks.engine.read.preview_nested import StackState, Unknown, parameters_read
from conv_tasks.errors import ConvTasksError
from conv_tasks.provider_errors import Throttled, Transient
from conv_tasks.resources import ResourceType
from conv_tasks.statuses import Action, Status
from conv_tasks.template import GetAttr, ResourceSnippet

_VERDICTS = {
    Verdict.NOOP: UNCHANGED,
    Verdict.CREATE: CREATE,
    Verdict.UPDATE: UPDATE,
    Verdict.RESUME: UPDATE,
    Verdict.REPLACE: REPLACE,
    Verdict.REINSTATE: REPLACE,
}


def existing_entry(
    env: EngineEnv,
    state: StackState,
    head: ResourceVersion,
    converge: Mapping[str, int | None],
    by_id: Mapping[int, ResourceVersion],
    changing: set[str],
    unknown: Unknown,
) -> tuple[dict[str, Any], PreparedResource | None]:
    definition, old, versions = state.definition, state.old, state.versions
    name = head.name
    snippet = definition.template.resources[name]
    uncertain = why_uncertain(snippet, changing, unknown)
    inputs = {}
    under_way: list[str] = []
    for dep in definition.dependencies.get(name, ()):
        dep_id = converge.get(dep)
        if dep_id is not None:
            dep_head = by_id[dep_id]
            inputs[dep] = read_stored_output(_last_output(dep_head, versions))
            if dep_head.status == Status.IN_PROGRESS:
                under_way.append(f"{dep}'s {dep_head.action}")
    if under_way:
        uncertain = (
            f"reads {', '.join(under_way)} under way: its values here are the last ones "
            "recorded, the new ones are known when it finishes"
        )
    try:
        prepared = definition.prepare(name, inputs, env.registry)
    except ConvTasksError as exc:
        reason = definition.reason(name, str(exc))
        if under_way:
            reason = f"{uncertain} ({reason})"
        return resource_entry(
            name, snippet.type, UPDATE, uncertain=f"not known yet: {reason}"
        ), None
    own = [v for v in versions if v.name == name]
    needs_replacement = prepared.resource_type().needs_replacement
    decision = _decide(env, head, own, prepared, needs_replacement)
    action = _VERDICTS[decision.verdict]
    changes = {}
    if action != UNCHANGED and decision.verdict != Verdict.CREATE:
        hidden = name in definition.hidden_resources or (
            old is not None and name in old.hidden_resources
        )
        secret = definition.secret_properties.get(name, frozenset())
        before, after = head.properties, prepared.properties
        for key in sorted(before.keys() | after.keys()):
            if before.get(key) != after.get(key):
                changes[key] = _change(
                    before.get(key), after.get(key), hidden or key in secret, definition, old
                )
    reason = definition.reason(name, decision.reason) if decision.reason else ""
    if decision.verdict == Verdict.CREATE and prepared.resolved.external_id is not None:
        reason = ADOPTS
    return resource_entry(name, snippet.type, action, reason, changes, uncertain), prepared


def _decide(
    env: EngineEnv,
    head: ResourceVersion,
    own: Sequence[ResourceVersion],
    prepared: PreparedResource,
    needs_replacement: Any,
) -> Decision:
    """What the update node would do to `head`, as the node decides it. An action under way
    (or cut off) is finished first with its own definition; the node then converges afresh,
    so the preview decides on the resource as that action leaves it, and says so."""

    def verdict(version: ResourceVersion, versions: Sequence[ResourceVersion]) -> Decision:
        return decide(
            version,
            versions,
            type_name=prepared.resolved.type,
            definition_hash=prepared.resolved.definition_hash,
            properties=prepared.properties,
            needs_replacement=needs_replacement,
            substitutes=env.registry.substitutes,
            repaired_in_place=lambda v: repaired_in_place(env, prepared.resource_type, v),
        )

    decision = verdict(head, own)
    if decision.verdict != Verdict.RESUME:
        return decision
    finished = _finished(head)
    after = verdict(finished, [finished if v.id == head.id else v for v in own])
    first = f"its {head.action} under way finishes first"
    if after.verdict == Verdict.NOOP:
        # A create under way is still a create to whoever reads the preview.
        done = Verdict.CREATE if head.action == Action.CREATE else Verdict.RESUME
        return Decision(done, head, f"{first}; then nothing more changes")
    then = f"; then: {after.reason}" if after.reason else ""
    return Decision(after.verdict, after.version, f"{first}{then}")


def _finished(head: ResourceVersion) -> ResourceVersion:
    """`head` as its action under way leaves it when it finishes: a delete leaves nothing
    behind (the node then makes a new one); a create or an update leaves it complete."""
    if head.action == Action.DELETE:
        return replace(head, status=Status.COMPLETE, physical_id=None)
    if head.action == Action.INIT:
        return head
    return replace(head, status=Status.COMPLETE)


def _last_output(head: ResourceVersion, versions: Sequence[ResourceVersion]) -> Any:
    """The stored output a resource's dependants read now: its head's, or, while the head's
    action is under way and has recorded none yet, that of the version it replaces or
    updates (the last one the resource had)."""
    if head.attributes or head.status != Status.IN_PROGRESS or head.replaces is None:
        return head.attributes
    older = {v.id: v for v in versions}.get(head.replaces)
    return older.attributes if older is not None else head.attributes


def why_uncertain(snippet: ResourceSnippet, changing: set[str], unknown: Unknown) -> str | None:
    """Why a resource's new values are not all known now, if they are not: it reads a
    resource that will change, or an input of its stack known only at apply."""
    if unknown.every:
        return "its nested stack's inputs read a resource that will change: known at apply"
    read = sorted({r.resource if isinstance(r, GetAttr) else r.name for r in snippet.references()})
    resources = [dep for dep in read if dep in changing]
    if resources:
        return (
            f"reads {', '.join(resources)}, which will change: its values here are the current ones"
        )
    parameters = sorted(parameters_read(snippet) & unknown.parameters)
    if parameters:
        return (
            f"reads the parameters {', '.join(parameters)}, whose values come from a "
            "resource that will change: its values here are the current ones"
        )
    return None


def reality_of(
    env: EngineEnv, stack: StackRow, head: ResourceVersion, definition: StackDefinition
) -> dict[str, Any] | None:
    """How the real object differs from what the stack last made it (its type's `observe`):
    {"exists": False}, {"exists": True, "differs": [property names]}, {"unknown": why}; None
    when it matches, or the type cannot observe. Names only: a value may be hidden.

    A preview answers at once with what it could read: an observe that the service put off
    (Throttled, Transient) is not asked again here, where a person or a script waits on a
    public worker and a Retry-After may be long; its entry says `"retryable": True` (and the
    service's `"retry_after"` seconds, when it gave them; the CLI: preview again), and the
    rest of the preview stands."""
    try:
        plugin = definition.plugin_type(head.type, env.registry)()
    except ConvTasksError:
        return None
    if type(plugin).observe is ResourceType.observe or head.physical_id is None:
        return None
    ctx = observing_context(env, stack.id, stack.tenant, head, plugin)
    try:
        observed = plugin.observe(ctx)
    except Exception as exc:  # the service did not answer: say so, do not fail the preview
        text = masked(plugin, ctx, str(exc)).strip().splitlines()
        why = definition.reason(head.name, text[0] if text else type(exc).__name__)
        if isinstance(exc, Throttled) and exc.retry_after:
            return {"unknown": why, "retryable": True, "retry_after": exc.retry_after}
        if isinstance(exc, Transient):
            return {"unknown": why, "retryable": True}
        return {"unknown": why}
    if observed is None:
        return None
    if not observed.exists:
        return {"exists": False}
    differs = observed.differences(head.properties)
    return {"exists": True, "differs": differs} if differs else None


def _change(
    before: Any, after: Any, hidden: bool, new: StackDefinition, old: StackDefinition | None
) -> dict[str, Any]:
    """{"old", "new"} of a property that differs; {"hidden": True} and neither value when
    they derive from a hidden value (or differ only where one is masked): two masks would
    say nothing, and the values must not be shown."""
    if not hidden:
        shown = _redacted(before, new, old), _redacted(after, new, old)
        if shown[0] != shown[1]:
            return {"old": shown[0], "new": shown[1]}
    return {HIDDEN_CHANGE: True}


def _redacted(value: Any, new: StackDefinition, old: StackDefinition | None) -> Any:
    value = new.redact.value(value)
    return old.redact.value(value) if old is not None else value
