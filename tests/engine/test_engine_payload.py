"""parse_node_task: the JSON payload of a graph-node task, checked field by field."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.payload import NodeTask, parse_node_task
from conv_tasks.errors import InvalidInput, PayloadError
from conv_tasks.graph import CLEANUP, UPDATE, NodeKey

STACK_ID = "6f1d2c3b-9a8e-4f70-b1c2-d3e4f5a6b7c8"
TRAVERSAL = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
NONCE = "11111111-2222-4333-8444-555555555555"


def valid(**changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "stack_id": STACK_ID,
        "traversal": TRAVERSAL,
        "node": "update:web",
        "data": {"input": {"db": {"ref": "db-1"}}},
    }
    payload.update(changes)
    return payload


def problem_paths(exc: InvalidInput) -> list[str]:
    return [p.path for p in exc.problems]


# ------------------------------------------------------------------------ valid payloads


@pytest.mark.parametrize("nonce", [None, NONCE])
def test_node_task_round_trips_through_its_payload(nonce: str | None) -> None:
    task = NodeTask(STACK_ID, TRAVERSAL, NodeKey(CLEANUP, "db:primary"), {"k": [1, 2]}, nonce)
    payload = task.to_payload()
    assert payload["node"] == "cleanup:db:primary"
    assert ("nonce" in payload) == (nonce is not None)
    assert parse_node_task(payload) == task


def test_to_payload_nonce_argument_overrides_the_stored_one() -> None:
    task = NodeTask(STACK_ID, TRAVERSAL, NodeKey(UPDATE, "web"), {}, nonce=None)
    payload = task.to_payload(nonce=NONCE)
    assert payload["nonce"] == NONCE
    assert parse_node_task(payload).nonce == NONCE


def test_parsed_fields() -> None:
    task = parse_node_task(valid(nonce=NONCE))
    assert task.stack_id == STACK_ID
    assert task.traversal == TRAVERSAL
    assert task.node == NodeKey(UPDATE, "web")
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
        ["alpha", "zeta", "stack_id", "traversal", "node", "data", "nonce"]
    )
    message = str(caught.value)
    assert message.startswith("Invalid payload (7 problems):")
    assert caught.value.to_dict()["error"] == "invalid_payload"
