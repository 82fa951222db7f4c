"""Heat's resource.NAME and resource.NAME.ATTR on a provider template's resource: the names,
the outputs the child carries for them, and get_attr reading them (issue 25, item 3)."""

from __future__ import annotations

from typing import Any

from conv_tasks.template import ResourceData, load_template, resolve_outputs
from conv_tasks.template.nested_attributes import (
    nested_attribute,
    nested_key,
    nested_outputs,
    nested_problem,
)


def test_the_names_split_as_heat_splits_them() -> None:
    assert nested_key("resource.a") == ("a", None)
    assert nested_key("resource.a.output") == ("a", "output")
    # Everything after the second dot is the attribute: a deeper provider's resource.x.
    assert nested_key("resource.inner.resource.x") == ("inner", "resource.x")
    assert nested_key("output") is None and nested_key("resources.a") is None


def test_an_attribute_after_resource_name_in_the_path_is_read_from_its_own_name() -> None:
    assert nested_attribute("resource.a", ["output", 0]) == ("resource.a.output", (0,))
    assert nested_attribute("resource.a", []) == ("resource.a", ())
    assert nested_attribute("resource.a.output", ["k"]) == ("resource.a.output", ("k",))
    assert nested_attribute("output", ["k"]) == ("output", ("k",))
    # A function in its place (not yet evaluated) leaves the reference as written.
    assert nested_attribute("resource.a", [{"get_param": "p"}])[0] == "resource.a"


def test_the_child_carries_an_output_for_each_name_read() -> None:
    references = [
        ("resource.a", ()),
        ("resource.a", ("output", "k")),
        ("resource.a.physical_id", ()),
        ("resource.nope", ()),  # not a resource of the child: validate refuses it
        ("out", ()),
    ]
    assert nested_outputs(references, {"a", "b"}) == {
        "resource.a": {"value": {"get_resource": "a"}},
        "resource.a.output": {"value": {"get_attr": ["a", "output"]}},
        "resource.a.physical_id": {"value": {"get_attr": ["a", "physical_id"]}},
    }
    assert nested_outputs([("out", ())], {"a"}) == {}


def test_problems_name_the_template_and_its_resources() -> None:
    assert nested_problem("resource.a.output", {"a"}, "box.yaml") is None
    assert nested_problem("out", {"a"}, "box.yaml") is None
    assert nested_problem("resource.aa", {"a", "ab"}, "box.yaml") == (
        "the provider template box.yaml has no resource 'aa'; did you mean 'a'?"
    )
    assert nested_problem("resource.zzz", {"b", "a"}, "box.yaml") == (
        "the provider template box.yaml has no resource 'zzz'; its resources: a, b"
    )
    assert "names no resource" in (nested_problem("resource.", {"a"}, "box.yaml") or "")
    assert "names no attribute" in (nested_problem("resource.a.", {"a"}, "box.yaml") or "")


def test_get_attr_reads_them_from_the_resource_s_data() -> None:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {"box": {"type": "box.yaml"}},
            "outputs": {
                "ref": {"value": {"get_attr": ["box", "resource.a"]}},
                "dotted": {"value": {"get_attr": ["box", "resource.a.output", "k"]}},
                "in_path": {"value": {"get_attr": ["box", "resource.a", "output", "k"]}},
            },
        }
    )
    attributes: dict[str, Any] = {"resource.a": "a-id", "resource.a.output": {"k": "v"}}
    outputs = resolve_outputs(template, {}, {"box": ResourceData("box-id", attributes)})
    assert {name: out["value"] for name, out in outputs.items()} == {
        "ref": "a-id",
        "dotted": "v",
        "in_path": "v",
    }
    # The node hands on exactly the names these read.
    assert template.attributes_needed()["box"] == {"resource.a", "resource.a.output"}
