"""Beat jobs: find traversals that stopped moving and resume them; delete orphaned templates.

A traversal stops moving when a worker dies mid-node and its message is
lost, or when Redis loses the SyncPoints. The database holds the truth, so
the watchdog simply starts the stack's current operation again: converged
resources are no-ops the second time, and leases left by dead workers expire.
An operation past its timeout is failed instead (and rolled back, unless the
stack disables rollback). `judge` decides, purely; `run_watchdog` acts.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from conv_tasks.db import RunningOperation
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack import StackControl
from conv_tasks.statuses import Action

log = logging.getLogger(__name__)


class Watch(StrEnum):
    """What the watchdog does about one operation in progress."""

    LEAVE = "leave"  # it moves (or has no traversal to restart)
    RESTART = "restart"  # it made no progress for too long: start it again from the database
    TIME_OUT = "time-out"  # it ran past the stack's timeout: fail it


@dataclass(frozen=True)
class Judgement:
    watch: Watch
    reason: str = ""
    roll_back: bool = False  # TIME_OUT: a create or update rolls back, unless disabled


@dataclass(frozen=True)
class WatchdogReport:
    checked: int
    restarted: tuple[str, ...]
    timed_out: tuple[str, ...]


def judge(
    op: RunningOperation, *, now: datetime, clock: float, heartbeat: float | None, stall: float
) -> Judgement:
    """What to do about `op` at `now` (`clock`: the same instant as a Unix time), given its
    traversal's last heartbeat in Redis and how long a traversal may go without progress."""
    if op.traversal is None:
        return Judgement(Watch.LEAVE)
    if (
        op.timeout_mins
        and op.started_at
        and now > op.started_at + timedelta(minutes=op.timeout_mins)
    ):
        reason = f"Stack {op.action} timed out after {op.timeout_mins} minute(s)"
        roll_back = op.action in (Action.CREATE, Action.UPDATE) and not op.disable_rollback
        return Judgement(Watch.TIME_OUT, reason, roll_back)
    last = max(heartbeat or 0.0, op.updated_at.timestamp())
    idle = clock - last
    if idle < stall:
        return Judgement(Watch.LEAVE)
    reason = (
        f"Traversal made no progress for {int(idle)}s; resumed from the database by the watchdog"
    )
    return Judgement(Watch.RESTART, reason)


def run_watchdog(env: EngineEnv) -> WatchdogReport:
    with env.db.transaction() as tx:
        running = tx.stacks.running_operations()
    control = StackControl(env)
    restarted: list[str] = []
    timed_out: list[str] = []
    for op in running:
        traversal = op.traversal
        if traversal is None:
            continue
        verdict = judge(
            op,
            now=datetime.now(UTC),
            clock=time.time(),
            heartbeat=env.syncpoints.last_heartbeat(traversal),
            stall=env.settings.stall_after,
        )
        if verdict.watch == Watch.TIME_OUT:
            if control.time_out(
                op.stack_id, traversal, op.action, verdict.reason, roll_back=verdict.roll_back
            ):
                timed_out.append(op.stack_id)
        elif (
            verdict.watch == Watch.RESTART
            and control.restart(op.stack_id, traversal, verdict.reason) is not None
        ):
            log.warning("stack %s: %s", op.stack_id, verdict.reason)
            restarted.append(op.stack_id)
    return WatchdogReport(len(running), tuple(restarted), tuple(timed_out))


def collect_templates(env: EngineEnv) -> int:
    """Delete every template that is neither the current nor the previous one of any stack."""
    with env.db.transaction() as tx:
        return tx.templates.delete_orphaned()
