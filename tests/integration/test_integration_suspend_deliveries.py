"""A stack suspend's and resume's node tasks delivered twice, or lost: each resource is
suspended once, in order, and a suspend whose messages were lost is resumed by the
watchdog's restart. The engine runs in this process against the real PostgreSQL and
Redis."""

from __future__ import annotations

import random

from integration_support import resource_rows, stack_events
from test_integration_check_deliveries import QueueDispatcher, created

from conv_tasks.engine import StackControl, TenantStacks, default_env


def _order(seen: list[tuple[str | None, str, str]], action: str) -> list[str]:
    return [name for name, act, status in seen if name and act == action and status == "COMPLETE"]


def test_duplicated_deliveries_suspend_and_resume_each_resource_once_in_order(
    database_url: str, redis_client: object
) -> None:
    dispatcher = QueueDispatcher(copies=2)
    env = default_env(dispatcher)
    rng = random.Random(5)
    tenant, stack_id = created(env, dispatcher, rng)
    rows = [(r.id, r.version) for r in resource_rows(stack_id)]
    stacks = TenantStacks(env, tenant)

    stacks.suspend(stack_id)
    dispatcher.drain(env, rng)
    seen = stack_events(stack_id)
    assert seen[-1] == (None, "SUSPEND", "COMPLETE")
    suspended = _order(seen, "SUSPEND")
    assert sorted(suspended) == list("abcn")  # each once, however often delivered
    # c depends on b, b on a: dependants first.
    assert suspended.index("c") < suspended.index("b") < suspended.index("a")

    stacks.resume(stack_id)
    dispatcher.drain(env, rng)
    seen = stack_events(stack_id)
    assert seen[-1] == (None, "RESUME", "COMPLETE")
    resumed = _order(seen, "RESUME")
    assert sorted(resumed) == list("abcn")
    assert resumed.index("a") < resumed.index("b") < resumed.index("c")
    assert [(r.id, r.version) for r in resource_rows(stack_id)] == rows


def test_a_suspend_whose_messages_were_lost_is_resumed_by_a_restart(
    database_url: str, redis_client: object
) -> None:
    dispatcher = QueueDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(9)
    tenant, stack_id = created(env, dispatcher, rng)

    started = TenantStacks(env, tenant).suspend(stack_id)
    dispatcher.queue.clear()  # the worker that took them died, and the messages went with it
    assert started.traversal is not None
    restarted = StackControl(env).restart(stack_id, started.traversal, "stalled")
    assert restarted is not None and restarted.action == "SUSPEND"
    assert {str(root) for root in restarted.roots} == {"suspend:c", "suspend:n"}
    dispatcher.drain(env, rng)
    seen = stack_events(stack_id)
    assert seen[-1] == (None, "SUSPEND", "COMPLETE")
    assert sorted(_order(seen, "SUSPEND")) == list("abcn")
    since = seen[seen.index((None, "SUSPEND", "IN_PROGRESS")) :]
    assert {action for _, action, _ in since} == {"SUSPEND"}


def test_a_delete_started_during_a_suspend_takes_the_stack_over(
    database_url: str, redis_client: object
) -> None:
    dispatcher = QueueDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(13)
    tenant, stack_id = created(env, dispatcher, rng)
    stacks = TenantStacks(env, tenant)

    stacks.suspend(stack_id)
    stacks.delete(stack_id)
    dispatcher.drain(env, rng)  # the suspend's nodes find the stack is no longer theirs
    seen = stack_events(stack_id)
    assert seen[-1] == (None, "DELETE", "COMPLETE")
    assert (None, "SUSPEND", "COMPLETE") not in seen
    assert resource_rows(stack_id) == []
