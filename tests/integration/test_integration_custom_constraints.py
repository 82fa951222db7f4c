"""custom_constraint on real workers: a constraint nobody provides is a warning with the
validate and create answers, and the stack is made; a built-in checker refuses a bad value
by the parameter's path; workers started with CONV_TASKS_STRICT_CONSTRAINTS=1 refuse the
template that names a constraint they cannot check."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput
from conv_tasks.testing import PrivateRedis, celery_app, wait_for_workers

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  flavor:
    type: string
    default: m1.small
    constraints:
      - custom_constraint: nova.flavor
  address:
    type: string
    default: 192.0.2.10
    constraints:
      - custom_constraint: ip_addr
  schedule:
    type: string
    default: "*/5 * * * *"
    constraints:
      - custom_constraint: cron_expression
resources:
  server:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: FLAVOR at ADDRESS
          params: {FLAVOR: {get_param: flavor}, ADDRESS: {get_param: address}}
outputs:
  server:
    value: {get_attr: [server, output]}
"""
WARNING = "parameters.flavor: the custom constraint 'nova.flavor' has no checker here"


def test_an_unprovided_constraint_warns_and_the_stack_is_made(client: Client) -> None:
    validated = client.validate(TEMPLATE)
    assert validated["valid"] is True, validated["errors"]
    assert [w for w in validated["warnings"] if w.startswith(WARNING)] == validated["warnings"]
    assert len(validated["warnings"]) == 1

    started = client.create("flavored", TEMPLATE, {"flavor": "m1.anything"})
    assert len(started["warnings"]) == 1 and started["warnings"][0].startswith(WARNING)
    assert client.wait(started["stack_id"])["status"] == "CREATE_COMPLETE"
    assert client.outputs(started["stack_id"])["server"]["value"] == "m1.anything at 192.0.2.10"


def test_a_value_a_checker_refuses_is_refused_by_its_path(client: Client) -> None:
    for parameters, path in (
        ({"address": "192.0.2.300"}, "parameters.address"),
        ({"schedule": "61 * * * *"}, "parameters.schedule"),
    ):
        with pytest.raises(InvalidInput) as caught:
            client.create(f"refused-{uuid.uuid4().hex[:6]}", TEMPLATE, parameters)
        assert [p.path for p in caught.value.problems] == [path]
        assert "does not pass the custom constraint" in str(caught.value)
    assert client.list() == []  # nothing was made
    answer = client.validate(TEMPLATE, {"address": "192.0.2.300"})
    assert [e["path"] for e in answer["errors"]] == ["parameters.address"]


@pytest.fixture
def strict_workers(database_url: str, tmp_path: Path) -> Iterator[Celery]:
    """One worker with CONV_TASKS_STRICT_CONSTRAINTS=1, on a private Redis (broker, results,
    SyncPoints): the session's workers take none of its tasks."""
    redis_server = PrivateRedis()
    redis_server.start()
    env = {
        "CONV_TASKS_DATABASE_URL": database_url,
        "CONV_TASKS_BROKER_URL": redis_server.url(0),
        "CONV_TASKS_REDIS_URL": redis_server.url(1),
        "CONV_TASKS_RESULT_BACKEND": redis_server.url(2),
        "CONV_TASKS_REDIS_PREFIX": f"strict-{uuid.uuid4().hex[:6]}",
        "CONV_TASKS_STRICT_CONSTRAINTS": "1",
    }
    processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
    app = celery_app(env)
    try:
        processes.start_worker("strict")
        wait_for_workers(app, {processes.hostname("strict")})
        yield app
    finally:
        processes.stop_all(timeout=10)
        app.pool.force_close_all()
        redis_server.stop()


def test_strict_workers_refuse_a_constraint_they_cannot_check(strict_workers: Any) -> None:
    client = Client(strict_workers, tenant=f"strict-{uuid.uuid4().hex[:8]}", timeout=30)
    validated = client.validate(TEMPLATE)
    assert validated["valid"] is False and validated["warnings"] == []
    path = "parameters.flavor.constraints.0.custom_constraint"
    assert [(e["path"], e["line"]) for e in validated["errors"]] == [(path, 7)]
    assert "CONV_TASKS_STRICT_CONSTRAINTS" in validated["errors"][0]["message"]
    with pytest.raises(InvalidInput) as caught:
        client.create("strict", TEMPLATE)
    assert [p.path for p in caught.value.problems] == [path]
    assert client.list() == []
    # What the checkers know still passes in strict mode.
    known = TEMPLATE.replace("custom_constraint: nova.flavor", "custom_constraint: dns_name")
    started = client.create("known", known)
    assert started["warnings"] == []
    assert client.wait(started["stack_id"])["status"] == "CREATE_COMPLETE"
