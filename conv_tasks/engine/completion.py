"""The end of a traversal: the stack goes *_COMPLETE or *_FAILED (seed 000).

On success the stack's template becomes the rollback target and templates
no stack refers to any more are deleted; a delete soft-deletes the stack.
On failure, unless rollback is disabled, a rollback to the last template
that completed starts at once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from conv_tasks.db import events as event_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.session import session_scope
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.propagate import failures_in
from conv_tasks.engine.status import COMPLETE, CREATE, DELETE, FAILED, IN_PROGRESS, UPDATE
from conv_tasks.errors import ConvTasksError

log = logging.getLogger(__name__)


def complete_traversal(
    env: EngineEnv, stack_id: str, traversal: str, data: Mapping[str, Any]
) -> str | None:
    """Finish the stack's operation. Returns the new status, or None if superseded."""
    failures = failures_in(data)
    rollback = False
    reason = ""
    with session_scope() as session:
        try:
            stack = stack_repo.get_stack(session, stack_id)
        except ConvTasksError:
            return None
        if stack.current_traversal != traversal or stack.status != IN_PROGRESS:
            return None
        action = stack.action
        if failures:
            reason = "; ".join(failures)
            rollback = action in (CREATE, UPDATE) and not stack.disable_rollback
            event_repo.add_events(
                session,
                [event_repo.EventRecord(stack_id, action, FAILED, reason, traversal=traversal)],
            )
            status = f"{action}_{FAILED}"
            # With a rollback due, the stack goes straight to ROLLBACK_IN_PROGRESS (the
            # failure is in its events): a client waiting for the stack never sees a
            # FAILED state that is about to change.
            if not rollback and not stack_repo.update_if_current(
                session, stack_id, traversal, status=FAILED, status_reason=reason
            ):
                return None
        else:
            old_ids = [i for i in (stack.raw_template_id, stack.prev_raw_template_id) if i]
            fields: dict[str, Any] = {
                "status": COMPLETE,
                "status_reason": f"Stack {action} completed successfully",
            }
            if action == DELETE:
                fields.update(
                    deleted_at=datetime.now(UTC),
                    raw_template_id=None,
                    prev_raw_template_id=None,
                    current_graph=None,
                )
            else:
                fields.update(prev_raw_template_id=stack.raw_template_id)
            if not stack_repo.update_if_current(session, stack_id, traversal, **fields):
                return None
            event_repo.add_events(
                session,
                [
                    event_repo.EventRecord(
                        stack_id, action, COMPLETE, fields["status_reason"], traversal=traversal
                    )
                ],
            )
            session.flush()
            template_repo.delete_orphaned_templates(session, only=old_ids)
            status = f"{action}_{COMPLETE}"
    env.syncpoints.drop(traversal)
    if rollback:
        _start_rollback(env, stack_id, traversal, action, reason)
    return status


def _start_rollback(
    env: EngineEnv, stack_id: str, traversal: str, action: str, reason: str
) -> None:
    from conv_tasks.engine.operations import rollback_stack

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
                status=FAILED,
                status_reason=f"{reason}; rollback did not start: {exc}",
            )
