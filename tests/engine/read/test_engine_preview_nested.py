"""Which inputs of a child stack a preview takes as known only at apply (pure): each type
says (a provider template's parameters are its properties, an OS::Heat::Stack's the keys of
its `parameters`; a group's members, and a type that does not say, are unknown whole); and
which child resources read them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from conv_tasks.engine.read.preview_nested import NONE, Unknown, child_unknown, parameters_read
from conv_tasks.engine.read.preview_resource import why_uncertain
from conv_tasks.resources.builtin import HeatStackResource
from conv_tasks.resources.builtin.group.resource import ResourceGroup
from conv_tasks.resources.provider_template import provider_template_type
from conv_tasks.sdk import ResourceType
from conv_tasks.template.model import ResourceSnippet

BOX = provider_template_type(
    "My::Box",
    "heat_template_version: 2018-08-31\nparameters:\n  value: {type: string}\n"
    "  label: {type: string}\nresources: {}\n",
)


def _snippet(type_name: str, properties: dict[str, Any]) -> ResourceSnippet:
    return ResourceSnippet("res", type_name, properties)


def test_a_provider_template_s_unknown_inputs_are_the_properties_that_read_a_change() -> None:
    snippet = _snippet("My::Box", {"value": {"get_attr": ["src", "output"]}, "label": "fixed"})
    assert child_unknown(BOX, snippet, {"src"}, NONE) == Unknown(parameters=frozenset({"value"}))
    assert child_unknown(BOX, snippet, {"other"}, NONE) == NONE


def test_an_unknown_parameter_of_the_parent_is_unknown_in_its_child_too() -> None:
    snippet = _snippet("My::Box", {"value": "x", "label": {"get_param": "name"}})
    outer = Unknown(parameters=frozenset({"name"}))
    assert child_unknown(BOX, snippet, set(), outer) == Unknown(parameters=frozenset({"label"}))
    assert child_unknown(BOX, snippet, set(), Unknown(every=True)) == Unknown(every=True)


def test_an_os_heat_stack_s_unknown_inputs_are_the_keys_of_its_parameters() -> None:
    snippet = _snippet(
        "OS::Heat::Stack",
        {"template": "t", "parameters": {"a": {"get_resource": "src"}, "b": "known"}},
    )
    got = child_unknown(HeatStackResource, snippet, {"src"}, NONE)
    assert got == Unknown(parameters=frozenset({"a"}))
    whole = _snippet("OS::Heat::Stack", {"template": {"get_attr": ["src", "t"]}})
    assert child_unknown(HeatStackResource, whole, {"src"}, NONE) == Unknown(every=True)


def test_a_group_whose_definition_reads_a_change_has_every_member_unknown() -> None:
    snippet = _snippet(
        "OS::Heat::ResourceGroup",
        {"count": 2, "resource_def": {"type": "T", "properties": {"v": {"get_resource": "s"}}}},
    )
    assert child_unknown(ResourceGroup, snippet, {"s"}, NONE) == Unknown(every=True)
    assert child_unknown(ResourceGroup, snippet, set(), NONE) == NONE


def test_only_child_resources_that_read_an_unknown_input_are_uncertain() -> None:
    unknown = Unknown(parameters=frozenset({"value"}))
    reads = _snippet("T", {"value": {"list_join": ["-", [{"get_param": "value"}, "x"]]}})
    other = _snippet("T", {"value": {"get_param": "label"}})
    assert parameters_read(reads) == {"value"}
    assert "value" in str(why_uncertain(reads, set(), unknown))
    assert why_uncertain(other, set(), unknown) is None
    assert why_uncertain(other, set(), Unknown(every=True)) is not None
    sibling = _snippet("T", {"value": {"get_attr": ["a", "output"]}})
    assert why_uncertain(sibling, {"a"}, unknown) == (
        "reads a, which will change: its values here are the current ones"
    )


class _Pair(ResourceType):
    """A type of some other package that owns a child stack: no subclass of a built-in type.
    Its child's parameters are `left` and `right`, from the properties of the same names."""

    type_name: ClassVar[str] = "Example::Pair"
    owns_child_stack: ClassVar[bool] = True

    @classmethod
    def unknown_child_parameters(
        cls, properties: Mapping[str, Any], unknown: Callable[[Any], bool]
    ) -> frozenset[str] | None:
        return frozenset(k for k in ("left", "right") if unknown(properties.get(k)))


def test_any_type_that_owns_a_child_says_which_of_its_inputs_are_unknown() -> None:
    # The preview asks the type (unknown_child_parameters), never which built-in class it is.
    snippet = _snippet("Example::Pair", {"left": {"get_attr": ["src", "x"]}, "right": "known"})
    assert child_unknown(_Pair, snippet, {"src"}, NONE) == Unknown(parameters=frozenset({"left"}))
    # A type that does not say has every input of its child unknown.
    assert child_unknown(ResourceType, snippet, {"src"}, NONE) == Unknown(every=True)
