"""conv_tasks.template.validate through a real worker: errors with positions, nothing stored."""

from __future__ import annotations

from conv_tasks.client import Client
from conv_tasks.tasks.app import app

BROKEN = """heat_template_version: 2018-08-31
parameters:
  flavor: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: flavor}
  b:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [a, nosuch]}
"""


def test_validate_task_reports_errors_with_line_and_column(client: Client) -> None:
    result = client.validate(BROKEN)
    assert result["ok"] is True
    assert result["valid"] is False
    assert [(e["path"], e["line"], e["column"]) for e in result["errors"]] == [
        ("resources.b.properties.value.get_attr", 12, 15)
    ]
    assert client.list() == []


def test_validate_task_checks_values_given_and_accepts_a_valid_template(client: Client) -> None:
    fixed = BROKEN.replace("nosuch", "output")
    assert client.validate(fixed)["valid"] is True
    assert client.validate(fixed, {"flavor": "m1"})["order"] == ["a", "b"]
    (error,) = client.validate(fixed, {"other": 1})["errors"]
    assert error["path"] == "parameters.other"


def test_validate_task_refuses_a_payload_without_a_template(workers: object) -> None:
    result = app.send_task("conv_tasks.template.validate", kwargs={"tenant": "t"}).get(timeout=30)
    assert result["ok"] is False
    assert result["error"] == "invalid_payload"
