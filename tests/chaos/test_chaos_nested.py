"""A worker killed while parents create their nested stacks: every nested resource still
ends with exactly one child, and every child's resources are created once (issue 10)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from sqlalchemy import select

from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject, Stack
from conv_tasks.db.session import session_scope


def _tr(value: str, **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


def _child(name: str) -> str:
    resources = {
        "first": _tr(f"{name}-1", wait_secs=0.6),
        "second": {**_tr(f"{name}-2", wait_secs=0.6), "depends_on": ["first"]},
    }
    return json.dumps({"heat_template_version": "2018-08-31", "resources": resources})


def test_worker_killed_mid_nested_create_makes_one_child_each(workers: Any) -> None:
    client = Client(tenant=f"chaos-nest-{uuid.uuid4().hex[:6]}", timeout=30)
    names = [f"n{i}" for i in range(4)]
    parent = {
        "heat_template_version": "2018-08-31",
        "resources": {
            name: {"type": "OS::Heat::Stack", "properties": {"template": _child(name)}}
            for name in names
        },
    }
    stack_id = client.create("nest-kill", parent)["stack_id"]
    time.sleep(1.0)
    workers.kill("w1")  # SIGKILL the worker and its pool children
    workers.start_worker("w3")
    try:
        final = client.wait(stack_id, timeout=150)
        assert final["status"] == "CREATE_COMPLETE", final
    finally:
        workers.start_worker("w1")
    with session_scope() as session:
        children = list(session.scalars(select(Stack).where(Stack.parent_stack_id == stack_id)))
        assert sorted(c.parent_resource or "" for c in children) == names
        assert all(f"{c.action}_{c.status}" == "CREATE_COMPLETE" for c in children)
        for child in children:
            objects = list(
                session.scalars(
                    select(SandboxObject).where(SandboxObject.token.like(f"{child.id}:%"))
                )
            )
            assert len(objects) == 2 and all(o.create_calls == 1 for o in objects)
