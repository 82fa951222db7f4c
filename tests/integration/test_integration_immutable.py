"""Immutable parameters on real workers: an update changing one is refused and changes
nothing; the same value, or another parameter, updates."""

from __future__ import annotations

import pytest

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput

TEMPLATE = """
heat_template_version: 2014-10-16
parameters:
  site: {type: string, immutable: true}
  size: {type: number, default: 1}
resources:
  holder:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: SITE-SIZE
          params: {SITE: {get_param: site}, SIZE: {get_param: size}}
outputs:
  held: {value: {get_attr: [holder, output]}}
"""


def test_an_immutable_parameter_holds_its_value(client: Client) -> None:
    stack_id = client.create("fixed", TEMPLATE, {"site": "north"})["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    template_id = client.get(stack_id)["template_id"]

    with pytest.raises(InvalidInput) as info:
        client.update(stack_id, TEMPLATE, {"site": "south"})
    assert "parameters.site" in str(info.value) and "immutable" in str(info.value)
    after = client.get(stack_id)
    assert (after["status"], after["template_id"]) == ("CREATE_COMPLETE", template_id)

    client.update(stack_id, TEMPLATE, {"site": "north", "size": 2})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert client.outputs(stack_id)["held"]["value"] == "north-2"
