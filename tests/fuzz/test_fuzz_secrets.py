"""Nothing leaks: parameter values and signal details stay out of the task events a worker
emits (issue 11 #5), and a value derived from a hidden parameter is masked whole (#4).

The sender here is a foreign service: a plain `send_task` with no kwargsrepr,
so Celery writes the full repr of the arguments into the message. What Flower
shows is what the worker's task events carry, captured here with an event
receiver on the fuzz worker's broker (the fuzz worker sends task events).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fuzz_support import FuzzCluster, problems_of
from killers import CREATE, SIGNAL, template, test_resource
from sqlalchemy import text

from conv_tasks.client import Client

TOKEN = "tok-SECRET-123"
PLAIN = "plain-SECRET-456"
CREDENTIAL = "sig-SECRET-789"
UPDATED = "tok-SECRET-upd"


class EventLog:
    """Every event on the broker's event exchange while it runs, in a thread."""

    def __init__(self, cluster: FuzzCluster) -> None:
        self.app = cluster.app
        self.events: list[dict[str, Any]] = []
        self._receiver: Any = None
        self._thread = threading.Thread(target=self._listen, daemon=True)

    def _listen(self) -> None:
        with self.app.connection_for_read() as conn:
            self._receiver = self.app.events.Receiver(
                conn, handlers={"*": lambda event: self.events.append(dict(event))}
            )
            self._receiver.capture(limit=None, timeout=None, wakeup=True)

    def start(self) -> None:
        self._thread.start()
        # The worker's heartbeat (every two seconds) says the receiver's queue is bound.
        self.wait_for(lambda e: e.get("type") == "worker-heartbeat", timeout=10)

    def wait_for(self, matches: Any, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in list(self.events):
                if matches(event):
                    return event
            time.sleep(0.1)
        raise AssertionError(f"no such event within {timeout}s; saw {len(self.events)} events")

    def of_task(self, task_id: str, kind: str) -> dict[str, Any]:
        """The event of `kind` (task-received, task-succeeded...) for one task."""
        return self.wait_for(lambda e: e.get("uuid") == task_id and e.get("type") == kind)

    def stop(self) -> None:
        if self._receiver is not None:
            self._receiver.should_stop = True
        self._thread.join(timeout=5)

    def text(self) -> str:
        return "\n".join(repr(event) for event in self.events)


@pytest.fixture
def event_log(cluster: FuzzCluster) -> Iterator[EventLog]:
    log = EventLog(cluster)
    log.start()
    try:
        yield log
    finally:
        log.stop()


def _wait_for_stack(cluster: FuzzCluster, stack_id: str, timeout: float = 60) -> str:
    """The stack's status once its operation is over, read from the database (a `show` task
    would put the stack, with its plain parameters, into the events)."""
    deadline = time.monotonic() + timeout
    query = text("SELECT action, status FROM stack WHERE id = :id")
    while True:
        with cluster.engine.connect() as conn:
            action, status = conn.execute(query, {"id": stack_id}).one()
        if status != "IN_PROGRESS":
            return f"{action}_{status}"
        assert time.monotonic() < deadline, f"stack {stack_id} still {action}_{status}"
        time.sleep(0.2)


def test_task_events_carry_no_parameter_value_or_signal_detail(
    cluster: FuzzCluster, event_log: EventLog
) -> None:
    tenant = f"fuzz-{uuid.uuid4().hex[:8]}"
    tmpl = template(
        {"a": test_resource({"get_param": "token"}), "b": test_resource({"get_param": "plain"})},
        parameters={"token": {"type": "string", "hidden": True}, "plain": {"type": "string"}},
    )
    sent = cluster.send(
        CREATE,
        {"tenant": tenant, "name": "leaky", "template": tmpl,
         "parameters": {"token": TOKEN, "plain": PLAIN}},
    )  # fmt: skip
    created = cluster.answer(sent)
    assert created["ok"] is True, created
    assert _wait_for_stack(cluster, created["stack_id"]) == "CREATE_COMPLETE"
    updated = cluster.answer(
        cluster.send(
            "conv_tasks.stack.update",
            {"tenant": tenant, "stack": "leaky", "parameters": {"token": UPDATED}},
        )
    )
    assert updated["ok"] is True, updated
    assert _wait_for_stack(cluster, created["stack_id"]) == "UPDATE_COMPLETE"
    details = {
        "deploy_status": "COMPLETE",
        "deploy_status_reason": "deployed",
        "credentials": {"password": CREDENTIAL},
    }
    signalled = cluster.send(
        SIGNAL, {"tenant": tenant, "stack": "leaky", "resource": "a", "details": details}
    )
    assert cluster.answer(signalled)["ok"] is True
    refused = cluster.send(
        SIGNAL, {"tenant": tenant, "stack": "nope", "resource": "a", "details": details}
    )
    problems_of(cluster.answer(refused))

    # Events are buffered by the worker: wait for the last task's, then look at them all.
    event_log.of_task(refused.id, "task-succeeded")
    received = event_log.of_task(sent.id, "task-received")
    # The worker's own summary: what identifies the request, and only key names of the rest.
    assert tenant in received["kwargs"], received
    assert "'token'" in received["kwargs"] and "'plain'" in received["kwargs"], received
    assert "'credentials'" in event_log.of_task(signalled.id, "task-received")["kwargs"]
    shown = event_log.text()
    for secret in (TOKEN, PLAIN, CREDENTIAL, UPDATED):
        assert secret not in shown, f"{secret} is in a task event"
    cluster.assert_healthy("after the leak checks")


def test_a_value_derived_from_a_hidden_parameter_is_masked_whole(client: Client) -> None:
    """str_replace turned the secret's dashes into spaces: a redactor that searches for the
    secret as a substring missed it (issue 11 #4)."""
    secret = "pa55-w0rd-hidden-x"
    derived = secret.replace("-", " ")
    tmpl = template(
        {"a": test_resource({"get_param": "pw"})},
        parameters={"pw": {"type": "string", "hidden": True}},
        outputs={
            "spaced": {
                "value": {"str_replace": {"template": {"get_param": "pw"}, "params": {"-": " "}}}
            },
            "joined": {"value": {"list_join": ["+", [{"get_attr": ["a", "output"]}, "x"]]}},
        },
    )
    stack_id = client.create("derived", tmpl, {"pw": secret})["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    seen = repr([client.get(stack_id), client.outputs(stack_id), client.events(stack_id)])
    seen += repr(client.resources(stack_id))
    for leaked in (secret, derived, "pa55", "w0rd"):
        assert leaked not in seen, f"{leaked!r} is shown"
