"""raw_template.facade against the real PostgreSQL: stored with a nested stack's template
and read back by the node's one template query (NodeStore.template), null otherwise."""

from __future__ import annotations

import json
import uuid

from conv_tasks.db.models import RawTemplate
from conv_tasks.db.nodes import NodeStore
from conv_tasks.db.session import node_connection, session_scope
from conv_tasks.db.templates import Templates

DOC = {"heat_template_version": "2018-08-31"}
FACADE = {"metadata": {"role": "web"}, "deletion_policy": "Retain", "update_policy": {}}


def _stored(url: str, facade: dict[str, object] | None) -> int:
    with session_scope(url) as session:
        return Templates(session).add(DOC, {"p": 1}, {"f": "x"}, {}, facade).id


def _node_template(url: str, template_id: int) -> tuple[str, ...] | None:
    with node_connection(url) as conn:
        store = NodeStore(
            conn,
            stack_id=str(uuid.uuid4()),
            traversal=str(uuid.uuid4()),
            template_id=template_id,
            nonce=str(uuid.uuid4()),
        )
        return store.template(template_id)  # type: ignore[return-value]


def test_a_nested_stacks_template_keeps_its_facade(database_url: str) -> None:
    template_id = _stored(database_url, FACADE)
    with session_scope(database_url) as session:
        row = session.get(RawTemplate, template_id)
        assert row is not None and row.facade == FACADE
    loaded = _node_template(database_url, template_id)
    assert loaded is not None and len(loaded) == 5
    assert [json.loads(text) for text in loaded] == [DOC, {"p": 1}, {}, {"f": "x"}, FACADE]


def test_a_template_without_a_parent_has_no_facade(database_url: str) -> None:
    template_id = _stored(database_url, None)
    with session_scope(database_url) as session:
        row = session.get(RawTemplate, template_id)
        assert row is not None and row.facade is None
    loaded = _node_template(database_url, template_id)
    # JSON null (a row stored without one) or SQL NULL (a row from before 0010): no parent.
    assert loaded is not None and loaded[4] in (None, "null")
    assert _node_template(database_url, template_id + 10_000) is None
