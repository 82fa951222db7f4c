"""Registry: registration rules, HIDDEN types, show, and loading plugins from entry points."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from conv_tasks.errors import InvalidInput, NotFound, NotSupported
from conv_tasks.resources import (
    Registry,
    ResourceType,
    build_registry,
    default_registry,
    load_entry_point_types,
)
from conv_tasks.resources.builtin import BUILTIN_TYPES
from conv_tasks.sdk import (
    DEPRECATED,
    HIDDEN,
    STRING,
    AttributeSchema,
    PropertySchema,
    SupportStatus,
)

BUILTIN_NAMES = [
    "ConvTasks::Celery::Task",
    "ConvTasks::HTTP::Resource",
    "ConvTasks::PostgreSQL::Database",
    "ConvTasks::PostgreSQL::Role",
    "OS::Heat::None",
    "OS::Heat::RandomString",
    "OS::Heat::ResourceGroup",
    "OS::Heat::SoftwareConfig",
    "OS::Heat::SoftwareDeployment",
    "OS::Heat::SoftwareDeploymentGroup",
    "OS::Heat::Stack",
    "OS::Heat::TestResource",
    "OS::Heat::TestResourceOld",
    "OS::Heat::Value",
    "OS::Heat::WaitCondition",
    "OS::Heat::WaitConditionHandle",
]


class Widget(ResourceType):
    """A widget for tests.

    More text that is not part of the summary.
    """

    type_name: ClassVar[str] = "Test::Widget"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "colour": PropertySchema(STRING, "Its colour.", update_allowed=True),
        "old_colour": PropertySchema(
            STRING,
            support_status=SupportStatus(status=HIDDEN, previous_status=SupportStatus(DEPRECATED)),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "shade": AttributeSchema("How dark."),
        "tint": AttributeSchema(
            support_status=SupportStatus(status=HIDDEN, previous_status=SupportStatus(DEPRECATED))
        ),
    }


class Gone(ResourceType):
    type_name: ClassVar[str] = "Test::Gone"
    support_status: ClassVar[SupportStatus] = SupportStatus(
        status=HIDDEN, previous_status=SupportStatus(status=DEPRECATED)
    )


def test_get_and_list_sorted() -> None:
    registry = Registry()
    registry.register(Widget)
    registry.register(Gone)
    assert registry.get("Test::Widget") is Widget
    assert "Test::Widget" in registry
    assert registry.list() == [Widget]
    assert registry.list(include_hidden=True) == [Gone, Widget]


def test_hidden_type_is_returned_by_get_but_refused_by_show() -> None:
    registry = Registry()
    registry.register(Gone)
    assert registry.get("Test::Gone") is Gone
    with pytest.raises(NotSupported, match="'Test::Gone' is HIDDEN"):
        registry.show("Test::Gone")


def test_unknown_type() -> None:
    registry = Registry()
    with pytest.raises(NotFound, match="Unknown resource type 'Nope'"):
        registry.get("Nope")
    with pytest.raises(NotFound, match="Unknown resource type 'Nope'"):
        registry.show("Nope")


def test_duplicate_and_blank_names_are_refused() -> None:
    registry = Registry()
    registry.register(Widget)

    class Again(Widget):
        pass

    with pytest.raises(InvalidInput) as info:
        registry.register(Again)
    assert info.value.problems[0].path == "resource_types.Test::Widget"
    assert "already registered by" in info.value.problems[0].message
    assert "Widget" in info.value.problems[0].message

    class Blank(ResourceType):
        type_name: ClassVar[str] = "  "

    class Nameless(ResourceType):
        pass

    for cls in (Blank, Nameless):
        with pytest.raises(InvalidInput, match="blank type_name"):
            registry.register(cls)


def test_non_types_and_bad_schemas_are_refused() -> None:
    registry = Registry()
    with pytest.raises(InvalidInput, match="not a ResourceType subclass"):
        registry.register(dict)  # type: ignore[arg-type]

    class BadSchema(ResourceType):
        type_name: ClassVar[str] = "Test::Bad"
        properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {"x": "string"}  # type: ignore[dict-item]
        attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {"y": 1}  # type: ignore[dict-item]

    with pytest.raises(InvalidInput) as info:
        registry.register(BadSchema)
    assert [p.path for p in info.value.problems] == [
        "resource_types.Test::Bad.properties_schema",
        "resource_types.Test::Bad.attributes_schema",
    ]
    assert "Test::Bad" not in registry


def test_show_is_json_and_leaves_hidden_parts_out() -> None:
    registry = Registry()
    registry.register(Widget)
    shown = registry.show("Test::Widget")
    assert json.loads(json.dumps(shown)) == shown
    assert shown["resource_type"] == "Test::Widget"
    assert shown["description"] == "A widget for tests."
    assert list(shown["properties"]) == ["colour"]
    assert shown["properties"]["colour"]["update_allowed"] is True
    assert list(shown["attributes"]) == ["shade"]
    assert shown["support_status"]["status"] == "SUPPORTED"


def test_show_puts_a_wrapped_docstring_on_one_line_without_its_indentation() -> None:
    class Wrapped(ResourceType):
        """A widget whose summary
        goes on over two lines.

        The rest is not shown."""

        type_name: ClassVar[str] = "Test::Wrapped"

    registry = Registry()
    registry.register(Wrapped)
    assert registry.show("Test::Wrapped")["description"] == (
        "A widget whose summary goes on over two lines."
    )


def test_show_of_a_schema_less_type() -> None:
    shown = default_registry().show("OS::Heat::None")
    assert shown["properties"] is None
    assert shown["attributes"] == {}


def test_show_of_a_deprecated_builtin_names_its_substitute() -> None:
    status = default_registry().show("OS::Heat::TestResourceOld")["support_status"]
    assert status["status"] == "DEPRECATED"
    assert status["substitute_class"] == "OS::Heat::TestResource"
    assert status["previous_status"]["status"] == "SUPPORTED"


def test_default_registry_has_the_builtins_and_is_cached() -> None:
    registry = default_registry()
    assert registry is default_registry()
    assert [cls.type_name for cls in registry.list()] == BUILTIN_NAMES
    assert registry.get("OS::Heat::Dummy").support_status.status == HIDDEN
    assert len(registry.list(include_hidden=True)) == len(BUILTIN_TYPES)


@dataclass
class FakeEntryPoint:
    name: str
    target: Any

    def load(self) -> Any:
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


def test_entry_points_add_third_party_types() -> None:
    registry = build_registry([FakeEntryPoint("Test::Widget", Widget)])
    assert registry.get("Test::Widget") is Widget
    assert registry.get("OS::Heat::None").type_name == "OS::Heat::None"


def test_load_entry_point_types_reports_every_broken_plugin() -> None:
    eps = [
        FakeEntryPoint("Test::Widget", Widget),
        FakeEntryPoint("Test::Broken", ImportError("No module named 'widgets'")),
        FakeEntryPoint("Test::NotAType", object()),
        FakeEntryPoint("Test::Misnamed", Gone),
    ]
    assert load_entry_point_types(eps[:1]) == [Widget]
    with pytest.raises(InvalidInput) as info:
        load_entry_point_types(eps)
    problems = [(p.path, p.message) for p in info.value.problems]
    group = "entry_points.conv_tasks.resource_types"
    assert [path for path, _ in problems] == [
        f"{group}.Test::Broken",
        f"{group}.Test::NotAType",
        f"{group}.Test::Misnamed",
    ]
    assert "cannot be loaded: ImportError: No module named 'widgets'" in problems[0][1]
    assert "not a ResourceType subclass" in problems[1][1]
    assert "names type 'Test::Gone'" in problems[2][1]


def test_a_plugin_cannot_take_a_builtin_name() -> None:
    class Impostor(ResourceType):
        type_name: ClassVar[str] = "OS::Heat::None"

    with pytest.raises(InvalidInput, match="already registered"):
        build_registry([FakeEntryPoint("OS::Heat::None", Impostor)])


def test_substitutes_follows_substitute_class_one_way_only() -> None:
    registry = default_registry()
    assert registry.substitutes("OS::Heat::TestResourceOld", "OS::Heat::TestResource")
    assert not registry.substitutes("OS::Heat::TestResource", "OS::Heat::TestResourceOld")
    assert not registry.substitutes("OS::Heat::TestResourceOld", "OS::Heat::None")
    assert not registry.substitutes("OS::Heat::Gone", "OS::Heat::TestResource")
