"""raw_template.template against the real PostgreSQL keeps the order it was written in
(json, migration 0011): jsonb gave keys back shortest first, and a template's resources,
outputs and parameters were listed in that order by some workers and not by others."""

from __future__ import annotations

import json

from conv_tasks.db.session import session_scope
from conv_tasks.db.templates import Templates

DOC = {
    "heat_template_version": "2018-08-31",
    "parameters": {"zeta_size": {"type": "number"}, "a": {"type": "string"}},
    "resources": {"zeta": {"type": "OS::Heat::None"}, "alpha": {"type": "OS::Heat::None"}},
    "outputs": {"zz_last": {"value": 1}, "a_first": {"value": 2}, "mm": {"value": 3}},
}


def test_a_stored_template_reads_back_in_the_order_it_was_written(database_url: str) -> None:
    with session_scope(database_url) as session:
        template_id = Templates(session).add(DOC, {}).id
    with session_scope(database_url) as session:
        read = Templates(session).get(template_id).template
        [text] = (
            session.connection()
            .exec_driver_sql(f"SELECT template::text FROM raw_template WHERE id = {template_id}")
            .one()
        )
    for loaded in (read, json.loads(text)):  # the repositories' rows, the node's query
        assert json.dumps(loaded) == json.dumps(DOC)
        assert list(loaded["outputs"]) == ["zz_last", "a_first", "mm"]
