"""Payloads generated with hypothesis (tests/fuzz/payload_strategies.py), sent with
`send_task` to every public task in batches.

Hypothesis only draws the payloads here (derandomized: the same ones every
run, so CI is stable; no example database); they are then sent a batch at a
time to a real worker, and each batch is checked as a whole: every answer a
JSON refusal naming what is wrong (or, for a read, a correct result), the row
counts as before the batch, and then the worker answers a ping, wrote no
traceback, and its peak memory (main process and pool children added up, from
/proc) is under 700 MB (fuzz_support.MAX_WORKER_RSS_MB, where the measured
figures are).
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import pytest
from fuzz_support import READ_TASKS, FuzzCluster, names_field, problems_of, shorten
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from killers import ONE, template, test_resource
from payload_strategies import TASKS, Known, Sent, hostile, malformed

from conv_tasks.client import Client

MALFORMED = 500
HOSTILE = 200
BATCH = 50


def draw(strategy: st.SearchStrategy[Sent], count: int) -> list[Sent]:
    """`count` payloads from the strategy, the same ones on every run."""
    drawn: list[Sent] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )
    @given(strategy)
    def collect(sent: Sent) -> None:
        drawn.append(sent)

    collect()
    return drawn


def send_in_batches(
    cluster: FuzzCluster, payloads: list[Sent], check: Any
) -> list[tuple[Sent, Any]]:
    """Send each batch, check every answer, then the rows, the log, a ping and the memory."""
    answered: list[tuple[Sent, Any]] = []
    for start in range(0, len(payloads), BATCH):
        batch = payloads[start : start + BATCH]
        before = cluster.row_counts()
        sent = [cluster.send(p.task, p.payload) for p in batch]
        for payload, result in zip(batch, sent, strict=True):
            answer = cluster.answer(result)
            try:
                check(payload, answer)
            except AssertionError as exc:
                raise AssertionError(
                    f"{payload.task} {shorten(payload.payload, 1500)}: {exc}"
                ) from None
            answered.append((payload, answer))
        assert cluster.row_counts() == before, f"batch {start // BATCH} changed rows"
        cluster.assert_healthy(f"after batch {start // BATCH} of {len(payloads) // BATCH}")
    return answered


def _refused_naming_the_fields(sent: Sent, answer: Any) -> None:
    problems = problems_of(answer)
    assert answer["error"] == "invalid_payload", shorten(answer, 2000)
    for field in sent.broken:
        assert names_field(problems, field), f"{field!r} not named: {shorten(answer, 2000)}"


def test_malformed_payloads_are_refused_naming_what_is_wrong(cluster: FuzzCluster) -> None:
    """500 malformed payloads: each refused by the payload checks, every breaking change named
    by its field, nothing written, and the worker well after every batch of 50."""
    payloads = draw(malformed(), MALFORMED)
    assert len(payloads) >= MALFORMED
    assert {p.task for p in payloads} == set(TASKS), "every public task gets some"
    send_in_batches(cluster, payloads, _refused_naming_the_fields)


@pytest.fixture
def known(client: Client) -> Known:
    created = client.create(f"known-{uuid.uuid4().hex[:6]}", template({"a": test_resource()}))
    final = client.wait(created["stack_id"], timeout=60, interval=0.2)
    assert final["status"] == "CREATE_COMPLETE", final
    return Known(client.tenant, final["name"], final["id"])


def test_hostile_well_formed_payloads_are_refused_or_answered_correctly(
    cluster: FuzzCluster, known: Known
) -> None:
    """200 payloads that pass the payload checks and reach the engine: garbage templates,
    names of stacks and tenants that do not exist, reads of one that does. Every write is
    refused and changes nothing; every read is refused or answers with that stack alone."""

    def check(sent: Sent, answer: Any) -> None:
        assert isinstance(answer, dict), shorten(answer)
        if sent.task not in READ_TASKS or answer.get("ok") is not True:
            problems_of(answer)
            return
        mine = sent.payload["tenant"] == known.tenant
        if sent.task == "conv_tasks.stack.list":
            assert answer["stacks"] == [] or (
                mine and [s["id"] for s in answer["stacks"]] == [known.stack_id]
            ), shorten(answer)
            return
        assert mine and sent.payload["stack"] in (known.name, known.stack_id), shorten(answer)
        if sent.task == "conv_tasks.stack.show":
            assert answer["stack_id"] == known.stack_id, shorten(answer)
        elif sent.task == "conv_tasks.stack.resources":
            assert [r["name"] for r in answer["resources"]] == ["a"], shorten(answer)

    payloads = draw(hostile(known), HOSTILE)
    assert len(payloads) >= HOSTILE
    answered = send_in_batches(cluster, payloads, check)
    # The mix is what it should be: the template checks and the engine refused (these
    # payloads pass the payload checks), and reads of the stack succeeded.
    codes = Counter(a["error"] if a.get("ok") is False else "ok" for _, a in answered)
    # A garbage template that loads (a custom constraint is a warning since issue 25, and
    # pseudo-parameters need no declaration) is refused for its parameters instead: both
    # are the template checks' refusals.
    template_checks = codes["invalid_template"] + codes["invalid_parameters"]
    assert template_checks > HOSTILE / 10, codes
    assert codes["not_found"] > HOSTILE / 10, codes
    assert codes["ok"] > 0, codes


def test_the_generated_batches_left_a_working_engine(client: Client) -> None:
    """After everything above, the same worker still converges a stack."""
    created = client.create("after-fuzz", ONE)
    assert client.wait(created["stack_id"], timeout=60, interval=0.2)["status"] == (
        "CREATE_COMPLETE"
    )
