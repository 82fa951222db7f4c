"""Stack operations through TenantStacks on the stand-ins: create, update and delete, what each
writes, what it refuses (writing nothing), and what it answers."""

from __future__ import annotations

import uuid

import pytest
from standins import (
    RecordingDispatcher,
    StandinDatabase,
    StandinSyncPoints,
    resource,
    stepped,
    template,
)

from conv_tasks.engine import (
    ChangeRequest,
    NewStackRequest,
    OperationResult,
    TenantStacks,
    collect_templates,
)
from conv_tasks.errors import Conflict, Duplicate, LostRace, NotFound, PayloadError

TWO = template({"a": resource("v1"), "b": resource("v2", after=("a",))})


def _created(
    stacks: TenantStacks,
    dispatcher: RecordingDispatcher,
    resources: dict[str, object] = TWO,
    tags: tuple[str, ...] = (),
) -> OperationResult:
    """A stack `web` created from `resources` and converged."""
    result = stacks.create(NewStackRequest("web", resources, {}, tags=tags))
    dispatcher.drain(stacks.env)
    return result


def test_a_create_writes_the_stack_and_enqueues_its_first_nodes(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    result = stacks.create(NewStackRequest("web", TWO, {}, tags=("x", "y"), timeout_mins=9))

    stack = db.stack(result.stack_id)
    assert result.to_json() == {
        "stack_id": stack.id,
        "name": "web",
        "action": "CREATE",
        "status": "CREATE_IN_PROGRESS",
        "traversal": stack.current_traversal,
        "event_id": db.events(stack.id)[0].id,
        "warnings": [],
    }
    assert (stack.state, stack.tenant, stack.tags, stack.timeout_mins) == (
        "CREATE_IN_PROGRESS",
        stacks.tenant,
        ("x", "y"),
        9,
    )
    assert stack.raw_template_id is not None and stack.prev_raw_template_id is None
    assert [(r.name, r.version, r.state) for r in db.resources(stack.id)] == [
        ("a", 0, "INIT_COMPLETE"),
        ("b", 0, "INIT_COMPLETE"),
    ]
    # Only the root is enqueued; b waits for a in its SyncPoint.
    assert [sent.node for sent in dispatcher.sent] == ["update:a"]
    assert syncpoints.waiting_for(result.traversal or "", "update:b") == {"update:a"}
    assert [(e.state, e.reason) for e in db.events(stack.id)] == [
        ("CREATE_IN_PROGRESS", "Stack CREATE started")
    ]

    dispatcher.drain(stacks.env)
    done = db.stack(stack.id)
    assert done.state == "CREATE_COMPLETE"
    assert done.prev_raw_template_id == done.raw_template_id
    assert syncpoints.traversals() == set()


def test_a_bad_name_is_refused_before_anything_is_written(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    before = db.snapshot()
    with pytest.raises(PayloadError, match="a stack name must start with a letter"):
        stacks.create(NewStackRequest("9lives", TWO, {}))
    assert db.snapshot() == before
    assert dispatcher.sent == []


def test_a_name_taken_is_a_conflict_that_writes_nothing(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    first = _created(stacks, dispatcher)
    before, sent = db.snapshot(), len(dispatcher.sent)

    with pytest.raises(Duplicate, match="A stack named 'web' already exists"):
        stacks.create(NewStackRequest("web", template({"c": resource()}), {}))

    assert db.snapshot() == before  # its template row went with the transaction
    assert len(dispatcher.sent) == sent and syncpoints.traversals() == set()
    # Another tenant may have the name, and so may the tenant once the stack is deleted.
    TenantStacks(stacks.env, "tenant-b").create(NewStackRequest("web", TWO, {}))
    stacks.delete(first.stack_id)
    dispatcher.drain(stacks.env)
    again = stacks.create(NewStackRequest("web", TWO, {}))
    assert again.stack_id != first.stack_id


def test_an_idempotency_key_replays_the_create_it_made(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    first = stacks.create(NewStackRequest("web", TWO, {}, idempotency_key="key-1"))
    sent = len(dispatcher.sent)

    again = stacks.create(NewStackRequest("web", TWO, {}, idempotency_key="key-1"))
    assert again.to_json() == {**first.to_json(), "replayed": True}
    assert len(dispatcher.sent) == sent and len(db.stacks()) == 1

    dispatcher.drain(stacks.env)
    later = stacks.create(NewStackRequest("web", TWO, {}, idempotency_key="key-1"))
    assert (later.stack_id, later.state, later.replayed) == (
        first.stack_id,
        "CREATE_COMPLETE",
        True,
    )
    with pytest.raises(Conflict, match="already created stack 'web'"):
        stacks.create(NewStackRequest("other", TWO, {}, idempotency_key="key-1"))
    assert len(db.stacks()) == 1


def test_an_update_swaps_in_a_traversal_and_writes_the_options(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    created = _created(stacks, dispatcher)
    new = template({**TWO["resources"], "c": resource("v3")})

    result = stacks.update("web", ChangeRequest(new, {}), disable_rollback=True, timeout_mins=3)

    stack = db.stack(created.stack_id)
    assert result.to_json() == {
        "stack_id": stack.id,
        "name": "web",
        "action": "UPDATE",
        "status": "UPDATE_IN_PROGRESS",
        "traversal": stack.current_traversal,
        "event_id": db.events(stack.id)[-1].id,
        "warnings": [],
    }
    assert result.traversal != created.traversal
    assert (stack.disable_rollback, stack.timeout_mins) == (True, 3)
    assert [(r.name, r.version) for r in db.resources(stack.id)][-1] == ("c", 0)
    assert syncpoints.traversals() == {result.traversal}
    dispatcher.drain(stacks.env)
    assert db.stack(stack.id).state == "UPDATE_COMPLETE"


def test_tags_are_kept_by_a_patch_and_cleared_by_a_full_update(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _created(stacks, dispatcher, tags=("blue", "prod"))

    stacks.update("web", ChangeRequest(None, {}))  # no template: parameters and tags kept
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).tags == ("blue", "prod")

    stacks.update("web", ChangeRequest(TWO, {}, existing_parameters=True))
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).tags == ("blue", "prod")

    stacks.update("web", ChangeRequest(TWO, {}), tags=("green",))
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).tags == ("green",)

    stacks.update("web", ChangeRequest(TWO, {}))  # a full update without tags clears them
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).tags == ()


def test_an_update_of_a_stack_being_deleted_is_refused(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    _created(stacks, dispatcher)
    stacks.delete("web")
    before, sent = db.snapshot(), len(dispatcher.sent)

    with pytest.raises(Conflict, match="is being deleted; it cannot be updated"):
        stacks.update("web", ChangeRequest(TWO, {}))
    assert db.snapshot() == before and len(dispatcher.sent) == sent


def test_a_nested_stack_is_changed_only_through_its_parent(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    child_template = template({"inner": resource("in")})
    nest = {"type": "OS::Heat::Stack", "properties": {"template": child_template}}
    parent = _created(stacks, dispatcher, template({"nest": nest}))
    [child] = [s for s in db.stacks() if s.parent_stack_id == parent.stack_id]
    assert (db.stack(parent.stack_id).state, child.state) == ("CREATE_COMPLETE", "CREATE_COMPLETE")
    before = db.snapshot()

    for change in (
        lambda: stacks.update(child.name, ChangeRequest(child_template, {})),
        lambda: stacks.delete(child.id),
        lambda: stacks.cancel(child.name),
    ):
        with pytest.raises(Conflict, match="nested in stack 'web' \\(resource nest\\)"):
            change()
    assert db.snapshot() == before


def test_a_lost_race_for_the_traversal_writes_nothing(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    created = _created(stacks, dispatcher)
    rival = str(uuid.uuid4())

    def concurrent_operation() -> None:
        with db.transaction() as tx:
            assert tx.stacks.swap_traversal(created.stack_id, created.traversal, rival)

    db.before("stacks.swap_traversal", concurrent_operation)
    before, sent = db.snapshot(), len(dispatcher.sent)
    new = template({**TWO["resources"], "c": resource("v3")})

    with pytest.raises(LostRace, match="was changed by another operation at the same time"):
        stacks.update("web", ChangeRequest(new, {}))

    after = db.snapshot()
    assert after["raw_template"] == before["raw_template"]
    assert after["resource"] == before["resource"]  # c's new row went with the transaction
    assert after["event"] == before["event"]
    stack = db.stack(created.stack_id)
    assert (stack.current_traversal, stack.state) == (rival, "CREATE_COMPLETE")
    assert syncpoints.traversals() == set() and len(dispatcher.sent) == sent


def test_a_delete_interrupts_actions_under_way_and_removes_everything(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    created = stacks.create(NewStackRequest("web", template({"slow": stepped(polls=5)}), {}))
    create_template = db.stack(created.stack_id).raw_template_id
    dispatcher.deliver(stacks.env)  # the create starts and asks to be polled

    result = stacks.delete("web")

    assert result.to_json()["status"] == "DELETE_IN_PROGRESS"
    [slow] = db.resources(created.stack_id)
    assert slow.interrupt_reason == "the stack is being deleted"
    dispatcher.drain(stacks.env)
    with pytest.raises(NotFound), db.transaction() as tx:
        tx.stacks.get(created.stack_id)
    stack = db.stack(created.stack_id)
    assert stack.deleted and stack.state == "DELETE_COMPLETE"
    assert db.resources(stack.id) == [] and syncpoints.traversals() == set()
    # The delete's completion collects the templates the stack named; the create's, which
    # never completed, is left to the collector.
    assert db.template_ids() == {create_template}
    assert collect_templates(stacks.env) == 1 and db.template_ids() == set()
    assert all(obj["deleted"] for obj in db.sandbox_objects())
    reasons = [e.reason for e in db.events(stack.id) if e.resource_name == "slow"]
    assert "CREATE interrupted: the stack is being deleted" in reasons


def test_operations_on_a_stack_of_another_tenant_find_nothing(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = _created(stacks, dispatcher)
    other = TenantStacks(stacks.env, "tenant-b")
    before = db.snapshot()
    for operation in (
        lambda: other.update(created.stack_id, ChangeRequest(TWO, {})),
        lambda: other.delete("web"),
        lambda: other.rollback("web"),
        lambda: other.check("web"),
    ):
        with pytest.raises(NotFound, match="not found"):
            operation()
    assert db.snapshot() == before
