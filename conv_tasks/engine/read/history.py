"""A stack's history: one entry per operation, newest first, as JSON-able dicts.

Read from the stack's operation rows (conv_tasks.db.operations), written as each
operation started and ended: never computed from the events here. Reasons go through the
stack's redactor, like every other free text shown.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import OperationRow
from conv_tasks.engine.definition import Redactor
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.read.views import iso_time, redactor_for, stack_definition

# The characters of an operation's reason shown (one line).
REASON_SHOWN = 1000


def one_line(text: str, limit: int) -> str:
    """`text` on one line (its line breaks and runs of blanks made single spaces), cut to
    `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def operation_view(row: OperationRow, redact: Redactor) -> dict[str, Any]:
    duration = (row.ended_at - row.started_at).total_seconds() if row.ended_at else None
    return {
        "id": row.id,
        "traversal": row.traversal,
        "action": row.action,
        "tenant": row.tenant,
        "started_at": iso_time(row.started_at),
        "ended_at": iso_time(row.ended_at),
        "duration_secs": None if duration is None else max(0.0, duration),
        "result": row.result,
        "reason": one_line(redact(row.reason), REASON_SHOWN),
        "counts": {
            "created": row.resources_created,
            "updated": row.resources_updated,
            "replaced": row.resources_replaced,
            "deleted": row.resources_deleted,
            "failed": row.resources_failed,
        },
        "failures": [
            {"resource": failure.resource, "reason": one_line(redact(failure.reason), REASON_SHOWN)}
            for failure in row.failures
        ],
        "watchdog_restarts": row.watchdog_restarts,
    }


def stack_history(
    env: EngineEnv, tenant: str, ref: str, *, limit: int = 20, before: int | None = None
) -> dict[str, Any]:
    """{"operations": [...], "next"}: up to `limit` operations of the stack (a deleted one
    too, by id), older than operation `before` when given, newest first; `next` is what to
    pass as `before` for the page after, None on the last page."""
    with env.db.transaction() as tx:
        stack = tx.stacks.find_any(tenant, ref)
        rows = tx.operations.of_stack(stack.id, limit=limit + 1, before=before)
        redact = Redactor(()) if stack.deleted else redactor_for(stack_definition(env, tx, stack))
    shown = rows[:limit]
    return {
        "operations": [operation_view(row, redact) for row in shown],
        "next": shown[-1].id if len(rows) > limit else None,
    }
