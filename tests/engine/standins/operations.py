"""The stand-in for conv_tasks.db.operations.Operations: the stack operation rows, with the
real statements' rules (one in progress superseded by the next, a restart carried over, the
counts read from the operation's own events as it ends)."""

from __future__ import annotations

from typing import Any

from conv_tasks.db.operations import (
    FAILURE_REASON_CHARS,
    FAILURES_KEPT,
    REASON_CHARS,
    REPLACING,
)
from conv_tasks.db.rows import OperationRow, operation_row
from conv_tasks.db.validation import require_uuid
from conv_tasks.statuses import OperationOutcome

from .schema import Row
from .tables import Work, columns_of


def _judged(events: list[Row]) -> dict[str, Any]:
    """One resource's events of an operation (by id), folded as _FINISH folds them."""
    done = {e["action"] for e in events if e["status"] == "COMPLETE"}
    replacing = any(
        e["status"] == "IN_PROGRESS"
        and e["action"] == "CREATE"
        and e["reason"].startswith(REPLACING)
        for e in events
    )
    failed = events[-1]["status"] == "FAILED"
    created, updated, deleted = "CREATE" in done, "UPDATE" in done, "DELETE" in done
    replaced = not failed and ((created and (deleted or replacing)) or (updated and deleted))
    return {
        "failed": failed,
        "replaced": replaced,
        "created": not failed and not replaced and created,
        "updated": not failed and not replaced and not created and updated,
        "deleted": not failed and not replaced and not created and not updated and deleted,
        "reason": events[-1]["reason"],
        "last_id": events[-1]["id"],
    }


class Operations:
    def __init__(self, work: Work) -> None:
        self._work = work

    def _in_progress(self, stack_id: str) -> list[Row]:
        return [
            r
            for r in self._work.rows("stack_operation")
            if r["stack_id"] == stack_id and r["result"] == "IN_PROGRESS"
        ]

    def _finish(self, row: Row, result: OperationOutcome, reason: str) -> None:
        traversals = {*row["restarted_from"], row["traversal"]}
        first = row["first_event_id"]
        by_name: dict[str, list[Row]] = {}
        for event in sorted(self._work.rows("event"), key=lambda e: e["id"]):
            if (
                event["stack_id"] == row["stack_id"]
                and first is not None
                and event["id"] >= first
                and event["traversal"] in traversals
                and event["resource_name"] is not None
            ):
                by_name.setdefault(event["resource_name"], []).append(event)
        judged = {name: _judged(events) for name, events in by_name.items()}
        failed = sorted(
            (j["last_id"], name, j["reason"]) for name, j in judged.items() if j["failed"]
        )
        counts = {
            f"resources_{kind}": sum(1 for j in judged.values() if j[kind])
            for kind in ("created", "updated", "replaced", "deleted", "failed")
        }
        self._work.update(
            "stack_operation",
            row["id"],
            result=str(result),
            reason=reason[:REASON_CHARS],
            ended_at=self._work.now,
            failures=[
                {"resource": name, "reason": text[:FAILURE_REASON_CHARS]}
                for _, name, text in failed[:FAILURES_KEPT]
            ],
            **counts,
        )

    def start(
        self,
        *,
        stack_id: str,
        tenant: str,
        traversal: str,
        action: str,
        first_event_id: int | None,
        superseded_reason: str,
        watchdog_restarts: int = 0,
    ) -> int:
        require_uuid(stack_id, "stack_id")
        require_uuid(traversal, "traversal")
        self._work.statement("operations.start")
        for row in self._in_progress(stack_id):
            self._finish(row, OperationOutcome.SUPERSEDED, superseded_reason)
        row = self._work.insert(
            "stack_operation",
            {
                "stack_id": stack_id,
                "tenant": tenant,
                "traversal": traversal,
                "action": str(action),
                "result": str(OperationOutcome.IN_PROGRESS),
                "first_event_id": first_event_id,
                "watchdog_restarts": watchdog_restarts,
            },
        )
        return int(row["id"])

    def resume(self, *, stack_id: str, old: str, new: str) -> bool:
        require_uuid(new, "new traversal")
        self._work.statement("operations.resume")
        found = [r for r in self._in_progress(stack_id) if r["traversal"] == old]
        for row in found:
            self._work.update(
                "stack_operation",
                row["id"],
                traversal=new,
                restarted_from=[*row["restarted_from"], old],
                watchdog_restarts=row["watchdog_restarts"] + 1,
            )
        return bool(found)

    def resumes_for(self, *, stack_id: str, traversal: str, reason_prefix: str) -> int:
        self._work.statement("operations.resumes_for")
        count = 0
        for row in self._work.rows("stack_operation"):
            if row["stack_id"] != stack_id or row["traversal"] != traversal:
                continue
            traversals = {*row["restarted_from"], row["traversal"]}
            first = row["first_event_id"] or 0
            count += sum(
                1
                for event in self._work.rows("event")
                if event["stack_id"] == stack_id
                and event["id"] >= first
                and event["traversal"] in traversals
                and event["resource_name"] is None
                and event["reason"].startswith(reason_prefix)
            )
        return count

    def finish(
        self, *, stack_id: str, traversal: str, result: OperationOutcome, reason: str
    ) -> bool:
        self._work.statement("operations.finish")
        found = [r for r in self._in_progress(stack_id) if r["traversal"] == traversal]
        for row in found:
            self._finish(row, result, reason)
        return bool(found)

    def of_stack(
        self, stack_id: str, *, limit: int, before: int | None = None
    ) -> list[OperationRow]:
        self._work.statement("operations.of_stack")
        rows = [
            r
            for r in self._work.rows("stack_operation")
            if r["stack_id"] == stack_id and (before is None or r["id"] < before)
        ]
        rows.sort(key=lambda r: r["id"], reverse=True)
        return [operation_row(columns_of(r)) for r in rows[:limit]]
