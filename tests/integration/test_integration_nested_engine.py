"""Nested stacks driven in this process against the real PostgreSQL and Redis: every node
delivered twice, a parent's create step run twice, and a provider template registered
directly in the registry (issue 10)."""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from integration_support import (
    create_stack,
    delete_stack,
    resource_rows,
    sandbox_objects,
    stack_events,
    template,
    test_resource,
    update_stack,
)
from sealed_rows import opened
from sqlalchemy import select

from conv_tasks.db.models import RawTemplate, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine import EngineEnv, default_env, parse_node_task, run_node
from conv_tasks.engine.features.nested.child_stacks import EngineChildStacks
from conv_tasks.errors import InvalidInput
from conv_tasks.limits import MAX_NESTING_DEPTH
from conv_tasks.resources import ActionContext, default_registry
from conv_tasks.resources.builtin.heat_stack import HeatStackResource
from conv_tasks.resources.provider_template import provider_template_type


class DuplicatingDispatcher:
    """Delivers every node twice; the queue is drained in a shuffled order."""

    def __init__(self, copies: int = 2) -> None:
        self.queue: list[Mapping[str, Any]] = []
        self.copies = copies
        self.deliveries = 0

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.queue.extend([payload] * self.copies)

    def nodes(self, payloads: list[Mapping[str, Any]]) -> None:
        for payload in payloads:
            self.node(payload)

    def drain(self, env: EngineEnv, rng: random.Random, limit: int = 20000) -> None:
        while self.queue:
            assert self.deliveries < limit, "deliveries did not converge"
            payload = self.queue.pop(rng.randrange(len(self.queue)))
            self.deliveries += 1
            run_node(env, parse_node_task(payload))


def _children(stack_id: str) -> list[Stack]:
    with session_scope() as session:
        return list(session.scalars(select(Stack).where(Stack.parent_stack_id == stack_id)))


CHILD = template(
    {"a": test_resource("a"), "b": test_resource("b")},
    outputs={"ab": {"value": {"list_join": ["+", [{"get_attr": ["a", "output"]}, "b"]]}}},
)


def _nested(child: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}}


def test_duplicated_deliveries_make_one_child(database_url: str, redis_client: object) -> None:
    dispatcher = DuplicatingDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(7)
    tenant = f"nest-dup-{uuid.uuid4().hex[:6]}"
    parent = template(
        {"inner": _nested(CHILD), "user": test_resource({"get_attr": ["inner", "outputs", "ab"]})}
    )
    stack_id = create_stack(env, tenant=tenant, name="dup", template=parent, parameters={})
    dispatcher.drain(env, rng)
    events = stack_events(stack_id)
    assert events[-1] == (None, "CREATE", "COMPLETE"), events
    assert events.count(("inner", "CREATE", "COMPLETE")) == 1
    [child] = _children(stack_id)
    assert stack_events(child.id).count((None, "CREATE", "COMPLETE")) == 1
    objects = sandbox_objects(child.id)
    assert sorted(o.properties["value"] for o in objects) == ["a", "b"]
    assert all(o.create_calls == 1 for o in objects)
    assert [o.properties["value"] for o in sandbox_objects(stack_id)] == ["a+b"]

    delete_stack(env, tenant=tenant, stack_ref=stack_id)
    dispatcher.drain(env, rng)
    assert stack_events(stack_id)[-1] == (None, "DELETE", "COMPLETE")
    assert _children(stack_id)[0].deleted_at is not None
    assert sandbox_objects(child.id) == []


def parent_step(
    prefix: str,
    resource: str,
    version: int,
    properties: dict[str, Any],
    *,
    deadline_secs: float | None = 600,
    **extra: Any,
) -> tuple[EngineEnv, DuplicatingDispatcher, ActionContext]:
    """A host stack made by the engine in this process (nodes run by draining the returned
    dispatcher), and the context a node gives the CREATE step of `resource`'s version
    `version` on it."""
    dispatcher = DuplicatingDispatcher(copies=1)
    env = default_env(dispatcher)
    tenant = f"{prefix}-{uuid.uuid4().hex[:6]}"
    parent_id = create_stack(env, tenant=tenant, name="host", template=template({}), parameters={})
    dispatcher.drain(env, random.Random(1))
    now = time.time()
    ctx = ActionContext(
        stack_id=parent_id,
        resource_name=resource,
        action="CREATE",
        idempotency_token=f"{parent_id}:{version}:CREATE",
        properties=properties,
        old_properties=None,
        physical_id=None,
        data={},
        started_at=now,
        now=now,
        sandbox=env.sandbox,
        children=EngineChildStacks(env),
        deadline=None if deadline_secs is None else now + deadline_secs,
        **extra,
    )
    return env, dispatcher, ctx


def test_a_create_step_run_twice_makes_one_child(database_url: str, redis_client: object) -> None:
    """A worker killed after starting the child and before recording it runs the step
    again (resume): the same idempotency token finds the same child."""
    env, dispatcher, ctx = parent_step(
        "nest-twice", "inner", 1, {"template": json.dumps(CHILD), "parameters": {}}
    )
    parent_id = ctx.stack_id
    plugin = HeatStackResource()
    first = plugin.create(ctx)
    second = plugin.create(ctx)
    assert first.physical_id == second.physical_id and not first.done
    [child] = _children(parent_id)
    assert child.id == first.physical_id and child.timeout_mins == 10
    dispatcher.drain(env, random.Random(2))
    done = plugin.check_create(
        ActionContext(**{**ctx.__dict__, "physical_id": first.physical_id, "now": time.time()})
    )
    assert done.done and done.data["outputs"] == {"ab": "a+b"}
    assert len(sandbox_objects(child.id)) == 2


PROVIDER = """
heat_template_version: 2018-08-31
parameters:
  size:
    type: number
  label:
    type: string
    default: plain
outputs:
  summary:
    value: {list_join: ['-', [{get_param: label}, {get_attr: [thing, output]}]]}
  OS::stack_id:
    value: {get_resource: thing}
resources:
  thing:
    type: OS::Heat::TestResource
    properties:
      value: {str_replace: {template: 'size=S', params: {S: {get_param: size}}}}
"""


def test_a_provider_template_registered_directly(
    database_url: str, redis_client: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    type_name = f"Test::Provider{uuid.uuid4().hex[:8]}::Thing"
    cls = provider_template_type(type_name, PROVIDER, path="thing.yaml")
    assert cls.properties_schema is not None
    assert cls.properties_schema["size"].required and cls.properties_schema["size"].type == "number"
    assert not cls.properties_schema["label"].required
    assert set(cls.attributes_schema) == {"summary", "OS::stack_id"}
    # Registered for this test only: later tests in the process see the built-ins alone.
    monkeypatch.setitem(default_registry()._types, type_name, cls)

    dispatcher = DuplicatingDispatcher(copies=1)
    env = default_env(dispatcher)
    tenant = f"nest-prov-{uuid.uuid4().hex[:6]}"
    with pytest.raises(InvalidInput) as refused:
        create_stack(
            env,
            tenant=tenant,
            name="missing",
            template=template({"p": {"type": type_name, "properties": {}}}),
            parameters={},
        )
    assert "resources.p.properties.size" in str(refused.value)

    parent = template(
        {
            "p": {"type": type_name, "properties": {"size": 3}},
            "ref": test_resource({"get_resource": "p"}),
            "sum": test_resource({"get_attr": ["p", "summary"]}),
        }
    )
    stack_id = create_stack(env, tenant=tenant, name="prov", template=parent, parameters={})
    dispatcher.drain(env, random.Random(3))
    assert stack_events(stack_id)[-1] == (None, "CREATE", "COMPLETE")
    [child] = _children(stack_id)
    [thing] = sandbox_objects(child.id)
    assert thing.properties["value"] == "size=3"
    values = {o.properties["value"] for o in sandbox_objects(stack_id)}
    # the reference is the child's OS::stack_id output (its resource's id), not the child's id
    [thing_row] = resource_rows(child.id)
    assert values == {thing_row.physical_id, "plain-size=3"}

    updated = template({"p": {"type": type_name, "properties": {"size": 4, "label": "big"}}})
    update_stack(env, tenant=tenant, stack_ref=stack_id, template=updated, parameters={})
    dispatcher.drain(env, random.Random(4))
    assert stack_events(stack_id)[-1] == (None, "UPDATE", "COMPLETE")
    [same] = sandbox_objects(child.id)
    assert same.id == thing.id and same.properties["value"] == "size=4"


def test_nesting_deeper_than_the_limit_is_refused(database_url: str, redis_client: object) -> None:
    dispatcher = DuplicatingDispatcher(copies=1)
    env = default_env(dispatcher)
    tenant = f"nest-deep-{uuid.uuid4().hex[:6]}"
    level: dict[str, Any] = template({"leaf": test_resource("leaf")})
    for _ in range(MAX_NESTING_DEPTH + 1):
        level = template({"down": _nested(level)})
    stack_id = create_stack(
        env, tenant=tenant, name="deep", template=level, parameters={}, disable_rollback=True
    )
    dispatcher.drain(env, random.Random(5))
    with session_scope() as session:
        stacks = list(session.scalars(select(Stack).where(Stack.tenant == tenant)))
        top = session.get(Stack, stack_id)
        assert top is not None
        top_status, top_reason = f"{top.action}_{top.status}", top.status_reason
    assert max(s.nested_depth for s in stacks) == MAX_NESTING_DEPTH
    assert top_status == "CREATE_FAILED"
    assert "MAX_NESTING_DEPTH" in top_reason, top_reason


def test_the_parent_files_are_handed_down(database_url: str, redis_client: object) -> None:
    dispatcher = DuplicatingDispatcher(copies=1)
    env = default_env(dispatcher)
    tenant = f"nest-files-{uuid.uuid4().hex[:6]}"
    files = {"scripts/setup.sh": "#!/bin/sh\necho hi\n"}
    stack_id = create_stack(
        env,
        tenant=tenant,
        name="files",
        template=template({"inner": _nested(CHILD)}),
        parameters={},
        files=files,
    )
    dispatcher.drain(env, random.Random(6))
    [child] = _children(stack_id)
    with session_scope() as session:
        row = session.get(Stack, child.id)
        assert row is not None and row.raw_template_id is not None
        raw = session.get(RawTemplate, row.raw_template_id)
        assert raw is not None and opened("raw_template", "files", raw.files) == files


def test_a_delete_finds_a_child_whose_id_was_never_recorded(
    database_url: str, redis_client: object
) -> None:
    """The create step made the child and its worker died before the id was written: the
    resource's delete (same version, its own token) still finds and deletes the child."""
    env, dispatcher, ctx = parent_step(
        "nest-orphan",
        "inner",
        42,
        {"template": json.dumps(CHILD), "parameters": {}},
        deadline_secs=None,
    )
    parent_id = ctx.stack_id
    plugin = HeatStackResource()
    child_id = plugin.create(ctx).physical_id
    dispatcher.drain(env, random.Random(2))
    assert len(sandbox_objects(str(child_id))) == 2
    other = replace(ctx, action="DELETE", idempotency_token=f"{parent_id}:43:DELETE")
    assert plugin.delete(other).done  # another version's delete: not its child
    deleting = replace(ctx, action="DELETE", idempotency_token=f"{parent_id}:42:DELETE")
    started = plugin.delete(deleting)
    assert started.physical_id == child_id and not started.done
    dispatcher.drain(env, random.Random(3))
    done = plugin.check_delete(replace(deleting, physical_id=child_id, now=time.time()))
    assert done.done
    assert sandbox_objects(str(child_id)) == []
