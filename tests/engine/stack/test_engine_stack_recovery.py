"""Rollback, cancel, check and mark-unhealthy through TenantStacks on the stand-ins, and the
engine's own roll_back through StackControl."""

from __future__ import annotations

import pytest
from standins import (
    RecordingDispatcher,
    StandinClock,
    StandinDatabase,
    StandinSandbox,
    StandinSyncPoints,
    resource,
    stepped,
    template,
)

from conv_tasks.engine import (
    ChangeRequest,
    Marked,
    NewStackRequest,
    OperationResult,
    StackControl,
    TenantStacks,
)
from conv_tasks.errors import Conflict, NotFound

FIRST = template({"r": resource("v1")})


def _create(
    stacks: TenantStacks, dispatcher: RecordingDispatcher, first: dict[str, object] = FIRST
) -> OperationResult:
    """A stack (rollback disabled) created from `first` and converged."""
    result = stacks.create(NewStackRequest("web", first, {}, disable_rollback=True))
    dispatcher.drain(stacks.env)
    return result


def _values(db: StandinDatabase, stack_id: str) -> dict[str, object]:
    """What each live sandbox object of the stack's head versions holds, by resource."""
    objects = {o["id"]: o for o in db.sandbox_objects() if not o["deleted"]}
    return {
        row.name: objects[row.physical_id]["properties"]["value"]
        for row in db.resources(stack_id)
        if row.is_head and row.physical_id in objects
    }


def test_a_complete_stack_cannot_be_rolled_back(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    _create(stacks, dispatcher)
    before = db.snapshot()
    with pytest.raises(Conflict, match="is CREATE_COMPLETE: only a failed or in-progress"):
        stacks.rollback("web")
    assert db.snapshot() == before


def test_a_failed_update_rolls_back_to_the_template_that_completed(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, dispatcher)
    first_template = db.stack(created.stack_id).raw_template_id
    broken = template({"r": resource("v2"), "bad": resource("x", fail=True)})
    stacks.update("web", ChangeRequest(broken, {}))
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).state == "UPDATE_FAILED"
    assert _values(db, created.stack_id)["r"] == "v2"

    result = stacks.rollback("web")

    assert result.to_json()["status"] == "ROLLBACK_IN_PROGRESS"
    assert db.stack(created.stack_id).raw_template_id == first_template
    dispatcher.drain(stacks.env)
    stack = db.stack(created.stack_id)
    assert (stack.state, stack.prev_raw_template_id) == ("ROLLBACK_COMPLETE", first_template)
    assert _values(db, created.stack_id) == {"r": "v1"}
    assert {row.name for row in db.resources(created.stack_id)} == {"r"}


def test_a_failed_create_rolls_back_to_nothing(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, dispatcher, template({"r": resource(), "bad": resource(fail=True)}))
    assert db.stack(created.stack_id).state == "CREATE_FAILED"
    templates = db.template_ids()

    stacks.rollback("web")

    [empty] = db.template_ids() - templates
    assert db.stack(created.stack_id).raw_template_id == empty
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).state == "ROLLBACK_COMPLETE"
    assert db.resources(created.stack_id) == []
    assert not [o for o in db.sandbox_objects() if not o["deleted"]]


def _slow_update(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> OperationResult:
    """A stack of r = v1 whose update to v2 has started and waits to be polled."""
    created = _create(stacks, dispatcher, template({"r": stepped("v1")}))
    stacks.update("web", ChangeRequest(template({"r": stepped("v2", polls=3)}), {}))
    assert dispatcher.deliver(stacks.env).outcome == "polling"
    return created


def test_a_cancel_with_rollback_interrupts_the_update_and_rolls_back(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _slow_update(stacks, db, dispatcher)

    result = stacks.cancel("web")

    assert result.to_json()["status"] == "ROLLBACK_IN_PROGRESS"
    head = next(r for r in db.resources(created.stack_id) if r.is_head)
    assert head.interrupt_reason == "the stack update was cancelled"
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).state == "ROLLBACK_COMPLETE"
    assert _values(db, created.stack_id) == {"r": "v1"}
    reasons = [e.reason for e in db.events(created.stack_id)]
    assert "Stack UPDATE cancelled; rolling back" in reasons
    assert "UPDATE interrupted: the stack update was cancelled" in reasons


def test_a_cancel_without_rollback_fails_the_update_where_it_stands(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    created = _slow_update(stacks, db, dispatcher)
    cancelled_traversal = db.stack(created.stack_id).current_traversal

    result = stacks.cancel("web", rollback=False)

    stack = db.stack(created.stack_id)
    assert result.to_json() == {
        "stack_id": stack.id,
        "name": "web",
        "action": "UPDATE",
        "status": "UPDATE_FAILED",
        "event_id": db.events(stack.id)[-1].id,
    }
    assert (stack.state, stack.status_reason) == (
        "UPDATE_FAILED",
        # What the update did before it stopped: one update was under way.
        "Stack UPDATE cancelled by the user: 1 in progress",
    )
    assert stack.current_traversal != cancelled_traversal
    assert cancelled_traversal not in syncpoints.traversals()
    deliveries = dispatcher.drain(stacks.env)
    assert [d.outcome for d in deliveries] == ["failed"]  # the poll stops, interrupted
    assert db.stack(created.stack_id).state == "UPDATE_FAILED"
    head = next(r for r in db.resources(created.stack_id) if r.is_head)
    assert (head.state, head.status_reason) == (
        "UPDATE_FAILED",
        "UPDATE interrupted: the stack update was cancelled",
    )


def test_only_an_update_or_create_in_progress_can_be_cancelled(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    _create(stacks, dispatcher)
    before = db.snapshot()
    for rollback in (True, False):
        with pytest.raises(Conflict, match="only an update in progress can be cancelled"):
            stacks.cancel("web", rollback=rollback)
    assert db.snapshot() == before


def test_a_check_asks_every_resource_and_fails_on_the_one_that_drifted(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    sandbox: StandinSandbox,
    clock: StandinClock,
) -> None:
    created = _create(stacks, dispatcher, template({"r": resource("v1"), "s": resource("v2")}))

    result = stacks.check("web")
    assert result.to_json() == {
        "stack_id": created.stack_id,
        "name": "web",
        "action": "CHECK",
        "status": "CHECK_IN_PROGRESS",
        "traversal": db.stack(created.stack_id).current_traversal,
        "event_id": db.events(created.stack_id)[-1].id,
    }
    with pytest.raises(Conflict, match="no operation is in progress"):
        stacks.check("web")
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).state == "CHECK_COMPLETE"
    assert {r.state for r in db.resources(created.stack_id)} == {"CHECK_COMPLETE"}

    drifted = next(r for r in db.resources(created.stack_id) if r.name == "s")
    sandbox.update(drifted.physical_id or "", {"value": "changed by hand"})
    clock.advance(1.0)  # a check operation is known by its start, by the database's clock
    stacks.check("web")
    dispatcher.drain(stacks.env)
    stack = db.stack(created.stack_id)
    assert stack.state == "CHECK_FAILED"
    assert stack.status_reason.startswith("1 checked, 1 failed (s: Resource s: sandbox object")
    assert {r.name: r.state for r in db.resources(created.stack_id)} == {
        "r": "CHECK_COMPLETE",
        "s": "CHECK_FAILED",
    }


def test_a_resource_marked_unhealthy_is_replaced_by_the_next_update(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, dispatcher)
    [before] = db.resources(created.stack_id)

    marked = stacks.mark_unhealthy("web", "r", "disk on fire")

    assert marked == Marked(created.stack_id, "r", "CHECK_FAILED", changed=True)
    assert marked.to_json() == {
        "stack_id": created.stack_id,
        "resource": "r",
        "status": "CHECK_FAILED",
        "changed": True,
    }
    [row] = db.resources(created.stack_id)
    assert (row.state, row.status_reason, row.atomic_key) == (
        "CHECK_FAILED",
        "disk on fire",
        before.atomic_key + 1,
    )
    assert stacks.mark_unhealthy("web", "r", None, reset=True).changed
    assert not stacks.mark_unhealthy("web", "r", None, reset=True).changed
    with pytest.raises(NotFound, match="has no resource 'nope'"):
        stacks.mark_unhealthy("web", "nope", None)

    stacks.mark_unhealthy("web", "r", None)
    stacks.update("web", ChangeRequest(None, {}))
    dispatcher.drain(stacks.env)
    [head] = db.resources(created.stack_id)
    assert head.physical_id != before.physical_id and head.version == 1
    events = [(e.resource_name, e.state, e.reason) for e in db.events(created.stack_id)]
    assert ("r", "CHECK_FAILED", "marked unhealthy by the user") in events
    assert ("r", "CREATE_IN_PROGRESS", "replacing version 0") in events


def test_the_engine_rolls_back_whichever_traversal_the_stack_has(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _slow_update(stacks, db, dispatcher)

    result = StackControl(stacks.env).roll_back(created.stack_id, expected=None, reason="why not")

    assert result.to_json()["status"] == "ROLLBACK_IN_PROGRESS"
    assert db.stack(created.stack_id).status_reason == "why not"
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).state == "ROLLBACK_COMPLETE"
    assert _values(db, created.stack_id) == {"r": "v1"}
