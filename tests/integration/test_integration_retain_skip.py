"""`delete --retain` and `rollback --skip` on real workers: the named resources' sandbox
objects still exist after the operation completes, the others are gone, the stack forgot
the named ones, and an event says so. The way out of a delete stuck on one resource."""

from __future__ import annotations

import pytest
from integration_support import resource_rows, sandbox_objects, template, test_resource

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput


def _live(stack_id: str) -> dict[str, str]:
    """The stack's sandbox objects that still exist: id -> value."""
    return {o.id: o.properties["value"] for o in sandbox_objects(stack_id)}


def _events_of(client: Client, stack_id: str, name: str) -> list[dict[str, object]]:
    return [e for e in client.events(stack_id) if e["resource_name"] == name]


def test_a_delete_stuck_on_one_resource_completes_when_it_is_retained(client: Client) -> None:
    v1 = template(
        {
            "db": test_resource("db"),
            "stuck": {**test_resource("stuck", fail_on=["delete"]), "depends_on": ["db"]},
            "web": {**test_resource("web"), "depends_on": ["db"]},
        }
    )
    stack_id = client.create("keepone", v1)["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    stuck_id = next(r.physical_id for r in resource_rows(stack_id) if r.name == "stuck")

    client.delete("keepone")
    failed = client.wait(stack_id, timeout=60)
    assert failed["status"] == "DELETE_FAILED", failed
    assert "stuck:" in failed["status_reason"]

    started = client.delete(stack_id, retain=["stuck"])
    done = client.wait(stack_id, timeout=60)
    assert done["status"] == "DELETE_COMPLETE", done
    # The retained object still exists; every other one is gone; no row is left.
    assert _live(stack_id) == {stuck_id: "stuck"}
    assert resource_rows(stack_id) == []
    [kept] = [e for e in _events_of(client, stack_id, "stuck") if e["id"] > started["event_id"]]
    assert (kept["status"], kept["physical_id"]) == ("DELETE_COMPLETE", stuck_id)
    assert str(kept["reason"]).startswith("retained at the request (--retain): not deleted")


def test_a_rollback_skipping_a_resource_leaves_it_and_removes_the_rest(client: Client) -> None:
    v1 = template({"a": test_resource("a")})
    stack_id = client.create("skipper", v1, disable_rollback=True)["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    v2 = template(
        {
            "a": test_resource("a"),
            "added": test_resource("added"),
            "also": test_resource("also"),
            "bad": {**test_resource("bad", fail_on=["create"]), "depends_on": ["added", "also"]},
        }
    )
    client.update(stack_id, v2)
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_FAILED"
    assert sorted(_live(stack_id).values()) == ["a", "added", "also"]

    client.rollback(stack_id, skip=["added"])
    done = client.wait(stack_id, timeout=60)
    assert done["status"] == "ROLLBACK_COMPLETE", done
    assert sorted(_live(stack_id).values()) == ["a", "added"]  # `also` deleted, `added` kept
    assert sorted({r.name for r in resource_rows(stack_id)}) == ["a"]
    assert [r["name"] for r in client.resources(stack_id)] == ["a"]
    reasons = [str(e["reason"]) for e in _events_of(client, stack_id, "added")]
    assert reasons[-1].startswith("skipped by the rollback at the request (--skip)")


def test_unknown_or_unskippable_names_are_refused_by_name_and_change_nothing(
    client: Client,
) -> None:
    stack_id = client.create("named", template({"a": test_resource("a")}))["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    events = client.events(stack_id)

    with pytest.raises(InvalidInput) as refused:
        client.delete(stack_id, retain=["a", "nope"])
    assert [p.path for p in refused.value.problems] == ["retain[1]"]
    assert "no resource 'nope'" in str(refused.value)
    with pytest.raises(InvalidInput) as refused:
        client.call("conv_tasks.stack.delete", stack=stack_id, retain=["", 3])
    assert [p.path for p in refused.value.problems] == ["retain"]
    assert client.events(stack_id) == events
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"
    assert sorted(_live(stack_id).values()) == ["a"]
