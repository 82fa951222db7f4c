"""Checks of nested stacks driven in this process against the real PostgreSQL and Redis:
every node delivered twice still starts one check of each child, and the ChildStacks
service's `check` is keyed (issue 10)."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Mapping
from typing import Any

from integration_support import (
    check_stack,
    create_stack,
    delete_stack,
    stack_events,
    template,
    test_resource,
)
from sqlalchemy import select

from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine import EngineEnv, default_env, parse_node_task, run_node
from conv_tasks.engine.features.nested.child_stacks import EngineChildStacks
from conv_tasks.engine.stack import child_check_traversal


class TwiceDispatcher:
    """Delivers every node twice, drained in a shuffled order."""

    def __init__(self) -> None:
        self.queue: list[Mapping[str, Any]] = []

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.queue.extend([payload, payload])

    def nodes(self, payloads: list[Mapping[str, Any]]) -> None:
        for payload in payloads:
            self.node(payload)

    def drain(self, env: EngineEnv, rng: random.Random, limit: int = 20000) -> None:
        for _ in range(limit):
            if not self.queue:
                return
            run_node(env, parse_node_task(self.queue.pop(rng.randrange(len(self.queue)))))
        raise AssertionError("deliveries did not converge")


def _child_of(stack_id: str) -> Stack:
    with session_scope() as session:
        [child] = session.scalars(select(Stack).where(Stack.parent_stack_id == stack_id))
        return child


CHILD = template({"a": test_resource("a"), "b": test_resource("b")})
PARENT = template(
    {"inner": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(CHILD)}}}
)


def test_a_check_delivered_twice_checks_the_child_once(
    database_url: str, redis_client: object
) -> None:
    dispatcher = TwiceDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(11)
    tenant = f"check-dup-{uuid.uuid4().hex[:6]}"
    stack_id = create_stack(env, tenant=tenant, name="dup", template=PARENT, parameters={})
    dispatcher.drain(env, rng)
    child = _child_of(stack_id)

    check_stack(env, tenant=tenant, stack_ref=stack_id)
    dispatcher.drain(env, rng)
    assert stack_events(stack_id)[-1] == (None, "CHECK", "COMPLETE"), stack_events(stack_id)
    assert stack_events(stack_id).count(("inner", "CHECK", "COMPLETE")) == 1
    child_events = stack_events(child.id)
    assert child_events.count((None, "CHECK", "IN_PROGRESS")) == 1, child_events
    assert child_events[-1] == (None, "CHECK", "COMPLETE")


def test_child_stacks_check_is_keyed(database_url: str, redis_client: object) -> None:
    dispatcher = TwiceDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(3)
    tenant = f"check-key-{uuid.uuid4().hex[:6]}"
    stack_id = create_stack(env, tenant=tenant, name="keyed", template=PARENT, parameters={})
    dispatcher.drain(env, rng)
    child = _child_of(stack_id)
    children = EngineChildStacks(env)

    first = children.check(child.id, "key-1")
    assert first.state == "CHECK_IN_PROGRESS"
    with session_scope() as session:
        traversal = session.get(Stack, child.id).current_traversal  # type: ignore[union-attr]
    assert traversal == child_check_traversal("key-1")
    dispatcher.drain(env, rng)
    assert children.check(child.id, "key-1").state == "CHECK_COMPLETE"  # read, not started
    assert children.check(child.id, "key-1").state == "CHECK_COMPLETE"
    assert stack_events(child.id).count((None, "CHECK", "IN_PROGRESS")) == 1
    assert children.check(child.id, "key-2").state == "CHECK_IN_PROGRESS"  # a new check
    dispatcher.drain(env, rng)
    assert stack_events(child.id).count((None, "CHECK", "IN_PROGRESS")) == 2

    delete_stack(env, tenant=tenant, stack_ref=stack_id)
    dispatcher.drain(env, rng)
    assert children.check(child.id, "key-3").deleted
