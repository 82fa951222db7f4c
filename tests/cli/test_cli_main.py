"""The `conv-tasks` commands that need no engine: template validate and resource-type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from conv_tasks.cli.main import cli
from conv_tasks.errors import NotFound, NotSupported

ORDERED = """
heat_template_version: 2018-08-31
resources:
  frontend:
    type: OS::Heat::TestResource
    depends_on: [app]
  app:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [db, output]}
  db:
    type: OS::Heat::TestResource
"""

WITH_PARAMETER = """
heat_template_version: 2018-08-31
parameters:
  flavor: {type: string}
resources:
  box:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: flavor}
"""


def write(tmp_path: Path, text: str, name: str = "stack.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


# ------------------------------------------------------------------ template validate


def test_validate_prints_resources_in_dependency_order(tmp_path: Path) -> None:
    result = invoke("template", "validate", write(tmp_path, ORDERED))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Template is valid: 3 resource(s), in dependency order:"
    assert lines[1:] == [
        "  db  OS::Heat::TestResource",
        "  app  OS::Heat::TestResource  (after db)",
        "  frontend  OS::Heat::TestResource  (after app)",
    ]


def test_validate_json_gives_order_and_dependencies(tmp_path: Path) -> None:
    result = invoke("--json", "template", "validate", write(tmp_path, ORDERED))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["valid"] is True
    assert data["order"] == ["db", "app", "frontend"]
    assert data["dependencies"] == {"db": [], "app": ["db"], "frontend": ["app"]}
    assert data["warnings"] == []


def test_validate_independent_resources_come_before_their_dependents(tmp_path: Path) -> None:
    source = ORDERED + "  lonely:\n    type: OS::Heat::None\n"
    result = invoke("--json", "template", "validate", write(tmp_path, source))
    order = json.loads(result.stdout)["order"]
    assert sorted(order) == ["app", "db", "frontend", "lonely"]
    assert order.index("db") < order.index("app") < order.index("frontend")


def test_validate_unknown_type_exits_1_naming_the_path_line_and_column(tmp_path: Path) -> None:
    source = ORDERED.replace("  db:\n    type: OS::Heat::TestResource", "  db:\n    type: No::Such")
    path = write(tmp_path, source)
    result = invoke("template", "validate", path)
    assert result.exit_code == 1
    assert f"{path}:12:5: resources.db.type: unknown resource type 'No::Such'" in result.stderr
    assert "Template is valid" not in result.output


def test_validate_cycle_raises_naming_the_resources(tmp_path: Path) -> None:
    source = ORDERED.replace(
        "  db:\n    type: OS::Heat::TestResource",
        "  db:\n    type: OS::Heat::TestResource\n    depends_on: [frontend]",
    )
    result = invoke("--json", "template", "validate", write(tmp_path, source))
    assert result.exit_code == 1
    (error,) = json.loads(result.stdout)["errors"]
    assert "circular dependency" in error["message"]
    assert {"db", "app", "frontend"} <= set(error["message"].replace(" -> ", " ").split())
    assert error["line"] is not None


def test_validate_deprecated_type_warns_on_stderr(tmp_path: Path) -> None:
    source = ORDERED.replace(
        "  db:\n    type: OS::Heat::TestResource", "  db:\n    type: OS::Heat::TestResourceOld"
    )
    result = invoke("template", "validate", write(tmp_path, source))
    assert result.exit_code == 0, result.output
    assert "WARNING: resources.db: resource type OS::Heat::TestResourceOld is DEPRECATED" in (
        result.stderr
    )
    assert "WARNING" not in result.stdout


def test_validate_with_parameter_pair(tmp_path: Path) -> None:
    path = write(tmp_path, WITH_PARAMETER)
    result = invoke("template", "validate", path, "-P", "flavor=a=b")
    assert result.exit_code == 0, result.output
    assert "  box  OS::Heat::TestResource" in result.stdout


def test_validate_with_parameters_json(tmp_path: Path) -> None:
    path = write(tmp_path, WITH_PARAMETER)
    result = invoke("template", "validate", path, "--parameters-json", '{"flavor": "m1"}')
    assert result.exit_code == 0, result.output


def test_validate_needs_no_parameter_values(tmp_path: Path) -> None:
    result = invoke("template", "validate", write(tmp_path, WITH_PARAMETER))
    assert result.exit_code == 0, result.output


def test_validate_checks_a_value_given(tmp_path: Path) -> None:
    path = write(tmp_path, WITH_PARAMETER.replace("{type: string}", "{type: number}"))
    result = invoke("template", "validate", "--json", path, "-P", "flavor=big")
    assert result.exit_code == 1
    (error,) = json.loads(result.stdout)["errors"]
    assert (error["path"], error["line"], error["column"]) == ("parameters.flavor", 4, 3)


@pytest.mark.parametrize("pair", ["flavor", "=m1"])
def test_parameter_without_key_and_equals_is_a_usage_error(tmp_path: Path, pair: str) -> None:
    result = invoke("template", "validate", write(tmp_path, WITH_PARAMETER), "-P", pair)
    assert result.exit_code == 2
    assert f"-P takes KEY=VALUE, got {pair!r}" in result.output


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_bad_parameters_json_is_a_usage_error(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, WITH_PARAMETER)
    result = invoke("template", "validate", path, "--parameters-json", text)
    assert result.exit_code == 2
    assert "--parameters-json" in result.output


def test_unreadable_template_is_a_usage_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.yaml")
    result = invoke("template", "validate", missing)
    assert result.exit_code == 2
    assert "cannot read template" in result.output
    assert "missing.yaml" in result.output


# ------------------------------------------------------------------ resource-type


def test_resource_type_list_leaves_out_hidden_types() -> None:
    result = invoke("resource-type", "list")
    assert result.exit_code == 0, result.output
    names = [line.split()[0] for line in result.stdout.splitlines()[2:]]
    assert "OS::Heat::TestResource" in names
    assert "OS::Heat::TestResourceOld" in names
    assert "OS::Heat::Dummy" not in names
    assert names == sorted(names)


def test_resource_type_list_json() -> None:
    result = invoke("--json", "resource-type", "list")
    rows = json.loads(result.stdout)
    by_type = {row["type"]: row["status"] for row in rows}
    assert by_type["OS::Heat::TestResource"] == "SUPPORTED"
    assert by_type["OS::Heat::TestResourceOld"] == "DEPRECATED"
    assert "OS::Heat::Dummy" not in by_type


def test_resource_type_show_hidden_is_not_supported() -> None:
    result = invoke("resource-type", "show", "OS::Heat::Dummy")
    assert result.exit_code != 0
    assert isinstance(result.exception, NotSupported)
    assert "OS::Heat::Dummy" in str(result.exception)


def test_resource_type_show_unknown_is_not_found() -> None:
    result = invoke("resource-type", "show", "No::Such::Type")
    assert isinstance(result.exception, NotFound)


def test_resource_type_show_prints_its_properties_as_json() -> None:
    result = invoke("resource-type", "show", "OS::Heat::TestResource", "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["resource_type"] == "OS::Heat::TestResource"
    assert data["support_status"]["status"] == "SUPPORTED"
    assert {"value", "fail", "fail_on", "wait_secs", "update_replace"} <= set(data["properties"])
    assert {"output", "physical_id"} <= set(data["attributes"])


# ------------------------------------------------------------------ tenant


@pytest.mark.parametrize(
    ("env", "args", "expected"),
    [
        ({}, [], "default"),
        ({"CONV_TASKS_TENANT": "acme"}, [], "acme"),
        ({"CONV_TASKS_TENANT": ""}, [], "default"),
        ({"CONV_TASKS_TENANT": "acme"}, ["--tenant", "other"], "other"),
    ],
)
def test_tenant_comes_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], args: list[str], expected: str
) -> None:
    monkeypatch.delenv("CONV_TASKS_TENANT", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ctx = cli.make_context("conv-tasks", [*args, "resource-type", "list"])
    assert ctx.params["tenant"] == expected
