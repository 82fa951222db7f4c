"""Beat jobs: find traversals that stopped moving and resume them; delete orphaned templates.

A traversal stops moving when a worker dies mid-node and its message is
lost, or when Redis loses the SyncPoints. The database holds the truth, so
the watchdog simply starts the stack's current operation again: converged
resources are no-ops the second time, and locks left by dead workers expire.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from conv_tasks.db import events as event_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.operations import restart_traversal
from conv_tasks.engine.status import CREATE, FAILED, IN_PROGRESS, UPDATE

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WatchdogReport:
    checked: int
    restarted: tuple[str, ...]
    timed_out: tuple[str, ...]


def _timed_out(stack: Stack, now: datetime) -> bool:
    if not stack.timeout_mins or stack.operation_started_at is None:
        return False
    return now > stack.operation_started_at + timedelta(minutes=stack.timeout_mins)


def run_watchdog(env: EngineEnv) -> WatchdogReport:
    now = datetime.now(UTC)
    stall = env.settings.stall_after
    with session_scope() as session:
        stacks = list(
            session.execute(
                select(
                    Stack.id,
                    Stack.current_traversal,
                    Stack.updated_at,
                    Stack.timeout_mins,
                    Stack.operation_started_at,
                    Stack.action,
                    Stack.disable_rollback,
                ).where(Stack.status == IN_PROGRESS, Stack.deleted_at.is_(None))
            )
        )
    restarted: list[str] = []
    timed_out: list[str] = []
    for stack_id, traversal, updated_at, timeout_mins, started_at, action, no_rollback in stacks:
        if traversal is None:
            continue
        if timeout_mins and started_at and now > started_at + timedelta(minutes=timeout_mins):
            if _fail_timed_out(env, stack_id, traversal, action, timeout_mins, no_rollback):
                timed_out.append(stack_id)
            continue
        beat = env.syncpoints.last_heartbeat(traversal)
        last = max(beat or 0.0, updated_at.timestamp())
        if time.time() - last < stall:
            continue
        reason = (
            f"Traversal made no progress for {int(time.time() - last)}s; "
            "resumed from the database by the watchdog"
        )
        if restart_traversal(env, stack_id, traversal, reason) is not None:
            log.warning("stack %s: %s", stack_id, reason)
            restarted.append(stack_id)
    return WatchdogReport(len(stacks), tuple(restarted), tuple(timed_out))


def _fail_timed_out(
    env: EngineEnv, stack_id: str, traversal: str, action: str, minutes: int, no_rollback: bool
) -> bool:
    reason = f"Stack {action} timed out after {minutes} minute(s)"
    with session_scope() as session:
        # A fresh traversal id stops every node of the timed-out one.
        if not stack_repo.swap_traversal(
            session, stack_id, traversal, str(uuid.uuid4()), status=FAILED, status_reason=reason
        ):
            return False
        event_repo.add_events(session, [event_repo.EventRecord(stack_id, action, FAILED, reason)])
    env.syncpoints.drop(traversal)
    if action in (CREATE, UPDATE) and not no_rollback:
        from conv_tasks.engine.operations import rollback_stack

        rollback_stack(env, tenant=None, stack_ref=stack_id, reason=f"Rolling back: {reason}")
    return True


def collect_templates() -> int:
    """Delete every template that is neither the current nor the previous one of any stack."""
    with session_scope() as session:
        return template_repo.delete_orphaned_templates(session)
