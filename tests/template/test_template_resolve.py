"""resolve_resource, resolve_outputs and the definition hash."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from conv_tasks.errors import TemplateError
from conv_tasks.template import (
    ResourceData,
    Template,
    load_template,
    resolve_outputs,
    resolve_resource,
    validate_parameters,
)

SOURCE = """
heat_template_version: 2018-08-31
parameters:
  flavor: {type: string, default: small}
  nets: {type: json, default: {private: [{cidr: 10.0.0.0/24}]}}
  names: {type: comma_delimited_list, default: "a, b"}
  count: {type: number, default: 2}
  pw: {type: string, hidden: true, default: hunter22}
resources:
  net:
    type: Net
  web:
    type: Server
    depends_on: net
    deletion_policy: Retain
    properties:
      flavor: {get_param: flavor}
      cidr: {get_param: [nets, private, 0, cidr]}
      second_name: {get_param: [names, 1]}
      network: {get_resource: net}
      gateway: {get_attr: [net, subnets, 0, gateway]}
      all_subnets: {get_attr: [net, subnets]}
      missing: null
      name:
        str_replace:
          template: "$prefix-$prefixed-$count-$map"
          params:
            $prefix: web
            $prefixed: {get_attr: [net, name]}
            $count: {get_param: count}
            $map: {a: 1}
      joined: {list_join: [", ", {get_param: names}, [x, 1, true, null]]}
      nested:
        - key: {get_param: pw}
    metadata:
      ref: {get_resource: net}
outputs:
  gw:
    value: {get_attr: [web, gw]}
    description: The gateway
  flavor:
    value: {get_param: flavor}
  broken:
    value: {get_attr: [net, nothing]}
    description: Fails
"""

NET = ResourceData(
    ref="net-123",
    attributes={"subnets": [{"gateway": "10.0.0.1"}], "name": "private"},
)


@pytest.fixture
def template() -> Template:
    return load_template(SOURCE)


@pytest.fixture
def parameters(template: Template) -> dict[str, Any]:
    return validate_parameters(template, {})


def test_resolve_resource_evaluates_every_function(
    template: Template, parameters: dict[str, Any]
) -> None:
    resolved = resolve_resource(template, "web", parameters, {"net": NET})
    assert resolved.name == "web"
    assert resolved.type == "Server"
    assert resolved.deletion_policy == "Retain"
    assert resolved.properties == {
        "flavor": "small",
        "cidr": "10.0.0.0/24",
        "second_name": "b",
        "network": "net-123",
        "gateway": "10.0.0.1",
        "all_subnets": [{"gateway": "10.0.0.1"}],
        "missing": None,
        "name": 'web-private-2-{"a": 1}',
        "joined": "a, b, x, 1, true, ",
        "nested": [{"key": "hunter22"}],
    }
    assert resolved.metadata == {"ref": "net-123"}


def test_definition_hash_is_canonical_json_sha256(
    template: Template, parameters: dict[str, Any]
) -> None:
    resolved = resolve_resource(template, "web", parameters, {"net": NET})
    canonical = json.dumps(
        {"type": "Server", "properties": resolved.properties, "metadata": resolved.metadata},
        sort_keys=True,
        separators=(",", ":"),
    )
    assert resolved.definition_hash == hashlib.sha256(canonical.encode()).hexdigest()


def test_definition_hash_ignores_key_order_and_deletion_policy() -> None:
    first = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "T", "properties": {"a": 1, "b": {"x": 1, "y": 2}}}},
        }
    )
    second = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "r": {
                    "type": "T",
                    "deletion_policy": "Retain",
                    "properties": {"b": {"y": 2, "x": 1}, "a": 1},
                }
            },
        }
    )
    h1 = resolve_resource(first, "r", {}, {}).definition_hash
    h2 = resolve_resource(second, "r", {}, {}).definition_hash
    assert h1 == h2


def test_definition_hash_changes_with_properties_type_and_metadata() -> None:
    def hash_of(resource: dict[str, Any]) -> str:
        template = load_template(
            {"heat_template_version": "2018-08-31", "resources": {"r": resource}}
        )
        return resolve_resource(template, "r", {}, {}).definition_hash

    base = hash_of({"type": "T", "properties": {"a": 1}})
    assert hash_of({"type": "T", "properties": {"a": 2}}) != base
    assert hash_of({"type": "U", "properties": {"a": 1}}) != base
    assert hash_of({"type": "T", "properties": {"a": 1}, "metadata": {"m": 1}}) != base


def test_hash_changes_when_input_changes(template: Template, parameters: dict[str, Any]) -> None:
    one = resolve_resource(template, "web", parameters, {"net": NET})
    other = ResourceData(ref="net-456", attributes=NET.attributes)
    two = resolve_resource(template, "web", parameters, {"net": other})
    assert one.definition_hash != two.definition_hash


def test_result_does_not_share_parameter_values(
    template: Template, parameters: dict[str, Any]
) -> None:
    resolved = resolve_resource(template, "web", parameters, {"net": NET})
    resolved.properties["all_subnets"][0]["gateway"] = "changed"
    assert NET.attributes["subnets"][0]["gateway"] == "10.0.0.1"


def test_missing_attribute_names_path(template: Template, parameters: dict[str, Any]) -> None:
    net = ResourceData(ref="n", attributes={"name": "x"})
    with pytest.raises(TemplateError) as info:
        resolve_resource(template, "web", parameters, {"net": net})
    assert [str(p) for p in info.value.problems] == [
        "resources.web.properties.gateway.get_attr: resource 'net' has no attribute 'subnets'",
        "resources.web.properties.all_subnets.get_attr: resource 'net' has no attribute 'subnets'",
    ]


def test_missing_input_names_path(template: Template, parameters: dict[str, Any]) -> None:
    with pytest.raises(TemplateError) as info:
        resolve_resource(template, "web", parameters, {})
    first = str(info.value.problems[0])
    assert first == (
        "resources.web.properties.network.get_resource: resource 'net' has no data yet "
        "(it is not complete)"
    )
    # The str_replace fails only because its argument did; only the inner failure is reported.
    paths = [p.path for p in info.value.problems]
    assert "resources.web.properties.name.str_replace" not in paths
    assert "resources.web.properties.name.str_replace.params.$prefixed.get_attr" in paths


@pytest.mark.parametrize(
    "attributes",
    [{"subnets": []}, {"subnets": [{}]}, {"subnets": "text"}, {"subnets": 3}],
)
def test_an_attribute_path_that_leads_nowhere_is_none_as_in_heat(
    attributes: dict[str, Any],
) -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "net": {"type": "T"},
                "web": {
                    "type": "T",
                    "properties": {"g": {"get_attr": ["net", "subnets", 0, "gateway"]}},
                },
            },
        }
    )
    resolved = resolve_resource(template, "web", {}, {"net": ResourceData("n", attributes)})
    assert resolved.properties == {"g": None}


def test_none_along_a_path_reads_as_none() -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "net": {"type": "T"},
                "web": {"type": "T", "properties": {"g": {"get_attr": ["net", "a", "b", 3]}}},
            },
        }
    )
    resolved = resolve_resource(template, "web", {}, {"net": ResourceData(None, {"a": None})})
    assert resolved.properties == {"g": None}


def test_path_items_may_be_functions_and_strings_index_lists() -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "parameters": {
                "which": {"type": "string", "default": "1"},
                "data": {"type": "json", "default": {"l": ["a", "b"]}},
            },
            "resources": {
                "web": {
                    "type": "T",
                    "properties": {"v": {"get_param": ["data", "l", {"get_param": "which"}]}},
                }
            },
        }
    )
    values = validate_parameters(template, {})
    assert resolve_resource(template, "web", values, {}).properties == {"v": "b"}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (["b"], ""),
        (["a", 0], ""),
        (["l", 5], ""),
        (["l", "1"], "y"),
        (["l", -1], "y"),
        (["s", 0], "t"),  # a string is a sequence, as in Heat
    ],
)
def test_a_parameter_path_that_leads_nowhere_is_empty_as_in_heat(
    path: list[Any], expected: Any
) -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "parameters": {
                "data": {"type": "json", "default": {"a": 1, "l": ["x", "y"], "s": "text"}}
            },
            "resources": {
                "web": {"type": "T", "properties": {"v": {"get_param": ["data", *path]}}}
            },
        }
    )
    resolved = resolve_resource(template, "web", validate_parameters(template, {}), {})
    assert resolved.properties == {"v": expected}


def test_str_replace_replaces_longest_key_once() -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "web": {
                    "type": "T",
                    "properties": {
                        "v": {
                            "str_replace": {
                                "template": "$a $ab $a",
                                "params": {"$a": "$ab", "$ab": "X"},
                            }
                        }
                    },
                }
            },
        }
    )
    assert resolve_resource(template, "web", {}, {}).properties == {"v": "$ab X $ab"}


def test_list_join_rejects_non_list_argument_at_runtime() -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "parameters": {"s": {"type": "string", "default": "x"}},
            "resources": {
                "web": {"type": "T", "properties": {"v": {"list_join": [",", {"get_param": "s"}]}}}
            },
        }
    )
    with pytest.raises(TemplateError) as info:
        resolve_resource(template, "web", validate_parameters(template, {}), {})
    assert str(info.value.problems[0]) == (
        "resources.web.properties.v.list_join: argument 1 must be a list"
    )


def test_unknown_resource_name(template: Template) -> None:
    with pytest.raises(TemplateError, match="resource 'nope' is not in the template"):
        resolve_resource(template, "nope", {}, {})


def test_resolve_outputs(template: Template, parameters: dict[str, Any]) -> None:
    web = ResourceData("web-1", {"gw": "10.0.0.1"})
    assert resolve_outputs(template, parameters, {"net": NET, "web": web}) == {
        "gw": {"value": "10.0.0.1", "description": "The gateway"},
        "flavor": {"value": "small", "description": ""},
        "broken": {
            "value": None,
            "description": "Fails",
            "error": "outputs.broken.value.get_attr: resource 'net' has no attribute 'nothing'",
        },
    }


def test_resolve_outputs_never_raises_for_missing_inputs(
    template: Template, parameters: dict[str, Any]
) -> None:
    outputs = resolve_outputs(template, parameters, {})
    assert outputs["gw"]["value"] is None
    assert "resource 'web' has no data yet" in outputs["gw"]["error"]
    assert outputs["flavor"] == {"value": "small", "description": ""}


def test_unwritable_input_data_is_a_template_error() -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "net": {"type": "T"},
                "web": {"type": "T", "properties": {"v": {"get_attr": ["net", "mixed"]}}},
            },
        }
    )
    data = ResourceData("n", {"mixed": {1: "a", "b": 2}})
    with pytest.raises(TemplateError, match=r"resources\.web: the resolved definition cannot be"):
        resolve_resource(template, "web", {}, {"net": data})
