"""conv_tasks.node.converge: one graph node of one traversal (internal, not a public API)."""

from __future__ import annotations

import logging
from typing import Any

from conv_tasks.engine.node import run_node
from conv_tasks.engine.payload import parse_node_task
from conv_tasks.errors import PayloadError
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import NODE_TASK, engine_env

log = logging.getLogger(__name__)


@app.task(name=NODE_TASK)
def converge(**payload: Any) -> dict[str, Any]:
    try:
        task = parse_node_task(payload)
    except PayloadError as exc:
        log.error("malformed node payload dropped: %s", exc)
        return {"ok": False, **exc.to_dict()}
    outcome = run_node(engine_env(), task)
    return {"ok": True, "node": str(task.node), "outcome": outcome}
