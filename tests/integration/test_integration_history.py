"""The web view's reads with real workers, through the Client: a stack's history (one row per
operation, its counts and failures, superseded operations, nested stacks' own rows) and the
stacks overview (attention, filters, pages, tenants), and the refusals of bad input."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from integration_support import template, test_resource
from sqlalchemy import text

from conv_tasks.client import Client
from conv_tasks.db.session import session_scope
from conv_tasks.errors import InvalidInput, NotFound


def _counts(operation: dict[str, Any]) -> tuple[int, ...]:
    counts = operation["counts"]
    return tuple(counts[k] for k in ("created", "updated", "replaced", "deleted", "failed"))


def _done(client: Client, stack_id: str, status: str) -> None:
    assert client.wait(stack_id, timeout=120)["status"] == status


def _problems(caught: pytest.ExceptionInfo[InvalidInput]) -> dict[str, str]:
    return {p.path: p.message for p in caught.value.problems}


def test_history_counts_what_a_create_and_an_update_did(client: Client) -> None:
    first = {
        "same": test_resource("s"),
        "edited": test_resource("e1"),
        "swapped": test_resource("w1", update_replace=True),
        "dropped": test_resource("d"),
    }
    stack_id = client.create("hist", template(first))["stack_id"]
    _done(client, stack_id, "CREATE_COMPLETE")
    second = {
        "same": test_resource("s"),
        "edited": test_resource("e2"),
        "swapped": test_resource("w2", update_replace=True),
        "added": test_resource("a"),
    }
    traversal = client.update("hist", template(second))["traversal"]
    _done(client, stack_id, "UPDATE_COMPLETE")

    answer = client.history("hist")
    assert answer["next"] is None
    update, create = answer["operations"]
    assert (create["action"], create["result"], _counts(create)) == (
        "CREATE",
        "COMPLETE",
        (4, 0, 0, 0, 0),
    )
    assert (update["action"], update["result"], update["traversal"]) == (
        "UPDATE",
        "COMPLETE",
        traversal,
    )
    # created (added), updated (edited), replaced (swapped), deleted (dropped), failed
    assert _counts(update) == (1, 1, 1, 1, 0)
    assert update["tenant"] == client.tenant and update["failures"] == []
    assert update["started_at"] <= update["ended_at"] and update["duration_secs"] >= 0
    assert update["reason"] == "Stack UPDATE completed successfully"
    assert update["watchdog_restarts"] == 0
    # Paged: one at a time, `next` leading to the older one.
    page = client.history(stack_id, limit=1)
    assert [op["id"] for op in page["operations"]] == [update["id"]]
    assert page["next"] == update["id"]
    older = client.history(stack_id, limit=1, before=page["next"])
    assert [op["id"] for op in older["operations"]] == [create["id"]] and older["next"] is None


def test_a_failed_operation_lists_its_failed_resources_and_reasons(client: Client) -> None:
    resources = {
        "fine": test_resource("f"),
        "broken": test_resource("b", fail=True),
        "after": {**test_resource("x"), "depends_on": ["broken"]},
    }
    stack_id = client.create("failing", template(resources), disable_rollback=True)["stack_id"]
    _done(client, stack_id, "CREATE_FAILED")

    [create] = client.history("failing")["operations"]
    assert create["result"] == "FAILED"
    # `after` never ran: neither created nor failed.
    assert _counts(create) == (1, 0, 0, 0, 1)
    [failure] = create["failures"]
    assert failure["resource"] == "broken" and failure["reason"]
    assert "broken" in create["reason"] and "\n" not in create["reason"]


def test_an_operation_a_delete_takes_over_is_superseded(client: Client) -> None:
    slow = test_resource("s", action_wait_secs={"create": 60})
    stack_id = client.create("slow", template({"slow": slow}))["stack_id"]
    client.delete("slow")
    _done(client, stack_id, "DELETE_COMPLETE")

    delete, create = client.history(stack_id)["operations"]
    assert (delete["action"], delete["result"]) == ("DELETE", "COMPLETE")
    assert (create["action"], create["result"]) == ("CREATE", "SUPERSEDED")
    assert create["ended_at"] is not None and create["reason"].startswith("Superseded")


def test_a_nested_stack_has_operations_of_its_own(client: Client) -> None:
    child = template({"a": test_resource("x"), "b": test_resource("y")})
    nested = {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}}
    stack_id = client.create("outer", template({"inner": nested}))["stack_id"]
    _done(client, stack_id, "CREATE_COMPLETE")

    [parent_create] = client.history("outer")["operations"]
    assert _counts(parent_create) == (1, 0, 0, 0, 0)  # the nested resource, once
    [child] = [s for s in client.overview()["stacks"] if s["parent"] == stack_id]
    [child_create] = client.history(child["id"])["operations"]
    assert (child_create["action"], _counts(child_create)) == ("CREATE", (2, 0, 0, 0, 0))


@pytest.fixture
def fleet(client: Client) -> Iterator[dict[str, str]]:
    """Three stacks of the client's tenant: ok (tag blue), bad (failed), web (blue, prod)."""
    made = {
        "ok": client.create("ok-1", template({"r": test_resource()}), tags=["blue"]),
        "bad": client.create(
            "bad-1",
            template({"r": test_resource(), "x": test_resource(fail=True)}),
            disable_rollback=True,
        ),
        "web": client.create("Web-Front", template({"r": test_resource()}), tags=["blue", "prod"]),
    }
    ids = {key: result["stack_id"] for key, result in made.items()}
    _done(client, ids["ok"], "CREATE_COMPLETE")
    _done(client, ids["bad"], "CREATE_FAILED")
    _done(client, ids["web"], "CREATE_COMPLETE")
    yield ids


def _ids(stacks: list[dict[str, Any]]) -> list[str]:
    return [s["id"] for s in stacks]


def test_overview_puts_a_failed_stack_under_attention(
    client: Client, fleet: dict[str, str]
) -> None:
    answer = client.overview()
    assert answer["total"] == 3 and answer["next"] is None
    assert set(_ids(answer["stacks"])) == set(fleet.values())
    assert _ids(answer["attention"]) == [fleet["bad"]] and answer["attention_total"] == 1
    [bad] = answer["attention"]
    assert (bad["attention"], bad["status"], bad["state"], bad["action"]) == (
        "failed",
        "FAILED",
        "CREATE_FAILED",
        "CREATE",
    )
    assert bad["resource_counts"] == {"CREATE_COMPLETE": 1, "CREATE_FAILED": 1}
    assert len(bad["status_reason"]) <= 300 and "\n" not in bad["status_reason"]
    assert bad["tenant"] == client.tenant and bad["parent"] is None
    assert bad["operation"]["elapsed_secs"] is None  # not in progress
    web = next(s for s in answer["stacks"] if s["id"] == fleet["web"])
    assert (web["attention"], web["tags"], web["resource_counts"]) == (
        None,
        ["blue", "prod"],
        {"CREATE_COMPLETE": 1},
    )
    # Newest first.
    updated = [s["updated_at"] for s in answer["stacks"]]
    assert updated == sorted(updated, reverse=True)


def test_overview_filters_by_status_tag_and_name(client: Client, fleet: dict[str, str]) -> None:
    def ids(**filters: Any) -> set[str]:
        answer = client.overview(**filters)
        assert answer["total"] == len(answer["stacks"])
        return set(_ids(answer["stacks"]))

    assert ids(status=["FAILED"]) == {fleet["bad"]}
    assert ids(status=["CREATE_COMPLETE"]) == {fleet["ok"], fleet["web"]}
    assert ids(status=["UPDATE_COMPLETE", "FAILED"]) == {fleet["bad"]}
    assert ids(tags=["blue"]) == {fleet["ok"], fleet["web"]}
    assert ids(tags=["blue", "prod"]) == {fleet["web"]}
    assert ids(name="web-fr") == {fleet["web"]}  # any case, any part
    assert ids(name="%") == set()  # a LIKE wildcard is only a character
    assert ids(name="-1", status=["COMPLETE"]) == {fleet["ok"]}
    # Attention follows the filters too.
    assert client.overview(tags=["blue"])["attention"] == []


def test_overview_pages_with_a_marker(client: Client, fleet: dict[str, str]) -> None:
    seen: list[str] = []
    marker = None
    for _ in range(5):
        page = client.overview(limit=1, marker=marker)
        assert page["total"] == 3 and len(page["stacks"]) == 1
        seen.extend(_ids(page["stacks"]))
        marker = page["next"]
        if marker is None:
            break
        assert marker == seen[-1]
    assert len(seen) == 3 and set(seen) == set(fleet.values())
    assert seen == _ids(client.overview()["stacks"])


def test_overview_shows_only_the_tenants_stacks_unless_all_tenants(
    client: Client, fleet: dict[str, str]
) -> None:
    other = Client(tenant=f"other-{uuid.uuid4().hex[:8]}", timeout=30)
    mine = other.create("ok-1", template({"r": test_resource()}))["stack_id"]
    _done(other, mine, "CREATE_COMPLETE")

    assert _ids(other.overview()["stacks"]) == [mine]
    assert other.overview(status=["FAILED"])["attention"] == []
    with pytest.raises(NotFound):
        other.history(fleet["bad"])
    # Every tenant's: the other's stack and the client's, by the name they share.
    both = other.overview(all_tenants=True, name="ok-1")
    assert {(s["id"], s["tenant"]) for s in both["stacks"]} >= {
        (mine, other.tenant),
        (fleet["ok"], client.tenant),
    }
    # Across tenants a failed stack is under attention too.
    everyone = other.overview(all_tenants=True, status=["FAILED"], limit=500)
    assert fleet["bad"] in _ids(everyone["attention"]) or everyone["attention_total"] > 50
    # A marker of another tenant's stack names no stack of the tenant.
    with pytest.raises(InvalidInput) as caught:
        other.overview(marker=fleet["ok"])
    assert "marker" in _problems(caught)


def _date_back(stack_id: str, minutes: int) -> None:
    with session_scope() as session:
        session.execute(
            text(
                "UPDATE stack SET operation_started_at = now() - make_interval(mins => :m) "
                "WHERE id = :id"
            ),
            {"m": minutes, "id": stack_id},
        )


def test_overview_flags_operations_past_half_their_timeout_or_restarted(
    client: Client,
) -> None:
    slow = template({"r": test_resource(action_wait_secs={"create": 120})})
    late = client.create("late", slow, timeout_mins=10)["stack_id"]
    stalled = client.create("stalled", slow)["stack_id"]
    try:
        _date_back(late, 6)  # 6 of its 10 minutes gone
        with session_scope() as session:
            session.execute(
                text(
                    "UPDATE stack_operation SET watchdog_restarts = 1 "
                    "WHERE stack_id = :id AND result = 'IN_PROGRESS'"
                ),
                {"id": stalled},
            )
        answer = client.overview()
        flagged = {s["id"]: s for s in answer["attention"]}
        assert flagged[late]["attention"] == "past-half-timeout"
        assert flagged[stalled]["attention"] == "watchdog"
        operation = flagged[late]["operation"]
        assert operation["elapsed_secs"] >= 360 and operation["deadline"] is not None
        assert operation["deadline"] > operation["started_at"]
        assert flagged[stalled]["operation"]["deadline"] is None  # no timeout
        assert answer["attention_total"] == 2
    finally:
        for stack_id in (late, stalled):
            client.delete(stack_id)
        for stack_id in (late, stalled):
            _done(client, stack_id, "DELETE_COMPLETE")


@pytest.mark.parametrize(
    ("call", "path", "said"),
    [
        (lambda c: c.history("any", limit=0), "limit", "MAX_HISTORY_PAGE"),
        (lambda c: c.history("any", limit=10000), "limit", "MAX_HISTORY_PAGE"),
        (lambda c: c.history("any", before=0), "before", "MAX_ID"),
        (lambda c: c.overview(limit=0), "limit", "MAX_OVERVIEW_PAGE"),
        (lambda c: c.overview(limit=10000), "limit", "MAX_OVERVIEW_PAGE"),
        (lambda c: c.overview(marker="garbage"), "marker", "stack id"),
        (lambda c: c.overview(marker=str(uuid.uuid4())), "marker", "names no stack"),
        (lambda c: c.overview(status=["BROKEN"]), "status[0]", "a status"),
        (lambda c: c.overview(status=["FAILED"] * 31), "status", "MAX_STATUS_FILTERS"),
        (lambda c: c.overview(tags=["a,b"]), "tags[0]", "comma"),
    ],
)
def test_bad_input_gets_a_clear_refusal(client: Client, call: Any, path: str, said: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        call(client)
    problems = _problems(caught)
    assert path in problems, problems
    assert said in problems[path]


def test_history_of_an_unknown_stack_is_not_found(client: Client) -> None:
    with pytest.raises(NotFound):
        client.history("no-such-stack")
