"""The node task retries transient faults itself, keeping its lease nonce, with jitter."""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy.exc
from celery.exceptions import Reject

from conv_tasks.engine.payload import parse_node_task
from conv_tasks.tasks import node as node_task

PAYLOAD = {
    "stack_id": str(uuid.uuid4()),
    "traversal": str(uuid.uuid4()),
    "template_id": 3,
    "node": "update:web",
    "data": {"update:db": {"ref": "db-1"}},
}


@dataclass
class Recorder:
    sent: list[tuple[Mapping[str, Any], float | None]] = field(default_factory=list)
    fail: bool = False

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        if self.fail:
            raise ConnectionError("broker down")
        self.sent.append((payload, countdown))


@dataclass
class Env:
    dispatcher: Recorder


def _broken(*_: Any) -> Any:
    raise sqlalchemy.exc.OperationalError("UPDATE resource", {}, Exception("server closed"))


def test_delays_grow_with_jitter_and_a_ceiling() -> None:
    rng = random.Random(4)
    for attempt in range(40):
        ceiling = min(node_task.LONGEST_DELAY, node_task.FIRST_DELAY * 2**attempt)
        delay = node_task.retry_delay(attempt, rng)
        assert ceiling / 2 <= delay <= ceiling


def test_a_transient_fault_sends_the_node_again_with_its_nonce(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder()
    monkeypatch.setattr(node_task, "engine_env", lambda: Env(recorder))
    seen: list[Any] = []
    monkeypatch.setattr(
        node_task, "run_node", lambda env, task, nonce: seen.append(nonce) or _broken()
    )
    node_task.converge.run(**PAYLOAD)
    [(payload, countdown)] = recorder.sent
    again = parse_node_task(payload)
    assert again.nonce == seen[0] is not None  # the lease it may hold goes with it
    assert (again.attempt, again.poll, again.data) == (1, False, PAYLOAD["data"])
    assert countdown is not None and 0 < countdown <= node_task.FIRST_DELAY

    node_task.converge.run(**payload)
    assert parse_node_task(recorder.sent[-1][0]).attempt == 2


def test_with_the_broker_down_too_the_message_goes_back_unacknowledged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(node_task, "engine_env", lambda: Env(Recorder(fail=True)))
    monkeypatch.setattr(node_task, "run_node", lambda env, task, nonce: _broken())
    with pytest.raises(Reject):
        node_task.converge.run(**PAYLOAD)


def test_a_malformed_payload_is_dropped_without_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_task, "run_node", lambda env, task, nonce: pytest.fail("ran"))
    assert node_task.converge.run(**{**PAYLOAD, "template_id": "x"}) is None
