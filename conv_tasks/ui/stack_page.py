"""A stack's page (/ui/stacks/<id>) and the fragments htmx refreshes on it: the header, the
graph, the resources table.

The page reads the stack (conv_tasks.stack.show, deleted ones too, by id), its resources
one level of nesting down (for the nested stacks' links and the graph's collapsed counts)
and its latest events (EVENTS_SHOWN of them, never all: a 10,000-resource stack's create
alone writes 20,000), all at once; then its traversal graph, unless the stack is big enough for
the graph to cost more than the rest (INLINE_GRAPH_LIMIT): then the page asks for it once
shown. Everything shown comes from the tasks,
which mask hidden values; nothing here unmasks or derives anything from a value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response

from conv_tasks.ui import views
from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.errors import not_found
from conv_tasks.ui.graph_section import GraphSection, graph_section
from conv_tasks.ui.reads import answers, ok, ok_or_none
from conv_tasks.ui.rendering import render
from conv_tasks.ui.responses import html
from conv_tasks.ui.routes import stack_path

RESOURCES_PER_PAGE = 100
# Above this many resources (its own and one level of nested stacks') the page opens without
# its graph and fetches it once shown (htmx; without JavaScript, a link to it): reading a big
# stack's traversal graph costs more than the rest of the page together.
INLINE_GRAPH_LIMIT = 500
MAX_RESOURCE_PAGE = 100_000
# The page shows the newest this many events; it asks for one more, to know there are older ones.
EVENTS_SHOWN = 100
RESOURCE_FILTERS = ("FAILED", "IN_PROGRESS", "COMPLETE")


@dataclass(frozen=True)
class GraphOptions:
    """The graph's toggles, from the query: clean-up nodes shown, collapsed nodes opened."""

    show_cleanup: bool = False
    expand: tuple[str, ...] = ()

    def params(self) -> dict[str, Any]:
        return {"cleanup": 1 if self.show_cleanup else None, "expand": list(self.expand)}


@dataclass(frozen=True)
class ResourceFilter:
    status: str = ""
    name: str = ""
    page: int = 1

    def params(self) -> dict[str, Any]:
        return {
            "rstatus": self.status,
            "rname": self.name,
            "rpage": self.page if self.page > 1 else None,
        }

    def keep(self, resource: Mapping[str, Any]) -> bool:
        if self.status and not str(resource.get("status", "")).endswith(self.status):
            return False
        return not self.name or self.name.lower() in str(resource.get("name", "")).lower()


def graph_options(ui: UiRequest) -> GraphOptions:
    return GraphOptions(ui.query.flag("cleanup"), tuple(ui.query.names("expand", most=50)))


def resource_filter(ui: UiRequest) -> ResourceFilter:
    statuses = ui.query.choices("rstatus", RESOURCE_FILTERS)
    return ResourceFilter(
        statuses[-1] if statuses else "",
        ui.query.text("rname"),
        ui.query.number("rpage", default=1, low=1, high=MAX_RESOURCE_PAGE),
    )


@dataclass(frozen=True)
class StackParts:
    """What the stack's page shows, read at once."""

    stack: dict[str, Any]
    deleted: bool
    resources: list[dict[str, Any]] = field(default_factory=list)
    # Its resources and its nested stacks' (one level down), as the graph counts them.
    listed: list[dict[str, Any]] = field(default_factory=list)
    nested: list[dict[str, Any]] = field(default_factory=list)
    graph: dict[str, Any] | None = None
    # The newest events, oldest first: EVENTS_SHOWN of them, and one more when there are older.
    events: list[dict[str, Any]] = field(default_factory=list)
    last_event_id: int = 0


def _split_nested(
    stack_id: str, found: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The stack's own resources (each a nested stack's link when it owns one) and its nested
    stacks (id, name, resource counts by status), from resources(nested_depth=1)."""
    own: list[dict[str, Any]] = []
    nested: dict[str, dict[str, Any]] = {}
    for resource in found:
        owner = resource.get("stack_id") or stack_id
        if owner == stack_id:
            own.append(dict(resource))
            continue
        child = nested.setdefault(
            str(owner), {"id": owner, "name": resource.get("stack_name", ""), "counts": {}}
        )
        word = str(resource.get("status", ""))
        child["counts"][word] = child["counts"].get(word, 0) + 1
    for resource in own:
        owned = nested.get(str(resource.get("physical_id") or ""))
        if owned is not None:
            owned["resource"] = resource["name"]
            resource["nested_stack"] = owned["id"]
    return own, list(nested.values())


async def read_stack(
    ui: UiRequest, *, graph: bool = True, events: bool = True, resources: bool = True
) -> StackParts:
    ref = ui.param("stack")
    tenant = ui.viewer.stack_tenant() if ui.viewer else ""
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "show": ("conv_tasks.stack.show", {"stack": ref, "include_deleted": True}),
    }
    if resources:
        calls["resources"] = ("conv_tasks.stack.resources", {"stack": ref, "nested_depth": 1})
    if graph:
        calls["graph"] = ("conv_tasks.stack.graph", {"stack": ref})
    if events:
        calls["events"] = ("conv_tasks.stack.events", {"stack": ref, "latest": EVENTS_SHOWN + 1})
    found = await answers(ui, tenant, calls)
    stack = ok(found["show"])["stack"]
    if ref not in (stack.get("id"), stack.get("name")):
        raise not_found(f"The stack {ref[:255]!r} was not found.")
    deleted = bool(stack.get("deleted_at"))
    listed = None if deleted or not resources else ok_or_none(found["resources"])
    own, nested = _split_nested(stack["id"], listed["resources"] if listed else [])
    shown_graph = None
    if graph and not deleted:
        shown_graph = ok_or_none(found["graph"])
    event_list: list[dict[str, Any]] = []
    if events:
        answered = ok_or_none(found["events"])
        event_list = list(answered["events"]) if answered else []
    return StackParts(
        stack=stack,
        deleted=deleted,
        resources=own if not deleted else [],
        listed=list(listed["resources"]) if listed else [],
        nested=nested,
        graph=shown_graph,
        events=event_list,
        last_event_id=max((int(e["id"]) for e in event_list), default=0),
    )


async def stack(ui: UiRequest) -> Response:
    parts = await read_stack(ui, graph=False)
    options = graph_options(ui)
    chosen = resource_filter(ui)
    if parts.deleted:
        section = GraphSection.empty("A deleted stack has no graph.")
    elif len(parts.listed) > INLINE_GRAPH_LIMIT:
        section = GraphSection.later(len(parts.listed))
    else:
        answer = await ui.gateway.call(
            ui.viewer.stack_tenant() if ui.viewer else "",
            "conv_tasks.stack.graph",
            stack=str(parts.stack["id"]),
        )
        section = await _graph(ui, replace(parts, graph=ok_or_none(answer)), options)
    body = render(
        "stack.html",
        **_common(ui, parts),
        graph=section,
        options=options,
        resources=_resources_context(ui, parts, chosen),
        events=list(reversed(parts.events[-EVENTS_SHOWN:])),
        older_events=len(parts.events) > EVENTS_SHOWN,
        last_event_id=parts.last_event_id,
        cli=views.cli_commands(parts.stack["id"], str(parts.stack.get("tenant") or "default")),
    )
    return html(body)


async def header(ui: UiRequest) -> Response:
    parts = await read_stack(ui, graph=False, events=False, resources=False)
    return html(render("_stack_header.html", **_common(ui, parts)))


async def graph(ui: UiRequest) -> Response:
    parts = await read_stack(ui, events=False)
    options = graph_options(ui)
    section = await _graph(ui, parts, options)
    context = {**_common(ui, parts), "graph": section, "options": options}
    if ui.htmx:
        return html(render("_graph.html", **context))
    return html(render("graph_page.html", **context))


async def _graph(ui: UiRequest, parts: StackParts, options: GraphOptions) -> GraphSection:
    if parts.graph is None:
        return GraphSection.empty("This stack has no traversal graph to draw.")
    return await graph_section(
        ui.gateway,
        parts.graph,
        parts.listed,
        show_cleanup=options.show_cleanup,
        expand=frozenset(options.expand),
    )


def _resources_context(ui: UiRequest, parts: StackParts, chosen: ResourceFilter) -> dict[str, Any]:
    kept = [r for r in parts.resources if chosen.keep(r)]
    page = views.page_of(kept, chosen.page, RESOURCES_PER_PAGE)
    counts: dict[str, int] = {}
    for resource in parts.resources:
        word = str(resource.get("status", ""))
        counts[word] = counts.get(word, 0) + 1
    return {
        "page": page,
        "filter": chosen,
        "counts": counts,
        "total": len(parts.resources),
        "statuses": RESOURCE_FILTERS,
    }


def _common(ui: UiRequest, parts: StackParts) -> dict[str, Any]:
    stack = parts.stack
    stack_id = str(stack["id"])

    def here(*rest: str, **params: Any) -> str:
        return ui.link(stack_path(stack_id, *rest), **params)

    def resource_link(name: str) -> str:
        return here("resources", name)

    return {
        "ui": ui,
        "viewer": ui.viewer,
        "stack": stack,
        "stack_name": stack.get("name", ""),
        "resource_link": resource_link,
        "deleted": parts.deleted,
        "nested": parts.nested,
        "here": here,
        "stack_path": stack_path,
        "now": datetime.now(UTC),
    }
