"""Stacks created, updated, rolled back and deleted by real workers on PostgreSQL and Redis."""

from __future__ import annotations

from typing import Any

import pytest
from integration_support import resource_rows, sandbox_objects, template, test_resource

from conv_tasks.client import Client
from conv_tasks.errors import Conflict, InvalidInput, NotFound


def _seed_v1() -> dict[str, Any]:
    """A,B -> C -> D,E (seed 003)."""
    return template(
        {
            "A": test_resource("a"),
            "B": test_resource("b"),
            "C": test_resource(
                {"list_join": ["+", [{"get_attr": ["A", "output"]}, {"get_attr": ["B", "output"]}]]}
            ),
            "D": test_resource({"get_attr": ["C", "output"]}),
            "E": {**test_resource("e"), "depends_on": ["C"]},
        },
        outputs={"c_value": {"value": {"get_attr": ["C", "output"]}}},
    )


def _seed_v2() -> dict[str, Any]:
    """A,B -> C' -> F: C changed in place, D and E removed, F added."""
    return template(
        {
            "A": test_resource("a"),
            "B": test_resource("b"),
            "C": test_resource(
                {"list_join": ["-", [{"get_attr": ["A", "output"]}, {"get_attr": ["B", "output"]}]]}
            ),
            "F": test_resource({"get_attr": ["C", "output"]}),
        },
        outputs={"c_value": {"value": {"get_attr": ["C", "output"]}}},
    )


def _heads(stack_id: str) -> dict[str, Any]:
    return {r.name: r for r in resource_rows(stack_id) if r.replaced_by is None}


def test_create_converges_every_resource_once(client: Client) -> None:
    result = client.create("seed", _seed_v1())
    stack_id = result["stack_id"]
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "CREATE_COMPLETE", final
    resources = {r["name"]: r for r in client.resources("seed")}
    assert set(resources) == {"A", "B", "C", "D", "E"}
    assert all(r["status"] == "CREATE_COMPLETE" for r in resources.values())
    assert client.outputs("seed")["c_value"]["value"] == "a+b"
    assert client.get("seed")["outputs"]["c_value"]["value"] == "a+b"
    objects = sandbox_objects(stack_id)
    assert len(objects) == 5
    assert {o.properties["value"] for o in objects} == {"a", "b", "a+b", "e"}
    rows = resource_rows(stack_id)
    assert [r.version for r in rows] == [0] * 5
    assert _heads(stack_id)["C"].requires == ["A", "B"]
    created = [
        e for e in client.events("seed") if e["status"] == "CREATE_COMPLETE" and e["resource_name"]
    ]
    order = [e["resource_name"] for e in created]
    assert order.index("C") > max(order.index("A"), order.index("B"))
    assert order.index("C") < min(order.index("D"), order.index("E"))


def test_update_of_seed_003_leaves_the_rows_the_seed_shows(client: Client) -> None:
    stack_id = client.create("seed3", _seed_v1())["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    before = _heads(stack_id)
    first_template = client.get(stack_id)["template_id"]
    started = client.update("seed3", _seed_v2())
    seen: list[dict[str, Any]] = []
    final = client.wait(
        stack_id, timeout=60, on_event=seen.append, after_event=started["event_id"] - 1
    )
    # The live view follows this operation only, from its first event to its last.
    assert (seen[0]["resource_name"], seen[0]["status"]) == (None, "UPDATE_IN_PROGRESS")
    assert (seen[-1]["resource_name"], seen[-1]["status"]) == (None, "UPDATE_COMPLETE")
    assert not [e for e in seen if e["status"] == "CREATE_COMPLETE" and e["resource_name"] == "A"]
    assert final["status"] == "UPDATE_COMPLETE", final
    rows = resource_rows(stack_id)
    assert [(r.name, r.version, r.action, r.status) for r in rows] == [
        ("A", 0, "CREATE", "COMPLETE"),
        ("B", 0, "CREATE", "COMPLETE"),
        ("C", 1, "UPDATE", "COMPLETE"),
        ("F", 0, "CREATE", "COMPLETE"),
    ]
    after = {r.name: r for r in rows}
    # A and B untouched; C updated in place: the physical id moved to version 1.
    assert after["A"].physical_id == before["A"].physical_id
    assert after["B"].physical_id == before["B"].physical_id
    assert after["C"].physical_id == before["C"].physical_id
    assert after["C"].definition_hash != before["C"].definition_hash
    assert client.outputs(stack_id)["c_value"]["value"] == "a-b"
    live = {o.id: o.properties["value"] for o in sandbox_objects(stack_id)}
    assert live[after["C"].physical_id] == "a-b"
    assert before["D"].physical_id not in live and before["E"].physical_id not in live
    assert len(live) == 4
    shown = client.get(stack_id)
    assert shown["previous_template_id"] == shown["template_id"] != first_template


def test_replacement_creates_the_new_version_before_deleting_the_old(client: Client) -> None:
    v1 = template(
        {
            "db": test_resource("one", update_replace=True),
            "app": test_resource({"get_attr": ["db", "output"]}),
        }
    )
    stack_id = client.create("repl", v1)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    old_db = _heads(stack_id)["db"].physical_id
    v2 = template(
        {
            "db": test_resource("two", update_replace=True),
            "app": test_resource({"get_attr": ["db", "output"]}),
        }
    )
    client.update(stack_id, v2)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    heads = _heads(stack_id)
    assert heads["db"].physical_id != old_db
    assert heads["db"].version == 1
    events = client.events(stack_id)

    def index(name: str, status: str, physical: str | None = None) -> int:
        return next(
            i
            for i, e in enumerate(events)
            if e["resource_name"] == name
            and e["status"] == status
            and (physical is None or e["physical_id"] == physical)
        )

    created_new = max(
        i
        for i, e in enumerate(events)
        if e["resource_name"] == "db" and e["status"] == "CREATE_COMPLETE"
    )
    app_updated = index("app", "UPDATE_COMPLETE")
    deleted_old = index("db", "DELETE_COMPLETE", old_db)
    assert created_new < app_updated < deleted_old
    live = {o.id for o in sandbox_objects(stack_id)}
    assert old_db not in live and heads["db"].physical_id in live


def test_inverted_dependencies_purge_old_versions_in_their_own_order(client: Client) -> None:
    """Before: B uses A. After: A uses B, and both are replaced. The old B still uses the old
    A until it is gone, so the old B is deleted first (a port before its network)."""
    v1 = template(
        {
            "A": test_resource("a1", update_replace=True),
            "B": test_resource({"get_attr": ["A", "output"]}, update_replace=True),
        }
    )
    stack_id = client.create("inverted", v1)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    old = {name: row.physical_id for name, row in _heads(stack_id).items()}
    v2 = template(
        {
            "B": test_resource("b2", update_replace=True),
            "A": test_resource({"get_attr": ["B", "output"]}, update_replace=True),
        }
    )
    client.update(stack_id, v2)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    new = {name: row.physical_id for name, row in _heads(stack_id).items()}
    assert new["A"] != old["A"] and new["B"] != old["B"]
    events = client.events(stack_id)

    def deleted(name: str) -> int:
        return next(
            i
            for i, e in enumerate(events)
            if e["resource_name"] == name
            and e["status"] == "DELETE_COMPLETE"
            and e["physical_id"] == old[name]
        )

    assert deleted("B") < deleted("A")
    assert {o.id for o in sandbox_objects(stack_id)} == {new["A"], new["B"]}


def test_failed_update_rolls_back_to_the_last_complete_template(client: Client) -> None:
    v1 = template({"a": test_resource("1"), "b": test_resource("2")})
    stack_id = client.create("rb", v1)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    v2 = template(
        {
            "a": test_resource("1x", fail_on=["update"]),
            "b": test_resource("2"),
            "after": {**test_resource("3"), "depends_on": ["a"]},
        }
    )
    client.update(stack_id, v2)
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE", final
    statuses = [e["status"] for e in client.events(stack_id) if not e["resource_name"]]
    assert "UPDATE_FAILED" in statuses
    heads = _heads(stack_id)
    assert set(heads) == {"a", "b"}
    values = {o.id: o.properties["value"] for o in sandbox_objects(stack_id)}
    assert values[heads["a"].physical_id] == "1"
    # The dependent of the failed resource never started.
    assert not [e for e in client.events(stack_id) if e["resource_name"] == "after"]


def test_failure_without_rollback_lets_independent_branches_finish(client: Client) -> None:
    v1 = template(
        {
            "bad": test_resource("x", fail_on=["create"]),
            "child": {**test_resource("c"), "depends_on": ["bad"]},
            "slow": test_resource("s", wait_secs=1.5),
        }
    )
    stack_id = client.create("norb", v1, disable_rollback=True)["stack_id"]
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "CREATE_FAILED"
    assert "bad" in final["status_reason"]
    heads = _heads(stack_id)
    assert heads["slow"].status == "COMPLETE"
    assert heads["bad"].status == "FAILED"
    assert heads["child"].action == "INIT"  # never started


def test_explicit_rollback_after_a_failure(client: Client) -> None:
    v1 = template({"a": test_resource("good")})
    stack_id = client.create("exrb", v1, disable_rollback=True)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    client.update(stack_id, template({"a": test_resource("bad", fail_on=["update"])}))
    assert client.wait(stack_id)["status"] == "UPDATE_FAILED"
    with pytest.raises(Conflict):
        client.cancel(stack_id)  # nothing in progress to cancel
    client.rollback(stack_id)
    assert client.wait(stack_id)["status"] == "ROLLBACK_COMPLETE"
    head = _heads(stack_id)["a"]
    values = {o.id: o.properties["value"] for o in sandbox_objects(stack_id)}
    assert values[head.physical_id] == "good"


@pytest.mark.parametrize("rollback", [True, False])
def test_cancel_update(client: Client, rollback: bool) -> None:
    v1 = template({"a": test_resource("1"), "b": test_resource("1")})
    stack_id = client.create(f"cancel-{rollback}", v1)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    v2 = template(
        {"a": test_resource("2", wait_secs=2), "b": {**test_resource("2"), "depends_on": ["a"]}}
    )
    client.update(stack_id, v2)
    client.cancel(stack_id, rollback=rollback)
    final = client.wait(stack_id, timeout=60)
    if rollback:
        assert final["status"] == "ROLLBACK_COMPLETE", final
        # The cancelled update's in-flight action finished, then the rollback undid it.
        values = {o.id: o.properties["value"] for o in sandbox_objects(stack_id)}
        heads = _heads(stack_id)
        assert values[heads["a"].physical_id] == "1"
        assert values[heads["b"].physical_id] == "1"
    else:
        assert final["status"] == "UPDATE_FAILED"
        assert "cancelled" in final["status_reason"]
        heads = _heads(stack_id)
        values = {o.id: o.properties["value"] for o in sandbox_objects(stack_id)}
        assert values[heads["b"].physical_id] == "1"  # b's update never started


def test_second_update_takes_over_a_running_one(client: Client) -> None:
    v1 = template({"a": test_resource("1"), "b": test_resource("1")})
    stack_id = client.create("twice", v1)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    client.update(
        stack_id,
        template(
            {
                "a": test_resource("2", wait_secs=2),
                "b": {**test_resource("2"), "depends_on": ["a"]},
                "c": test_resource("2"),
            }
        ),
    )
    client.update(
        stack_id,
        template({"a": test_resource("3"), "b": test_resource("3"), "d": test_resource("3")}),
    )
    final = client.wait(stack_id, timeout=90)
    assert final["status"] == "UPDATE_COMPLETE", final
    heads = _heads(stack_id)
    assert set(heads) == {"a", "b", "d"}
    values = {o.id: o.properties["value"] for o in sandbox_objects(stack_id)}
    assert {n: values[h.physical_id] for n, h in heads.items()} == {"a": "3", "b": "3", "d": "3"}
    assert len(values) == 3  # nothing duplicated, nothing left behind
    assert all(h.lock_holder is None for h in heads.values())


def test_delete_removes_everything_but_retained_resources(client: Client) -> None:
    v1 = template(
        {
            "a": test_resource("1"),
            "keep": {**test_resource("k"), "deletion_policy": "Retain"},
            "b": {**test_resource("2"), "depends_on": ["a"]},
        }
    )
    stack_id = client.create("del", v1)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    kept = _heads(stack_id)["keep"].physical_id
    client.delete("del")
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "DELETE_COMPLETE"
    assert resource_rows(stack_id) == []
    assert [o.id for o in sandbox_objects(stack_id)] == [kept]
    assert all(s["id"] != stack_id for s in client.list())
    with pytest.raises(NotFound):
        client.get("del")
    events = client.events(stack_id)
    deletes = [
        e["resource_name"]
        for e in events
        if e["status"] == "DELETE_COMPLETE" and e["resource_name"]
    ]
    assert deletes.index("b") < deletes.index("a")


def test_bad_requests_are_refused_and_change_nothing(client: Client) -> None:
    before = client.list()
    with pytest.raises(InvalidInput) as info:
        client.create("bad", template({"x": {"type": "OS::Nope"}}))
    assert "resources.x.type" in str(info.value)
    with pytest.raises(InvalidInput) as info:
        client.create(
            "cyc",
            template(
                {
                    "a": {**test_resource(), "depends_on": ["b"]},
                    "b": {**test_resource(), "depends_on": ["a"]},
                }
            ),
        )
    assert "a" in str(info.value) and "b" in str(info.value)
    raw = client.app.send_task(
        "conv_tasks.stack.create", kwargs={"tenant": client.tenant, "name": 5, "colour": "red"}
    ).get(timeout=30)
    assert raw["ok"] is False and raw["error"] == "invalid_payload"
    assert {p["path"] for p in raw["problems"]} >= {"name", "colour", "template"}
    assert client.list() == before


def test_hidden_parameters_never_show(client: Client) -> None:
    tmpl = template(
        {"a": test_resource({"get_param": "secret"}, fail_on=["create"])},
        parameters={"secret": {"type": "string", "hidden": True}},
    )
    stack_id = client.create("hid", tmpl, {"secret": "s3cr3t-value"}, disable_rollback=True)[
        "stack_id"
    ]
    final = client.wait(stack_id)
    assert final["status"] == "CREATE_FAILED"
    text = (
        repr(client.get(stack_id))
        + repr(client.events(stack_id))
        + repr(client.resources(stack_id))
    )
    assert "s3cr3t-value" not in text
    assert client.get(stack_id)["parameters"]["secret"] == "******"


def test_values_transformed_from_hidden_parameters_are_masked_whole(client: Client) -> None:
    """A function that transforms a secret (dashes to spaces) does not leak it: everything
    derived from a hidden parameter is masked as a whole, not searched for substrings."""
    changed = {"str_replace": {"template": {"get_param": "pw"}, "params": {"-": " "}}}
    tmpl = template(
        {
            "a": test_resource(changed),
            "b": test_resource({"get_attr": ["a", "output"]}, fail_on=["create"]),
        },
        parameters={"pw": {"type": "string", "hidden": True}},
        outputs={
            "spaced": {"value": changed},
            "via_attr": {"value": {"get_attr": ["a", "output"]}},
            "ref": {"value": {"get_resource": "a"}},
        },
    )
    stack_id = client.create("taint", tmpl, {"pw": "tok-SECRET-123"}, disable_rollback=True)[
        "stack_id"
    ]
    assert client.wait(stack_id)["status"] == "CREATE_FAILED"
    outputs = client.outputs(stack_id)
    assert outputs["spaced"]["value"] == "******"
    assert outputs["via_attr"]["value"] == "******"
    assert outputs["ref"]["value"] == _heads(stack_id)["a"].physical_id  # not derived
    text = (
        repr(client.get(stack_id))
        + repr(outputs)
        + repr(client.events(stack_id))
        + repr(client.resources(stack_id))
        + repr(client.resource(stack_id, "a"))  # a str_replace of the secret: masked whole
    )
    assert client.resource(stack_id, "a")["properties"]["value"] == "******"
    for leak in ("tok-SECRET-123", "tok SECRET 123", "SECRET"):
        assert leak not in text
    reasons = [e["reason"] for e in client.events(stack_id) if e["resource_name"] == "b"]
    assert any("details withheld" in r for r in reasons)
