"""What Flower, `celery events` and the logs show of a graph-node task.

Every node runs as the one task `conv_tasks.node.converge`; its argument
summary says which it is: the stack's name, the resource, the phase (update
or cleanup) and, for a delivery that checks an action under way, the poll's
number (`'poll': 3`), so that polls are told apart from first runs. The stack
name comes with the payload (the engine puts it there when a traversal
starts and every node hands it on): no summary costs a database round trip.
The data a node carries (attribute values) is never shown.
"""

from __future__ import annotations

from collections.abc import Mapping

NODE_TASK = "conv_tasks.node.converge"

_MAX_VALUE_CHARS = 100


def _text(value: object) -> str:
    text = value if isinstance(value, str) else ""
    return text if len(text) <= _MAX_VALUE_CHARS else text[:_MAX_VALUE_CHARS] + "..."


def _count(value: object) -> int:
    return int(value) if isinstance(value, int) and value > 0 else 0


def node_label(payload: object) -> dict[str, object]:
    """The summary's fields, in the order a monitor reads them."""
    if not isinstance(payload, Mapping):
        return {}
    phase, _, resource = _text(payload.get("node")).partition(":")
    shown: dict[str, object] = {
        "stack": _text(payload.get("stack")) or _text(payload.get("stack_id")),
        "resource": resource,
        "phase": phase,
    }
    if poll := _count(payload.get("poll")):
        shown["poll"] = poll
    if attempt := _count(payload.get("attempt")):
        shown["attempt"] = attempt
    if payload.get("recheck") is True:
        shown["recheck"] = True
    shown["stack_id"] = _text(payload.get("stack_id"))
    shown["traversal"] = _text(payload.get("traversal"))
    return shown


def node_summary(payload: object) -> str:
    """`{'stack': 'web', 'resource': 'server', 'phase': 'update', 'poll': 3, ...}`"""
    return repr(node_label(payload))
