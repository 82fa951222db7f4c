"""Heat's pseudo-parameters on real workers: a stack's resources and outputs read its own
name, id and tenant; a nested stack reads its own; an update keeps them (nothing changes);
a request that gives one is refused and makes nothing."""

from __future__ import annotations

import pytest
from integration_support import template
from test_integration_nested import children_of

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput

WHO = {
    "list_join": [
        "/",
        [
            {"get_param": "OS::project_id"},
            {"get_param": "OS::stack_name"},
            {"get_param": "OS::stack_id"},
        ],
    ]
}

INNER = """heat_template_version: 2018-08-31
resources:
  who:
    type: OS::Heat::Value
    properties:
      value: {get_param: OS::stack_name}
outputs:
  name: {value: {get_attr: [who, value]}}
"""


def _top() -> dict[str, object]:
    return template(
        {
            "who": {"type": "OS::Heat::Value", "properties": {"value": WHO}},
            "inner": {"type": "inner.yaml"},
        },
        outputs={
            "who": {"value": {"get_attr": ["who", "value"]}},
            "inner": {"value": {"get_attr": ["inner", "name"]}},
        },
    )


def test_a_stack_reads_its_own_name_id_and_tenant(client: Client) -> None:
    files = {"inner.yaml": INNER}
    stack_id = client.create("named", _top(), files=files)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    outputs = client.outputs(stack_id)
    assert outputs["who"]["value"] == f"{client.tenant}/named/{stack_id}"
    [child] = children_of(stack_id)
    assert outputs["inner"]["value"] == child.name != "named"
    # Shown parameters are the request's own: the pseudo-parameters are Heat API's to add.
    assert not any(name.startswith("OS::") for name in client.get(stack_id)["parameters"])

    events_before = len(client.events(stack_id))
    client.update(stack_id, _top(), files=files)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    changed = [
        e
        for e in client.events(stack_id)[events_before:]
        if e["resource_name"] in ("who", "inner") and e["status"] == "UPDATE_IN_PROGRESS"
    ]
    assert changed == []  # the same stack: the same values, nothing to converge
    assert client.outputs(stack_id)["who"]["value"] == f"{client.tenant}/named/{stack_id}"


def test_a_request_that_gives_a_pseudo_parameter_is_refused(client: Client) -> None:
    with pytest.raises(InvalidInput) as info:
        client.create("forged", _top(), {"OS::stack_id": "x"}, files={"inner.yaml": INNER})
    assert "parameters.OS::stack_id" in str(info.value)
    assert client.list() == []
