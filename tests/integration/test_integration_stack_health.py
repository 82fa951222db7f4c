"""Substitution (seed 004), stack check and mark-unhealthy, through real workers."""

from __future__ import annotations

from typing import Any

import pytest
from integration_support import resource_rows, sandbox_objects, template, test_resource
from sealed_rows import opened
from sqlalchemy import update

from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope
from conv_tasks.errors import Conflict, NotFound

OLD = "OS::Heat::TestResourceOld"
NEW = "OS::Heat::TestResource"


def heads(stack_id: str) -> dict[str, object]:
    """Each resource's newest version."""
    found: dict[str, object] = {}
    for row in resource_rows(stack_id):
        found[row.name] = row  # rows come oldest first
    return found


def test_a_change_to_the_substitute_type_converges_in_place(client: Client) -> None:
    before = template({"r": {"type": OLD, "properties": {"value": "one"}}})
    stack_id = client.create("subst", before)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [created] = sandbox_objects(stack_id)
    after = template({"r": {"type": NEW, "properties": {"value": "two"}}})

    preview = client.preview(stack_id, after)
    [entry] = preview["resources"]
    assert (entry["name"], entry["action"]) == ("r", "update"), entry

    client.update(stack_id, after)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    [live] = sandbox_objects(stack_id, include_deleted=True)
    assert live.id == created.id  # the same object, never deleted, created once
    assert (live.deleted, live.create_calls) == (False, 1)
    assert live.properties == {"value": "two"}  # the substitute's update ran
    [resource] = client.resources(stack_id)
    assert resource["type"] == NEW
    assert resource["physical_id"] == created.id


def test_a_change_to_an_unrelated_type_still_replaces(client: Client) -> None:
    stack_id = client.create("unrel", template({"r": test_resource("one")}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    after = template({"r": {"type": OLD, "properties": {"value": "one"}}})
    [entry] = client.preview(stack_id, after)["resources"]
    assert entry["action"] == "replace"


# ---------------------------------------------------------------- stack check

FOUR = template(
    {
        "a": test_resource("one"),
        "b": test_resource("two"),
        "c": test_resource({"get_attr": ["a", "output"]}),
        "n": {"type": "OS::Heat::None"},
    }
)


def created(client: Client, name: str, tmpl: dict[str, Any] = FOUR) -> str:
    stack_id = client.create(name, tmpl)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    return str(stack_id)


def row_summary(stack_id: str) -> list[tuple[str, int, str | None, Any]]:
    return [
        (r.name, r.version, r.physical_id, opened("resource", "properties_data", r.properties_data))
        for r in resource_rows(stack_id)
    ]


def physical_ids(client: Client, stack_id: str) -> dict[str, str | None]:
    return {r["name"]: r["physical_id"] for r in client.resources(stack_id)}


def remove_behind_the_engines_back(object_id: str) -> None:
    with session_scope() as session:
        session.execute(
            update(SandboxObject).where(SandboxObject.id == object_id).values(deleted=True)
        )


def test_check_of_a_healthy_stack_completes_and_changes_no_definition(client: Client) -> None:
    stack_id = created(client, "healthy")
    before_stack = client.get(stack_id)
    before_rows = row_summary(stack_id)

    started = client.check(stack_id)
    assert started["status"] == "CHECK_IN_PROGRESS"
    done = client.wait(stack_id)
    assert done["status"] == "CHECK_COMPLETE", done
    assert {r["status"] for r in client.resources(stack_id)} == {"CHECK_COMPLETE"}
    assert row_summary(stack_id) == before_rows  # no new version, nothing else changed
    assert done["template_id"] == before_stack["template_id"]
    assert done["previous_template_id"] == before_stack["previous_template_id"]
    events = client.events(stack_id, after_id=started["event_id"] - 1)
    checked = {e["resource_name"] for e in events if e["status"] == "CHECK_COMPLETE"} - {None}
    assert checked == {"a", "b", "c", "n"}

    # CHECK_COMPLETE behaves as COMPLETE: an update with nothing changed does nothing.
    client.update(stack_id, FOUR)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert row_summary(stack_id) == before_rows


def test_check_fails_naming_a_resource_whose_object_went_and_update_replaces_it(
    client: Client,
) -> None:
    stack_id = created(client, "sick")
    ids = physical_ids(client, stack_id)
    remove_behind_the_engines_back(str(ids["b"]))

    client.check(stack_id)
    done = client.wait(stack_id)
    assert done["status"] == "CHECK_FAILED"
    assert "b: Resource b: sandbox object" in done["status_reason"]
    assert "a:" not in done["status_reason"]
    statuses = {r["name"]: r["status"] for r in client.resources(stack_id)}
    assert statuses == {
        "a": "CHECK_COMPLETE",
        "b": "CHECK_FAILED",
        "c": "CHECK_COMPLETE",
        "n": "CHECK_COMPLETE",
    }
    [entry] = [e for e in client.preview(stack_id, FOUR)["resources"] if e["name"] == "b"]
    assert entry["action"] == "replace"

    client.update(stack_id, FOUR)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    after = physical_ids(client, stack_id)
    assert after["b"] != ids["b"]
    assert {k: v for k, v in after.items() if k != "b"} == {
        k: v for k, v in ids.items() if k != "b"
    }
    client.check(stack_id)
    assert client.wait(stack_id)["status"] == "CHECK_COMPLETE"


def test_check_is_refused_while_an_operation_runs(client: Client) -> None:
    slow = template({"s": test_resource("x", wait_secs=3)})
    stack_id = client.create("busy", slow)["stack_id"]
    with pytest.raises(Conflict) as info:
        client.check(stack_id)
    assert "CREATE_IN_PROGRESS" in str(info.value)
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"


# ---------------------------------------------------------------- mark-unhealthy


def test_mark_unhealthy_makes_the_next_update_replace_exactly_that_resource(
    client: Client,
) -> None:
    stack_id = created(client, "marked")
    ids = physical_ids(client, stack_id)

    marked = client.mark_unhealthy(stack_id, "a", "disk is flaky")
    assert (marked["status"], marked["changed"]) == ("CHECK_FAILED", True)
    shown = client.resource(stack_id, "a")
    assert (shown["status"], shown["status_reason"]) == ("CHECK_FAILED", "disk is flaky")
    assert any(
        e["resource_name"] == "a" and e["status"] == "CHECK_FAILED" for e in client.events(stack_id)
    )

    client.update(stack_id, FOUR)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    after = physical_ids(client, stack_id)
    assert after["a"] != ids["a"]
    assert {k: after[k] for k in "bcn"} == {k: ids[k] for k in "bcn"}
    gone = [o for o in sandbox_objects(stack_id, include_deleted=True) if o.id == ids["a"]]
    assert [o.deleted for o in gone] == [True]


def test_mark_unhealthy_reset_clears_the_mark(client: Client) -> None:
    stack_id = created(client, "reset")
    ids = physical_ids(client, stack_id)
    assert client.mark_unhealthy(stack_id, "b", reset=True)["changed"] is False
    client.mark_unhealthy(stack_id, "b")
    cleared = client.mark_unhealthy(stack_id, "b", reset=True)
    assert (cleared["status"], cleared["changed"]) == ("CHECK_COMPLETE", True)
    client.update(stack_id, FOUR)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert physical_ids(client, stack_id) == ids


def test_mark_unhealthy_refuses_an_unknown_resource(client: Client) -> None:
    stack_id = created(client, "unknown", template({"n": {"type": "OS::Heat::None"}}))
    with pytest.raises(NotFound) as info:
        client.mark_unhealthy(stack_id, "nope")
    assert "'nope'" in str(info.value)


def test_check_of_a_failed_create_fails_without_asking_and_changes_no_row(
    client: Client,
) -> None:
    broken = template(
        {
            "bad": test_resource("x", fail_on=["create"]),
            "after": {**test_resource("y"), "depends_on": ["bad"]},
        }
    )
    stack_id = client.create("failed", broken, disable_rollback=True)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_FAILED"
    before = [(r.name, r.version, r.action, r.status) for r in resource_rows(stack_id)]

    client.check(stack_id)
    done = client.wait(stack_id)
    assert done["status"] == "CHECK_FAILED"
    assert "bad: its CREATE failed" in done["status_reason"]
    assert "after: the resource was never created" in done["status_reason"]
    assert [(r.name, r.version, r.action, r.status) for r in resource_rows(stack_id)] == before

    fixed = template(
        {"bad": test_resource("x"), "after": {**test_resource("y"), "depends_on": ["bad"]}}
    )
    client.update(stack_id, fixed)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"


def test_check_of_a_stack_without_resources_completes(client: Client) -> None:
    stack_id = created(client, "empty", template({}))
    client.check(stack_id)
    assert client.wait(stack_id)["status"] == "CHECK_COMPLETE"
