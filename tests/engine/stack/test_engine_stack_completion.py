"""The end of a traversal (complete_traversal, and end_traversal which rolls back) on the
stand-ins, called as the stack's SyncPoint would call it, with the inputs it would hand on."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import pytest
from standins import RecordingDispatcher, StandinDatabase, StandinSyncPoints, resource, template

from conv_tasks.engine import ChangeRequest, EngineEnv, NewStackRequest, TenantStacks
from conv_tasks.engine.stack import (
    LOST_WRITES,
    Completion,
    complete_traversal,
    end_traversal,
)
from conv_tasks.engine.stack.completion import LOST_WRITE_RESUMES
from conv_tasks.errors import NotFound

BOOM = {"update:r": {"failed": ["r: boom"]}, "update:s": {"failed": ["r: boom"]}}


def _run_nodes_only(stacks: TenantStacks, dispatcher: RecordingDispatcher) -> None:
    """Run every pending node, but leave the traversal's end to the test."""
    env = stacks.env
    ended: list[tuple[str, str]] = []

    def record(_env: EngineEnv, stack_id: str, traversal: str, _: Mapping[str, Any]) -> None:
        ended.append((stack_id, traversal))

    real, env.end_traversal = env.end_traversal, record
    try:
        dispatcher.drain(env)
    finally:
        env.end_traversal = real
    assert len(ended) == 1, ended


def _updating(
    stacks: TenantStacks,
    dispatcher: RecordingDispatcher,
    *,
    disable_rollback: bool = True,
    run_nodes: bool = False,
) -> tuple[str, str, int]:
    """A stack created and converged, then updated: its id, the update's traversal and the
    created template's id. The update's nodes run only if `run_nodes` (else the test ends a
    traversal that did nothing), and the end of the traversal is left to the test."""
    created = stacks.create(
        NewStackRequest("web", template({"r": resource()}), {}, disable_rollback=disable_rollback)
    )
    dispatcher.drain(stacks.env)
    with stacks.env.db.transaction() as tx:
        first = tx.stacks.get(created.stack_id).raw_template_id
    updated = stacks.update("web", ChangeRequest(template({"r": resource("v2")}), {}))
    if run_nodes:
        _run_nodes_only(stacks, dispatcher)
    else:
        dispatcher.lose()  # its nodes never run: the test ends the traversal itself
    assert updated.traversal is not None and first is not None
    return created.stack_id, updated.traversal, first


def test_success_moves_the_rollback_target_and_deletes_orphaned_templates(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    stack_id, traversal, first = _updating(stacks, dispatcher, run_nodes=True)
    second = db.stack(stack_id).raw_template_id

    done = complete_traversal(stacks.env, stack_id, traversal, {"update:r": {}})

    assert done == Completion("UPDATE")
    stack = db.stack(stack_id)
    assert (stack.state, stack.status_reason) == (
        "UPDATE_COMPLETE",
        "Stack UPDATE completed successfully",
    )
    assert stack.prev_raw_template_id == stack.raw_template_id == second
    assert first != second and db.template_ids() == {second}  # no stack names the first
    assert traversal not in syncpoints.traversals()
    last = db.events(stack_id)[-1]
    assert (last.state, last.traversal) == ("UPDATE_COMPLETE", traversal)


def test_a_completed_delete_soft_deletes_the_stack_and_forgets_its_credentials(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = stacks.create(NewStackRequest("web", template({"r": resource()}), {}))
    dispatcher.drain(stacks.env)
    with db.transaction() as tx:
        assert tx.deployments.issue_credential(
            "tenant-a", created.stack_id, "server-1", "hash", rotate=False
        )
    deleting = stacks.delete("web")
    _run_nodes_only(stacks, dispatcher)

    done = complete_traversal(stacks.env, created.stack_id, deleting.traversal or "", {})

    assert done == Completion("DELETE")
    stack = db.stack(created.stack_id)
    assert stack.deleted and stack.state == "DELETE_COMPLETE"
    assert (stack.raw_template_id, stack.prev_raw_template_id, stack.current_graph) == (
        None,
        None,
        None,
    )
    assert db.template_ids() == set()
    with db.transaction() as tx:
        assert tx.deployments.credential_hashes("server-1") == []
        with pytest.raises(NotFound):
            tx.stacks.get(created.stack_id)


def test_a_failure_without_rollback_fails_the_stack_and_keeps_its_target(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id, traversal, first = _updating(stacks, dispatcher)
    templates = db.template_ids()

    done = complete_traversal(stacks.env, stack_id, traversal, BOOM)

    assert done == Completion("UPDATE", rollback=None)
    stack = db.stack(stack_id)
    assert (stack.state, stack.status_reason, stack.prev_raw_template_id) == (
        "UPDATE_FAILED",
        "1 failed (r: boom)",  # each failure once, however many nodes handed it on
        first,
    )
    assert db.template_ids() == templates
    assert (db.events(stack_id)[-1].state, db.events(stack_id)[-1].reason) == (
        "UPDATE_FAILED",
        "1 failed (r: boom)",
    )


def test_a_failure_with_rollback_leaves_the_stack_to_its_rollback(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id, traversal, _ = _updating(stacks, dispatcher, disable_rollback=False)

    done = complete_traversal(stacks.env, stack_id, traversal, BOOM)

    assert done == Completion("UPDATE", rollback="1 failed (r: boom)")
    # The failure is an event; the stack is never seen FAILED: its rollback starts next.
    stack = db.stack(stack_id)
    assert (stack.state, stack.current_traversal) == ("UPDATE_IN_PROGRESS", traversal)
    assert (db.events(stack_id)[-1].state, db.events(stack_id)[-1].reason) == (
        "UPDATE_FAILED",
        "1 failed (r: boom)",
    )
    assert dispatcher.pending == []


def test_end_traversal_rolls_a_failed_update_back(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id, traversal, first = _updating(stacks, dispatcher, disable_rollback=False)

    end_traversal(stacks.env, stack_id, traversal, BOOM)

    stack = db.stack(stack_id)
    assert (stack.state, stack.status_reason, stack.raw_template_id) == (
        "ROLLBACK_IN_PROGRESS",
        "UPDATE failed, rolling back: 1 failed (r: boom)",
        first,
    )
    assert stack.current_traversal != traversal
    assert [sent.node for sent in dispatcher.pending] == ["update:r"]
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "ROLLBACK_COMPLETE"


@pytest.mark.parametrize("which", ["another traversal", "not in progress", "no such stack"])
def test_a_traversal_that_is_no_longer_the_stacks_ends_nothing(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
    which: str,
) -> None:
    stack_id, traversal, _ = _updating(stacks, dispatcher, run_nodes=which == "not in progress")
    if which == "another traversal":
        traversal = str(uuid.uuid4())
    elif which == "not in progress":
        complete_traversal(stacks.env, stack_id, traversal, {})
    else:
        stack_id = str(uuid.uuid4())
    before, points = db.snapshot(), syncpoints.traversals()

    assert complete_traversal(stacks.env, stack_id, traversal, BOOM) is None
    end_traversal(stacks.env, stack_id, traversal, BOOM)

    assert db.snapshot() == before and syncpoints.traversals() == points
    assert dispatcher.pending == []


# ---------------------------------------------------------------- issue 30: lost writes


def test_a_traversal_postgresql_has_not_seen_through_is_resumed_not_completed(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    # The SyncPoints say update:r finished; the database never saw it (a failover lost it).
    stack_id, traversal, _ = _updating(stacks, dispatcher)
    before = db.snapshot()

    done = complete_traversal(stacks.env, stack_id, traversal, {"update:r": {}})

    assert done is not None and done.resume is not None
    assert done.resume.startswith(LOST_WRITES) and "(update:r)" in done.resume
    assert db.snapshot() == before, "a traversal short of its goal wrote something"

    end_traversal(stacks.env, stack_id, traversal, {"update:r": {}})

    stack = db.stack(stack_id)
    assert (stack.state, stack.status_reason) == ("UPDATE_IN_PROGRESS", done.resume)
    assert stack.current_traversal != traversal
    assert [e.reason for e in db.events(stack_id)].count(done.resume) == 1
    [operation] = [op for op in db.operations(stack_id) if op.result == "IN_PROGRESS"]
    assert operation.watchdog_restarts == 1  # the same operation goes on
    assert [sent.node for sent in dispatcher.pending] == ["update:r"]
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "UPDATE_COMPLETE"
    [head] = [r for r in db.resources(stack_id) if r.replaced_by is None]
    assert (head.state, head.properties_data["value"]) == ("UPDATE_COMPLETE", "v2")


def test_a_delete_postgresql_has_not_seen_through_is_resumed(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = stacks.create(NewStackRequest("web", template({"r": resource()}), {}))
    dispatcher.drain(stacks.env)
    deleting = stacks.delete("web")
    dispatcher.lose()  # the clean-up's delete never reached the database

    done = complete_traversal(stacks.env, created.stack_id, deleting.traversal or "", {})

    assert done is not None and done.resume is not None and "(cleanup:r)" in done.resume
    assert not db.stack(created.stack_id).deleted


def test_an_operation_still_short_after_its_resumes_fails(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id, traversal, _ = _updating(stacks, dispatcher)
    for _ in range(LOST_WRITE_RESUMES):
        end_traversal(stacks.env, stack_id, traversal, {"update:r": {}})
        dispatcher.lose()  # and the resumed one is lost again
        traversal = db.stack(stack_id).current_traversal or ""

    end_traversal(stacks.env, stack_id, traversal, {"update:r": {}})

    stack = db.stack(stack_id)
    assert stack.state == "UPDATE_FAILED"
    assert stack.status_reason == (
        f"Stack UPDATE failed: resumed {LOST_WRITE_RESUMES} time(s) because PostgreSQL lost "
        "writes, and 1 node(s) still had not reached their goal (update:r)"
    )
    assert dispatcher.pending == []
    assert db.operations(stack_id)[0].result == "FAILED"
