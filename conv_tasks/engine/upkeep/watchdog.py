"""Beat jobs: find traversals that stopped moving and resume them; delete orphaned templates.

A traversal stops moving when a worker dies mid-node and its message is
lost, or when Redis loses the SyncPoints. The database holds the truth, so
the watchdog simply starts the stack's current operation again: converged
resources are no-ops the second time, and leases left by dead workers expire.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from conv_tasks.db import events as event_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.session import session_scope
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.operations import restart_traversal, rollback_stack
from conv_tasks.statuses import Action, Status

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WatchdogReport:
    checked: int
    restarted: tuple[str, ...]
    timed_out: tuple[str, ...]


def run_watchdog(env: EngineEnv) -> WatchdogReport:
    now = datetime.now(UTC)
    stall = env.settings.stall_after
    with session_scope() as session:
        running = stack_repo.running_operations(session)
    restarted: list[str] = []
    timed_out: list[str] = []
    for op in running:
        if op.traversal is None:
            continue
        if (
            op.timeout_mins
            and op.started_at
            and now > op.started_at + timedelta(minutes=op.timeout_mins)
        ):
            if _fail_timed_out(env, op):
                timed_out.append(op.stack_id)
            continue
        beat = env.syncpoints.last_heartbeat(op.traversal)
        last = max(beat or 0.0, op.updated_at.timestamp())
        if time.time() - last < stall:
            continue
        reason = (
            f"Traversal made no progress for {int(time.time() - last)}s; "
            "resumed from the database by the watchdog"
        )
        if restart_traversal(env, op.stack_id, op.traversal, reason) is not None:
            log.warning("stack %s: %s", op.stack_id, reason)
            restarted.append(op.stack_id)
    return WatchdogReport(len(running), tuple(restarted), tuple(timed_out))


def _fail_timed_out(env: EngineEnv, op: stack_repo.RunningOperation) -> bool:
    reason = f"Stack {op.action} timed out after {op.timeout_mins} minute(s)"
    assert op.traversal is not None
    with session_scope() as session:
        # A fresh traversal id stops every node of the timed-out one.
        if not stack_repo.swap_traversal(
            session,
            op.stack_id,
            op.traversal,
            str(uuid.uuid4()),
            status=Status.FAILED,
            status_reason=reason,
        ):
            return False
        event_repo.add_events(
            session, [event_repo.EventRecord(op.stack_id, op.action, Status.FAILED, reason)]
        )
    env.syncpoints.drop(op.traversal)
    if op.action in (Action.CREATE, Action.UPDATE) and not op.disable_rollback:
        rollback_stack(env, tenant=None, stack_ref=op.stack_id, reason=f"Rolling back: {reason}")
    return True


def collect_templates() -> int:
    """Delete every template that is neither the current nor the previous one of any stack."""
    with session_scope() as session:
        return template_repo.delete_orphaned_templates(session)
