"""OS::Heat::SoftwareDeploymentGroup without a stack: its members, its child template, and
what a template's `servers` may hold."""

from __future__ import annotations

from conv_tasks.errors import Problem
from conv_tasks.resources import default_registry, template_problems
from conv_tasks.resources.builtin import SoftwareDeploymentGroup
from conv_tasks.resources.builtin.group import child_template, members_from_outputs
from conv_tasks.resources.builtin.group.deployment_members import (
    deployment_members,
    servers_problems,
)
from conv_tasks.template import load_template

PATH = "resources.deploy.properties.servers"


def test_each_server_key_is_a_member_deployment_with_the_shared_properties() -> None:
    members = deployment_members(
        {
            "servers": {"web": "srv-1", "db": "srv-2"},
            "config": "cfg-1",
            "input_values": {"port": 80},
            "actions": ["CREATE", "SUSPEND"],
            "name": None,
            "signal_transport": "CONV_TASKS_SIGNAL",
        }
    )
    shared = {
        "config": "cfg-1",
        "input_values": {"port": 80},
        "actions": ["CREATE", "SUSPEND"],
        "signal_transport": "CONV_TASKS_SIGNAL",
    }
    assert members == (
        (
            "web",
            {"type": "OS::Heat::SoftwareDeployment", "properties": {**shared, "server": "srv-1"}},
        ),
        (
            "db",
            {"type": "OS::Heat::SoftwareDeployment", "properties": {**shared, "server": "srv-2"}},
        ),
    )


def test_no_servers_no_members() -> None:
    assert deployment_members({"config": "cfg-1"}) == ()
    assert deployment_members({"servers": None}) == ()


def test_a_changed_config_changes_every_member_and_a_removed_key_only_drops_its_own() -> None:
    old = dict(deployment_members({"servers": {"a": "s1", "b": "s2"}, "config": "c1"}))
    new = dict(deployment_members({"servers": {"a": "s1", "b": "s2"}, "config": "c2"}))
    assert all(old[name] != new[name] for name in old)
    fewer = dict(deployment_members({"servers": {"a": "s1"}, "config": "c1"}))
    assert fewer == {"a": old["a"]}


def test_the_child_template_hands_on_the_members_standard_outputs() -> None:
    template = child_template(
        deployment_members({"servers": {"a": "s1"}}),
        ("deploy_stdout", "deploy_stderr", "deploy_status_code"),
    )
    assert set(template["resources"]) == {"a"}
    assert template["outputs"]["member_attribute.deploy_status_code"] == {
        "value": {"a": {"get_attr": ["a", "deploy_status_code"]}}
    }


def test_attributes_are_maps_keyed_by_the_server_keys() -> None:
    outputs = {
        "refs_map": {"a": "d1", "b": "d2"},
        "member_attribute.deploy_stdout": {"a": "hi", "b": "ho"},
        "member_attribute.deploy_stderr": {"a": "", "b": "oops"},
        "member_attribute.deploy_status_code": {"a": 0, "b": 3},
    }
    members = members_from_outputs(outputs)
    assert {name: m.attributes["deploy_status_code"] for name, m in members.items()} == {
        "a": 0,
        "b": 3,
    }


def test_servers_that_are_not_ids_are_refused_with_their_path() -> None:
    assert servers_problems({"a": "s1", "b": {"get_resource": "srv"}}, path=PATH) == []
    assert servers_problems({"a": 5, "b": "", "c.d": "s3"}, path=PATH) == [
        Problem(f"{PATH}.a", "must be a server id (a non-empty string), not 5"),
        Problem(f"{PATH}.b", "must be a server id (a non-empty string), not ''"),
        Problem(f"{PATH}.c.d", "a member name cannot contain '.' or '/'"),
    ]
    assert servers_problems({"get_param": "servers"}, path=PATH) == []


def _problems(properties: str) -> list[tuple[str, str]]:
    template = load_template(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  deploy:\n"
        "    type: OS::Heat::SoftwareDeploymentGroup\n"
        f"    properties: {properties}\n"
    )
    problems, _ = template_problems(template, default_registry())
    return [(p.path, p.message) for p in problems]


def test_a_template_with_a_good_group_has_no_problems() -> None:
    assert _problems("{servers: {a: s1, b: s2}, actions: [CREATE, SUSPEND]}") == []


def test_a_template_with_bad_servers_is_refused_with_the_path() -> None:
    problems = _problems("{servers: {a: [s1]}}")
    assert problems and all(path.startswith(PATH) for path, _ in problems)
    assert _problems("{servers: [s1, s2]}")[0][0] == PATH
    assert _problems("{servers: {a: s1}, actions: [REBOOT]}")[0][0].startswith(
        "resources.deploy.properties.actions"
    )


def test_the_old_name_is_a_hidden_alias() -> None:
    registry = default_registry()
    old = registry.get("OS::Heat::SoftwareDeployments")
    assert issubclass(old, SoftwareDeploymentGroup)
    assert old.support_status.status == "HIDDEN"
    template = load_template(
        "heat_template_version: 2018-08-31\n"
        "resources:\n  d:\n    type: OS::Heat::SoftwareDeployments\n"
        "    properties: {servers: {a: s1}}\n"
    )
    problems, warnings = template_problems(template, registry)
    assert problems == []
    assert warnings and "OS::Heat::SoftwareDeploymentGroup" in warnings[0]
