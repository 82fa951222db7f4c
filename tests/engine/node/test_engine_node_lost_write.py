"""A node whose own row is behind what its SyncPoint says (issue 30): PostgreSQL lost the
write that recorded the node's outcome (a failover to a standby behind it), and a repeated
delivery of the node finds the action still to do. The node does it again (with the same
token: nothing is made twice) and, since its SyncPoint says it had finished before, the
operation resumes from the database rather than trusting what Redis handed on."""

from __future__ import annotations

from standins import RecordingDispatcher, StandinDatabase, resource, template

from conv_tasks.engine import NewStackRequest, Outcome, TenantStacks, parse_node_task, run_node
from conv_tasks.engine.stack import LOST_WRITES


def _lose_create(db: StandinDatabase, stack_id: str, name: str) -> None:
    """Put the resource's row back as it was before its create: the write is lost."""
    [row] = [r for r in db.resources(stack_id) if r.name == name]
    with db.work() as work:
        work.update(
            "resource",
            row.id,
            action="INIT",
            status="COMPLETE",
            physical_id=None,
            attr_data={},
            plugin_data={},
        )


def test_a_node_that_finishes_again_what_its_syncpoint_says_it_finished_resumes(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = stacks.create(
        NewStackRequest("web", template({"a": resource("x"), "b": resource("y", after=("a",))}), {})
    )
    first = dispatcher.deliver(stacks.env)
    assert (first.sent.node, first.outcome) == ("update:a", Outcome.COMPLETE)
    _lose_create(db, created.stack_id, "a")
    traversal = db.stack(created.stack_id).current_traversal

    # The broker delivers update:a again (at least once), before update:b runs: the database
    # says a is still to create.
    again = run_node(stacks.env, parse_node_task(first.sent.payload))

    assert again == Outcome.COMPLETE
    stack = db.stack(created.stack_id)
    assert stack.current_traversal != traversal, "the traversal went on trusting Redis"
    assert stack.status_reason.startswith(
        f"{LOST_WRITES} (found as node update:a finished again): 1 node(s)"
    )
    dispatcher.drain(stacks.env)
    stack = db.stack(created.stack_id)
    assert stack.state == "CREATE_COMPLETE"
    assert [r.state for r in db.resources(created.stack_id)] == ["CREATE_COMPLETE"] * 2
    objects = db.sandbox_objects()
    assert sorted(o["properties"]["value"] for o in objects) == ["x", "y"]  # each made once
    assert {r.physical_id for r in db.resources(created.stack_id)} == {o["id"] for o in objects}


def test_a_repeated_delivery_of_a_node_the_database_saw_finish_resumes_nothing(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = stacks.create(
        NewStackRequest("web", template({"a": resource("x"), "b": resource("y", after=("a",))}), {})
    )
    first = dispatcher.deliver(stacks.env)
    traversal = db.stack(created.stack_id).current_traversal

    dispatcher.node(first.sent.payload)
    dispatcher.drain(stacks.env)

    stack = db.stack(created.stack_id)
    assert (stack.state, stack.current_traversal) == ("CREATE_COMPLETE", traversal)
    assert not [e for e in db.events(created.stack_id) if LOST_WRITES in e.reason]
