"""Stack operations: one row per operation, written as it starts and as it ends.

The history of a stack (the web view's) reads these rows and nothing else. A row is
inserted in the transaction that swaps the operation's traversal in (`start`), carried
over to the new traversal when the watchdog restarts the operation (`resume`), and
finished once (`finish`): when the stack's SyncPoint completes, when the operation is
timed out or cancelled, or, SUPERSEDED, when a newer operation takes the stack over.

What an operation did to the resources is counted as it ends, by one aggregate statement
over its own events: those of the stack from its first event on (the (stack_id, id) index
bounds the scan), written by its traversals. A graph node does no work for it: the node
writes its events anyway, in the statement that changes the resource, so they are exactly
what happened, restarts included. Planning could not say it (whether a changed resource is
updated in place or replaced is decided by its node, from resolved properties), and the
failures the SyncPoint carries are "name: reason" strings (a name may hold ": ") and
absent when an operation is timed out or cancelled. Per resource, by its events:

- failed: its last event is a failure (a create, update, delete or check that failed);
- replaced: it got a new physical resource (CREATE) and lost an old one (DELETE), or got
  one as a replacement (the replacement's first event says so: `replacement_reason`), or
  an older version was reinstated (UPDATE) and the newer one deleted;
- created, updated, deleted: that completed, and nothing above;
- untouched otherwise (converged already: no event).

A nested stack's operations are its own rows; its parent counts the nested resource once.
"""

from __future__ import annotations

from sqlalchemy import insert, select, text
from sqlalchemy.orm import Session

from conv_tasks.db.models import StackOperation
from conv_tasks.db.rows import OperationRow, operation_row
from conv_tasks.db.validation import require_uuid
from conv_tasks.statuses import OperationOutcome

# Failures one operation keeps (the first ones, by when they happened), and the characters
# of each reason kept: the count says how many there were in all.
FAILURES_KEPT = 50
FAILURE_REASON_CHARS = 1000
# The characters of an operation's reason kept (a failed one's joins its failures).
REASON_CHARS = 4000
REPLACING = "replacing version "


def replacement_reason(version: int) -> str:
    """The reason of the first event of a version that replaces `version` (the counts read
    it back: see above)."""
    return f"{REPLACING}{version}"


# The stack events of one operation whose reason starts with a prefix, over its traversals.
_RESUMES_FOR = text(
    """
SELECT count(*)
FROM stack_operation o
JOIN event e
  ON e.stack_id = o.stack_id AND e.id >= coalesce(o.first_event_id, 0)
 AND e.traversal = ANY(array_append(o.restarted_from, o.traversal))
WHERE o.stack_id = :stack_id AND o.traversal = :traversal
  AND e.resource_name IS NULL AND starts_with(e.reason, :prefix)
"""
)


# Finish the in-progress operation(s) `which` selects, counting from their events. Each
# resource's events of the operation are folded into one row of flags, then counted.
_FINISH = """
WITH op AS (
    SELECT o.id, o.stack_id, o.first_event_id,
           array_append(o.restarted_from, o.traversal) AS traversals
    FROM stack_operation o
    WHERE o.stack_id = :stack_id AND o.result = 'IN_PROGRESS' AND {which}
    FOR UPDATE
),
per_resource AS (
    SELECT op.id AS op_id, e.resource_name AS name,
           bool_or(e.status = 'COMPLETE' AND e.action = 'CREATE') AS created,
           bool_or(e.status = 'COMPLETE' AND e.action = 'UPDATE') AS updated,
           bool_or(e.status = 'COMPLETE' AND e.action = 'DELETE') AS deleted,
           bool_or(e.status = 'IN_PROGRESS' AND e.action = 'CREATE'
                   AND starts_with(e.reason, :replacing)) AS replacing,
           (array_agg(e.status ORDER BY e.id DESC))[1] = 'FAILED' AS failed,
           (array_agg(e.reason ORDER BY e.id DESC))[1] AS last_reason,
           max(e.id) AS last_id
    FROM op JOIN event e
      ON e.stack_id = op.stack_id AND e.id >= op.first_event_id
     AND e.traversal = ANY(op.traversals)
    WHERE e.resource_name IS NOT NULL
    GROUP BY op.id, e.resource_name
),
judged AS (
    SELECT op_id, name, failed, last_reason, last_id,
           NOT failed AND ((created AND (deleted OR replacing)) OR (updated AND deleted))
               AS replaced,
           created, updated, deleted
    FROM per_resource
),
counts AS (
    SELECT op.id AS op_id,
           count(j.name) FILTER (WHERE j.failed) AS failed,
           count(j.name) FILTER (WHERE j.replaced) AS replaced,
           count(j.name) FILTER (WHERE NOT j.failed AND NOT j.replaced AND j.created)
               AS created,
           count(j.name) FILTER (WHERE NOT j.failed AND NOT j.replaced AND NOT j.created
                                   AND j.updated) AS updated,
           count(j.name) FILTER (WHERE NOT j.failed AND NOT j.replaced AND NOT j.created
                                   AND NOT j.updated AND j.deleted) AS deleted,
           coalesce(
               (SELECT jsonb_agg(jsonb_build_object('resource', f.name, 'reason',
                                                    left(f.last_reason, :reason_chars))
                                 ORDER BY f.last_id)
                FROM (SELECT name, last_reason, last_id FROM judged
                      WHERE op_id = op.id AND failed ORDER BY last_id LIMIT :kept) f),
               '[]'::jsonb) AS failures
    FROM op LEFT JOIN judged j ON j.op_id = op.id
    GROUP BY op.id
)
UPDATE stack_operation o
SET result = :result, reason = left(:reason, :reason_limit), ended_at = now(),
    resources_created = c.created, resources_updated = c.updated,
    resources_replaced = c.replaced, resources_deleted = c.deleted,
    resources_failed = c.failed, failures = c.failures
FROM counts c
WHERE o.id = c.op_id
RETURNING o.id
"""
_FINISH_ONE = text(_FINISH.format(which="o.traversal = :traversal"))
_FINISH_ALL = text(_FINISH.format(which="true"))

_RESUME = text(
    """
UPDATE stack_operation
SET traversal = :new, restarted_from = array_append(restarted_from, traversal),
    watchdog_restarts = watchdog_restarts + 1
WHERE stack_id = :stack_id AND traversal = :old AND result = 'IN_PROGRESS'
RETURNING id
"""
)


class Operations:
    """The stack operation rows, in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def _params(self, result: OperationOutcome, reason: str) -> dict[str, object]:
        return {
            "result": str(result),
            "reason": reason,
            "reason_limit": REASON_CHARS,
            "replacing": REPLACING,
            "reason_chars": FAILURE_REASON_CHARS,
            "kept": FAILURES_KEPT,
        }

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
        """A new operation of the stack, in progress from now (PostgreSQL's clock). Whatever
        operation of the stack was still in progress is SUPERSEDED by it first, with what it
        did until now. Returns the new row's id."""
        require_uuid(stack_id, "stack_id")
        require_uuid(traversal, "traversal")
        self._session.execute(
            _FINISH_ALL,
            {"stack_id": stack_id, **self._params(OperationOutcome.SUPERSEDED, superseded_reason)},
        )
        new_id = self._session.execute(
            insert(StackOperation)
            .values(
                stack_id=stack_id,
                tenant=tenant,
                traversal=traversal,
                action=str(action),
                result=str(OperationOutcome.IN_PROGRESS),
                reason="",
                first_event_id=first_event_id,
                watchdog_restarts=watchdog_restarts,
            )
            .returning(StackOperation.id)
        ).scalar_one()
        return int(new_id)

    def resume(self, *, stack_id: str, old: str, new: str) -> bool:
        """The watchdog restarted the operation of traversal `old` as traversal `new`: the
        same operation goes on, one restart more. False if no such operation is in progress
        (one that started before this table existed)."""
        require_uuid(new, "new traversal")
        found = self._session.execute(
            _RESUME, {"stack_id": stack_id, "old": old, "new": new}
        ).first()
        return found is not None

    def resumes_for(self, *, stack_id: str, traversal: str, reason_prefix: str) -> int:
        """How often the operation now under traversal `traversal` was resumed for a reason
        that starts with `reason_prefix`: its stack events of that reason, over every
        traversal it ran under."""
        found = self._session.execute(
            _RESUMES_FOR,
            {"stack_id": stack_id, "traversal": traversal, "prefix": reason_prefix},
        ).scalar()
        return int(found or 0)

    def finish(
        self, *, stack_id: str, traversal: str, result: OperationOutcome, reason: str
    ) -> bool:
        """End the operation of `traversal` with `result` (now, by PostgreSQL's clock), with
        what it did to the resources counted from its events. False if it is not in
        progress (ended already, or never recorded)."""
        found = self._session.execute(
            _FINISH_ONE,
            {"stack_id": stack_id, "traversal": traversal, **self._params(result, reason)},
        ).first()
        return found is not None

    def of_stack(
        self, stack_id: str, *, limit: int, before: int | None = None
    ) -> list[OperationRow]:
        """The stack's operations, newest first: at most `limit`, older than `before`."""
        stmt = (
            select(StackOperation)
            .where(StackOperation.stack_id == stack_id)
            .order_by(StackOperation.id.desc())
            .limit(limit)
        )
        if before is not None:
            stmt = stmt.where(StackOperation.id < before)
        return [operation_row(row) for row in self._session.scalars(stmt)]
