"""Converge, step by step, on the stand-ins: the update node of one resource claims it,
decides, acts through its plugin, writes and hands on; deliveries are run one at a time as
a worker would run them, and the test's clock stands in for time passing between them."""

from __future__ import annotations

import uuid

from standins import (
    POLL_AFTER,
    RecordingDispatcher,
    StandinClock,
    StandinDatabase,
    StandinSyncPoints,
    resource,
    stepped,
    template,
)

from conv_tasks.db import ResourceRow
from conv_tasks.engine import (
    ChangeRequest,
    EngineEnv,
    NewStackRequest,
    OperationResult,
    Outcome,
    TenantStacks,
    parse_node_task,
)
from conv_tasks.engine.payload import waiter_ref


def _create(stacks: TenantStacks, resources: dict[str, object]) -> OperationResult:
    return stacks.create(NewStackRequest("web", template(resources), {}, disable_rollback=True))


def _update(stacks: TenantStacks, resources: dict[str, object]) -> OperationResult:
    return stacks.update("web", ChangeRequest(template(resources), {}))


def _run(dispatcher: RecordingDispatcher, env: EngineEnv) -> list[tuple[str, Outcome]]:
    return [(d.sent.node, d.outcome) for d in dispatcher.drain(env)]


def _versions(db: StandinDatabase, stack_id: str, name: str = "r") -> list[ResourceRow]:
    return [row for row in db.resources(stack_id) if row.name == name]


def _events(db: StandinDatabase, stack_id: str, name: str = "r") -> list[tuple[str, str]]:
    return [(e.state, e.reason) for e in db.events(stack_id) if e.resource_name == name]


def _objects(db: StandinDatabase) -> list[tuple[str, int, bool]]:
    """Each sandbox object's value, how often it was asked to be created, whether deleted."""
    return sorted(
        (o["properties"]["value"], o["create_calls"], o["deleted"]) for o in db.sandbox_objects()
    )


def test_a_create_that_finishes_in_its_first_step(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, {"r": resource("v1")})

    assert dispatcher.deliver(stacks.env).outcome == Outcome.COMPLETE

    [row] = _versions(db, created.stack_id)
    [made] = db.sandbox_objects()
    assert (row.state, row.physical_id) == ("CREATE_COMPLETE", made["id"])
    assert row.attr_data == {"ref": made["id"], "attributes": {}}
    assert db.leases(created.stack_id) == {row.id: (None, None)}
    assert _events(db, created.stack_id) == [("CREATE_IN_PROGRESS", ""), ("CREATE_COMPLETE", "")]
    # Its clean-up had nothing to purge: settled in the same hand-on, never a task; and the
    # stack's point completed in that hand-on too.
    assert dispatcher.pending == []
    assert db.stack(created.stack_id).state == "CREATE_COMPLETE"


def test_a_slow_create_is_polled_under_its_lease_until_it_finishes(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
    clock: StandinClock,
) -> None:
    created = _create(stacks, {"r": stepped("v1", polls=2)})
    start = clock.time()

    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING

    [row] = _versions(db, created.stack_id)
    [poll] = dispatcher.pending
    task = parse_node_task(poll.payload)
    assert (row.state, task.poll, poll.countdown) == ("CREATE_IN_PROGRESS", 1, POLL_AFTER)
    assert db.leases(created.stack_id)[row.id] == (task.nonce, None)
    assert syncpoints.last_heartbeat(created.traversal or "") == start
    assert [d.outcome for d in dispatcher.drain(stacks.env)] == [
        Outcome.POLLING,
        Outcome.COMPLETE,
    ]
    assert clock.time() == start + 2 * POLL_AFTER
    assert [parse_node_task(s.payload).poll for s in dispatcher.sent] == [0, 1, 2]
    assert _objects(db) == [("v1", 1, False)]
    assert _events(db, created.stack_id) == [("CREATE_IN_PROGRESS", ""), ("CREATE_COMPLETE", "")]
    assert db.stack(created.stack_id).state == "CREATE_COMPLETE"


def test_an_update_in_place_moves_the_physical_resource_to_a_new_version(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, {"r": resource("v1")})
    dispatcher.drain(stacks.env)
    [old] = _versions(db, created.stack_id)

    _update(stacks, {"r": resource("v2")})

    # The old version, emptied of its resource, is purged by the write that completes.
    assert _run(dispatcher, stacks.env) == [("update:r", Outcome.COMPLETE)]
    [new] = _versions(db, created.stack_id)
    assert (new.version, new.state, new.replaces) == (1, "UPDATE_COMPLETE", old.id)
    assert new.physical_id == old.physical_id
    assert _objects(db) == [("v2", 1, False)]
    assert _events(db, created.stack_id)[-2:] == [
        ("UPDATE_IN_PROGRESS", ""),
        ("UPDATE_COMPLETE", ""),
    ]


def test_a_replacement_is_created_first_and_the_old_version_cleaned_up_after(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, {"r": resource("v1")})
    dispatcher.drain(stacks.env)
    [old] = _versions(db, created.stack_id)

    _update(stacks, {"r": resource("v2", update_replace=True)})
    assert dispatcher.deliver(stacks.env).outcome == Outcome.COMPLETE

    replaced, new = _versions(db, created.stack_id)
    assert (replaced.id, replaced.replaced_by, replaced.physical_id) == (
        old.id,
        new.id,
        old.physical_id,
    )
    assert (new.state, new.is_head) == ("CREATE_COMPLETE", True)
    assert new.physical_id != old.physical_id
    assert [s.node for s in dispatcher.pending] == ["cleanup:r"]
    assert _objects(db) == [("v1", 1, False), ("v2", 1, False)]

    assert _run(dispatcher, stacks.env) == [("cleanup:r", Outcome.CLEANED)]
    assert [v.id for v in _versions(db, created.stack_id)] == [new.id]
    assert _objects(db) == [("v1", 1, True), ("v2", 1, False)]
    assert _events(db, created.stack_id)[-4:] == [
        ("CREATE_IN_PROGRESS", "replacing version 0"),
        ("CREATE_COMPLETE", ""),
        ("DELETE_IN_PROGRESS", ""),
        ("DELETE_COMPLETE", ""),
    ]
    assert db.stack(created.stack_id).state == "UPDATE_COMPLETE"


def test_a_failed_action_fails_the_resource_and_its_dependents_do_nothing(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, {"a": resource("x", fail=True), "b": resource(after=("a",))})

    assert _run(dispatcher, stacks.env) == [
        ("update:a", Outcome.FAILED),
        ("update:b", Outcome.SKIPPED),
    ]
    reason = "Resource a failed to create because it was asked to (TestResource fail/fail_on)."
    [a] = _versions(db, created.stack_id, "a")
    [b] = _versions(db, created.stack_id, "b")
    assert (a.state, a.status_reason, b.state) == ("CREATE_FAILED", reason, "INIT_COMPLETE")
    stack = db.stack(created.stack_id)
    assert (stack.state, stack.status_reason) == (
        "CREATE_FAILED",
        f"1 failed (a: {reason}), 1 not started",
    )
    assert db.sandbox_objects() == []


def test_a_duplicate_delivery_does_nothing_twice(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, {"a": resource("x"), "b": resource("y", after=("a",))})
    [first] = dispatcher.pending
    dispatcher.node(first.payload)  # the broker delivers it again

    assert _run(dispatcher, stacks.env) == [
        ("update:a", Outcome.COMPLETE),
        ("update:a", Outcome.NOOP),  # converged already: its repeat hands b on again
        ("update:b", Outcome.COMPLETE),
        ("update:b", Outcome.SUPERSEDED),  # the stack's operation had ended
    ]
    assert _objects(db) == [("x", 1, False), ("y", 1, False)]
    for name in ("a", "b"):
        assert _events(db, created.stack_id, name) == [
            ("CREATE_IN_PROGRESS", ""),
            ("CREATE_COMPLETE", ""),
        ]
    ends = [e.state for e in db.events(created.stack_id) if e.resource_name is None]
    assert ends == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]


def test_a_node_that_finds_the_lease_held_waits_and_is_woken_by_its_holder(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, {"r": stepped("v1", polls=2)})
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING
    [row] = _versions(db, created.stack_id)
    holder = db.leases(created.stack_id)[row.id][0]
    updated = _update(stacks, {"r": stepped("v2")})

    waiting = dispatcher.deliver(stacks.env)
    assert waiting.outcome == Outcome.WAITING
    ref = waiter_ref(parse_node_task(waiting.sent.payload))
    assert ref.startswith(f"{updated.traversal} ") and ref.endswith(" update:r")
    assert db.leases(created.stack_id)[row.id] == (holder, ref)
    recheck = dispatcher.pending[-1]
    assert (recheck.countdown, recheck.payload.get("recheck")) == (60.0, True)

    # The holder finishes its create (its traversal superseded, it hands nothing on) and
    # releases the lease, waking the waiter in the same statement.
    assert [dispatcher.deliver(stacks.env).outcome for _ in range(2)] == [
        Outcome.POLLING,
        Outcome.COMPLETE,
    ]
    assert dispatcher.pending[0] == recheck
    woken = dispatcher.pending[-1]
    assert woken.countdown is None and woken.payload["traversal"] == updated.traversal
    assert db.leases(created.stack_id)[row.id] == (None, None)
    assert _run(dispatcher, stacks.env) == [
        ("update:r", Outcome.COMPLETE),
        ("update:r", Outcome.WOKEN_ALREADY),  # the recheck finds it no longer waits
    ]
    assert db.stack(created.stack_id).state == "UPDATE_COMPLETE"
    assert _objects(db) == [("v2", 1, False)]


# ---------------------------------------------------------------- issue 18


def _worker_dies_mid_create(stacks: TenantStacks, dispatcher: RecordingDispatcher) -> None:
    """Deliver the first node once (its action starts and asks to be polled), and lose the
    poll with the worker."""
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING
    assert [sent.node for sent in dispatcher.lose()] == ["update:r"]


def test_an_action_an_older_traversal_began_is_resumed_then_converged_afresh(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _create(stacks, {"r": stepped("v1", polls=1)})
    _worker_dies_mid_create(stacks, dispatcher)

    _update(stacks, {"r": stepped("v2", polls=1)})

    # The update waits out the dead worker's lease (by the test's clock), resumes its create
    # with the same token, then converges afresh to its own definition.
    assert [outcome for _, outcome in _run(dispatcher, stacks.env)] == [
        Outcome.WAITING,
        Outcome.WAITING,
        Outcome.TAKEN_OVER,
        Outcome.POLLING,
        Outcome.COMPLETE,
    ]
    [head] = _versions(db, created.stack_id)
    assert (head.version, head.state, head.properties_data["value"]) == (1, "UPDATE_COMPLETE", "v2")
    assert _objects(db) == [("v2", 1, False)]
    assert _events(db, created.stack_id)[-3:] == [
        ("CREATE_COMPLETE", ""),
        ("UPDATE_IN_PROGRESS", ""),
        ("UPDATE_COMPLETE", ""),
    ]
    assert db.stack(created.stack_id).state == "UPDATE_COMPLETE"


def test_a_resumed_action_of_the_same_definition_is_not_done_again(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    clock: StandinClock,
) -> None:
    same = stepped("v1", polls=1)
    created = _create(stacks, {"r": same})
    _worker_dies_mid_create(stacks, dispatcher)
    clock.advance(stacks.env.settings.lock_ttl + POLL_AFTER + 1)  # the lease ran out

    _update(stacks, {"r": same, "other": resource("o")})

    assert _run(dispatcher, stacks.env) == [
        ("update:other", Outcome.COMPLETE),
        ("update:r", Outcome.COMPLETE),
    ]
    [head] = _versions(db, created.stack_id)
    assert (head.version, head.state) == (0, "CREATE_COMPLETE")
    assert [state for state, _ in _events(db, created.stack_id)] == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
    ]
    assert _objects(db) == [("o", 1, False), ("v1", 1, False)]


def test_a_replacement_resumed_for_an_older_definition_gives_way_to_a_reinstatement(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    clock: StandinClock,
) -> None:
    original = {"r": stepped("v1")}
    created = _create(stacks, original)
    dispatcher.drain(stacks.env)
    [first] = _versions(db, created.stack_id)
    _update(stacks, {"r": stepped("v2", polls=1, update_replace=True)})
    _worker_dies_mid_create(stacks, dispatcher)  # the replacement's create is cut off
    clock.advance(stacks.env.settings.lock_ttl + POLL_AFTER + 1)

    _update(stacks, original)

    assert _run(dispatcher, stacks.env) == [
        ("update:r", Outcome.TAKEN_OVER),  # the replacement finished, for the wrong definition
        ("update:r", Outcome.NOOP),  # version 0 matches: reinstated, nothing done
        ("cleanup:r", Outcome.POLLING),  # the replacement deleted (in one poll) and purged
        ("cleanup:r", Outcome.CLEANED),
    ]
    [head] = _versions(db, created.stack_id)
    assert (head.id, head.physical_id, head.is_head) == (first.id, first.physical_id, True)
    assert ("UPDATE_COMPLETE", "version 0 reinstated") in _events(db, created.stack_id)
    assert _objects(db) == [("v1", 1, False), ("v2", 1, True)]
    assert db.stack(created.stack_id).state == "UPDATE_COMPLETE"


def test_a_version_a_clean_up_leased_meanwhile_is_not_reinstated(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    clock: StandinClock,
) -> None:
    original = {"r": stepped("v1")}
    created = _create(stacks, original)
    dispatcher.drain(stacks.env)
    [first] = _versions(db, created.stack_id)
    _update(stacks, {"r": stepped("v2", polls=1, update_replace=True)})
    _worker_dies_mid_create(stacks, dispatcher)
    clock.advance(stacks.env.settings.lock_ttl + POLL_AFTER + 1)
    rolled_back = _update(stacks, original)

    def clean_up_leases_version_0() -> None:
        """A clean-up takes version 0 between the node's claim and its reinstate, and dies."""
        stack = db.stack(created.stack_id)
        with db.node_store(
            stack_id=stack.id,
            traversal=rolled_back.traversal or "",
            template_id=stack.raw_template_id or 0,
            nonce=str(uuid.uuid4()),
        ) as cleanup:
            claim = cleanup.claim("r", cleanup=True, in_template=True, ttl=1, waiter="dead")
            assert [v.id for v in claim.versions if v.held] == [first.id]

    db.before("nodes.reinstate", clean_up_leases_version_0)

    outcomes = _run(dispatcher, stacks.env)

    assert outcomes == [
        ("update:r", Outcome.TAKEN_OVER),
        ("update:r", Outcome.RETRY),  # the reinstate found version 0 leased: let go, retried
        ("update:r", Outcome.COMPLETE),  # the replacement updated in place instead
        ("cleanup:r", Outcome.WAITING),  # for the dead clean-up's lease to run out
        ("cleanup:r", Outcome.CLEANED),
    ]
    head = next(v for v in _versions(db, created.stack_id) if v.is_head)
    assert head.id != first.id and head.properties_data["value"] == "v1"
    assert ("UPDATE_COMPLETE", "version 0 reinstated") not in _events(db, created.stack_id)
    assert [v.id for v in _versions(db, created.stack_id)] == [head.id]  # version 0 purged
    assert db.stack(created.stack_id).state == "UPDATE_COMPLETE"
    assert _objects(db) == [("v1", 1, False), ("v1", 1, True)]  # O2 updated, O1 deleted
