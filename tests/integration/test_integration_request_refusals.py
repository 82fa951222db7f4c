"""Errors Heat refuses when a stack is created, refused at the request through real
workers: validate names the path and the line, create, preview and update refuse with
the same path, and nothing is stored (issue 25, item 6)."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput
from tests.refused_templates import (
    DEEP,
    ENVIRONMENT,
    FACADE,
    FILES,
    GROUP,
    STRICT,
    VALUE,
)

MAP_REPLACE = """heat_template_version: 2018-08-31
resources:
  x:
    type: OS::Heat::Value
    properties:
      value:
        map_replace:
          - {a: 1, b: 2}
          - keys: {a: b}
"""

OK = """heat_template_version: 2018-08-31
resources:
  x:
    type: OS::Heat::Value
    properties: {value: fine}
"""

# (template, with the group's environment and files, path, line)
CASES: list[tuple[str, bool, str, int]] = [
    (STRICT, False, "resources.x.properties.value.str_replace_strict.params.$missing", 10),
    (MAP_REPLACE, False, "resources.x.properties.value.map_replace", 7),
    (VALUE, False, "resources.x.properties.value", 7),
    (FACADE, False, "resources.x.properties.value.resource_facade", 6),
    (DEEP, False, "resources.outer.properties.template", 6),
    (GROUP, True, "resources.g.properties.resource_def.type", 8),
]
IDS = ["str_replace_strict", "map_replace", "value_type", "facade", "nested_limit", "group"]


def _inputs(with_group: bool) -> dict[str, Any]:
    return {"environment": [ENVIRONMENT], "files": FILES} if with_group else {}


@pytest.mark.parametrize(("source", "with_group", "path", "line"), CASES, ids=IDS)
def test_each_error_is_refused_at_the_request(
    client: Client, source: str, with_group: bool, path: str, line: int
) -> None:
    result = client.validate(source, **_inputs(with_group))
    assert [(e["path"], e["line"]) for e in result["errors"]] == [(path, line)]

    with pytest.raises(InvalidInput) as refused:
        client.create("refused", source, **_inputs(with_group))
    assert refused.value.code == "invalid_template"
    assert [p.path for p in refused.value.problems] == [path]
    with pytest.raises(InvalidInput) as previewed:
        client.preview("refused", source, **_inputs(with_group))
    assert [p.path for p in previewed.value.problems] == [path]
    assert client.list() == []


def test_an_update_to_such_a_template_is_refused_and_changes_nothing(client: Client) -> None:
    stack_id = client.create("kept", OK)["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    events = client.events(stack_id)
    with pytest.raises(InvalidInput) as refused:
        client.update(stack_id, DEEP)
    assert [p.path for p in refused.value.problems] == ["resources.outer.properties.template"]
    assert "wait_secs: must be between 0 and 3600" in str(refused.value)
    assert client.events(stack_id) == events
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"


def test_a_group_of_zero_members_with_a_broken_member_template_is_created(
    client: Client,
) -> None:
    zero = GROUP.replace("count: 2", "count: 0")
    stack_id = client.create("zero", zero, **_inputs(True))["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
