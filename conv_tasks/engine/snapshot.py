"""Cheap, read-only views of a stack for node tasks, with per-process caches.

A node reads the stack row on every run (is my traversal still current?), but
never the big graph column: a traversal's graph and a template's definition
never change, so each is loaded once per process.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from conv_tasks.db import templates as template_repo
from conv_tasks.db.models import Stack
from conv_tasks.engine.definition import StackDefinition, cached_definition, peek_definition
from conv_tasks.graph import TraversalGraph


@dataclass(frozen=True)
class StackSnapshot:
    id: str
    name: str
    tenant: str
    traversal: str | None
    action: str
    status: str
    raw_template_id: int | None
    timeout_mins: int | None
    operation_started_at: datetime | None
    disable_rollback: bool


def load_snapshot(session: Session, stack_id: str) -> StackSnapshot | None:
    row = session.execute(
        select(
            Stack.id,
            Stack.name,
            Stack.tenant,
            Stack.current_traversal,
            Stack.action,
            Stack.status,
            Stack.raw_template_id,
            Stack.timeout_mins,
            Stack.operation_started_at,
            Stack.disable_rollback,
        ).where(Stack.id == stack_id, Stack.deleted_at.is_(None))
    ).one_or_none()
    if row is None:
        return None
    values = tuple(row)
    return StackSnapshot(
        id=values[0],
        name=values[1],
        tenant=values[2],
        traversal=values[3],
        action=values[4],
        status=values[5],
        raw_template_id=values[6],
        timeout_mins=values[7],
        operation_started_at=values[8],
        disable_rollback=values[9],
    )


_graphs: OrderedDict[str, TraversalGraph] = OrderedDict()


def cached_graph(traversal: str) -> TraversalGraph | None:
    graph = _graphs.get(traversal)
    if graph is not None:
        _graphs.move_to_end(traversal)
    return graph


def traversal_graph(session: Session, stack_id: str, traversal: str) -> TraversalGraph | None:
    """The graph of `traversal`, or None when the stack has moved on to another traversal."""
    graph = cached_graph(traversal)
    if graph is not None:
        return graph
    row = session.execute(
        select(Stack.current_traversal, Stack.current_graph).where(Stack.id == stack_id)
    ).one_or_none()
    if row is None or row[0] != traversal or row[1] is None:
        return None
    graph = TraversalGraph.from_json(row[1])
    _graphs[traversal] = graph
    if len(_graphs) > 16:
        _graphs.popitem(last=False)
    return graph


def definition_for(session: Session, template_id: int) -> StackDefinition:
    """The definition of a stored template; the row is read only on a cache miss."""
    found = peek_definition(template_id)
    if found is not None:
        return found
    raw = template_repo.get_template(session, template_id)
    return cached_definition(raw.id, raw.template, raw.parameters)
