"""OS::Heat::TestResource: sandbox work, waiting by polls, failure on demand, replacement."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from resources_sandbox import MemorySandbox, make_ctx

from conv_tasks.errors import InvalidInput, ResourceFailure
from conv_tasks.resources import Progress, prepare_properties
from conv_tasks.resources.builtin import TestResource
from conv_tasks.sdk import Observed


@pytest.fixture
def sandbox() -> MemorySandbox:
    return MemorySandbox()


def prepared(**values: Any) -> dict[str, Any]:
    return prepare_properties(TestResource, values, path="resources.t.properties")


def test_defaults() -> None:
    assert prepared() == {
        "value": "",
        "update_replace": False,
        "fail": False,
        "fail_on": [],
        "wait_secs": 0,
        "action_wait_secs": None,
        "action_timeout_secs": None,
        "update_replace_value": None,
        "client_name": "",
        "entity_name": "",
        "attr_wait_secs": 0,
        "constraint_prop_secs": 0,
    }


def test_property_problems() -> None:
    with pytest.raises(InvalidInput) as info:
        prepared(wait_secs=-1, fail_on=["create", "boot"], action_wait_secs={"create": -2})
    assert [p.path for p in info.value.problems] == [
        "resources.t.properties.fail_on[1]",
        "resources.t.properties.wait_secs",
        "resources.t.properties.action_wait_secs.create",
    ]


def test_create_makes_one_sandbox_object_and_returns_its_id(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    progress = plugin.create(make_ctx(TestResource, sandbox, properties={"value": "hello"}))
    assert progress.done
    assert sandbox.get(progress.physical_id or "") == {
        "id": progress.physical_id,
        "kind": "test",
        "properties": {"value": "hello"},
    }


def test_create_retried_with_the_same_token_is_the_same_object(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    ctx = make_ctx(TestResource, sandbox, properties={"value": "v"}, token="s:7:CREATE")
    first = plugin.create(ctx)
    again = plugin.create(ctx)
    assert first.physical_id == again.physical_id
    assert len(sandbox.live()) == 1
    other = plugin.create(make_ctx(TestResource, sandbox, token="s:8:CREATE"))
    assert other.physical_id != first.physical_id
    assert len(sandbox.live()) == 2


def test_create_waits_by_polling_never_sleeping(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    props = {"value": "slow", "wait_secs": 2.5}
    started = plugin.create(make_ctx(TestResource, sandbox, properties=props, now=1000.0))
    assert started == Progress(done=False, poll_after=1.0)
    assert sandbox.live() == []
    later = plugin.check_create(make_ctx(TestResource, sandbox, properties=props, now=1002.0))
    assert not later.done
    assert later.poll_after == pytest.approx(0.5)
    done = plugin.check_create(make_ctx(TestResource, sandbox, properties=props, now=1002.5))
    assert done.done
    assert done.physical_id == sandbox.live()[0].id


def test_action_wait_secs_overrides_wait_secs_per_action(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    props = {"wait_secs": 5, "action_wait_secs": {"create": 0, "delete": 1}}
    assert plugin.create(make_ctx(TestResource, sandbox, properties=props)).done
    update = make_ctx(TestResource, sandbox, action="UPDATE", properties=props, physical_id="x")
    assert not plugin.update(update).done
    delete = make_ctx(
        TestResource, sandbox, action="DELETE", properties=props, physical_id="x", now=1000.5
    )
    assert not plugin.delete(delete).done


def test_update_in_place_and_delete(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    created = plugin.create(make_ctx(TestResource, sandbox, properties={"value": "a"}))
    object_id = created.physical_id
    update = make_ctx(
        TestResource,
        sandbox,
        action="UPDATE",
        properties={"value": "b"},
        old_properties=prepared(value="a"),
        physical_id=object_id,
    )
    assert plugin.update(update).done
    assert sandbox.get(object_id or "")["properties"] == {"value": "b"}  # type: ignore[index]
    delete = make_ctx(TestResource, sandbox, action="DELETE", physical_id=object_id)
    assert plugin.delete(delete).done
    assert sandbox.get(object_id or "") is None
    # Deleting what is already gone, or what was never made, succeeds.
    assert plugin.delete(delete).done
    never = make_ctx(TestResource, sandbox, action="DELETE", physical_id=None)
    assert plugin.delete(never).done


def test_update_without_a_physical_id_fails(sandbox: MemorySandbox) -> None:
    with pytest.raises(ResourceFailure, match="no sandbox object to update"):
        TestResource().update(make_ctx(TestResource, sandbox, action="UPDATE"))


@pytest.mark.parametrize("action", ["CREATE", "UPDATE"])
def test_fail_fails_create_and_update_naming_the_resource(
    sandbox: MemorySandbox, action: str
) -> None:
    plugin = TestResource()
    ctx = make_ctx(
        TestResource,
        sandbox,
        action=action,
        properties={"fail": True},
        physical_id="p-1",
        name="web",
    )
    start = {"CREATE": plugin.create, "UPDATE": plugin.update, "DELETE": plugin.delete}[action]
    with pytest.raises(ResourceFailure) as info:
        start(ctx)
    assert f"Resource web failed to {action.lower()}" in str(info.value)
    assert info.value.resource == "web"
    assert info.value.action == action
    assert sandbox.calls == []


def test_fail_on_fails_only_the_named_actions(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    props = {"fail_on": ["update"]}
    created = plugin.create(make_ctx(TestResource, sandbox, properties=props))
    assert created.done
    update = make_ctx(
        TestResource, sandbox, action="UPDATE", properties=props, physical_id=created.physical_id
    )
    with pytest.raises(ResourceFailure, match="failed to update"):
        plugin.update(update)
    delete = make_ctx(
        TestResource, sandbox, action="DELETE", properties=props, physical_id=created.physical_id
    )
    assert plugin.delete(delete).done


def test_failure_comes_after_the_wait(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    props = {"fail_on": ["create"], "wait_secs": 3}
    assert not plugin.create(make_ctx(TestResource, sandbox, properties=props)).done
    with pytest.raises(ResourceFailure):
        plugin.check_create(make_ctx(TestResource, sandbox, properties=props, now=1003.0))
    assert sandbox.live() == []


def test_check_finds_missing_objects(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    created = plugin.create(make_ctx(TestResource, sandbox))
    check = make_ctx(TestResource, sandbox, action="CHECK", physical_id=created.physical_id)
    assert plugin.check(check).done
    sandbox.delete(created.physical_id or "")
    with pytest.raises(ResourceFailure, match="does not exist"):
        plugin.check(check)


def test_check_finds_objects_that_no_longer_match(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    props = {"value": "kept"}
    created = plugin.create(make_ctx(TestResource, sandbox, properties=props))
    check = make_ctx(
        TestResource, sandbox, action="CHECK", properties=props, physical_id=created.physical_id
    )
    assert plugin.check(check).done
    sandbox.update(created.physical_id or "", {"value": "changed behind its back"})
    with pytest.raises(ResourceFailure, match="holds another value"):
        plugin.check(check)


def test_attributes_and_reference(sandbox: MemorySandbox) -> None:
    ctx = make_ctx(TestResource, sandbox, properties={"value": "out"}, physical_id="p-9")
    plugin = TestResource()
    assert plugin.attributes(ctx) == {"output": "out", "physical_id": "p-9"}
    assert plugin.reference(ctx) == "p-9"


@pytest.mark.parametrize(
    ("old", "new", "replace"),
    [
        ({"value": "a"}, {"value": "a"}, False),
        ({"value": "a"}, {"value": "b"}, False),
        ({"value": "a"}, {"value": "b", "update_replace": True}, True),
        ({"value": "a", "update_replace": True}, {"value": "a", "update_replace": True}, False),
        # As in Heat: update_replace alone changes in place; only a new value replaces.
        ({"value": "a"}, {"value": "a", "update_replace": True}, False),
        (
            {"value": "a", "update_replace_value": "x"},
            {"value": "a", "update_replace_value": "y"},
            True,
        ),
        ({"client_name": ""}, {"client_name": "nova", "entity_name": "servers"}, False),
        ({"fail": False}, {"fail": True}, False),
        ({"wait_secs": 0}, {"wait_secs": 3, "fail_on": ["delete"]}, False),
    ],
)
def test_needs_replacement(old: dict[str, Any], new: dict[str, Any], replace: bool) -> None:
    assert TestResource().needs_replacement(prepared(**old), prepared(**new)) is replace


def test_fail_spares_a_delete_as_in_heat(sandbox: MemorySandbox) -> None:
    plugin = TestResource()
    made = plugin.create(make_ctx(TestResource, sandbox, properties={"value": "v"}))
    ctx = make_ctx(
        TestResource,
        sandbox,
        action="DELETE",
        properties={"fail": True},
        physical_id=made.physical_id,
    )
    assert plugin.delete(ctx).done
    assert sandbox.get(made.physical_id or "") is None


def test_fail_on_delete_fails_a_delete(sandbox: MemorySandbox) -> None:
    ctx = make_ctx(
        TestResource,
        sandbox,
        action="DELETE",
        properties={"fail_on": ["delete"]},
        physical_id="p-1",
        name="web",
    )
    with pytest.raises(ResourceFailure, match="Resource web failed to delete"):
        TestResource().delete(ctx)


def test_heats_client_and_wait_knobs_are_accepted() -> None:
    props = prepared(
        client_name="nova",
        entity_name="servers",
        attr_wait_secs=2,
        constraint_prop_secs=1,
        update_replace_value="kept",
    )
    assert (props["client_name"], props["entity_name"]) == ("nova", "servers")
    assert (props["attr_wait_secs"], props["constraint_prop_secs"]) == (2, 1)
    assert props["update_replace_value"] == "kept"
    defaults = prepared()
    assert (defaults["client_name"], defaults["attr_wait_secs"]) == ("", 0)


def test_a_delete_without_a_physical_id_removes_what_its_create_token_made(
    sandbox: MemorySandbox,
) -> None:
    plugin = TestResource()
    made = plugin.create(make_ctx(TestResource, sandbox, properties={"value": "v"}))
    # Its worker died before the id was recorded: the delete gets the create's token.
    left = replace(
        make_ctx(TestResource, sandbox, action="DELETE", token="stack-1:1:DELETE"),
        create_token="stack-1:1:CREATE",
    )
    seen = plugin.observe(replace(left, action="CHECK"))
    assert seen is not None and seen.exists
    assert plugin.delete(left).done
    assert sandbox.live() == [] and ("delete", made.physical_id) in sandbox.calls
    assert plugin.observe(replace(left, action="CHECK")) == Observed(exists=False)
    # Nothing made by that token (or nothing left of it): done, nothing else touched.
    other = plugin.create(make_ctx(TestResource, sandbox, token="stack-1:2:CREATE"))
    assert plugin.delete(left).done
    assert [o.id for o in sandbox.live()] == [other.physical_id]
    # Without the create's token, a delete with no physical id has nothing to look for.
    assert plugin.delete(make_ctx(TestResource, sandbox, action="DELETE")).done
    assert [o.id for o in sandbox.live()] == [other.physical_id]


def test_a_delete_by_token_waits_only_when_its_create_made_something(
    sandbox: MemorySandbox,
) -> None:
    plugin = TestResource()
    slow = {"action_wait_secs": {"create": 0, "delete": 30}}
    nothing = replace(
        make_ctx(TestResource, sandbox, action="DELETE", properties=slow),
        create_token="stack-1:9:CREATE",
    )
    assert plugin.delete(nothing).done  # its create made nothing: no wait for nothing
    plugin.create(make_ctx(TestResource, sandbox, properties=slow, token="stack-1:9:CREATE"))
    [made] = sandbox.live()
    waiting = plugin.delete(nothing)
    assert not waiting.done and waiting.physical_id == made.id  # recorded, for the polls
