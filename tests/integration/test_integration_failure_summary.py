"""A failed operation's reason, on real workers: what it did to each of its resources in one
line ('1 created, 1 failed (bad: …), 2 not started'), in the stack's status_reason and in its
FAILED event; the resources' own reasons stay as they were."""

from __future__ import annotations

from integration_support import template, test_resource

from conv_tasks.client import Client

BAD = "Resource bad failed to {} because it was asked to (TestResource fail/fail_on)."


def _stack_events(client: Client, stack_id: str) -> list[tuple[str, str]]:
    return [(e["status"], e["reason"]) for e in client.events(stack_id) if not e["resource_name"]]


def test_a_failed_create_counts_created_failed_and_not_started(client: Client) -> None:
    v1 = template(
        {
            "good": test_resource("1"),
            "bad": test_resource("2", fail_on=["create"]),
            "after": {**test_resource("3"), "depends_on": ["bad"]},
            "later": {**test_resource("4"), "depends_on": ["after"]},
        }
    )
    stack_id = client.create("summed", v1, disable_rollback=True)["stack_id"]
    final = client.wait(stack_id, timeout=60)

    reason = BAD.format("create")
    summary = f"1 created, 1 failed (bad: {reason}), 2 not started"
    assert (final["status"], final["status_reason"]) == ("CREATE_FAILED", summary)
    assert ("CREATE_FAILED", summary) in _stack_events(client, stack_id)
    # The detail stays on the resource.
    assert client.resource(stack_id, "bad")["status_reason"] == reason


def test_a_failed_update_counts_updated_unchanged_deleted_and_the_rollback_names_it(
    client: Client,
) -> None:
    v1 = template(
        {
            "keep": test_resource("k"),
            "change": test_resource("a"),
            "gone": test_resource("g"),
            "bad": test_resource("b"),
        }
    )
    stack_id = client.create("summed2", v1)["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    v2 = template(
        {
            "keep": test_resource("k"),
            "change": test_resource("b"),
            "bad": {**test_resource("b2", fail_on=["update"]), "depends_on": ["change"]},
            "added": {**test_resource("n"), "depends_on": ["bad"]},
        }
    )
    client.update(stack_id, v2)
    final = client.wait(stack_id, timeout=60)

    assert final["status"] == "ROLLBACK_COMPLETE", final
    summary = (
        f"1 updated, 1 deleted, 1 unchanged, 1 failed (bad: {BAD.format('update')}), 1 not started"
    )
    events = _stack_events(client, stack_id)
    assert ("UPDATE_FAILED", summary) in events
    assert ("ROLLBACK_IN_PROGRESS", f"UPDATE failed, rolling back: {summary}") in events
