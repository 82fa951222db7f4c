"""The JSON payload of a graph-node task, parsed and checked."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.errors import PayloadError, Problem
from conv_tasks.graph import NodeKey


@dataclass(frozen=True)
class NodeTask:
    stack_id: str
    traversal: str
    node: NodeKey
    data: Mapping[str, Any]
    nonce: str | None = None

    def to_payload(self, *, nonce: str | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "stack_id": self.stack_id,
            "traversal": self.traversal,
            "node": str(self.node),
            "data": dict(self.data),
        }
        if nonce or self.nonce:
            payload["nonce"] = nonce or self.nonce
        return payload


def _uuid(payload: Mapping[str, Any], key: str, problems: list[Problem]) -> str:
    value = payload.get(key)
    try:
        return str(uuid.UUID(str(value))) if isinstance(value, str) else _bad(key, value, problems)
    except ValueError:
        return _bad(key, value, problems)


def _bad(key: str, value: object, problems: list[Problem]) -> str:
    problems.append(Problem(key, f"must be a UUID string, got {value!r}"))
    return ""


def parse_node_task(payload: Mapping[str, Any]) -> NodeTask:
    if not isinstance(payload, Mapping):
        raise PayloadError("a node task payload must be a JSON object")
    problems: list[Problem] = []
    unknown = sorted(set(payload) - {"stack_id", "traversal", "node", "data", "nonce"})
    problems.extend(Problem(key, "is not a field of a node task") for key in unknown)
    stack_id = _uuid(payload, "stack_id", problems)
    traversal = _uuid(payload, "traversal", problems)
    node: NodeKey | None = None
    try:
        node = NodeKey.parse(payload.get("node"))  # type: ignore[arg-type]
    except Exception as exc:
        problems.append(Problem("node", str(exc)))
    data = payload.get("data", {})
    if not isinstance(data, Mapping):
        problems.append(Problem("data", "must be a JSON object"))
    nonce = payload.get("nonce")
    if nonce is not None:
        nonce = _uuid(payload, "nonce", problems)
    if problems or node is None:
        raise PayloadError(problems)
    return NodeTask(stack_id, traversal, node, dict(data), nonce)
