"""Delete --retain and rollback --skip on the stand-ins: the named resources' rows are
dropped as the operation starts, their objects left alone, with an event each; unknown
names are refused by name and change nothing."""

from __future__ import annotations

import pytest
from standins import RecordingDispatcher, StandinDatabase, resource, template

from conv_tasks.engine import ChangeRequest, NewStackRequest, TenantStacks
from conv_tasks.errors import InvalidInput

THREE = template(
    {"a": resource("1"), "b": resource("2", after=("a",)), "c": resource("3", after=("a",))}
)


def _objects(db: StandinDatabase) -> dict[str, bool]:
    """Each sandbox object's value, and whether it was deleted."""
    return {row["properties"]["value"]: row["deleted"] for row in db.sandbox_objects()}


def test_a_delete_leaves_the_retained_resources_objects_and_forgets_them(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = stacks.create(NewStackRequest("web", THREE, {}))
    dispatcher.drain(stacks.env)
    kept_id = next(r.physical_id for r in db.resources(created.stack_id) if r.name == "b")

    deleting = stacks.delete("web", retain=["b", "b"])
    # Forgotten as the delete starts: the traversal has no node for it.
    assert {r.name for r in db.resources(created.stack_id)} == {"a", "c"}
    assert [sent.node for sent in dispatcher.pending] == ["cleanup:c"]
    dispatcher.drain(stacks.env)

    stack = db.stack(created.stack_id)
    assert (stack.state, stack.deleted) == ("DELETE_COMPLETE", True)
    assert _objects(db) == {"1": True, "2": False, "3": True}
    [event] = [e for e in db.events(created.stack_id) if e.resource_name == "b"][-1:]
    assert (event.state, event.physical_id, event.traversal) == (
        "DELETE_COMPLETE",
        kept_id,
        deleting.traversal,
    )
    assert event.reason == (
        "retained at the request (--retain): not deleted, and no longer part of the stack; "
        f"its physical resource {kept_id} is kept"
    )


def test_unknown_names_are_refused_each_by_name_and_nothing_changes(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    created = stacks.create(NewStackRequest("web", THREE, {}))
    dispatcher.drain(stacks.env)
    events = len(db.events(created.stack_id))

    with pytest.raises(InvalidInput) as refused:
        stacks.delete("web", retain=["b", "nope", "zz"])
    assert [(p.path, p.message) for p in refused.value.problems] == [
        ("retain[1]", "stack 'web' has no resource 'nope'; its resources are a, b, c"),
        ("retain[2]", "stack 'web' has no resource 'zz'; its resources are a, b, c"),
    ]
    assert db.stack(created.stack_id).state == "CREATE_COMPLETE"
    assert {r.name for r in db.resources(created.stack_id)} == {"a", "b", "c"}
    assert len(db.events(created.stack_id)) == events
    assert dispatcher.pending == []


def test_a_rollback_leaves_a_skipped_resource_it_would_delete(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    first = template({"a": resource("1")})
    created = stacks.create(NewStackRequest("web", first, {}, disable_rollback=True))
    dispatcher.drain(stacks.env)
    failing = template(
        {"a": resource("1"), "new": resource("n"), "bad": resource("x", fail=True, after=("new",))}
    )
    stacks.update("web", ChangeRequest(failing, {}))
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).state == "UPDATE_FAILED"

    # `a` is in the template the rollback returns to: it cannot be skipped.
    with pytest.raises(InvalidInput, match=r"skip\[0\]: 'a' is in the template the rollback"):
        stacks.rollback("web", skip=["a", "new"])

    stacks.rollback("web", skip=["new"])
    dispatcher.drain(stacks.env)
    assert db.stack(created.stack_id).state == "ROLLBACK_COMPLETE"
    assert {r.name for r in db.resources(created.stack_id)} == {"a"}
    assert _objects(db) == {"1": False, "n": False}
    [event] = [e for e in db.events(created.stack_id) if e.resource_name == "new"][-1:]
    assert event.reason.startswith("skipped by the rollback at the request (--skip): not deleted")
