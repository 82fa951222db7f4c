"""What an update (or a create) would do to each resource, without doing it.

`conv-tasks stack preview`, `stack update --dry-run` and conv_tasks.stack.preview. The
same code as the engine decides: the traversal planner (conv_tasks.graph) says which
resources are new and which go, and for each one that exists, `decide`
(conv_tasks.engine.node.decide) with the resource type's needs_replacement says whether it
is unchanged, updated in place or replaced. It only reads: nothing is written, no
template stored, no traversal planned for real.

A resource's new properties are resolved with the values its inputs have now. Where it
reads (get_attr, get_resource) a resource that will itself change, the values the
update would give it are not known yet: the entry says so in `uncertain`.

A resource that owns a child stack (OS::Heat::Stack, a provider template, a group) and
would be updated in place carries `nested`: the preview of its child stack against the
child's stored state, with the child's new definition made as the update would make it
(conv_tasks.engine.read.preview_nested), to any depth. A child's inputs that read a
resource that will change are known only at apply: the child's resources that read them
say so in `uncertain`, and only those.

A property that differs is `{"old", "new"}`; for a resource derived from a hidden value
it is `{"hidden": true}`: that it changed, never what from or to (the CLI words it).

Mid-operation (an update or create still under way, or cut off by a dead worker), the node
would first finish the action under way, with that action's definition, and then converge
afresh to the new one: the preview decides the same way, on the resource as it will stand
once that action finished. A resource that reads one whose action is under way is resolved
with the last output that one recorded, and says so in `uncertain`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from conv_tasks.db import ResourceVersion, StackRow, version_of
from conv_tasks.engine.definition import (
    EnvironmentSources,
    PreparedResource,
    StackDefinition,
    request_inputs,
)
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
from conv_tasks.engine.read.preview_nested import (
    NONE,
    StackState,
    Unknown,
    child_states,
    child_unknown,
    existing_of,
    parameters_read,
)
from conv_tasks.engine.read.views import stack_definition
from conv_tasks.engine.stack import ChangeRequest, plan_change
from conv_tasks.errors import ConvTasksError, NotFound
from conv_tasks.graph import Phase, plan_traversal
from conv_tasks.provider_errors import Throttled, Transient
from conv_tasks.resources import ResourceType
from conv_tasks.statuses import Action, Status
from conv_tasks.template import (
    PLACEHOLDERS,
    STACK_ID,
    GetAttr,
    ResourceSnippet,
    StackIdentity,
    refuse_given,
    with_identity,
)

CREATE, UPDATE, REPLACE, DELETE, UNCHANGED = "create", "update", "replace", "delete", "unchanged"
ACTIONS = (CREATE, UPDATE, REPLACE, DELETE, UNCHANGED)
# A change's marker in place of its old and new values, which derive from a hidden value.
HIDDEN_CHANGE = "hidden"
# The reason of a create that adopts an existing object instead (its id is not shown: a
# hidden parameter may give it).
ADOPTS = "adopts an existing object (external_id) instead of creating one"
_VERDICTS = {
    Verdict.NOOP: UNCHANGED,
    Verdict.CREATE: CREATE,
    Verdict.UPDATE: UPDATE,
    Verdict.RESUME: UPDATE,
    Verdict.REPLACE: REPLACE,
    Verdict.REINSTATE: REPLACE,
}


def preview_stack(
    env: EngineEnv,
    *,
    tenant: str,
    stack_ref: str,
    template: Mapping[str, Any] | str | None,
    parameters: Mapping[str, Any],
    existing_parameters: bool = False,
    environment: EnvironmentSources | None = None,
    files: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """{"stack", "exists", "resources": [{"name", "type", "action", "reason", "changes",
    "uncertain", "reality", "nested_stack", "nested": [entries of the child]}], "counts",
    "nested_counts", "summary"}: what `stack update` (or, for a stack that does not
    exist, `stack create`) with these arguments would do. Raises as they would: the update's
    own planning step (conv_tasks.engine.stack.plan_change) reads the request."""
    with env.db.transaction() as tx:
        try:
            stack = tx.stacks.find(tenant, stack_ref)
        except NotFound:
            if template is None:
                raise
            return _preview_create(env, tenant, stack_ref, template, parameters, environment, files)
        request = ChangeRequest(template, parameters, existing_parameters, environment, files)
        definition = plan_change(env, tx, stack, request).definition
        old = stack_definition(env, tx, stack)
        versions = [version_of(vars(row)) for row in tx.resources.of_stack(stack.id)]
    state = StackState(stack, definition, old, versions, existing_of(versions))
    entries = stack_changes(env, state, NONE)
    return _report(stack.name, True, entries)


def stack_changes(env: EngineEnv, state: StackState, unknown: Unknown) -> list[dict[str, Any]]:
    """The entries of a stack's resources for the definition in `state`, those of its
    children inside theirs, to any depth; `unknown`: the stack's inputs known only at apply.
    Breadth first: the child stacks of one level are read together (child_states)."""
    top: list[dict[str, Any]] = []
    level: list[tuple[StackState, Unknown, list[dict[str, Any]]]] = [(state, unknown, top)]
    while level:
        wanted: list[_Child] = []
        for stack_state, inputs, into in level:
            entries, children = _changes(env, stack_state, inputs)
            into.extend(entries)
            wanted.extend(children)
        level = _look_inside(env, wanted)
    return top


@dataclass(frozen=True)
class _Child:
    """A resource whose child stack the preview looks into, and the entry that shows it."""

    parent: StackState
    head: ResourceVersion
    prepared: PreparedResource
    unknown: Unknown
    entry: dict[str, Any]


def _changes(
    env: EngineEnv, state: StackState, unknown: Unknown
) -> tuple[list[dict[str, Any]], list[_Child]]:
    """One stack's entries, and the resources whose child stacks are to be looked into."""
    plan = plan_traversal(state.existing, state.definition.dependencies)
    by_id = {v.id: v for v in state.versions}
    changing: set[str] = set()
    entries = []
    children = []
    for node in plan.graph.order():
        if node.phase != Phase.UPDATE:
            continue
        head_id = plan.converge.get(node.name)
        snippet = state.definition.template.resources[node.name]
        if head_id is None:
            entry = _created(snippet)
            # A new resource shows no values to doubt, but one made from an input of its
            # (nested) stack known only at apply says so.
            entry["uncertain"] = _uncertain(snippet, set(), unknown)
        else:
            head = by_id[head_id]
            entry, prepared = _existing(env, state, head, plan.converge, by_id, changing, unknown)
            entry["reality"] = _reality(env, state.stack, head, state.definition)
            action = entry["action"]
            # An input known only at apply may change the child even when it looks the same.
            if (
                prepared is not None
                and prepared.resource_type.owns_child_stack
                and head.physical_id is not None
                and (action == UPDATE or (action == UNCHANGED and entry["uncertain"]))
            ):
                inputs = child_unknown(prepared.resource_type, snippet, changing, unknown)
                children.append(_Child(state, head, prepared, inputs, entry))
        if entry["action"] != UNCHANGED or entry["uncertain"]:
            changing.add(node.name)
        entries.append(entry)
    heads = {v.name: v for v in state.versions if v.replaced_by is None}
    for gone in plan.removed:
        last = heads.get(gone)
        entries.append(_entry(gone, last.type if last else "", DELETE))
    return entries, children


def _look_inside(
    env: EngineEnv, wanted: list[_Child]
) -> list[tuple[StackState, Unknown, list[dict[str, Any]]]]:
    """The child stacks of `wanted`, read together, each with the list its entries go into
    (the parent entry's `nested`); what stops a child's preview (its new template does not
    load, say) goes in the parent entry's `uncertain`, as the update would fail there."""
    found = child_states(env, [(w.parent, w.head, w.prepared) for w in wanted])
    level = []
    for child, state in zip(wanted, found, strict=True):
        if isinstance(state, ConvTasksError):
            reason = child.parent.definition.reason(child.head.name, str(state))
            child.entry["uncertain"] = f"its nested stack cannot be previewed: {reason}"
        elif state is not None:
            child.entry["nested_stack"] = {"id": state.stack.id, "name": state.stack.name}
            level.append((state, child.unknown, child.entry["nested"]))
    return level


def _preview_create(
    env: EngineEnv,
    tenant: str,
    name: str,
    template: Mapping[str, Any] | str,
    parameters: Mapping[str, Any],
    environment: EnvironmentSources | None,
    files: Mapping[str, Any] | None,
) -> dict[str, Any]:
    inputs = request_inputs(environment, files)
    refuse_given(parameters)
    # The stack has no id before it is created: the placeholder's stands in for it.
    identity = StackIdentity(name, PLACEHOLDERS[STACK_ID], tenant)
    definition = StackDefinition.build(
        template,
        with_identity(parameters, identity),
        env.registry,
        files=inputs.files,
        environment=inputs.environment,
        constraints=env.constraints,
    )
    plan = plan_traversal((), definition.dependencies)
    resources = definition.template.resources
    entries = [
        _created(resources[node.name]) for node in plan.graph.order() if node.phase == Phase.UPDATE
    ]
    return _report(name, False, entries)


def _created(snippet: ResourceSnippet) -> dict[str, Any]:
    """The entry of a resource the stack does not have yet: created, or adopted."""
    return _entry(snippet.name, snippet.type, CREATE, ADOPTS if snippet.external_id else "")


def _existing(
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
    uncertain = _uncertain(snippet, changing, unknown)
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
        return _entry(name, snippet.type, UPDATE, uncertain=f"not known yet: {reason}"), None
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
    return _entry(name, snippet.type, action, reason, changes, uncertain), prepared


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


def _uncertain(snippet: ResourceSnippet, changing: set[str], unknown: Unknown) -> str | None:
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


def _reality(
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


def _entry(
    name: str,
    type_name: str,
    action: str,
    reason: str = "",
    changes: dict[str, Any] | None = None,
    uncertain: str | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "type": type_name,
        "action": action,
        "reason": reason,
        "changes": changes or {},
        "uncertain": uncertain,
        "reality": None,
        "nested_stack": None,
        "nested": [],
    }


def summary(counts: Mapping[str, int]) -> str:
    """ "2 to create, 1 to update, 1 to replace, 1 to delete, 3 unchanged"."""
    parts = [f"{counts.get(a, 0)} to {a}" for a in (CREATE, UPDATE, REPLACE, DELETE)]
    return ", ".join([*parts, f"{counts.get(UNCHANGED, 0)} unchanged"])


def _report(stack: str, exists: bool, entries: list[dict[str, Any]]) -> dict[str, Any]:
    counts = _counts(entries)
    inside = [n for e in entries for n in nested_entries(e)]
    nested_counts = _counts(inside)
    said = summary(counts)
    if inside:
        said += f"; inside nested stacks: {summary(nested_counts)}"
    return {
        "stack": stack,
        "exists": exists,
        "resources": entries,
        "counts": counts,
        "nested_counts": nested_counts,
        "summary": said,
    }


def nested_entries(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The entries inside an entry's nested stack, at any depth, parents first."""
    found: list[dict[str, Any]] = []
    for inner in entry.get("nested") or ():
        found.append(inner)
        found.extend(nested_entries(inner))
    return found


def _counts(entries: list[dict[str, Any]]) -> dict[str, int]:
    return {action: sum(1 for e in entries if e["action"] == action) for action in ACTIONS}
