"""What an update would converge a stack to: one planning step for the update and its preview.

`stack update` and `stack preview` (and `update --dry-run`) read the same request the
same way here, so a preview cannot drift from the update it previews: the stored
template, parameters, environment and files it keeps or replaces, the parameters a new
template retires (Heat's PATCH update), the facade, the definition, and the refusals
(a stack being deleted or suspended, an immutable parameter changed). Reads; writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.db import StackRow, TemplateRow, Transaction
from conv_tasks.engine.definition import (
    EnvironmentSources,
    StackDefinition,
    StackInputs,
    check_connections,
    check_immutable,
    declares_immutable,
    request_inputs,
    update_inputs,
    without_retired_parameters,
)
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.suspension import is_suspended, suspended_refusal
from conv_tasks.errors import Conflict, ConvTasksError
from conv_tasks.statuses import Action
from conv_tasks.template import StackIdentity, load_template, refuse_given, with_identity


@dataclass(frozen=True)
class ChangeRequest:
    """What an update asks for. `template` None keeps the stack's; `existing_parameters`
    keeps its parameters, environment and files and patches the given ones in."""

    template: Mapping[str, Any] | str | None
    parameters: Mapping[str, Any]
    existing_parameters: bool = False
    environment: EnvironmentSources | None = None
    files: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class PlannedChange:
    """The definition an update converges to, and what it stores with its template."""

    current: TemplateRow
    definition: StackDefinition
    values: dict[str, Any]
    inputs: StackInputs
    facade: Mapping[str, Any] | None
    kept: bool  # the parameters (or the template) were kept: so are the tags


def plan_change(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    request: ChangeRequest,
    *,
    facade: Mapping[str, Any] | None = None,
    via_parent: bool = False,
) -> PlannedChange:
    """The update `request` makes of `stack`, or the error the update would raise. A
    parent's resource updating its child (`via_parent`) gives its definition now as
    `facade`; any other update keeps the one stored."""
    if stack.action == Action.DELETE:
        raise Conflict(f"Stack {stack.name!r} is being deleted; it cannot be updated.")
    if is_suspended(stack):
        # As Heat: a suspended stack is resumed (or deleted), never updated.
        raise suspended_refusal(stack, "updated")
    current = tx.templates.get(stack.raw_template_id or 0)
    template = request.template
    source: Mapping[str, Any] | str = template if template is not None else current.template
    # Without a new template, the stack's parameters, environment and files are kept
    # and the given ones patched in (docs/features/environments.md).
    keep = request.existing_parameters or template is None
    refuse_given(request.parameters)
    values = {**current.parameters, **request.parameters} if keep else dict(request.parameters)
    inputs = update_inputs(
        current.environment, current.files, request.environment, request.files, keep=keep
    )
    if keep and template is not None:
        inputs, values = _retire_parameters(inputs, values, template, request)
    values = with_identity(values, StackIdentity(stack.name, stack.id, stack.tenant))
    if not via_parent:
        facade = current.facade
    definition = StackDefinition.build(
        source,
        values,
        env.registry,
        files=inputs.files,
        environment=inputs.environment,
        facade=facade,
        constraints=env.constraints,
    )
    if declares_immutable(definition):
        check_immutable(env.definitions.of_row(current), definition)
    check_connections(definition, stack.tenant, env.connections, env.registry)
    return PlannedChange(current, definition, values, inputs, facade, keep)


def _retire_parameters(
    inputs: StackInputs,
    values: dict[str, Any],
    template: Mapping[str, Any] | str,
    request: ChangeRequest,
) -> tuple[StackInputs, dict[str, Any]]:
    """Drop the kept parameters a new template no longer declares (Heat's PATCH update).
    A template that does not load is left to StackDefinition.build to report."""
    try:
        declared = frozenset(load_template(template, files=inputs.files).parameters)
    except ConvTasksError:
        return inputs, values
    return without_retired_parameters(
        inputs,
        values,
        declared=declared,
        given_values=request.parameters,
        given_environment=request_inputs(request.environment, None).environment.parameters,
    )
