"""What travels between graph nodes: the node task's JSON payload and a node's output.

Both are frozen values with a JSON round trip. A payload comes from our own
engine, but it crosses the broker, so it is checked like any input: a
malformed one is refused with every problem named, and changes nothing.
A resource version also stores its last output (`attr_data`), in a shape of its own:
`stored_output` writes it and `read_stored_output` is the one place that reads it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from conv_tasks.errors import InvalidInput, PayloadError, Problem
from conv_tasks.graph import NodeKey, Phase
from conv_tasks.template import ResourceData

_FIELDS = frozenset(
    {
        "stack_id",
        "traversal",
        "template_id",
        "node",
        "data",
        "nonce",
        "poll",
        "attempt",
        "recheck",
        "stack",
    }
)
# The stack's name travels with its nodes only as a label for monitors (Flower, logs).
MAX_STACK_LABEL = 255


@dataclass(frozen=True)
class NodeOutput:
    """What a finished node hands its successors: its reference and the attributes they
    need, or the failures that stop them."""

    ref: str | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict)
    failed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        if self.failed:
            return {"failed": list(self.failed)}
        if self.ref is None and not self.attrs:
            return {}
        return {"ref": self.ref, "attrs": dict(self.attrs)}

    @classmethod
    def from_json(cls, data: object) -> NodeOutput:
        """The output a predecessor gave; anything unreadable counts as no output."""
        if not isinstance(data, Mapping):
            return cls()
        failed = data.get("failed")
        if isinstance(failed, list | tuple) and failed:
            return cls(failed=tuple(str(f) for f in failed))
        ref = data.get("ref")
        attrs = data.get("attrs")
        return cls(
            ref=ref if isinstance(ref, str) else None,
            attrs=dict(attrs) if isinstance(attrs, Mapping) else {},
        )


def stored_output(ref: str | None, attributes: Mapping[str, Any]) -> dict[str, Any]:
    """What a resource version stores of its output (its `attr_data`)."""
    return {"ref": ref, "attributes": dict(attributes)}


def read_stored_output(attr_data: Mapping[str, Any] | None) -> ResourceData:
    """A resource version's stored output (`attr_data`): its reference and attributes."""
    data = attr_data or {}
    return ResourceData(data.get("ref"), dict(data.get("attributes") or {}))


@dataclass(frozen=True)
class NodeTask:
    """One delivery of a graph node: which node of which traversal, with its inputs.

    `nonce` names the lease a delivery continues with (a poll, a retry);
    `poll` (0 or the poll's number) says the node's action has started and is
    to be checked, not started again; `attempt` counts retries after transient faults;
    `recheck` marks the delayed delivery a waiting node sends itself in case
    the lease's holder died: it runs only if the node is still waiting.
    `stack` is the stack's name, a label for monitors: nothing reads it to decide.
    """

    stack_id: str
    traversal: str
    template_id: int
    node: NodeKey
    data: Mapping[str, Any] = field(default_factory=dict)
    nonce: str | None = None
    poll: int = 0
    attempt: int = 0
    recheck: bool = False
    stack: str = ""

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "stack_id": self.stack_id,
            "traversal": self.traversal,
            "template_id": self.template_id,
            "node": str(self.node),
            "data": dict(self.data),
        }
        if self.nonce:
            payload["nonce"] = self.nonce
        if self.poll:
            payload["poll"] = int(self.poll)
        if self.attempt:
            payload["attempt"] = self.attempt
        if self.recheck:
            payload["recheck"] = True
        if self.stack:
            payload["stack"] = self.stack
        return payload

    def successor(self, node: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """The payload of a node of the same traversal, fresh (no lease, no poll)."""
        return NodeTask(
            self.stack_id,
            self.traversal,
            self.template_id,
            NodeKey.parse(node),
            data,
            stack=self.stack,
        ).to_payload()

    def again(self, **changes: Any) -> NodeTask:
        return replace(self, **changes)

    def inputs(self) -> dict[str, NodeOutput]:
        """The outputs of the update nodes this node's inputs came from, by resource name."""
        found: dict[str, NodeOutput] = {}
        for key, value in self.data.items():
            try:
                node = NodeKey.parse(key)
            except InvalidInput:
                continue
            if node.phase == Phase.UPDATE:
                found[node.name] = NodeOutput.from_json(value)
        return found

    def failures(self) -> tuple[str, ...]:
        """The failures the predecessors reported (a failed node's dependents do not run)."""
        found: dict[str, None] = {}
        for value in self.data.values():
            for failure in NodeOutput.from_json(value).failed:
                found.setdefault(failure)
        return tuple(found)


def waiter_ref(task: NodeTask) -> str:
    """How a node waiting for a lease is written down on the version it waits for."""
    return f"{task.traversal} {task.template_id} {task.node}"


def woken_payload(stack_id: str, ref: str, stack: str = "") -> dict[str, Any] | None:
    """The payload that wakes the node `ref` names; None if `ref` is unreadable."""
    traversal, _, rest = ref.partition(" ")
    template, _, node = rest.partition(" ")
    try:
        return NodeTask(
            stack_id, traversal, int(template), NodeKey.parse(node), stack=stack
        ).to_payload()
    except (ValueError, InvalidInput):
        return None


def _uuid(payload: Mapping[str, Any], key: str, problems: list[Problem]) -> str:
    value = payload.get(key)
    if isinstance(value, str):
        try:
            return str(uuid.UUID(value))
        except ValueError:
            pass
    problems.append(Problem(key, f"must be a UUID string, got {value!r}"))
    return ""


def parse_node_task(payload: Mapping[str, Any]) -> NodeTask:
    if not isinstance(payload, Mapping):
        raise PayloadError("a node task payload must be a JSON object")
    problems: list[Problem] = []
    unknown = sorted(set(payload) - _FIELDS)
    problems.extend(Problem(key, "is not a field of a node task") for key in unknown)
    stack_id = _uuid(payload, "stack_id", problems)
    traversal = _uuid(payload, "traversal", problems)
    raw_template = payload.get("template_id")
    template_id = 0
    if isinstance(raw_template, bool) or not isinstance(raw_template, int) or raw_template <= 0:
        problems.append(Problem("template_id", f"must be a positive integer, got {raw_template!r}"))
    else:
        template_id = raw_template
    node: NodeKey | None = None
    try:
        node = NodeKey.parse(payload.get("node"))  # type: ignore[arg-type]
    except InvalidInput as exc:
        problems.append(Problem("node", str(exc)))
    data = payload.get("data", {})
    if not isinstance(data, Mapping):
        problems.append(Problem("data", "must be a JSON object"))
    nonce = payload.get("nonce")
    if nonce is not None:
        nonce = _uuid(payload, "nonce", problems)
    poll = payload.get("poll", 0)
    if not isinstance(poll, int) or poll < 0:
        # true/false from an older sender counts as poll 1/0.
        problems.append(Problem("poll", f"must be a whole number, got {poll!r}"))
    recheck = payload.get("recheck", False)
    if not isinstance(recheck, bool):
        problems.append(Problem("recheck", f"must be true or false, got {recheck!r}"))
    attempt = payload.get("attempt", 0)
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 0:
        problems.append(Problem("attempt", f"must be a whole number, got {attempt!r}"))
    stack = payload.get("stack", "")
    if not isinstance(stack, str) or len(stack) > MAX_STACK_LABEL:
        problems.append(Problem("stack", f"must be a name of at most {MAX_STACK_LABEL} characters"))
    if problems or node is None:
        raise PayloadError(problems)
    return NodeTask(
        stack_id,
        traversal,
        template_id,
        node,
        dict(data),
        nonce,
        int(poll),
        attempt,
        recheck,
        stack,
    )
