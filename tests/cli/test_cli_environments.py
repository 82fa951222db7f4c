"""`-e/--environment` and file collection: the real `conv-tasks` executable, real workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_process import run, tenant
from sealed_rows import SEALER
from sqlalchemy import select

from conv_tasks.db import TemplateRow
from conv_tasks.db.models import RawTemplate, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.db.templates import Templates

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  label: {type: string, default: from-template}
  length: {type: number}
resources:
  token:
    type: My::Token
    properties:
      length: {get_param: length}
  web:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: label}
  motd:
    type: OS::Heat::None
    properties:
      text: {get_file: scripts/motd.txt}
"""
BASE = """
parameter_defaults:
  length: 7
resource_registry:
  My::Token: OS::Heat::RandomString
"""
PROD = """
parameters:
  label: from-prod
"""


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, str]:
    return {
        "template": write(tmp_path / "stack" / "main.yaml", TEMPLATE),
        "motd": write(tmp_path / "stack" / "scripts" / "motd.txt", "Welcome\n"),
        "base": write(tmp_path / "envs" / "base.yaml", BASE),
        "prod": write(tmp_path / "envs" / "prod.yaml", PROD),
    }


def stored(tenant_name: str, stack: str) -> TemplateRow:
    with session_scope() as session:
        template_id = session.scalars(
            select(RawTemplate.id)
            .join(Stack, Stack.raw_template_id == RawTemplate.id)
            .where(Stack.tenant == tenant_name, Stack.name == stack)
        ).one()
        return Templates(session, SEALER).get(template_id)


def test_create_with_two_environments_sends_them_and_the_files(
    workers: Any, tree: dict[str, str]
) -> None:
    who = tenant()
    args = ["-t", tree["template"], "-e", tree["base"], "-e", tree["prod"]]
    done = run(who, "stack", "create", "web", *args, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = run(who, "--json", "stack", "resources", "web")
    assert listed.returncode == 0, listed.stderr
    types = {r["name"]: r["type"] for r in json.loads(listed.stdout)}
    assert types == {
        "token": "OS::Heat::RandomString",
        "web": "OS::Heat::TestResource",
        "motd": "OS::Heat::None",
    }
    row = stored(who, "web")
    assert row.files == {"scripts/motd.txt": "Welcome\n"}
    assert row.environment == {
        "parameters": {"label": "from-prod"},
        "parameter_defaults": {"length": 7},
        "resource_registry": {"My::Token": "OS::Heat::RandomString"},
    }
    shown = json.loads(run(who, "--json", "stack", "show", "web").stdout)
    assert shown["parameters"] == {"label": "from-prod", "length": 7}
    printed = run(who, "template", "show", "web", "--environment", "-f", "json")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == row.environment

    # Without the environments, an update would refuse the unknown alias; with --existing
    # the stack's own environment is kept and one more merged on top.
    late = write(Path(tree["prod"]).with_name("late.yaml"), "parameters: {label: late}\n")
    done = run(who, "stack", "update", "web", "--existing", "-e", late, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert stored(who, "web").environment["parameters"] == {"label": "late"}
    refused = run(who, "stack", "update", "web", "-t", tree["template"], "-P", "length=3")
    assert refused.returncode != 0
    assert "resources.token.type" in refused.stderr and "My::Token" in refused.stderr
    assert stored(who, "web").environment["parameters"] == {"label": "late"}  # unchanged


def test_validate_with_and_without_environments(tree: dict[str, str]) -> None:
    who = tenant()
    done = run(who, "template", "validate", tree["template"], "-e", tree["base"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OS::Heat::RandomString" in done.stdout
    bare = run(who, "template", "validate", tree["template"])
    assert bare.returncode == 1
    assert "resources.token.type" in bare.stderr


def test_a_missing_file_names_the_file_and_its_referrer(tree: dict[str, str]) -> None:
    Path(tree["motd"]).unlink()
    who = tenant()
    done = run(who, "stack", "create", "web", "-t", tree["template"], "-e", tree["base"])
    assert done.returncode != 0
    assert "scripts/motd.txt" in done.stderr and tree["template"] in done.stderr
    assert "Traceback" not in done.stderr


def test_an_environment_problem_names_the_environment_file(tree: dict[str, str]) -> None:
    bad = write(Path(tree["base"]).with_name("bad.yaml"), "paramters: {label: x}\n")
    who = tenant()
    done = run(who, "template", "validate", tree["template"], "-e", tree["base"], "-e", bad)
    assert done.returncode != 0
    assert f"{bad}.paramters" in done.stderr and "unknown section" in done.stderr
    url = write(
        Path(tree["base"]).with_name("url.yaml"), "resource_registry: {X::Y: http://h/x.yaml}\n"
    )
    done = run(who, "stack", "create", "web", "-t", tree["template"], "-e", url)
    assert done.returncode != 0
    assert "http://h/x.yaml" in done.stderr and "not supported" in done.stderr


GROUP_PARENT = """
heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: members/child.yaml
        properties: {label: "member-%index%"}
outputs:
  motds:
    value: {get_attr: [group, motd]}
"""
GROUP_CHILD = """
heat_template_version: 2018-08-31
parameters:
  label: {type: string}
resources:
  v:
    type: OS::Heat::Value
    properties:
      value:
        str_replace:
          template: {get_file: motd.txt}
          params: {NAME: {get_param: label}}
outputs:
  motd:
    value: {get_attr: [v, value]}
"""


def test_a_group_of_a_provider_template_with_get_file_converges_from_the_cli(
    workers: Any, tmp_path: Path
) -> None:
    parent = write(tmp_path / "parent.yaml", GROUP_PARENT)
    write(tmp_path / "members" / "child.yaml", GROUP_CHILD)
    write(tmp_path / "members" / "motd.txt", "hello NAME")
    who = tenant()
    validated = run(who, "template", "validate", parent)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    done = run(who, "stack", "create", "grouped", "-t", parent, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = json.loads(run(who, "--json", "stack", "outputs", "grouped").stdout)
    assert outputs["motds"]["value"] == ["hello member-0", "hello member-1"]
    assert stored(who, "grouped").files == {
        "members/child.yaml": GROUP_CHILD,
        "motd.txt": "hello NAME",
    }
