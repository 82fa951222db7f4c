"""What Flower sees of graph nodes, through real workers and a real event receiver: which
stack, resource and phase each node is, a failed resource as a failed task, polls told apart."""

from __future__ import annotations

import ast
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from integration_support import template, test_resource

from conv_tasks.client import Client

NODE_TASK = "conv_tasks.node.converge"


@contextmanager
def _events(client: Client) -> Iterator[list[dict[str, Any]]]:
    """Every task event published while the block runs (and a second after)."""
    seen: list[dict[str, Any]] = []
    stop = threading.Event()
    ready = threading.Event()

    def listen() -> None:
        with client.app.connection_for_read() as conn:
            receiver = client.app.events.Receiver(
                conn, handlers={"*": lambda event: seen.append(dict(event))}
            )
            ready.set()
            for _ in receiver.consume(limit=None, timeout=1, wakeup=True):
                if stop.is_set():
                    break

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    ready.wait(10)
    time.sleep(1.0)  # the receiver's queue is bound
    try:
        yield seen
    finally:
        time.sleep(1.5)  # the last events are on their way
        stop.set()
        listener.join(timeout=15)


def _node_runs(seen: list[dict[str, Any]], stack_id: str) -> dict[str, dict[str, Any]]:
    """This stack's node deliveries by task id: the summary Flower shows, and how each ended."""
    runs: dict[str, dict[str, Any]] = {}
    for event in seen:
        if event.get("type") == "task-received" and event.get("name") == NODE_TASK:
            shown = ast.literal_eval(event["kwargs"])
            if shown.get("stack_id") == stack_id:
                runs[event["uuid"]] = {"shown": shown, "received": 0, "ends": []}
    for event in seen:
        run = runs.get(event.get("uuid", ""))
        if run is None:
            continue
        if event["type"] == "task-received":
            run["received"] += 1
        elif event["type"] in ("task-succeeded", "task-failed"):
            run["ends"].append(event["type"])
            run.setdefault("exception", event.get("exception"))
    return runs


def test_flower_names_each_node_fails_failed_resources_and_numbers_polls(
    client: Client,
) -> None:
    name = f"shown-{uuid.uuid4().hex[:6]}"
    tmpl = template(
        {
            "good": test_resource("g"),
            "bad": test_resource("b", fail_on=["create"]),
            "slow": test_resource("s", wait_secs=1.5),
        }
    )
    with _events(client) as seen:
        stack_id = client.create(name, tmpl, disable_rollback=True)["stack_id"]
        assert client.wait(stack_id, timeout=60)["status"] == "CREATE_FAILED"
    runs = _node_runs(seen, stack_id)
    by_resource: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in runs.values():
        shown = run["shown"]
        assert shown["stack"] == name  # the stack's name, not only its id
        by_resource.setdefault((shown["resource"], shown["phase"]), []).append(run)
    assert {"good", "bad", "slow"} <= {resource for resource, _ in by_resource}

    # The failed resource is a failed task in Flower, delivered and run once (no redelivery).
    [bad] = by_resource[("bad", "update")]
    assert bad["received"] == 1 and bad["ends"] == ["task-failed"]
    assert "ResourceFailed" in bad["exception"] and "'bad'" in bad["exception"]
    # A resource that converged is a success; so is every delivery of the slow one.
    for resource in ("good", "slow"):
        for run in by_resource[(resource, "update")]:
            assert run["ends"] == ["task-succeeded"], (resource, run)
    failed = [run for run in runs.values() if "task-failed" in run["ends"]]
    assert failed == [bad]

    # Polls are told apart, and numbered: the first run shows no poll, then 1, 2, ...
    polls = sorted(run["shown"].get("poll", 0) for run in by_resource[("slow", "update")])
    assert polls[0] == 0 and len(polls) >= 2
    assert polls == list(range(len(polls)))
    assert all("poll" not in run["shown"] for run in by_resource[("good", "update")])


# The reads a wait sends on every poll: the stack, and its events since the last poll.
POLLS = ("conv_tasks.stack.show", "conv_tasks.stack.events")


def test_a_wait_on_a_slow_stack_sends_flower_its_nodes_and_none_of_its_polls(
    client: Client,
) -> None:
    name = f"polled-{uuid.uuid4().hex[:6]}"
    polls: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    with _events(client) as seen:
        stack_id = client.create(name, template({"slow": test_resource("s", wait_secs=3)}))[
            "stack_id"
        ]
        # As `stack create --wait` follows it: the stack and its new events on every poll.
        final = client.wait(stack_id, timeout=60, on_event=events.append, on_poll=polls.append)
    assert final["status"] == "CREATE_COMPLETE"
    assert len(polls) >= 4 and events  # the wait polled, and saw the stack's events

    received: dict[str, int] = {}
    for event in seen:
        if event.get("type") == "task-received":
            received[event["name"]] = received.get(event["name"], 0) + 1
    # The slow resource's node ran and was polled: Flower lists it, once per delivery...
    runs = _node_runs(seen, stack_id)
    assert len(runs) >= 2 and all(run["ends"] == ["task-succeeded"] for run in runs.values())
    assert received.get("conv_tasks.stack.create", 0) >= 1
    # ...and none of the wait's reads, which would have been two rows every half second.
    assert {name: received.get(name, 0) for name in POLLS} == dict.fromkeys(POLLS, 0)
