"""The `openstack` CLI (python-openstackclient with python-heatclient, from the registry)
drives a stack through its life against the HTTP edge and the session's workers, as a user of
Heat would: an environment file and `get_file`, every read, an in-place update, a dry run,
a check, a suspend and resume, a cancelled update, a delete; then template validation and the
type list."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from openstack_command import OpenStack

TEMPLATE = """\
heat_template_version: 2018-08-31
description: A stack the openstack command makes through the edge.
parameters:
  greeting:
    type: string
    description: What the thing keeps.
  update_wait:
    type: number
    default: 0
resources:
  thing:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: greeting}
      action_wait_secs: {update: {get_param: update_wait}}
  note:
    type: OS::Heat::Value
    properties:
      value: {get_file: files/note.txt}
outputs:
  greeting:
    description: The thing's value.
    value: {get_attr: [thing, output]}
  note:
    value: {get_attr: [note, value]}
"""

ENVIRONMENT = """\
parameters:
  greeting: hello
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def outputs(openstack: OpenStack, stack: str) -> dict[str, Any]:
    shown = openstack.json("stack", "output", "show", stack, "--all")
    return {key: value["output_value"] for key, value in shown.items()}


def status(openstack: OpenStack, stack: str) -> str:
    return str(openstack.json("stack", "show", stack)["stack_status"])


def wait_for(openstack: OpenStack, stack: str, wanted: str, timeout: float = 90) -> str:
    """Poll `stack show` until the stack's status is final; that status."""
    deadline = time.monotonic() + timeout
    while True:
        now = status(openstack, stack)
        if not now.endswith("_IN_PROGRESS") or time.monotonic() > deadline:
            assert now == wanted, f"stack {stack} is {now}, not {wanted}"
            return now
        time.sleep(0.5)


def test_a_stacks_life_through_the_openstack_command(openstack: OpenStack) -> None:
    folder = openstack.cwd
    write(folder, "files/note.txt", "from a file beside the template\n")
    template = write(folder, "stack.yaml", TEMPLATE)
    environment = write(folder, "env.yaml", ENVIRONMENT)
    name = f"osc-{uuid.uuid4().hex[:6]}"

    # create --wait, with an environment file and get_file (heatclient sends the file's text,
    # keyed by the file:// URL it rewrote the path to)
    created = openstack.json(
        "stack", "create", "-t", str(template), "-e", str(environment), "--wait", name
    )
    assert created["stack_status"] == "CREATE_COMPLETE", created
    stack_id = created["id"]

    shown = openstack.json("stack", "show", name)
    assert (shown["id"], shown["stack_name"]) == (stack_id, name)
    assert shown["stack_status"] == "CREATE_COMPLETE"
    assert shown["parameters"]["greeting"] == "hello"

    listed = openstack.json("stack", "list")
    assert [(s["ID"], s["Stack Name"], s["Stack Status"]) for s in listed] == [
        (stack_id, name, "CREATE_COMPLETE")
    ]

    events = openstack.json("stack", "event", "list", name)
    done = {(e["resource_name"], e["resource_status"]) for e in events}
    assert {("thing", "CREATE_COMPLETE"), ("note", "CREATE_COMPLETE")} <= done
    assert (name, "CREATE_COMPLETE") in done  # the stack's own event, which --wait waited for

    resources = openstack.json("stack", "resource", "list", name)
    assert sorted(
        (r["resource_name"], r["resource_type"], r["resource_status"]) for r in resources
    ) == [
        ("note", "OS::Heat::Value", "CREATE_COMPLETE"),
        ("thing", "OS::Heat::TestResource", "CREATE_COMPLETE"),
    ]
    thing = openstack.json("stack", "resource", "show", name, "thing")
    assert thing["resource_name"] == "thing" and thing["physical_resource_id"]

    assert outputs(openstack, name) == {
        "greeting": "hello",
        "note": "from a file beside the template\n",
    }

    # update --existing --wait: the template and the environment stay, one parameter changes
    openstack.ok("stack", "update", "--existing", "--parameter", "greeting=bonjour", "--wait", name)
    assert status(openstack, name) == "UPDATE_COMPLETE"
    assert outputs(openstack, name)["greeting"] == "bonjour"
    after_update = openstack.json("stack", "resource", "show", name, "thing")
    assert after_update["physical_resource_id"] == thing["physical_resource_id"]  # in place

    # update --dry-run: what would change, nothing changed
    changed = TEMPLATE.replace("from a file beside", "from another file beside")
    write(folder, "files/note.txt", "a changed note\n")
    dry = openstack.json(
        "stack", "update", "--dry-run", "-t", str(write(folder, "changed.yaml", changed)),
        "-e", str(environment), "--parameter", "greeting=bonjour", name,
    )  # fmt: skip
    changes = {key: sorted(r["resource_name"] for r in value) for key, value in dry.items()}
    assert changes["updated"] == ["note"], dry
    assert "thing" in changes["unchanged"], dry
    assert status(openstack, name) == "UPDATE_COMPLETE"
    assert outputs(openstack, name)["note"] == "from a file beside the template\n"

    # check
    openstack.ok("stack", "check", "--wait", name)
    assert status(openstack, name) == "CHECK_COMPLETE"

    # suspend and resume
    openstack.ok("stack", "suspend", "--wait", name)
    assert status(openstack, name) == "SUSPEND_COMPLETE"
    refused = openstack.run("stack", "suspend", name)
    assert refused.returncode != 0 and "suspended already" in refused.stdout + refused.stderr
    openstack.ok("stack", "resume", "--wait", name)
    assert status(openstack, name) == "RESUME_COMPLETE"

    # cancel an update under way: it rolls back
    openstack.ok("stack", "update", "--existing", "--parameter", "greeting=hola",
                 "--parameter", "update_wait=60", name)  # fmt: skip
    deadline = time.monotonic() + 30
    while status(openstack, name) != "UPDATE_IN_PROGRESS" and time.monotonic() < deadline:
        time.sleep(0.2)
    openstack.ok("stack", "cancel", name)
    wait_for(openstack, name, "ROLLBACK_COMPLETE")
    assert outputs(openstack, name)["greeting"] == "bonjour"

    # delete --yes --wait
    openstack.ok("stack", "delete", "--yes", "--wait", name)
    assert openstack.json("stack", "list") == []
    gone = openstack.run("stack", "show", name)
    assert gone.returncode != 0 and "not found" in (gone.stdout + gone.stderr).lower()


def test_template_validate_and_the_resource_types(openstack: OpenStack) -> None:
    folder = openstack.cwd
    write(folder, "files/note.txt", "a note\n")
    template = write(folder, "stack.yaml", TEMPLATE)
    environment = write(folder, "env.yaml", ENVIRONMENT)

    valid = openstack.json(
        "orchestration", "template", "validate", "-t", str(template), "-e", str(environment)
    )
    assert valid["Description"] == "A stack the openstack command makes through the edge."
    assert valid["Parameters"]["greeting"]["Type"] == "String"
    assert valid["Parameters"]["greeting"]["Description"] == "What the thing keeps."

    broken = write(folder, "broken.yaml", TEMPLATE.replace("OS::Heat::Value", "OS::Heat::Nope"))
    refused = openstack.run("orchestration", "template", "validate", "-t", str(broken))
    assert refused.returncode != 0
    assert "OS::Heat::Nope" in refused.stdout + refused.stderr

    types = {
        t["Resource Type"] for t in openstack.json("orchestration", "resource", "type", "list")
    }
    assert {"OS::Heat::TestResource", "ConvTasks::HTTP::Resource", "OS::Heat::Stack"} <= types


GROUP_PARENT = """\
heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: members/child.yaml
        properties: {label: "member-%index%"}
  extra:
    type: My::Extra
outputs:
  motds:
    value: {get_attr: [group, motd]}
  extra:
    value: {get_attr: [extra, motd]}
"""
GROUP_CHILD = """\
heat_template_version: 2018-08-31
parameters:
  label: {type: string, default: extra}
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


def test_a_group_of_provider_templates_by_heatclients_file_urls(openstack: OpenStack) -> None:
    # heatclient rewrites every template file it sends (a group's member type, a
    # resource_registry value, a get_file inside them) to an absolute file:/// URL and keys
    # the files by it: the stack converges with those names as it does with relative ones.
    folder = openstack.cwd / "grouped"
    write(folder, "members/child.yaml", GROUP_CHILD)
    write(folder, "members/motd.txt", "hello NAME")
    write(folder, "envs/providers/child.yaml", GROUP_CHILD.replace("motd.txt", "extra.txt"))
    write(folder, "envs/providers/extra.txt", "extra NAME")
    environment = write(
        folder, "envs/env.yaml", "resource_registry:\n  My::Extra: providers/child.yaml\n"
    )
    template = write(folder, "parent.yaml", GROUP_PARENT)
    name = f"osc-{uuid.uuid4().hex[:6]}"

    valid = openstack.run(
        "orchestration", "template", "validate", "-t", str(template), "-e", str(environment)
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    created = openstack.json(
        "stack", "create", "-t", str(template), "-e", str(environment), "--wait", name
    )
    assert created["stack_status"] == "CREATE_COMPLETE", created
    assert outputs(openstack, name) == {
        "motds": ["hello member-0", "hello member-1"],
        "extra": "extra extra",
    }
    openstack.ok("stack", "delete", "--yes", "--wait", name)
