"""Stack operations: create, update, delete, rollback, cancel, and restarting a stalled traversal.

Each operation checks the request, stores the template, and starts a
traversal (engine.launch) in one transaction; a refused request changes
nothing. The first nodes are enqueued only after that transaction commits.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from conv_tasks.db import events as event_repo
from conv_tasks.db import resources as resource_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.models import RawTemplate, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine.definition.model import EMPTY_TEMPLATE, StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.health import restart_check
from conv_tasks.engine.stack.idempotency import replay_create
from conv_tasks.engine.definition.immutable import check_immutable, declares_immutable
from conv_tasks.engine.stack.launch import Started, begin, launch
from conv_tasks.engine.stack.nesting import Nesting, refuse_direct_change
from conv_tasks.engine.definition.stack_inputs import (
    EnvironmentSources,
    StackInputs,
    request_inputs,
    update_inputs,
    without_retired_parameters,
)
from conv_tasks.statuses import Action, Status
from conv_tasks.errors import Conflict, ConvTasksError, LostRace, PayloadError, Problem
from conv_tasks.tags import checked_tags
from conv_tasks.template import load_template

log = logging.getLogger(__name__)

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,254}$")


def _result(stack: Stack, started: Started, definition: StackDefinition) -> dict[str, Any]:
    return {
        "stack_id": stack.id,
        "name": stack.name,
        "action": started.action,
        "status": f"{started.action}_{Status.IN_PROGRESS}",
        "traversal": started.traversal,
        "event_id": started.event_id,
        "warnings": list(definition.warnings),
    }


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


def create_stack(
    env: EngineEnv,
    *,
    tenant: str,
    name: str,
    template: Mapping[str, Any] | str,
    parameters: Mapping[str, Any],
    disable_rollback: bool = False,
    timeout_mins: int | None = None,
    idempotency_key: str | None = None,
    environment: EnvironmentSources | None = None,
    files: Mapping[str, Any] | None = None,
    nesting: Nesting | None = None,
    tags: Sequence[str] | None = None,
    facade: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Start creating a stack. `nesting` makes it the child of a parent's resource, and
    `facade` is that resource's definition for resource_facade (the ChildStacks service
    passes them; users cannot)."""
    check_stack_name(name)
    stack_tags = checked_tags(tags or [])
    if idempotency_key is not None:
        replayed = replay_create(tenant, name, idempotency_key)
        if replayed is not None:
            return replayed
    inputs = request_inputs(environment, files)
    definition = StackDefinition.build(
        template,
        parameters,
        env.registry,
        files=inputs.files,
        environment=inputs.environment,
        facade=facade,
    )
    stack_id = str(uuid.uuid4())
    try:
        with session_scope() as session:
            raw = _store_template(env, session, definition, dict(parameters), inputs, facade)
            stack = Stack(
                id=stack_id,
                name=name,
                tenant=tenant,
                action=Action.CREATE,
                status=Status.IN_PROGRESS,
                status_reason="",
                disable_rollback=disable_rollback,
                timeout_mins=timeout_mins,
                idempotency_key=idempotency_key,
                tags=list(stack_tags),
            )
            if nesting is not None:
                stack.parent_stack_id = nesting.parent_stack_id
                stack.parent_resource = nesting.parent_resource
                stack.nested_depth = nesting.depth
            session.add(stack)
            session.flush()
            started = begin(
                env,
                session,
                stack,
                action=Action.CREATE,
                template_id=raw.id,
                definition=definition,
                expected=None,
                reason="Stack CREATE started",
            )
    except IntegrityError:
        # A request with the same key may have made the stack meanwhile: answer with it.
        replayed = replay_create(tenant, name, idempotency_key) if idempotency_key else None
        if replayed is not None:
            return replayed
        raise Conflict(f"A stack named {name!r} already exists.") from None
    launch(env, started, None)
    return _result(stack, started, definition)


def _load_for_change(
    session: Session, tenant: str, stack_ref: str, *, via_parent: bool = False
) -> Stack:
    """The stack a change is for; a nested stack only when its parent asks (`via_parent`),
    or when its parent is gone (a child its parent's resource retained is the user's)."""
    stack = stack_repo.find_stack(session, tenant, stack_ref)
    if stack.parent_stack_id is not None and not via_parent:
        parent = session.get(Stack, stack.parent_stack_id)
        if parent is not None and parent.deleted_at is None:
            refuse_direct_change(stack.name, parent.name, stack.parent_resource)
    return stack


def update_stack(
    env: EngineEnv,
    *,
    tenant: str,
    stack_ref: str,
    template: Mapping[str, Any] | str | None,
    parameters: Mapping[str, Any],
    existing_parameters: bool = False,
    disable_rollback: bool | None = None,
    timeout_mins: int | None = None,
    environment: EnvironmentSources | None = None,
    files: Mapping[str, Any] | None = None,
    via_parent: bool = False,
    tags: Sequence[str] | None = None,
    facade: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Start an update. Tags as Heat (conv_tasks.tags): given, they replace the stack's;
    not given, an update keeping the parameters or the template keeps them, and a full
    update (a new template, parameters not kept) clears them. A parent's resource updating
    its child (`via_parent`) gives its definition now as `facade`; any other update keeps
    the one stored."""
    new_tags = checked_tags(tags) if tags is not None else None
    with session_scope() as session:
        stack = _load_for_change(session, tenant, stack_ref, via_parent=via_parent)
        if stack.action == Action.DELETE:
            raise Conflict(f"Stack {stack.name!r} is being deleted; it cannot be updated.")
        current = template_repo.get_template(session, stack.raw_template_id or 0)
        source: Mapping[str, Any] | str = template if template is not None else current.template
        # Without a new template, the stack's parameters, environment and files are kept
        # and the given ones patched in (README "Environments").
        keep = existing_parameters or template is None
        values = {**current.parameters, **parameters} if keep else dict(parameters)
        inputs = update_inputs(current.environment, current.files, environment, files, keep=keep)
        if keep and template is not None:
            inputs, values = _retire_parameters(inputs, values, template, parameters, environment)
        if not via_parent:
            facade = current.facade
        definition = StackDefinition.build(
            source,
            values,
            env.registry,
            files=inputs.files,
            environment=inputs.environment,
            facade=facade,
        )
        if declares_immutable(definition):
            check_immutable(env.definitions.of_row(current), definition)
        raw = _store_template(env, session, definition, values, inputs, facade)
        if disable_rollback is not None:
            stack.disable_rollback = disable_rollback
        if timeout_mins is not None:
            stack.timeout_mins = timeout_mins
        if new_tags is not None or not keep:
            stack.tags = list(new_tags or ())
        session.flush()
        old = stack.current_traversal
        started = begin(
            env,
            session,
            stack,
            action=Action.UPDATE,
            template_id=raw.id,
            definition=definition,
            expected=old,
            reason="Stack UPDATE started",
        )
    launch(env, started, old)
    return _result(stack, started, definition)


def _retire_parameters(
    inputs: StackInputs,
    values: dict[str, Any],
    template: Mapping[str, Any] | str,
    given: Mapping[str, Any],
    environment: EnvironmentSources | None,
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
        given_values=given,
        given_environment=request_inputs(environment, None).environment.parameters,
    )


def _store_template(
    env: EngineEnv,
    session: Session,
    definition: StackDefinition,
    parameters: dict[str, Any],
    inputs: StackInputs,
    facade: Mapping[str, Any] | None = None,
) -> RawTemplate:
    """Store the template the definition was built from (with the facade it read), and
    keep the definition cached."""
    environment, files = inputs.stored()
    stored_facade = None if facade is None else dict(facade)
    raw = template_repo.add_template(
        session, dict(definition.template.raw), parameters, files, environment, stored_facade
    )
    env.definitions.remember(
        raw.id, definition, raw.template, raw.parameters, environment, files, stored_facade
    )
    return raw


def _empty_template_id(env: EngineEnv, session: Session) -> tuple[int, StackDefinition]:
    raw = template_repo.add_template(session, dict(EMPTY_TEMPLATE), {})
    return raw.id, env.definitions.of_row(raw)


def delete_stack(
    env: EngineEnv, *, tenant: str, stack_ref: str, via_parent: bool = False
) -> dict[str, Any]:
    with session_scope() as session:
        stack = _load_for_change(session, tenant, stack_ref, via_parent=via_parent)
        template_id, definition = _empty_template_id(env, session)
        old = stack.current_traversal
        if old:
            resource_repo.interrupt_actions(session, stack.id, old, "the stack is being deleted")
        started = begin(
            env,
            session,
            stack,
            action=Action.DELETE,
            template_id=template_id,
            definition=definition,
            expected=old,
            reason="Stack DELETE started",
        )
    launch(env, started, old)
    return _result(stack, started, definition)


def rollback_stack(
    env: EngineEnv,
    *,
    tenant: str | None,
    stack_ref: str,
    expected: str | None = None,
    reason: str = "Stack ROLLBACK started",
    require_failed: bool = True,
    interrupt: str | None = None,
) -> dict[str, Any]:
    """Update the stack back to the last template that completed (seed 000).

    With no such template (a failed create), rolling back deletes every
    resource. `expected` pins the traversal this rollback replaces; `interrupt`, if given,
    is why that traversal's actions under way are asked to stop.
    """
    with session_scope() as session:
        if tenant is None:
            stack = stack_repo.get_stack(session, stack_ref)
        else:
            stack = _load_for_change(session, tenant, stack_ref)
        if stack.action == Action.DELETE:
            raise Conflict(f"Stack {stack.name!r} is being deleted; it cannot be rolled back.")
        if require_failed and stack.status == Status.COMPLETE:
            raise Conflict(
                f"Stack {stack.name!r} is {stack.action}_{stack.status}: only a failed or "
                "in-progress operation can be rolled back."
            )
        if stack.prev_raw_template_id is not None:
            raw = template_repo.get_template(session, stack.prev_raw_template_id)
            template_id = raw.id
            definition = env.definitions.of_row(raw)
        else:
            template_id, definition = _empty_template_id(env, session)
        old = stack.current_traversal if expected is None else expected
        if interrupt and old:
            resource_repo.interrupt_actions(session, stack.id, old, interrupt)
        started = begin(
            env,
            session,
            stack,
            action=Action.ROLLBACK,
            template_id=template_id,
            definition=definition,
            expected=old,
            reason=reason,
        )
    launch(env, started, old)
    return _result(stack, started, definition)


def cancel_update(
    env: EngineEnv, *, tenant: str, stack_ref: str, rollback: bool = True, via_parent: bool = False
) -> dict[str, Any]:
    """Stop an update in progress, rolling back to the last complete template or not."""
    with session_scope() as session:
        stack = _load_for_change(session, tenant, stack_ref, via_parent=via_parent)
        if not (
            stack.action in (Action.UPDATE, Action.CREATE) and stack.status == Status.IN_PROGRESS
        ):
            raise Conflict(
                f"Stack {stack.name!r} is {stack.action}_{stack.status}: only an update in "
                "progress can be cancelled."
            )
        old = stack.current_traversal
        action = stack.action
        if not rollback:
            reason = f"Stack {action} cancelled by the user"
            if old:
                resource_repo.interrupt_actions(
                    session, stack.id, old, f"the stack {action.lower()} was cancelled"
                )
            if not stack_repo.swap_traversal(
                session,
                stack.id,
                old,
                str(uuid.uuid4()),
                status=Status.FAILED,
                status_reason=reason,
            ):
                raise LostRace(f"Stack {stack.name!r} changed while cancelling; try again.")
            [event_id] = event_repo.add_events(
                session, [event_repo.EventRecord(stack.id, action, Status.FAILED, reason)]
            )
            result = {
                "stack_id": stack.id,
                "name": stack.name,
                "action": action,
                "status": f"{action}_{Status.FAILED}",
                "event_id": event_id,
            }
    if not rollback:
        if old:
            env.syncpoints.drop(old)
        return result
    return rollback_stack(
        env,
        tenant=tenant,
        stack_ref=stack_ref,
        expected=old,
        reason=f"Stack {action} cancelled; rolling back",
        require_failed=False,
        interrupt=f"the stack {action.lower()} was cancelled",
    )


def restart_traversal(env: EngineEnv, stack_id: str, expected: str, reason: str) -> Started | None:
    """Start the stack's current operation again from the database's truth (the watchdog).

    Converged resources are no-ops on the second pass; nothing is done twice.
    """
    try:
        with session_scope() as session:
            stack = stack_repo.get_stack(session, stack_id)
            if stack.current_traversal != expected or stack.status != Status.IN_PROGRESS:
                return None
            if stack.action == Action.CHECK:
                started = restart_check(env, session, stack, expected, reason)
            else:
                raw = template_repo.get_template(session, stack.raw_template_id or 0)
                definition = env.definitions.of_row(raw)
                started = begin(
                    env,
                    session,
                    stack,
                    action=stack.action,
                    template_id=raw.id,
                    definition=definition,
                    expected=expected,
                    reason=reason,
                )
    except LostRace:
        return None
    launch(env, started, expected)
    return started


def roll_back_failed(
    env: EngineEnv, stack_id: str, traversal: str, action: str, reason: str
) -> None:
    """A traversal failed with rollback enabled: roll back to the last complete template."""
    try:
        rollback_stack(
            env,
            tenant=None,
            stack_ref=stack_id,
            expected=traversal,
            reason=f"{action} failed ({reason}); rolling back",
            require_failed=False,
        )
    except ConvTasksError as exc:
        log.warning("rollback of stack %s did not start: %s", stack_id, exc)
        with session_scope() as session:
            stack_repo.update_if_current(
                session,
                stack_id,
                traversal,
                status=Status.FAILED,
                status_reason=f"{reason}; rollback did not start: {exc}",
            )
