"""Resource versions for stack operations and reads: load them, add them, compare-and-swap.

Every write bumps `atomic_key`, and a write that must not race names the
`atomic_key` it read: whoever read an older one writes nothing. Graph nodes
do not come through here: their leases and writes are in conv_tasks.db.nodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from conv_tasks.db.models import Resource
from conv_tasks.db.node_statements import WRITABLE as NODE_WRITABLE
from conv_tasks.db.rows import ResourceRow, resource_row
from conv_tasks.db.sealed_columns import seal_fields
from conv_tasks.db.validation import require_fields, require_id
from conv_tasks.errors import Duplicate
from conv_tasks.graph import ExistingVersion, NodeKey, Phase
from conv_tasks.secrets_at_rest import PLAINTEXT, Sealer

WRITABLE = NODE_WRITABLE | {"replaces", "replaced_by"}

# What a traversal did to each resource, in one statement: the actions its events say
# completed and the status of its last event (the event table keeps the traversal of each),
# and whether the head now stands converged to the traversal's template (an unchanged
# resource's node writes the template id and no event).
_TRAVERSAL_MARKS = text(
    """
WITH ev AS (
    SELECT resource_name AS name,
           array_agg(DISTINCT action) FILTER (WHERE status = 'COMPLETE') AS done,
           (array_agg(status ORDER BY id DESC))[1] AS last_status
    FROM event
    WHERE stack_id = :stack_id AND traversal = :traversal AND resource_name IS NOT NULL
      AND action <> 'SIGNAL'
    GROUP BY resource_name
),
heads AS (
    SELECT DISTINCT ON (name) name,
           template_id = :template_id AND status = 'COMPLETE'
               AND action NOT IN ('INIT', 'DELETE') AS converged
    FROM resource WHERE stack_id = :stack_id AND replaced_by IS NULL
    ORDER BY name, version DESC
)
SELECT name, coalesce(ev.done, '{}') AS done, ev.last_status,
       coalesce(heads.converged, false) AS converged
FROM ev FULL JOIN heads USING (name)
"""
)


# Which nodes of a traversal the resource table says have not reached their goal, in one
# statement (the end of a traversal: conv_tasks.engine.stack.completion). Each node's goal
# is what its delivery writes before it satisfies its successors' SyncPoints, so when
# PostgreSQL lost writes that Redis kept, the nodes named here are the ones to run again:
# - update: the head (the newest version nothing replaced) converged to the traversal's
#   template (`template_id`), COMPLETE, created;
# - cleanup: no version left to purge (all but the head of a resource the template keeps,
#   every version of one it dropped);
# - check: the head CHECK_COMPLETE by this check (started when the stack's operation did);
# - suspend / resume: the head suspended (resumed), or nothing to do (never created,
#   deleted, or no version at all).
_SHORT_OF_GOAL = text(
    """
WITH wanted AS (
    SELECT w.phase, w.name
    FROM unnest(CAST(:phases AS text[]), CAST(:names AS text[])) AS w(phase, name)
),
versions AS (
    SELECT r.id, r.name, r.version, r.replaced_by, r.action, r.status, r.template_id,
           r.action_started_at
    FROM resource r
    WHERE r.stack_id = :stack_id AND r.name = ANY(CAST(:names AS text[]))
),
heads AS (
    SELECT DISTINCT ON (name) * FROM versions WHERE replaced_by IS NULL
    ORDER BY name, version DESC
)
SELECT w.phase, w.name
FROM wanted w LEFT JOIN heads h ON h.name = w.name
WHERE CASE w.phase
    WHEN 'update' THEN NOT coalesce(
        h.template_id = :template_id AND h.status = 'COMPLETE'
        AND h.action NOT IN ('INIT', 'DELETE'), false)
    WHEN 'cleanup' THEN EXISTS (
        SELECT 1 FROM versions v
        WHERE v.name = w.name
          AND (h.id IS NULL OR v.id <> h.id OR NOT w.name = ANY(CAST(:kept AS text[]))))
    WHEN 'check' THEN NOT coalesce(
        h.action = 'CHECK' AND h.status = 'COMPLETE'
        AND h.action_started_at = CAST(:started_at AS timestamptz), false)
    WHEN 'suspend' THEN h.id IS NOT NULL AND NOT (
        (h.action IN ('INIT', 'DELETE') AND h.status <> 'IN_PROGRESS')
        OR (h.action = 'SUSPEND' AND h.status = 'COMPLETE'))
    WHEN 'resume' THEN h.id IS NOT NULL AND NOT (
        (h.action IN ('INIT', 'DELETE') AND h.status <> 'IN_PROGRESS')
        OR (h.action <> 'SUSPEND' AND h.status = 'COMPLETE'))
    ELSE true
END
ORDER BY w.name, w.phase
"""
)


@dataclass(frozen=True)
class TraversalMark:
    """What one traversal did to one resource: the actions it completed on it, the status
    of its last event about it (None: none), and whether the resource's head stands
    converged to the traversal's template."""

    name: str
    done: frozenset[str]
    last_status: str | None
    converged: bool


class ResourceVersions:
    """The resource version rows of stacks, in the caller's transaction."""

    def __init__(self, session: Session, sealer: Sealer = PLAINTEXT) -> None:
        self._session = session
        self._sealer = sealer

    def of_stack(self, stack_id: str) -> list[ResourceRow]:
        """Every version of every resource of the stack, oldest first."""
        stmt = select(Resource).where(Resource.stack_id == stack_id).order_by(Resource.id)
        return [resource_row(row, self._sealer) for row in self._session.scalars(stmt)]

    def of_stacks(self, stack_ids: Sequence[str]) -> dict[str, list[ResourceRow]]:
        """Every version of every resource of each of these stacks, oldest first, in one
        statement (a preview of many child stacks); a stack without any maps to []."""
        found: dict[str, list[ResourceRow]] = {stack_id: [] for stack_id in stack_ids}
        if not found:
            return found
        stmt = select(Resource).where(Resource.stack_id.in_(list(found))).order_by(Resource.id)
        for row in self._session.scalars(stmt):
            found[row.stack_id].append(resource_row(row, self._sealer))
        return found

    def existing(self, stack_id: str) -> list[ExistingVersion]:
        """Every version of every resource of the stack, as the traversal planner reads them."""
        stmt = select(
            Resource.id, Resource.name, Resource.version, Resource.requires, Resource.replaced_by
        ).where(Resource.stack_id == stack_id)
        return [
            ExistingVersion(
                id=row_id,
                name=name,
                version=version,
                requires=frozenset(requires or ()),
                is_head=replaced_by is None,
            )
            for row_id, name, version, requires, replaced_by in self._session.execute(stmt)
        ]

    def traversal_marks(
        self, stack_id: str, traversal: str, template_id: int | None
    ) -> list[TraversalMark]:
        """What `traversal` did to each resource of the stack, read in one statement (its
        end's summary, conv_tasks.engine.stack.summary)."""
        rows = self._session.execute(
            _TRAVERSAL_MARKS,
            {"stack_id": stack_id, "traversal": traversal, "template_id": template_id},
        )
        return [
            TraversalMark(name, frozenset(done or ()), last_status, bool(converged))
            for name, done, last_status, converged in rows
        ]

    def short_of_goal(
        self,
        stack_id: str,
        nodes: Iterable[NodeKey],
        *,
        template_id: int | None,
        started_at: datetime | None,
    ) -> list[NodeKey]:
        """The `nodes` of a traversal of the stack whose goal the resource table says was not
        reached (see _SHORT_OF_GOAL), in one statement. `template_id` is the traversal's
        template, `started_at` when the stack's operation started (a check's mark)."""
        wanted = list(nodes)
        if not wanted:
            return []
        kept = sorted({node.name for node in wanted if node.phase == Phase.UPDATE})
        rows = self._session.execute(
            _SHORT_OF_GOAL,
            {
                "stack_id": stack_id,
                "phases": [str(node.phase) for node in wanted],
                "names": [node.name for node in wanted],
                "kept": kept,
                "template_id": template_id,
                "started_at": started_at,
            },
        )
        return [NodeKey(Phase(phase), name) for phase, name in rows]

    def forget(self, stack_id: str, names: Sequence[str]) -> dict[str, list[str]]:
        """Drop every version of the named resources of the stack, whatever holds them (a
        retained or skipped resource: its physical resources are left alone). Returns the
        physical ids the dropped versions held, by resource name (a name with none: [])."""
        if not names:
            return {}
        stmt = (
            delete(Resource)
            .where(Resource.stack_id == stack_id, Resource.name.in_(list(names)))
            .returning(Resource.name, Resource.version, Resource.physical_id)
        )
        held: dict[str, list[tuple[int, str | None]]] = {}
        for name, version, physical_id in self._session.execute(stmt):
            held.setdefault(name, []).append((version, physical_id))
        return {
            name: [pid for _, pid in sorted(versions) if pid is not None]
            for name, versions in held.items()
        }

    def head(self, stack_id: str, name: str) -> ResourceRow | None:
        """The newest version of one resource that nothing replaced, or None."""
        stmt = (
            select(Resource)
            .where(
                Resource.stack_id == stack_id,
                Resource.name == name,
                Resource.replaced_by.is_(None),
            )
            .order_by(Resource.version.desc())
            .limit(1)
        )
        row = self._session.scalars(stmt).first()
        return None if row is None else resource_row(row, self._sealer)

    def add(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert many new resource versions in one batched statement. Duplicate if another
        operation added one of them first (the caller's transaction is spoilt)."""
        if not rows:
            return
        try:
            self._session.execute(
                insert(Resource), [seal_fields(self._sealer, "resource", row) for row in rows]
            )
        except IntegrityError:
            raise Duplicate("Another operation added these resource versions first.") from None

    def compare_and_swap(self, resource_id: int, atomic_key: int, **fields: Any) -> bool:
        """Write `fields` only if the version still has `atomic_key` (nobody wrote since we
        read)."""
        require_id(resource_id, "resource_id")
        if isinstance(atomic_key, bool) or not isinstance(atomic_key, int):
            require_id(atomic_key, "atomic_key")
        require_fields(fields, WRITABLE, "a resource")
        stmt = (
            update(Resource)
            .where(Resource.id == resource_id, Resource.atomic_key == atomic_key)
            .values(
                atomic_key=Resource.atomic_key + 1,
                updated_at=func.now(),
                **seal_fields(self._sealer, "resource", fields),
            )
            .execution_options(synchronize_session=False)
        )
        return self._session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]

    def interrupt_actions(self, stack_id: str, traversal: str, reason: str) -> int:
        """Ask every create, update, suspend or resume that `traversal` has under way on the
        stack to stop (a cancel, a stack delete); each stops on its next poll. Returns how
        many were asked."""
        result = self._session.execute(
            update(Resource)
            .where(
                Resource.stack_id == stack_id,
                Resource.lock_holder == traversal,
                Resource.status == "IN_PROGRESS",
                Resource.action.in_(("CREATE", "UPDATE", "SUSPEND", "RESUME")),
            )
            .values(interrupt_reason=reason)
        )
        return int(result.rowcount)  # type: ignore[attr-defined]
