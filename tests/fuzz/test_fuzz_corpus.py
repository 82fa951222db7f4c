"""The fixed corpus of known killers (tests/fuzz/killers.py), sent with `send_task`.

For each: a JSON refusal naming the field (and the limit) or, for a valid
payload, a correct result; row counts unchanged by a refusal; then the worker
answers a ping, wrote no traceback, and its peak memory (main process and pool
children added up) is under 700 MB (fuzz_support.MAX_WORKER_RSS_MB, where the
measured figures are).
"""

from __future__ import annotations

import uuid

import pytest
from fuzz_support import FuzzCluster, names_field, problems_of, shorten
from killers import CREATE, KILLERS, ONE, Killer, nested

from conv_tasks.client import Client


def _check_refusal(killer: Killer, result: object) -> None:
    problems = problems_of(result)
    assert isinstance(result, dict)
    assert result["error"] == killer.code, shorten(result)
    for field in killer.fields:
        assert names_field(problems, field), f"{field} not named: {shorten(result, 2000)}"
    if killer.code == "invalid_payload" and not killer.fields:
        # A refusal of the whole message: nothing in it names a field.
        assert [p["path"] for p in problems] == [""], shorten(result)
    assert killer.says in result["message"], f"{killer.says!r} not said: {shorten(result, 2000)}"


def _check_valid(cluster: FuzzCluster, killer: Killer, tenant: str, result: object) -> None:
    assert isinstance(result, dict) and result.get("ok") is True, shorten(result, 2000)
    payload = killer.build(tenant)
    client = Client(cluster.app, tenant=payload["tenant"], timeout=30)
    if killer.task == CREATE:
        final = client.wait(result["stack_id"], timeout=60, interval=0.2)
        assert final["status"] == "CREATE_COMPLETE", final
        # Names and values are kept exactly as given, never evaluated, escaped or truncated.
        assert client.get(payload["name"])["name"] == payload["name"]
        tmpl = payload["template"]
        if isinstance(tmpl, str):
            return
        shown = {r["name"] for r in client.resources(result["stack_id"])}
        assert shown == set(tmpl["resources"])
        outputs = client.outputs(result["stack_id"])
        for name in tmpl.get("outputs", {}):
            assert outputs[name]["value"] == payload["parameters"][name], outputs
    else:
        assert result == {"ok": True, "stacks": []}


@pytest.mark.parametrize("killer", KILLERS, ids=lambda killer: killer.id)
def test_known_killer_is_answered_and_the_worker_goes_on(
    cluster: FuzzCluster, killer: Killer
) -> None:
    tenant = f"fuzz-{uuid.uuid4().hex[:8]}"
    before = cluster.row_counts()
    sent = cluster.send(killer.task, killer.build(tenant))
    result = cluster.answer(sent, timeout=killer.within)
    refused = isinstance(result, dict) and result.get("ok") is False
    if killer.expect == "refused":
        _check_refusal(killer, result)
    elif killer.expect == "valid" or not refused:
        _check_valid(cluster, killer, tenant, result)
    else:
        problems_of(result)
    if refused:
        assert cluster.row_counts() == before, "a refused payload changed rows"
    cluster.assert_healthy(f"after {killer.id}")


def test_deep_json_is_refused_and_the_worker_then_creates_a_stack(
    cluster: FuzzCluster, client: Client
) -> None:
    """Issue 11 #1: a template nested 900 levels deep stopped the worker for good (its
    prefork pool could not pickle the body); now it is refused and the worker goes on."""
    refused = cluster.call(
        CREATE, {"tenant": client.tenant, "name": "deep", "template": nested(900)}
    )
    assert problems_of(refused)
    assert "nested" in refused["message"], refused
    created = client.create("after-deep", ONE)
    assert client.wait(created["stack_id"], timeout=60, interval=0.2)["status"] == (
        "CREATE_COMPLETE"
    )
    cluster.assert_healthy("after the deep JSON message")
