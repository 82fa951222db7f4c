"""Heat's list queries (filters, sorting, markers and limits) applied to the tasks' lists.

The tasks answer whole lists (a tenant's stacks, a stack's events); Heat's query parameters
pick from them here, in pure functions. A wrong parameter is an ApiFault naming it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from conv_tasks.api.heat_input import tag_list
from conv_tasks.edge import bad_request

Query = Mapping[str, Sequence[str]]

_STACK_SORT_KEYS = {
    "stack_name": "name",
    "name": "name",
    "stack_status": "status",
    "status": "status",
    "creation_time": "created_at",
    "created_at": "created_at",
    "updated_time": "updated_at",
    "updated_at": "updated_at",
}
_STACK_FILTERS = {
    "id": "id",
    "name": "name",
    "stack_name": "name",
    "status": "status",
    "stack_status": "status",
    "action": "action",
    "stack_action": "action",
}
TAG_FILTERS = ("tags", "tags_any", "not_tags", "not_tags_any")


def _one(query: Query, name: str) -> str | None:
    values = query.get(name)
    return values[-1] if values else None


def _limit(query: Query) -> int | None:
    raw = _one(query, "limit")
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise bad_request(f"limit must be a whole number from 0, got {raw[:40]!r}.", "limit")
    return int(raw)


def _sort_dir(query: Query, default: str) -> str:
    raw = (_one(query, "sort_dir") or default).lower()
    if raw not in ("asc", "desc"):
        raise bad_request(f"sort_dir must be asc or desc, got {raw[:40]!r}.", "sort_dir")
    return raw


def query_flag(query: Query, name: str) -> bool:
    raw = (_one(query, name) or "false").strip().lower()
    if raw not in ("true", "false", "1", "0", "yes", "no"):
        raise bad_request(f"{name} must be true or false, got {raw[:40]!r}.", name)
    return raw in ("true", "1", "yes")


def _status_matches(status: str, wanted: Sequence[str], *, part: str) -> bool:
    """Heat filters `status` by the status part (COMPLETE) and `action` by the action part
    (CREATE); a whole state (CREATE_COMPLETE) matches too."""
    action, _, state = status.partition("_")
    for want in wanted:
        want = want.upper()
        if (
            want == status
            or (part == "status" and want == state)
            or (part == "action" and want == action)
        ):
            return True
    return False


@dataclass(frozen=True)
class StackListQuery:
    """What `GET /stacks` asks: task kwargs (show_nested, tag filters) and what to pick."""

    task_kwargs: dict[str, Any]
    filters: dict[str, list[str]]
    sort_keys: list[str]
    sort_dir: str
    marker: str | None
    limit: int | None
    with_count: bool


def stack_list_query(query: Query) -> StackListQuery:
    kwargs: dict[str, Any] = {}
    if query_flag(query, "show_nested"):
        kwargs["show_nested"] = True
    for name in TAG_FILTERS:
        raw = _one(query, name)
        if raw:
            kwargs[name] = tag_list(raw, name)
    filters: dict[str, list[str]] = {}
    for name, field in _STACK_FILTERS.items():
        if query.get(name):
            filters.setdefault(field, []).extend(query[name])
    sort_keys = []
    for key in query.get("sort_keys") or ():
        for one in key.split(","):
            if one not in _STACK_SORT_KEYS:
                raise bad_request(
                    f"sort_keys: {one[:40]!r} is not one of {', '.join(sorted(_STACK_SORT_KEYS))}.",
                    "sort_keys",
                )
            sort_keys.append(_STACK_SORT_KEYS[one])
    return StackListQuery(
        kwargs,
        filters,
        sort_keys or ["created_at"],
        _sort_dir(query, "desc"),
        _one(query, "marker") or None,
        _limit(query),
        query_flag(query, "with_count"),
    )


def _page(
    items: list[dict[str, Any]], marker: str | None, limit: int | None, key: str = "id"
) -> list[dict[str, Any]]:
    if marker is not None:
        place = next((n for n, item in enumerate(items) if str(item[key]) == marker), None)
        if place is None:
            raise bad_request(f"marker: nothing has the id {marker[:80]!r}.", "marker")
        items = items[place + 1 :]
    return items if limit is None else items[:limit]


def pick_stacks(
    stacks: list[dict[str, Any]], wanted: StackListQuery
) -> tuple[list[dict[str, Any]], int]:
    """The stacks `wanted` picks, in its order, one page of them; and how many matched."""
    kept = []
    for stack in stacks:
        ok = True
        for field, values in wanted.filters.items():
            value = str(stack.get(field, ""))
            if field == "status":
                ok = _status_matches(value, values, part="status")
            elif field == "action":
                ok = _status_matches(str(stack.get("status", "")), values, part="action")
            else:
                ok = value in values
            if not ok:
                break
        if ok:
            kept.append(stack)
    for key in reversed(wanted.sort_keys):
        kept.sort(key=lambda s: str(s.get(key) or ""), reverse=wanted.sort_dir == "desc")
    return _page(kept, wanted.marker, wanted.limit), len(kept)


def next_link(
    url: str, query: Query, items: Sequence[Mapping[str, Any]], limit: int | None
) -> list[dict[str, str]]:
    """Heat's `next` link when a page is full: the same query with the last item as marker."""
    if not limit or len(items) != limit:
        return []
    params = [(k, v) for k, values in query.items() if k != "marker" for v in values]
    params.append(("marker", str(items[-1]["id"])))
    return [{"rel": "next", "href": f"{url}?{urlencode(params)}"}]


@dataclass(frozen=True)
class EventQuery:
    nested_depth: int
    sort_dir: str
    marker: str | None
    limit: int | None
    statuses: list[str]
    actions: list[str]
    resource_names: list[str]
    resource_types: list[str]


def event_query(query: Query, resource_name: str | None = None) -> EventQuery:
    raw_depth = _one(query, "nested_depth") or "0"
    if not raw_depth.isdigit() or len(raw_depth) > 3:
        raise bad_request(
            f"nested_depth must be a whole number from 0, got {raw_depth[:40]!r}.", "nested_depth"
        )
    names = list(query.get("resource_name") or ())
    if resource_name is not None:
        names = [resource_name]
    return EventQuery(
        int(raw_depth),
        _sort_dir(query, "asc"),
        _one(query, "marker") or None,
        _limit(query),
        list(query.get("resource_status") or ()),
        list(query.get("resource_action") or ()),
        names,
        list(query.get("resource_type") or ()),
    )


def pick_events(events: list[dict[str, Any]], wanted: EventQuery) -> list[dict[str, Any]]:
    """Events in id order (or reversed), filtered, after the marker, at most `limit`."""
    kept = [
        e
        for e in events
        if (
            not wanted.statuses
            or _status_matches(str(e.get("status", "")), wanted.statuses, part="status")
        )
        and (
            not wanted.actions
            or _status_matches(str(e.get("status", "")), wanted.actions, part="action")
        )
        and (not wanted.resource_names or str(e.get("resource_name")) in wanted.resource_names)
        and (not wanted.resource_types or str(e.get("type", "")) in wanted.resource_types)
    ]
    kept.sort(key=lambda e: int(e["id"]), reverse=wanted.sort_dir == "desc")
    return _page(kept, wanted.marker, wanted.limit)
