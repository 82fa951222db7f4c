"""What monitors see of a graph node: its stack, resource, phase and poll; a failed resource
raises, once recorded, and nothing retries it."""

from __future__ import annotations

import ast
import uuid
from typing import Any

import pytest

from conv_tasks.engine.node.delivery import Outcome
from conv_tasks.engine.payload import NodeTask, parse_node_task, woken_payload
from conv_tasks.errors import PayloadError
from conv_tasks.graph import NodeKey, Phase
from conv_tasks.tasks import node as node_task
from conv_tasks.tasks.app import app
from conv_tasks.tasks.node_summary import NODE_TASK, node_label, node_summary
from conv_tasks.tasks.runtime import _shown

STACK_ID = str(uuid.uuid4())
TRAVERSAL = str(uuid.uuid4())


def _task(**changes: Any) -> NodeTask:
    base = NodeTask(
        STACK_ID, TRAVERSAL, 3, NodeKey(Phase.UPDATE, "server"), {"x": {"ref": "s3cr3t"}}
    )
    return base.again(**{"stack": "web", **changes})


def test_the_summary_names_stack_resource_and_phase_and_never_the_data() -> None:
    shown = ast.literal_eval(node_summary(_task().to_payload()))
    assert shown == {
        "stack": "web",
        "resource": "server",
        "phase": "update",
        "stack_id": STACK_ID,
        "traversal": TRAVERSAL,
    }
    assert "s3cr3t" not in node_summary(_task().to_payload())
    # The sender writes the same summary into the task-sent event.
    assert _shown(_task().to_payload()) == node_summary(_task().to_payload())


def test_polls_retries_and_rechecks_are_told_apart() -> None:
    assert node_label(_task(poll=3).to_payload())["poll"] == 3
    assert node_label(_task(attempt=2).to_payload())["attempt"] == 2
    assert node_label(_task(recheck=True).to_payload())["recheck"] is True
    cleanup = _task(node=NodeKey(Phase.CLEANUP, "server"))
    assert node_label(cleanup.to_payload())["phase"] == "cleanup"


def test_a_payload_without_a_stack_name_shows_its_id_and_junk_shows_little() -> None:
    payload = _task(stack="").to_payload()
    assert "stack" not in payload
    assert node_label(payload)["stack"] == STACK_ID
    assert node_label(["not", "a", "mapping"]) == {}
    label = node_label({"node": 5, "poll": "many", "stack": "n" * 500})
    assert label["resource"] == "" and "poll" not in label and len(str(label["stack"])) < 110


def test_the_stack_name_and_poll_number_travel_to_successors_polls_and_woken_nodes() -> None:
    task = _task()
    assert parse_node_task(task.successor("update:db", {})).stack == "web"
    polled = parse_node_task(task.again(poll=task.poll + 1).to_payload())
    assert (polled.poll, polled.stack) == (1, "web")
    again = parse_node_task(polled.again(poll=polled.poll + 1).to_payload())
    assert again.poll == 2
    woken = woken_payload(STACK_ID, f"{TRAVERSAL} 3 update:db", "web")
    assert woken is not None and parse_node_task(woken).stack == "web"
    # A message from an older sender (poll true) is poll 1.
    assert parse_node_task({**task.to_payload(), "poll": True}).poll == 1


@pytest.mark.parametrize(("key", "value"), [("stack", 5), ("stack", "s" * 256), ("poll", -1)])
def test_a_bad_label_or_poll_is_refused(key: str, value: Any) -> None:
    with pytest.raises(PayloadError) as raised:
        parse_node_task({**_task().to_payload(), key: value})
    assert [p.path for p in raised.value.problems] == [key]


def test_a_failed_resource_raises_after_the_engine_recorded_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[NodeTask] = []
    outcomes = [Outcome.FAILED]

    def run(env: Any, task: NodeTask, nonce: str) -> Outcome:
        ran.append(task)
        return outcomes[-1]

    monkeypatch.setattr(node_task, "engine_env", lambda: None)
    monkeypatch.setattr(node_task, "run_node", run)
    with pytest.raises(node_task.ResourceFailed, match=r"stack web: update of resource 'server'"):
        node_task.converge.run(**_task().to_payload())
    assert len(ran) == 1
    for outcome in (Outcome.COMPLETE, Outcome.SKIPPED, Outcome.POLLING, Outcome.SUPERSEDED):
        outcomes.append(outcome)
        assert node_task.converge.run(**_task().to_payload()) is None


def test_a_failed_node_is_neither_retried_nor_redelivered_nor_stored() -> None:
    task = app.tasks[NODE_TASK]
    assert task.throws == (node_task.ResourceFailed,)  # logged in one line, no traceback
    assert not getattr(task, "autoretry_for", ())
    assert task.acks_late and task.acks_on_failure  # acknowledged when it fails: not redelivered
    assert task.ignore_result and not task.store_errors_even_if_ignored
