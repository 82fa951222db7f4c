"""`latest` on conv_tasks.stack.events through a Client and real workers: the newest n events,
oldest first, after a cursor, over a stack and its nested stacks together; bad values are
refused naming the field, and answer nothing."""

from __future__ import annotations

import json

import pytest
from integration_support import template, test_resource

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput
from conv_tasks.limits import MAX_LATEST_EVENTS


def _chain(names: list[str]) -> dict[str, object]:
    """Resources one after the other, so that their events come in this order."""
    resources: dict[str, object] = {}
    for before, name in zip([None, *names], names, strict=False):
        resources[name] = {**test_resource(name), **({"depends_on": [before]} if before else {})}
    return resources


def test_the_latest_events_of_a_stack_after_a_cursor(client: Client) -> None:
    stack_id = client.create("latest", template(_chain(["a", "b", "c", "d"])))["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    every = client.events(stack_id)
    assert len(every) == 10  # the stack's two, and two for each resource
    assert [e["id"] for e in every] == sorted(e["id"] for e in every)

    assert client.events(stack_id, latest=3) == every[-3:]
    assert [(e["resource_name"], e["status"]) for e in client.events(stack_id, latest=3)] == [
        ("d", "CREATE_IN_PROGRESS"),
        ("d", "CREATE_COMPLETE"),
        (None, "CREATE_COMPLETE"),
    ]
    assert client.events(stack_id, latest=100) == every
    assert client.events(stack_id, latest=0) == every
    # With a cursor: the newest n of those after it, or all of them when fewer.
    cursor = every[4]["id"]
    assert client.events(stack_id, after_id=cursor, latest=2) == every[-2:]
    assert client.events(stack_id, after_id=every[-3]["id"], latest=5) == every[-2:]
    assert client.events(stack_id, after_id=every[-1]["id"], latest=5) == []


def test_the_latest_events_over_nested_stacks_together(client: Client) -> None:
    child = template(_chain(["x", "y"]))
    parent = template(
        {
            "first": test_resource("first"),
            "inner": {
                "type": "OS::Heat::Stack",
                "properties": {"template": json.dumps(child)},
                "depends_on": ["first"],
            },
        }
    )
    stack_id = client.create("nest", parent)["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    every = client.events(stack_id, nested_depth=1)
    assert {e["stack_name"] for e in every} == {"nest", every[-4]["stack_name"]}
    for n in (1, 4, 7, len(every)):
        assert client.events(stack_id, nested_depth=1, latest=n) == every[-n:]
    # The newest 4 cross from the child (its y, its end) into the parent (inner, its end).
    newest = client.events(stack_id, nested_depth=1, latest=4)
    assert [e["stack_name"] == "nest" for e in newest] == [False, False, True, True]
    cursor = every[len(every) // 2]["id"]
    after = [e for e in every if e["id"] > cursor]
    assert client.events(stack_id, nested_depth=1, after_id=cursor, latest=3) == after[-3:]
    # Without nesting, latest counts the stack's own events only.
    own = client.events(stack_id)
    assert client.events(stack_id, latest=2) == own[-2:]
    assert all(e["stack_name"] == "nest" for e in every if e["id"] in {o["id"] for o in own})


@pytest.mark.parametrize("latest", [-1, MAX_LATEST_EVENTS + 1])
def test_a_bad_latest_is_refused_naming_the_field(client: Client, latest: int) -> None:
    stack_id = client.create("refused", template({"a": test_resource("a")}))["stack_id"]
    with pytest.raises(InvalidInput) as caught:
        client.events(stack_id, latest=latest)
    [problem] = caught.value.problems
    assert problem.path == "latest"
    assert "MAX_LATEST_EVENTS" in problem.message and str(latest) in problem.message
    with pytest.raises(InvalidInput) as caught:
        client.call("conv_tasks.stack.events", stack=stack_id, latest="10")
    assert [p.path for p in caught.value.problems] == ["latest"]
