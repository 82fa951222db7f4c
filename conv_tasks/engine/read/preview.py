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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.db import ResourceVersion, version_of
from conv_tasks.engine.definition import (
    EnvironmentSources,
    PreparedResource,
    StackDefinition,
    request_inputs,
)
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.read.preview_entries import (
    ADOPTS,
    CREATE,
    DELETE,
    UNCHANGED,
    UPDATE,
    preview_report,
    resource_entry,
)
from conv_tasks.engine.read.preview_nested import (
    NONE,
    StackState,
    Unknown,
    child_states,
    child_unknown,
    existing_of,
)
from conv_tasks.engine.read.preview_resource import existing_entry, reality_of, why_uncertain
from conv_tasks.engine.read.views import stack_definition
from conv_tasks.engine.stack import ChangeRequest, plan_change
from conv_tasks.errors import ConvTasksError, NotFound
from conv_tasks.graph import Phase, plan_traversal
from conv_tasks.template import (
    PLACEHOLDERS,
    STACK_ID,
    ResourceSnippet,
    StackIdentity,
    refuse_given,
    with_identity,
)


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
    return preview_report(stack.name, True, entries)


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
            entry["uncertain"] = why_uncertain(snippet, set(), unknown)
        else:
            head = by_id[head_id]
            entry, prepared = existing_entry(
                env, state, head, plan.converge, by_id, changing, unknown
            )
            entry["reality"] = reality_of(env, state.stack, head, state.definition)
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
        entries.append(resource_entry(gone, last.type if last else "", DELETE))
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
    return preview_report(name, False, entries)


def _created(snippet: ResourceSnippet) -> dict[str, Any]:
    """The entry of a resource the stack does not have yet: created, or adopted."""
    return resource_entry(snippet.name, snippet.type, CREATE, ADOPTS if snippet.external_id else "")
