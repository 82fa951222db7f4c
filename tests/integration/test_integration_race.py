"""Two updates racing on one stack: exactly one wins, the loser leaves nothing behind (seed 001)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from integration_support import resource_rows, template, test_resource, update_stack
from sealed_rows import opened
from sqlalchemy import select

from conv_tasks.client import Client
from conv_tasks.db.models import RawTemplate
from conv_tasks.db.session import session_scope
from conv_tasks.db.stacks import Stacks
from conv_tasks.errors import LostRace
from conv_tasks.tasks.runtime import engine_env


def test_racing_updates_have_one_winner_and_the_loser_leaves_no_rows(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack_id = client.create("race", template({"a": test_resource("1")}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"

    # Both operations plan and write their rows, then meet here before their swap.
    barrier = threading.Barrier(2, timeout=20)
    real_swap = Stacks.swap_traversal

    def swap_after_both_planned(*args: Any, **kwargs: Any) -> bool:
        barrier.wait()
        return real_swap(*args, **kwargs)

    monkeypatch.setattr(Stacks, "swap_traversal", swap_after_both_planned)
    env = engine_env()

    def update(name: str) -> str:
        try:
            update_stack(
                env,
                tenant=client.tenant,
                stack_ref=stack_id,
                template=template({"a": test_resource("1"), name: test_resource(name)}),
                parameters={},
            )
            return name
        except LostRace:
            return "lost"

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(update, ["x1", "x2"]))
    monkeypatch.undo()
    assert outcomes.count("lost") == 1
    winner = next(o for o in outcomes if o != "lost")
    loser = "x2" if winner == "x1" else "x1"
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "UPDATE_COMPLETE"
    names = {r.name for r in resource_rows(stack_id)}
    assert names == {"a", winner}
    assert loser not in names
    with session_scope() as session:
        # The loser's template was never kept; the winner's is the stack's.
        templates = [
            opened("raw_template", "template", stored)
            for stored in session.scalars(select(RawTemplate.template))
        ]

        def kept(name: str) -> int:
            return sum(1 for t in templates if name in t.get("resources", {}))

        assert kept(loser) == 0
        assert kept(winner) >= 1
