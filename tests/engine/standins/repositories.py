"""Stand-ins for conv_tasks.db's Templates, ResourceVersions and Events: the raw templates,
resource versions and events of a transaction, with the real ones' operations and errors."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from conv_tasks.db import EventRecord, EventRow, ResourceRow, TemplateRow, TraversalMark
from conv_tasks.db.resources import WRITABLE as RESOURCE_WRITABLE
from conv_tasks.db.rows import freeze, resource_row
from conv_tasks.db.validation import require_fields, require_id
from conv_tasks.errors import Duplicate, NotFound
from conv_tasks.graph import ExistingVersion, NodeKey, Phase

from .schema import Row
from .tables import Violation, Work, columns_of


class Templates:
    def __init__(self, work: Work) -> None:
        self._work = work

    def add(
        self,
        template: Mapping[str, Any],
        parameters: Mapping[str, Any],
        files: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | None = None,
        facade: Mapping[str, Any] | None = None,
    ) -> TemplateRow:
        self._work.statement("templates.add")
        row = self._work.insert(
            "raw_template",
            {
                "template": dict(template),
                "parameters": dict(parameters),
                "files": dict(files or {}),
                "environment": dict(environment or {}),
                "facade": None if facade is None else dict(facade),
            },
        )
        return freeze(TemplateRow, columns_of(row))

    def get(self, template_id: int) -> TemplateRow:
        self._work.statement("templates.get")
        row = self._work.get("raw_template", template_id)
        if row is None:
            raise NotFound(f"Template {template_id} not found.")
        return freeze(TemplateRow, columns_of(row))

    def delete_orphaned(self, *, only: list[int] | None = None) -> int:
        self._work.statement("templates.delete_orphaned")
        stacks = self._work.rows("stack")
        referenced = (
            {r["raw_template_id"] for r in stacks}
            | {r["prev_raw_template_id"] for r in stacks}
            | {
                r["template_id"]
                for r in self._work.rows("resource")
                if r.get("status") == "IN_PROGRESS"
            }
        )
        doomed = [
            row["id"]
            for row in self._work.rows("raw_template")
            if row["id"] not in referenced and (only is None or row["id"] in only)
        ]
        for template_id in doomed:
            self._work.delete("raw_template", template_id)
        return len(doomed)


class ResourceVersions:
    def __init__(self, work: Work) -> None:
        self._work = work

    def _of(self, statement: str, stack_id: str) -> list[Row]:
        self._work.statement(f"resources.{statement}")
        rows = [r for r in self._work.rows("resource") if r["stack_id"] == stack_id]
        return sorted(rows, key=lambda r: r["id"])

    def of_stack(self, stack_id: str) -> list[ResourceRow]:
        return [resource_row(columns_of(row)) for row in self._of("of_stack", stack_id)]

    def existing(self, stack_id: str) -> list[ExistingVersion]:
        return [
            ExistingVersion(
                id=row["id"],
                name=row["name"],
                version=row["version"],
                requires=frozenset(row["requires"] or ()),
                is_head=row["replaced_by"] is None,
            )
            for row in self._of("existing", stack_id)
        ]

    def forget(self, stack_id: str, names: Sequence[str]) -> dict[str, list[str]]:
        if not names:
            return {}
        held: dict[str, list[tuple[int, str | None]]] = {}
        for row in self._of("forget", stack_id):
            if row["name"] in names:
                self._work.delete("resource", row["id"])
                held.setdefault(row["name"], []).append((row["version"], row["physical_id"]))
        return {
            name: [pid for _, pid in sorted(versions) if pid is not None]
            for name, versions in held.items()
        }

    def traversal_marks(
        self, stack_id: str, traversal: str, template_id: int | None
    ) -> list[TraversalMark]:
        self._work.statement("resources.traversal_marks")
        done: dict[str, set[str]] = {}
        last: dict[str, str] = {}
        events = sorted(self._work.rows("event"), key=lambda r: r["id"])
        for event in events:
            name = event["resource_name"]
            if (
                event["stack_id"] != stack_id
                or event["traversal"] != traversal
                or name is None
                or event["action"] == "SIGNAL"
            ):
                continue
            found = done.setdefault(name, set())
            if event["status"] == "COMPLETE":
                found.add(event["action"])
            last[name] = event["status"]
        heads: dict[str, Row] = {}
        for row in self._work.rows("resource"):
            if row["stack_id"] != stack_id or row["replaced_by"] is not None:
                continue
            held = heads.get(row["name"])
            if held is None or held["version"] < row["version"]:
                heads[row["name"]] = row
        converged = {
            name: row["template_id"] == template_id
            and row["status"] == "COMPLETE"
            and row["action"] not in ("INIT", "DELETE")
            for name, row in heads.items()
        }
        return [
            TraversalMark(
                name, frozenset(done.get(name, ())), last.get(name), converged.get(name, False)
            )
            for name in {*done, *heads}
        ]

    def short_of_goal(
        self,
        stack_id: str,
        nodes: Iterable[NodeKey],
        *,
        template_id: int | None,
        started_at: datetime | None,
    ) -> list[NodeKey]:
        wanted = list(nodes)
        if not wanted:
            return []
        rows = self._of("short_of_goal", stack_id)
        kept = {node.name for node in wanted if node.phase == Phase.UPDATE}
        heads: dict[str, Row] = {}
        for row in rows:
            held = heads.get(row["name"])
            if row["replaced_by"] is None and (held is None or held["version"] < row["version"]):
                heads[row["name"]] = row

        def reached(node: NodeKey) -> bool:
            head = heads.get(node.name)
            if node.phase == Phase.CLEANUP:
                return not any(
                    row["name"] == node.name
                    and (head is None or row["id"] != head["id"] or node.name not in kept)
                    for row in rows
                )
            if head is None:
                return node.phase in (Phase.SUSPEND, Phase.RESUME)
            action, status = head["action"], head["status"]
            if node.phase == Phase.UPDATE:
                return (
                    head["template_id"] == template_id
                    and status == "COMPLETE"
                    and action not in ("INIT", "DELETE")
                )
            if node.phase == Phase.CHECK:
                return (
                    action == "CHECK"
                    and status == "COMPLETE"
                    and head["action_started_at"] == started_at
                )
            idle = action in ("INIT", "DELETE") and status != "IN_PROGRESS"
            if node.phase == Phase.SUSPEND:
                return idle or (action == "SUSPEND" and status == "COMPLETE")
            return idle or (action != "SUSPEND" and status == "COMPLETE")

        return sorted(
            (node for node in wanted if not reached(node)), key=lambda n: (n.name, n.phase)
        )

    def head(self, stack_id: str, name: str) -> ResourceRow | None:
        heads = [
            row
            for row in self._of("head", stack_id)
            if row["name"] == name and row["replaced_by"] is None
        ]
        if not heads:
            return None
        return resource_row(columns_of(max(heads, key=lambda r: r["version"])))

    def add(self, rows: Sequence[dict[str, Any]]) -> None:
        if not rows:
            return
        self._work.statement("resources.add")
        try:
            for row in rows:
                self._work.insert("resource", row)
        except Violation:
            raise Duplicate("Another operation added these resource versions first.") from None

    def compare_and_swap(self, resource_id: int, atomic_key: int, **fields: Any) -> bool:
        require_id(resource_id, "resource_id")
        if isinstance(atomic_key, bool) or not isinstance(atomic_key, int):
            require_id(atomic_key, "atomic_key")
        require_fields(fields, RESOURCE_WRITABLE, "a resource")
        self._work.statement("resources.compare_and_swap")
        row = self._work.get("resource", resource_id)
        if row is None or row["atomic_key"] != atomic_key:
            return False
        self._work.update(
            "resource",
            resource_id,
            atomic_key=atomic_key + 1,
            updated_at=self._work.now,
            **fields,
        )
        return True

    def interrupt_actions(self, stack_id: str, traversal: str, reason: str) -> int:
        under_way = [
            row
            for row in self._of("interrupt_actions", stack_id)
            if row["lock_holder"] == traversal
            and row["status"] == "IN_PROGRESS"
            and row["action"] in ("CREATE", "UPDATE")
        ]
        for row in under_way:
            self._work.update("resource", row["id"], interrupt_reason=reason)
        return len(under_way)


class Events:
    def __init__(self, work: Work) -> None:
        self._work = work

    def add(self, records: Iterable[EventRecord]) -> list[int]:
        rows = [
            {**record.__dict__, "action": str(record.action), "status": str(record.status)}
            for record in records
        ]
        if not rows:
            return []
        self._work.statement("events.add")
        return [self._work.insert("event", row)["id"] for row in rows]

    def _of(self, statement: str, stack_id: str) -> list[Row]:
        self._work.statement(f"events.{statement}")
        rows = [r for r in self._work.rows("event") if r["stack_id"] == stack_id]
        return sorted(rows, key=lambda r: r["id"])

    def list(
        self,
        stack_id: str,
        *,
        resource_name: str | None = None,
        after_id: int = 0,
        latest: int = 0,
    ) -> list[EventRow]:
        found = [
            freeze(EventRow, columns_of(row))
            for row in self._of("list", stack_id)
            if row["id"] > after_id and resource_name in (None, row["resource_name"])
        ]
        return found[-latest:] if latest else found

    def of_stacks(
        self, stack_ids: Sequence[str], *, after_id: int = 0, latest: int = 0
    ) -> list[EventRow]:
        self._work.statement("events.of_stacks")
        rows = sorted(
            (r for r in self._work.rows("event") if r["stack_id"] in stack_ids),
            key=lambda r: r["id"],
        )
        found = [freeze(EventRow, columns_of(row)) for row in rows if row["id"] > after_id]
        return found[-latest:] if latest else found

    def first_id(self, stack_id: str) -> int | None:
        found = self._of("first_id", stack_id)
        return found[0]["id"] if found else None
