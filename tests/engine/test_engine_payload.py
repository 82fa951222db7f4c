"""parse_node_task: the JSON payload of a graph-node task, checked field by field."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.payload import (
    NodeOutput,
    NodeTask,
    parse_node_task,
    waiter_ref,
    woken_payload,
)
from conv_tasks.errors import InvalidInput, PayloadError
from conv_tasks.graph import NodeKey, Phase

STACK_ID = "6f1d2c3b-9a8e-4f70-b1c2-d3e4f5a6b7c8"
TRAVERSAL = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
NONCE = "11111111-2222-4333-8444-555555555555"


def valid(**changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "stack_id": STACK_ID,
        "traversal": TRAVERSAL,
        "template_id": 7,
        "node": "update:web",
        "data": {"input": {"db": {"ref": "db-1"}}},
    }
    payload.update(changes)
    return payload


def problem_paths(exc: InvalidInput) -> list[str]:
    return [p.path for p in exc.problems]


# ------------------------------------------------------------------------ valid payloads


@pytest.mark.parametrize("nonce", [None, NONCE])
@pytest.mark.parametrize(("poll", "attempt"), [(False, 0), (True, 3)])
def test_node_task_round_trips_through_its_payload(
    nonce: str | None, poll: bool, attempt: int
) -> None:
    node = NodeKey(Phase.CLEANUP, "db:primary")
    task = NodeTask(STACK_ID, TRAVERSAL, 7, node, {"k": [1, 2]}, nonce, poll, attempt)
    payload = task.to_payload()
    assert payload["node"] == "cleanup:db:primary"
    assert ("nonce" in payload) == (nonce is not None)
    assert ("poll" in payload) == poll
    assert parse_node_task(payload) == task


def test_again_keeps_the_node_and_changes_only_what_is_asked() -> None:
    task = NodeTask(STACK_ID, TRAVERSAL, 7, NodeKey(Phase.UPDATE, "web"), {"a": 1})
    again = task.again(nonce=NONCE, poll=True)
    assert (again.node, again.data, again.nonce, again.poll) == (task.node, {"a": 1}, NONCE, True)
    assert parse_node_task(again.to_payload()).nonce == NONCE


def test_a_successor_payload_is_fresh() -> None:
    task = NodeTask(STACK_ID, TRAVERSAL, 7, NodeKey(Phase.UPDATE, "a"), {}, NONCE, True, 2)
    successor = parse_node_task(task.successor("update:b", {"update:a": {"ref": "A"}}))
    assert successor == NodeTask(
        STACK_ID, TRAVERSAL, 7, NodeKey(Phase.UPDATE, "b"), {"update:a": {"ref": "A"}}
    )


def test_a_waiter_is_woken_with_the_payload_it_wrote_down() -> None:
    task = NodeTask(STACK_ID, TRAVERSAL, 7, NodeKey(Phase.CLEANUP, "a b:c"), {"x": 1}, NONCE)
    woken = woken_payload(STACK_ID, waiter_ref(task))
    assert woken is not None
    assert parse_node_task(woken) == NodeTask(STACK_ID, TRAVERSAL, 7, task.node)
    assert woken_payload(STACK_ID, "garbage") is None


def test_inputs_and_failures_come_from_update_predecessors() -> None:
    task = NodeTask(
        STACK_ID,
        TRAVERSAL,
        7,
        NodeKey(Phase.UPDATE, "web"),
        {
            "update:db": {"ref": "db-1", "attrs": {"ip": "10.0.0.1"}},
            "cleanup:old": {},
            "update:net": {"failed": ["net: boom", "x: y"]},
            "update:lb": {"failed": ["net: boom"]},
            "nonsense": 5,
        },
    )
    assert task.inputs()["db"] == NodeOutput("db-1", {"ip": "10.0.0.1"})
    assert task.failures() == ("net: boom", "x: y")


@pytest.mark.parametrize(
    "output",
    [NodeOutput(), NodeOutput("r", {"a": [1]}), NodeOutput(failed=("x: y",)), NodeOutput("r")],
)
def test_node_output_round_trips_through_json(output: NodeOutput) -> None:
    assert NodeOutput.from_json(output.to_json()) == output


@pytest.mark.parametrize("value", [None, [], "x", {"ref": 5, "attrs": []}])
def test_an_unreadable_output_is_no_output(value: Any) -> None:
    assert NodeOutput.from_json(value) == NodeOutput()


def test_parsed_fields() -> None:
    task = parse_node_task(valid(nonce=NONCE))
    assert task.stack_id == STACK_ID
    assert task.traversal == TRAVERSAL
    assert task.template_id == 7
    assert task.node == NodeKey(Phase.UPDATE, "web")
    assert task.data == {"input": {"db": {"ref": "db-1"}}}
    assert task.nonce == NONCE


def test_uuids_are_normalised() -> None:
    task = parse_node_task(valid(stack_id=STACK_ID.upper(), traversal=TRAVERSAL.replace("-", "")))
    assert task.stack_id == STACK_ID
    assert task.traversal == TRAVERSAL


def test_data_defaults_to_empty_and_nonce_none_is_absent() -> None:
    payload = valid(nonce=None)
    del payload["data"]
    task = parse_node_task(payload)
    assert task.data == {}
    assert task.nonce is None


def test_parsed_data_is_a_copy() -> None:
    payload = valid(data={"a": 1})
    task = parse_node_task(payload)
    payload["data"]["a"] = 2
    assert task.data == {"a": 1}


# ---------------------------------------------------------------------- malformed payloads


@pytest.mark.parametrize("field", ["stack_id", "traversal", "nonce"])
@pytest.mark.parametrize("value", ["not-a-uuid", "", 42, ["x"], STACK_ID[:-1]])
def test_non_uuid_field_is_rejected_by_name(field: str, value: Any) -> None:
    with pytest.raises(PayloadError) as caught:
        parse_node_task(valid(**{field: value}))
    assert problem_paths(caught.value) == [field]
    assert f"{field}: must be a UUID string" in str(caught.value)


@pytest.mark.parametrize("field", ["stack_id", "traversal"])
def test_missing_uuid_field_is_rejected_by_name(field: str) -> None:
    payload = valid()
    del payload[field]
    with pytest.raises(PayloadError) as caught:
        parse_node_task(payload)
    assert problem_paths(caught.value) == [field]


@pytest.mark.parametrize("node", ["web", "delete:web", "update:", ":web", "", 7, None])
def test_bad_node_text_is_rejected_by_name(node: Any) -> None:
    with pytest.raises(PayloadError) as caught:
        parse_node_task(valid(node=node))
    assert problem_paths(caught.value) == ["node"]
    assert "node: " in str(caught.value)


def test_missing_node_is_rejected_by_name() -> None:
    payload = valid()
    del payload["node"]
    with pytest.raises(PayloadError) as caught:
        parse_node_task(payload)
    assert problem_paths(caught.value) == ["node"]


@pytest.mark.parametrize("data", [[1, 2], "text", 3, None])
def test_data_that_is_not_an_object_is_rejected_by_name(data: Any) -> None:
    with pytest.raises(PayloadError) as caught:
        parse_node_task(valid(data=data))
    assert problem_paths(caught.value) == ["data"]
    assert "data: must be a JSON object" in str(caught.value)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("template_id", 0),
        ("template_id", "7"),
        ("template_id", True),
        ("template_id", None),
        ("poll", "yes"),
        ("attempt", -1),
        ("attempt", 1.5),
    ],
)
def test_bad_scalar_fields_are_rejected_by_name(field: str, value: Any) -> None:
    with pytest.raises(PayloadError) as caught:
        parse_node_task(valid(**{field: value}))
    assert problem_paths(caught.value) == [field]


def test_unknown_key_is_rejected_by_name() -> None:
    with pytest.raises(PayloadError) as caught:
        parse_node_task(valid(extra=1))
    assert problem_paths(caught.value) == ["extra"]
    assert "extra: is not a field of a node task" in str(caught.value)


@pytest.mark.parametrize("payload", [["stack_id"], "update:web", None, 3])
def test_payload_that_is_not_a_mapping_is_rejected(payload: Any) -> None:
    with pytest.raises(PayloadError, match="must be a JSON object"):
        parse_node_task(payload)


def test_every_problem_is_reported_together() -> None:
    payload = {
        "stack_id": "x",
        "traversal": 1,
        "node": "nowhere",
        "data": [],
        "nonce": "n",
        "zeta": 1,
        "alpha": 2,
    }
    with pytest.raises(PayloadError) as caught:
        parse_node_task(payload)
    assert sorted(problem_paths(caught.value)) == sorted(
        ["alpha", "zeta", "stack_id", "traversal", "template_id", "node", "data", "nonce"]
    )
    message = str(caught.value)
    assert message.startswith("Invalid payload (8 problems):")
    assert caught.value.to_dict()["error"] == "invalid_payload"
