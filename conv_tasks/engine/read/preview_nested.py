"""The child stacks in a preview: what a child is previewed against, and which of its
inputs are known only at apply.

A resource that owns a child stack and would be updated gives its child a new definition:
its type says what (ResourceType.preview_request: the whole update, every batch of a
group applied), the ChildStacks service hands down the parent's files, environment and
hidden values as the update would (change_request), and the update's own planning step
(plan_change) builds the child's definition. The child's inputs that read a resource of the
parent that will change (or an input of the parent that is itself unknown) are `Unknown`:
the child's resources that read them are uncertain, and only those.

It only reads: nothing here writes a row or starts an operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from conv_tasks.db import ResourceVersion, StackRow, version_of
from conv_tasks.engine.definition import PreparedResource, StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.node import version_context
from conv_tasks.engine.read.views import stack_definition
from conv_tasks.engine.stack import ChangeRequest, plan_change
from conv_tasks.errors import ConvTasksError, NotFound
from conv_tasks.graph import ExistingVersion
from conv_tasks.resources import ActionContext, ChildRequest, ResourceType
from conv_tasks.statuses import Action
from conv_tasks.template import (
    GetAttr,
    ResourceSnippet,
    facade_of,
    iter_calls,
    references,
)


@dataclass(frozen=True)
class Unknown:
    """A stack's inputs known only at apply: all of them (`every`), or these parameters."""

    every: bool = False
    parameters: frozenset[str] = frozenset()


NONE = Unknown()


@dataclass(frozen=True)
class StackState:
    """A stack as stored, and the definition the update would give it."""

    stack: StackRow
    definition: StackDefinition
    old: StackDefinition | None
    versions: Sequence[ResourceVersion]
    existing: Sequence[ExistingVersion]


@runtime_checkable
class ChildChanges(Protocol):
    """The part of the engine's ChildStacks service a preview reads through."""

    def change_requests(
        self,
        asked: Sequence[tuple[str, str | None, ChildRequest]],
        *,
        secrets: Mapping[str | None, Sequence[Any]] | None = None,
    ) -> list[ChangeRequest | None]: ...


# A child to look into: the parent stack, the resource's version that owns the child, and
# the resource as the update would prepare it.
Wanted = tuple[StackState, ResourceVersion, PreparedResource]


def child_states(
    env: EngineEnv, wanted: Sequence[Wanted]
) -> list[StackState | ConvTasksError | None]:
    """For each resource, its child stack and the definition this update would give it; the
    error the child's update would raise instead; None when it has no child to preview
    (never made, or gone). All the children are read together: the parents each once, the
    children's rows, templates and resource versions in one statement each."""
    results: list[StackState | ConvTasksError | None] = [None] * len(wanted)
    children = env.children
    if not isinstance(children, ChildChanges):
        return results
    asked: dict[int, tuple[str, str, ChildRequest, Mapping[str, Any] | None]] = {}
    for n, (parent, head, prepared) in enumerate(wanted):
        plugin = prepared.resource_type()
        if not plugin.owns_child_stack or head.physical_id is None:
            continue
        ctx = _update_context(env, parent, head, prepared, plugin)
        try:
            request = plugin.preview_request(ctx)
        except NotFound:
            continue  # its child is gone: the update makes a new one
        except ConvTasksError as exc:
            results[n] = exc
            continue
        if request is None:
            continue
        asked[n] = (head.physical_id, parent.stack.id, request, ctx.facade)
    if not asked:
        return results
    # The parents' hidden values as their update makes them: the stored ones are the old.
    secrets = {parent.stack.id: new_hidden_values(parent.definition) for parent, _, _ in wanted}
    changes = children.change_requests(
        [(c, p, r) for c, p, r, _ in asked.values()], secrets=secrets
    )
    with env.db.transaction() as tx:
        rows = tx.stacks.get_many(child_id for child_id, *_ in asked.values())
        tx.templates.load(r.raw_template_id for r in rows.values() if r.raw_template_id)
        stored = tx.resources.of_stacks(list(rows))
        for (n, (child_id, _, _, facade)), change in zip(asked.items(), changes, strict=True):
            child = rows.get(child_id)
            if child is None or child.deleted or change is None:
                continue
            try:
                planned = plan_change(env, tx, child, change, facade=facade, via_parent=True)
            except ConvTasksError as exc:
                results[n] = exc
                continue
            old = stack_definition(env, tx, child)
            versions = [version_of(vars(row)) for row in stored[child_id]]
            results[n] = StackState(child, planned.definition, old, versions, existing_of(versions))
    return results


def new_hidden_values(definition: StackDefinition) -> list[Any]:
    """The values of a definition's hidden parameters (those it inherited included)."""
    hidden = definition.template.hidden_parameters()
    return [value for name, value in definition.parameters.items() if name in hidden]


def _update_context(
    env: EngineEnv,
    parent: StackState,
    head: ResourceVersion,
    prepared: PreparedResource,
    plugin: ResourceType,
) -> ActionContext:
    """The context the first step of the resource's update would have (as the node makes
    it: the new properties, the old, the facade, update_policy and references to it)."""
    name = head.name
    definition = parent.definition
    return replace(
        version_context(env, parent.stack.id, parent.stack.tenant, head, plugin, Action.UPDATE),
        properties=prepared.properties,
        old_properties=head.properties,
        facade=facade_of(prepared.resolved, hidden=name in definition.hidden_resources),
        update_policy=prepared.resolved.update_policy,
        attribute_references=tuple(definition.attribute_references.get(name, ())),
    )


def existing_of(versions: Sequence[ResourceVersion]) -> list[ExistingVersion]:
    """The versions as the traversal planner reads them (read with them: no second query)."""
    return [
        ExistingVersion(v.id, v.name, v.version, frozenset(v.requires), v.replaced_by is None)
        for v in versions
    ]


def child_unknown(
    resource_type: type[ResourceType],
    snippet: ResourceSnippet,
    changing: set[str],
    unknown: Unknown,
) -> Unknown:
    """Which inputs of the child of the resource `snippet` are known only at apply, given the
    resources of its stack that will change and its stack's own unknown inputs: its type
    says which of the child's parameters those are (a provider template's are its
    properties; an OS::Heat::Stack's the keys of its `parameters`); a type that cannot say
    (a group's members) has them unknown whole when any property is."""
    if unknown.every:
        return unknown
    properties = snippet.properties

    def unsure(value: Any) -> bool:
        return _reads(value, changing, unknown)

    if not any(unsure(value) for value in properties.values()):
        return NONE
    parameters = resource_type.unknown_child_parameters(properties, unsure)
    return Unknown(every=True) if parameters is None else Unknown(parameters=parameters)


def parameters_read(snippet: ResourceSnippet) -> frozenset[str]:
    """The parameters a resource's properties and metadata read (get_param)."""
    return _parameters(snippet.properties) | _parameters(snippet.metadata)


def _parameters(value: Any) -> frozenset[str]:
    found = set()
    for name, args in iter_calls(value):
        if name != "get_param":
            continue
        target = args[0] if isinstance(args, list) and args else args
        if isinstance(target, str):
            found.add(target)
    return frozenset(found)


def _reads(value: Any, changing: set[str], unknown: Unknown) -> bool:
    """Whether `value` reads a resource that will change or an input known only at apply."""
    for ref in references(value):
        if (ref.resource if isinstance(ref, GetAttr) else ref.name) in changing:
            return True
    return bool(_parameters(value) & unknown.parameters)
