"""`conv-tasks resource-type show`: for people by default, whole as JSON or YAML, and a HOT
template that uses the type (`--template-type hot`, as Heat's). The real executable; the
command needs no engine (it reads the types installed where it runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_process import run, tenant
from click.testing import CliRunner

from conv_tasks.cli.main import cli
from conv_tasks.resources import default_registry


def shown(*args: str) -> str:
    done = run(tenant(), "resource-type", "show", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return str(done.stdout)


def test_the_default_is_for_people() -> None:
    text = shown("OS::Heat::TestResource")
    lines = text.splitlines()
    assert lines[0] == "OS::Heat::TestResource  SUPPORTED since 5.0.0"
    assert len(lines) < 60  # 375 lines of JSON before
    assert "Properties (12):" in lines and "Attributes (2):" in lines
    assert '  value: string, default "", updated in place' in lines
    assert "  update_replace_value: string, a change replaces the resource" in lines
    assert "  wait_secs: number, default 0, updated in place, value 0 to 3600" in lines
    assert "      The value kept on the sandbox object." in lines
    assert not text.lstrip().startswith("{")


def test_a_deprecated_type_says_so_and_what_replaces_it() -> None:
    first = shown("OS::Heat::TestResourceOld").splitlines()[0]
    assert first == (
        "OS::Heat::TestResourceOld  DEPRECATED since 5.0.0: Use OS::Heat::TestResource instead."
    )


def test_json_and_yaml_are_the_whole_description() -> None:
    whole = default_registry().show("OS::Heat::TestResource")
    assert json.loads(shown("OS::Heat::TestResource", "-f", "json")) == whole
    assert yaml.safe_load(shown("OS::Heat::TestResource", "-f", "yaml")) == whole
    done = run(tenant(), "--json", "resource-type", "show", "OS::Heat::TestResource")
    assert json.loads(done.stdout) == whole


def test_a_template_of_the_type_as_heat_makes_it() -> None:
    template = yaml.safe_load(shown("OS::Heat::RandomString", "--template-type", "hot"))
    assert template["heat_template_version"] == "2016-10-14"
    assert template["description"] == "Initial template of RandomString"
    assert template["parameters"]["length"] == {
        "type": "number",
        "description": "How many characters.",
        "default": 32,
        "constraints": [{"range": {"min": 1, "max": 512}}],
    }
    assert template["resources"] == {
        "RandomString": {
            "type": "OS::Heat::RandomString",
            "properties": {name: {"get_param": name} for name in template["parameters"]},
        }
    }
    assert template["outputs"] == {
        "value": {
            "description": "The random string.",
            "value": {"get_attr": ["RandomString", "value"]},
        }
    }
    as_json = json.loads(shown("OS::Heat::RandomString", "--template-type", "HOT", "-f", "json"))
    assert as_json == template


@pytest.mark.parametrize("type_name", [cls.type_name for cls in default_registry().list()])
def test_every_types_template_validates(type_name: str, tmp_path: Path) -> None:
    # The same commands in this process (click's runner): a child process for each of the
    # sixteen types would only measure Python's start-up sixteen times more.
    runner = CliRunner(env={"CONV_TASKS_TENANT": tenant()})
    skeleton = runner.invoke(cli, ["resource-type", "show", type_name, "--template-type", "hot"])
    assert skeleton.exit_code == 0, skeleton.output
    path = tmp_path / "skeleton.yaml"
    path.write_text(skeleton.stdout)
    done = runner.invoke(cli, ["template", "validate", str(path)])
    assert done.exit_code == 0, done.output


def test_only_hot_templates_are_made() -> None:
    done = run(tenant(), "resource-type", "show", "OS::Heat::None", "--template-type", "cfn")
    assert done.returncode == 2
    assert "'cfn' is not 'hot'" in done.stderr
