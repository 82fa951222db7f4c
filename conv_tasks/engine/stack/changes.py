"""The stack operations themselves, shared by both faces (tenant.py and control.py).

Each starts its traversal in the caller's transaction, on a stack row the face has
already found (by the tenant's name or id, or by id): it stores the template, checks the
stack's state, and calls launch.begin. A refused operation raises before anything is
written; the face launches the traversal only after the transaction commits.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from conv_tasks.db import EventRecord, NewStack, StackRow, TemplateRow, Transaction
from conv_tasks.engine.definition import (
    EMPTY_TEMPLATE,
    StackDefinition,
    StackInputs,
    check_connections,
    request_inputs,
)
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.completion import failure_summary
from conv_tasks.engine.stack.forget import RETAINED, SKIPPED, checked_names, record_forgotten
from conv_tasks.engine.stack.idempotency import replay_create
from conv_tasks.engine.stack.launch import Started, begin, launch
from conv_tasks.engine.stack.nesting import Nesting
from conv_tasks.engine.stack.planning import ChangeRequest, PlannedChange, plan_change
from conv_tasks.engine.stack.results import OperationResult
from conv_tasks.errors import Conflict, Duplicate, LostRace, PayloadError, Problem
from conv_tasks.requests import NewStackRequest
from conv_tasks.statuses import Action, OperationOutcome, Status, state_name
from conv_tasks.tags import checked_tags
from conv_tasks.template import StackIdentity, refuse_given, with_identity

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,254}$")


def check_stack_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise PayloadError(
            [
                Problem(
                    "name",
                    "a stack name must start with a letter and hold only letters, digits, "
                    f"'_', '-' and '.' (at most 255 characters), got {name!r}",
                )
            ]
        )
    return name


def started_result(
    stack: StackRow, started: Started, definition: StackDefinition
) -> OperationResult:
    return OperationResult(
        stack_id=stack.id,
        name=stack.name,
        action=started.action,
        state=state_name(started.action, Status.IN_PROGRESS),
        event_id=started.event_id,
        traversal=started.traversal,
        warnings=tuple(definition.warnings),
    )


def create(
    env: EngineEnv,
    tenant: str,
    request: NewStackRequest,
    *,
    nesting: Nesting | None = None,
    facade: Mapping[str, Any] | None = None,
) -> OperationResult:
    """Start creating a stack of `tenant`. `nesting` makes it the child of a parent's
    resource, and `facade` is that resource's definition for resource_facade."""
    name = check_stack_name(request.name)
    tags = checked_tags(list(request.tags or ()))
    key = request.idempotency_key
    if key is not None:
        replayed = replay_create(env, tenant, name, key)
        if replayed is not None:
            return replayed
    inputs = request_inputs(request.environment, request.files)
    refuse_given(request.parameters)
    stack_id = str(uuid.uuid4())
    parameters = with_identity(request.parameters, StackIdentity(name, stack_id, tenant))
    definition = StackDefinition.build(
        request.template,
        parameters,
        env.registry,
        files=inputs.files,
        environment=inputs.environment,
        facade=facade,
        constraints=env.constraints,
    )
    check_connections(definition, tenant, env.connections, env.registry)
    new = NewStack(
        id=stack_id,
        name=name,
        tenant=tenant,
        action=Action.CREATE,
        status=Status.IN_PROGRESS,
        disable_rollback=request.disable_rollback,
        timeout_mins=request.timeout_mins,
        idempotency_key=key,
        tags=tuple(tags),
        parent_stack_id=nesting.parent_stack_id if nesting else None,
        parent_resource=nesting.parent_resource if nesting else None,
        nested_depth=nesting.depth if nesting else 0,
    )
    try:
        with env.db.transaction() as tx:
            raw = store_template(env, tx, definition, parameters, inputs, facade)
            stack = tx.stacks.add(new)
            started = begin(
                env,
                tx,
                stack,
                action=Action.CREATE,
                template_id=raw.id,
                definition=definition,
                expected=None,
                reason="Stack CREATE started",
            )
    except Duplicate:
        # A request with the same key may have made the stack meanwhile: answer with it.
        replayed = replay_create(env, tenant, name, key) if key else None
        if replayed is not None:
            return replayed
        raise
    launch(env, started, None)
    return started_result(stack, started, definition)


def update(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    request: ChangeRequest,
    *,
    disable_rollback: bool | None = None,
    timeout_mins: int | None = None,
    tags: tuple[str, ...] | None = None,
    facade: Mapping[str, Any] | None = None,
    via_parent: bool = False,
    planned: PlannedChange | None = None,
) -> tuple[Started, StackDefinition]:
    """Start an update. Tags as Heat (conv_tasks.tags): given, they replace the stack's;
    not given, an update keeping the parameters or the template keeps them, and a full
    update (a new template, parameters not kept) clears them. `planned`: the request
    already planned in this transaction (apply compares it first)."""
    new_tags = checked_tags(list(tags)) if tags is not None else None
    if planned is None:
        planned = plan_change(env, tx, stack, request, facade=facade, via_parent=via_parent)
    raw = store_template(
        env, tx, planned.definition, planned.values, planned.inputs, planned.facade
    )
    options: dict[str, Any] = {}
    if disable_rollback is not None:
        options["disable_rollback"] = disable_rollback
    if timeout_mins is not None:
        options["timeout_mins"] = timeout_mins
    if new_tags is not None or not planned.kept:
        options["tags"] = list(new_tags or ())
    started = begin(
        env,
        tx,
        stack,
        action=Action.UPDATE,
        template_id=raw.id,
        definition=planned.definition,
        expected=stack.current_traversal,
        reason="Stack UPDATE started",
        options=options,
    )
    return started, planned.definition


def store_template(
    env: EngineEnv,
    tx: Transaction,
    definition: StackDefinition,
    parameters: dict[str, Any],
    inputs: StackInputs,
    facade: Mapping[str, Any] | None = None,
) -> TemplateRow:
    """Store the template the definition was built from (with the facade it read), and
    keep the definition cached."""
    environment, files = inputs.stored()
    stored_facade = None if facade is None else dict(facade)
    raw = tx.templates.add(
        dict(definition.template.raw), parameters, files, environment, stored_facade
    )
    env.definitions.remember(
        raw.id, definition, raw.template, raw.parameters, environment, files, stored_facade
    )
    return raw


def _empty_template(env: EngineEnv, tx: Transaction) -> tuple[int, StackDefinition]:
    raw = tx.templates.add(dict(EMPTY_TEMPLATE), {})
    return raw.id, env.definitions.of_row(raw)


def delete(
    env: EngineEnv, tx: Transaction, stack: StackRow, *, retain: Sequence[str] = ()
) -> tuple[Started, StackDefinition]:
    """Start deleting the stack. The resources `retain` names are left alone and forgotten
    (forget.py)."""
    if retain:
        known = {v.name for v in tx.resources.existing(stack.id)}
        retain = checked_names(stack, retain, known, field="retain")
    template_id, definition = _empty_template(env, tx)
    old = stack.current_traversal
    if old:
        tx.resources.interrupt_actions(stack.id, old, "the stack is being deleted")
    kept = tx.resources.forget(stack.id, retain)
    started = begin(
        env,
        tx,
        stack,
        action=Action.DELETE,
        template_id=template_id,
        definition=definition,
        expected=old,
        reason="Stack DELETE started",
    )
    record_forgotten(tx, stack, kept, started, RETAINED)
    return started, definition


def rollback(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    *,
    expected: str | None,
    reason: str = "Stack ROLLBACK started",
    require_failed: bool = True,
    interrupt: str | None = None,
    skip: Sequence[str] = (),
) -> tuple[Started, StackDefinition]:
    """Update the stack back to the last template that completed (seed 000).

    With no such template (a failed create), rolling back deletes every resource.
    `expected` pins the traversal this rollback replaces; `interrupt`, if given, is why that
    traversal's actions under way are asked to stop. The resources `skip` names, which the
    rollback would delete, are left alone and forgotten instead (forget.py).
    """
    if stack.action == Action.DELETE:
        raise Conflict(f"Stack {stack.name!r} is being deleted; it cannot be rolled back.")
    if stack.action in (Action.SUSPEND, Action.RESUME):
        raise Conflict(
            f"Stack {stack.name!r} is {stack.state}: a suspend or resume is not rolled back; "
            "resume the stack (or delete it)."
        )
    if require_failed and stack.status == Status.COMPLETE:
        raise Conflict(
            f"Stack {stack.name!r} is {stack.state}: only a failed or in-progress operation "
            "can be rolled back."
        )
    if stack.prev_raw_template_id is not None:
        raw = tx.templates.get(stack.prev_raw_template_id)
        template_id, definition = raw.id, env.definitions.of_row(raw)
    else:
        template_id, definition = _empty_template(env, tx)
    if skip:
        known = {v.name for v in tx.resources.existing(stack.id)}
        target = definition.template.resources
        skip = checked_names(stack, skip, known, field="skip", kept_by_target=target)
    if interrupt and expected:
        tx.resources.interrupt_actions(stack.id, expected, interrupt)
    kept = tx.resources.forget(stack.id, skip)
    started = begin(
        env,
        tx,
        stack,
        action=Action.ROLLBACK,
        template_id=template_id,
        definition=definition,
        expected=expected,
        reason=reason,
    )
    record_forgotten(tx, stack, kept, started, SKIPPED)
    return started, definition


def check_cancellable(stack: StackRow) -> None:
    if not (stack.action in (Action.UPDATE, Action.CREATE) and stack.in_progress):
        raise Conflict(
            f"Stack {stack.name!r} is {stack.state}: only an update in progress can be cancelled."
        )


def cancel_without_rollback(env: EngineEnv, tx: Transaction, stack: StackRow) -> OperationResult:
    """Stop the update in progress where it stands: the stack goes *_FAILED."""
    check_cancellable(stack)
    old, action = stack.current_traversal, stack.action
    reason = f"Stack {action} cancelled by the user"
    if old:
        reason = f"{reason}: {failure_summary(tx, stack, old)}"
    if old:
        tx.resources.interrupt_actions(stack.id, old, f"the stack {action.lower()} was cancelled")
    if not tx.stacks.swap_traversal(
        stack.id, old, str(uuid.uuid4()), status=Status.FAILED, status_reason=reason
    ):
        raise LostRace(f"Stack {stack.name!r} changed while cancelling; try again.")
    [event_id] = tx.events.add([EventRecord(stack.id, action, Status.FAILED, reason)])
    if old:
        tx.operations.finish(
            stack_id=stack.id, traversal=old, result=OperationOutcome.FAILED, reason=reason
        )
    return OperationResult(
        stack_id=stack.id,
        name=stack.name,
        action=action,
        state=state_name(action, Status.FAILED),
        event_id=event_id,
    )
