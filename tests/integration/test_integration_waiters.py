"""A node waiting for another node's lease: woken by whoever lets go, and its insurance
recheck (in case the holder died) runs only while it is still waiting.

The engine runs in this process against the real PostgreSQL and Redis, with a dispatcher
that keeps what would be published, so each delivery is run exactly when the test says.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from typing import Any

import pytest
from integration_support import create_stack, template, test_resource
from sealed_rows import SEALER

from conv_tasks.db.nodes import NodeStore
from conv_tasks.db.session import node_connection, statement_count
from conv_tasks.engine import EngineEnv, Outcome, default_env, parse_node_task, run_node


class KeepingDispatcher:
    """Keeps every payload with its countdown instead of publishing it."""

    def __init__(self) -> None:
        self.sent: list[tuple[dict[str, Any], float | None]] = []

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.sent.append((dict(payload), countdown))

    def nodes(self, payloads: list[Mapping[str, Any]]) -> None:
        self.sent.extend((dict(p), None) for p in payloads)

    def take(self) -> list[tuple[dict[str, Any], float | None]]:
        sent, self.sent = self.sent, []
        return sent


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as opened:
        yield opened


def _held_by_another(
    env: EngineEnv, payload: Mapping[str, Any], ttl: float, opened: ExitStack
) -> NodeStore:
    """Take the resource's lease for the same traversal under another nonce (a duplicate
    delivery of the node, say), and return that holder's store (its connection stays open)."""
    task = parse_node_task(payload)
    conn = opened.enter_context(node_connection(env.settings.database_url))
    store = NodeStore(
        conn,
        stack_id=task.stack_id,
        traversal=task.traversal,
        template_id=task.template_id,
        nonce=str(uuid.uuid4()),
        sealer=SEALER,
    )
    claim = store.claim(task.node.name, cleanup=False, in_template=True, ttl=ttl, waiter="x")
    assert claim.versions[-1].held
    return store


def _start(env: EngineEnv, dispatcher: KeepingDispatcher) -> dict[str, Any]:
    create_stack(
        env,
        tenant=f"wait-{uuid.uuid4().hex[:6]}",
        name="waiters",
        template=template({"r": test_resource("r")}),
        parameters={},
    )
    [(root, _)] = dispatcher.take()
    return root


def test_a_woken_node_s_recheck_does_nothing(
    database_url: str, redis_client: object, stack: ExitStack
) -> None:
    dispatcher = KeepingDispatcher()
    env = default_env(dispatcher)
    root = _start(env, dispatcher)
    holder = _held_by_another(env, root, ttl=30, opened=stack)

    assert run_node(env, parse_node_task(root)) == Outcome.WAITING
    [(recheck, countdown)] = dispatcher.take()
    assert recheck.get("recheck") is True and countdown == env.settings.lock_ttl

    # The holder lets go: its statement hands back the waiter, which is enqueued and runs.
    version = holder.claim("r", cleanup=False, in_template=True, ttl=30, waiter="x").versions[-1]
    written = holder.write(version, {})
    [woken] = written.woken
    assert woken.endswith("update:r")
    wake = {k: v for k, v in recheck.items() if k not in ("recheck", "data")}
    assert run_node(env, parse_node_task(wake)) == Outcome.COMPLETE
    dispatcher.take()

    # The insurance recheck arrives later: one statement to see nobody waits, nothing else.
    before = statement_count()
    assert run_node(env, parse_node_task(recheck)) == Outcome.WOKEN_ALREADY
    assert statement_count() - before == 1
    assert dispatcher.take() == []


def test_a_recheck_takes_over_from_a_holder_that_died(
    database_url: str, redis_client: object, stack: ExitStack
) -> None:
    dispatcher = KeepingDispatcher()
    env = default_env(dispatcher)
    root = _start(env, dispatcher)
    _held_by_another(env, root, ttl=0.5, opened=stack)  # and never heard from again

    assert run_node(env, parse_node_task(root)) == Outcome.WAITING
    [(recheck, _)] = dispatcher.take()
    time.sleep(0.7)  # the dead holder's lease runs out
    assert run_node(env, parse_node_task(recheck)) == Outcome.COMPLETE
    # Whoever takes the lease is no longer written down as waiting for it.
    with node_connection(database_url) as conn:
        task = parse_node_task(root)
        store = NodeStore(
            conn,
            stack_id=task.stack_id,
            traversal=task.traversal,
            template_id=task.template_id,
            nonce=str(uuid.uuid4()),
        )
        assert not store.waiting("r", f"{task.traversal} {task.template_id} update:r")
