"""A caller checking its requests with the printed JSON Schemas: a real worker refuses an
invalid request at exactly the paths the schema names, and answers as the result schema says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from integration_support import template, test_resource
from jsonschema import Draft202012Validator

from conv_tasks.client import Client

CONV_TASKS = str(Path(sys.executable).with_name("conv-tasks"))
CREATE = "conv_tasks.stack.create"


def _printed(task: str) -> dict[str, Any]:
    done = subprocess.run(
        [CONV_TASKS, "api", "schema", task],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    contract: dict[str, Any] = json.loads(done.stdout)
    return contract


def _schema_paths(schema: dict[str, Any], payload: dict[str, Any]) -> set[str]:
    """The paths a caller in another language would compute from the schema alone."""
    paths: set[str] = set()
    for error in Draft202012Validator(schema).iter_errors(payload):
        if error.validator == "required":
            paths |= {name for name in schema["required"] if name not in payload}
        elif error.validator == "additionalProperties":
            paths |= set(payload) - set(schema["properties"])
        else:
            paths.add(str(error.absolute_path[0]))
    return paths


def test_a_worker_refuses_where_the_printed_schema_does(client: Client) -> None:
    contract = _printed(CREATE)
    kwargs, result = contract["kwargs"], Draft202012Validator(contract["result"])
    bad = {
        "tenant": client.tenant,
        "name": "has\ttab",
        "template": 5,
        "timeout_mins": 0,
        "disable_rollback": "no",
        "colour": "red",
    }
    expected = _schema_paths(kwargs, bad)
    assert expected == {"name", "template", "timeout_mins", "disable_rollback", "colour"}
    answer = client.app.send_task(CREATE, kwargs=bad).get(timeout=30)
    assert answer["ok"] is False and answer["error"] == "invalid_payload"
    assert {p["path"] for p in answer["problems"]} == expected
    assert not list(result.iter_errors(answer))

    good = {"tenant": client.tenant, "name": "fine", "template": template({"a": test_resource()})}
    assert not _schema_paths(kwargs, good)
    started = client.app.send_task(CREATE, kwargs=good).get(timeout=30)
    assert started["ok"] is True, started
    assert not list(result.iter_errors(started))
    assert client.wait(started["stack_id"])["status"] == "CREATE_COMPLETE"

    # The reads answer as their result schemas say, found or not.
    every = json.loads(
        subprocess.run([CONV_TASKS, "api", "schema"], capture_output=True, text=True).stdout
    )
    reads = ["show", "list", "resources", "events", "outputs", "update", "delete"]
    for read in reads:
        task = f"conv_tasks.stack.{read}"
        schema = Draft202012Validator(every[task]["result"])
        for stack in ("fine", "missing"):
            kwargs: dict[str, Any] = {"tenant": client.tenant}
            if read != "list":
                kwargs["stack"] = stack
            answer = client.app.send_task(task, kwargs=kwargs).get(timeout=30)
            assert answer["ok"] is (stack == "fine" or read == "list"), (task, answer)
            assert not list(schema.iter_errors(answer)), (task, answer)


def test_api_schema_prints_every_task_and_refuses_an_unknown_one() -> None:
    done = subprocess.run(
        [CONV_TASKS, "api", "schema"], capture_output=True, text=True, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
    every = json.loads(done.stdout)
    assert CREATE in every and "conv_tasks.deployment.signal" in every
    assert all(set(c) == {"task", "kwargs", "result"} for c in every.values())
    unknown = subprocess.run(
        [CONV_TASKS, "api", "schema", "conv_tasks.stack.nope"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert "is not a public task" in unknown.stderr and len(unknown.stderr.splitlines()) == 1
