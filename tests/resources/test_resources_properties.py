"""prepare_properties: translation first, then types, constraints, nesting and defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.resources import ResourceType, prepare_properties
from conv_tasks.resources.builtin import NoneResource
from conv_tasks.sdk import (
    ANY,
    BOOLEAN,
    INTEGER,
    LIST,
    MAP,
    NUMBER,
    REPLACE,
    STRING,
    Constraint,
    PropertySchema,
    TranslationRule,
)

PATH = "resources.web.properties"


class Server(ResourceType):
    type_name: ClassVar[str] = "Test::Server"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "name": PropertySchema(STRING, required=True, constraints=(Constraint.length(1, 8),)),
        "size": PropertySchema(INTEGER, default=1, constraints=(Constraint.range(1, 10),)),
        "ratio": PropertySchema(NUMBER),
        "enabled": PropertySchema(BOOLEAN, default=True),
        "flavor": PropertySchema(STRING, constraints=(Constraint.allowed_values("s", "m"),)),
        "tags": PropertySchema(LIST, default=[], schema=PropertySchema(STRING)),
        "extra": PropertySchema(ANY),
        "metadata": PropertySchema(MAP),
        "networks": PropertySchema(
            LIST,
            schema={
                "port": PropertySchema(INTEGER, required=True),
                "fixed_ip": PropertySchema(
                    STRING, constraints=(Constraint.allowed_pattern(r"\d+\.\d+\.\d+\.\d+"),)
                ),
            },
        ),
        "volume": PropertySchema(
            MAP,
            schema={"size": PropertySchema(INTEGER, default=10), "type": PropertySchema(STRING)},
        ),
    }


def problems_of(
    values: Mapping[str, Any], cls: type[ResourceType] = Server
) -> list[tuple[str, str]]:
    with pytest.raises(InvalidInput) as info:
        prepare_properties(cls, values, path=PATH)
    assert info.value.what == "properties"
    return [(p.path, p.message) for p in info.value.problems]


def test_defaults_fill_and_absent_optionals_are_none() -> None:
    result = prepare_properties(Server, {"name": "web"}, path=PATH)
    assert result == {
        "name": "web",
        "size": 1,
        "ratio": None,
        "enabled": True,
        "flavor": None,
        "tags": [],
        "extra": None,
        "metadata": None,
        "networks": None,
        "volume": None,
    }


def test_defaults_are_copies() -> None:
    first = prepare_properties(Server, {"name": "a"}, path=PATH)
    first["tags"].append("x")
    assert prepare_properties(Server, {"name": "b"}, path=PATH)["tags"] == []


def test_explicit_null_counts_as_absent() -> None:
    assert prepare_properties(Server, {"name": "a", "size": None}, path=PATH)["size"] == 1
    assert problems_of({"name": None}) == [(f"{PATH}.name", "is required but has no value.")]


@pytest.mark.parametrize(
    ("name", "given", "expected"),
    [
        ("size", "7", 7),
        ("size", 3.0, 3),
        ("ratio", "2.5", 2.5),
        ("ratio", "4", 4),
        ("ratio", 1, 1),
        ("enabled", "false", False),
        ("enabled", "True", True),
        ("name", 42, "42"),
        ("name", True, "true"),
        ("tags", ("a", 1), ["a", "1"]),
        ("extra", {"any": ["thing"]}, {"any": ["thing"]}),
        ("metadata", {"k": [1]}, {"k": [1]}),
    ],
)
def test_values_are_coerced_to_their_type(name: str, given: Any, expected: Any) -> None:
    values = {"name": "web", name: given} if name != "name" else {"name": given}
    assert prepare_properties(Server, values, path=PATH)[name] == expected


@pytest.mark.parametrize(
    ("name", "given", "reason"),
    [
        ("size", "seven", "must be an integer, not the string 'seven'."),
        ("size", 2.5, "must be an integer, not the number 2.5."),
        ("size", True, "must be an integer, not the boolean true."),
        ("ratio", "nan", "must be a finite number, not the string 'nan'."),
        ("ratio", [1], "must be a number, not a list."),
        ("enabled", "yes", "must be a boolean (true or false), not the string 'yes'."),
        ("enabled", 1, "must be a boolean (true or false), not the number 1."),
        ("tags", "a,b", "must be a list, not the string 'a,b'."),
        ("metadata", ["k"], "must be a map, not a list."),
        ("volume", "big", "must be a map, not the string 'big'."),
    ],
)
def test_wrong_types_name_path_and_reason(name: str, given: Any, reason: str) -> None:
    assert problems_of({"name": "web", name: given}) == [(f"{PATH}.{name}", reason)]


def test_string_property_refuses_containers() -> None:
    assert problems_of({"name": {"a": 1}}) == [(f"{PATH}.name", "must be a string, not a map.")]


def test_every_constraint_is_checked_after_coercion() -> None:
    problems = problems_of(
        {
            "name": "much-too-long",
            "size": "11",
            "flavor": "xl",
            "networks": [{"port": 1, "fixed_ip": "ten"}],
        }
    )
    assert problems == [
        (f"{PATH}.name", "must have a length between 1 and 8; got 13."),
        (f"{PATH}.size", "must be between 1 and 10; got 11."),
        (f"{PATH}.flavor", "must be one of 's', 'm', not 'xl'."),
        (
            f"{PATH}.networks[0].fixed_ip",
            "must match the pattern '\\\\d+\\\\.\\\\d+\\\\.\\\\d+\\\\.\\\\d+'; 'ten' does not.",
        ),
    ]


def test_all_problems_are_reported_at_once_with_nested_paths() -> None:
    problems = problems_of(
        {
            "size": "x",
            "bogus": 1,
            "tags": ["ok", ["nested"]],
            "networks": [{"port": "80"}, {"fixed_ip": "1.2.3.4", "mac": "x"}, "eth0"],
            "volume": {"size": "big", "colour": "red"},
        }
    )
    assert problems == [
        (
            f"{PATH}.bogus",
            "is not a known property; known properties: enabled, extra, flavor, "
            "metadata, name, networks, ratio, size, tags, volume.",
        ),
        (f"{PATH}.name", "is required but has no value."),
        (f"{PATH}.size", "must be an integer, not the string 'x'."),
        (f"{PATH}.tags[1]", "must be a string, not a list."),
        (f"{PATH}.networks[1].mac", "is not a known property; known properties: fixed_ip, port."),
        (f"{PATH}.networks[1].port", "is required but has no value."),
        (f"{PATH}.networks[2]", "must be a map, not the string 'eth0'."),
        (f"{PATH}.volume.colour", "is not a known property; known properties: size, type."),
        (f"{PATH}.volume.size", "must be an integer, not the string 'big'."),
    ]
    with pytest.raises(InvalidInput, match=r"Invalid properties \(9 problems\)"):
        prepare_properties(
            Server,
            {
                "size": "x",
                "bogus": 1,
                "tags": ["ok", ["nested"]],
                "networks": [{"port": "80"}, {"fixed_ip": "1.2.3.4", "mac": "x"}, "eth0"],
                "volume": {"size": "big", "colour": "red"},
            },
            path=PATH,
        )


def test_nested_values_are_coerced_and_get_defaults() -> None:
    result = prepare_properties(
        Server,
        {"name": "w", "networks": [{"port": "80"}], "volume": {"type": "ssd"}},
        path=PATH,
    )
    assert result["networks"] == [{"port": 80, "fixed_ip": None}]
    assert result["volume"] == {"size": 10, "type": "ssd"}


def test_properties_must_be_a_map() -> None:
    assert problems_of(["name"]) == [(PATH, "must be a map of properties, not a list.")]  # type: ignore[arg-type]


def test_input_is_not_changed() -> None:
    values = {"name": "w", "networks": [{"port": "80"}]}
    prepare_properties(Server, values, path=PATH)
    assert values == {"name": "w", "networks": [{"port": "80"}]}


def test_schema_less_type_accepts_anything() -> None:
    values = {"whatever": [1, {"x": None}], "n": 1}
    result = prepare_properties(NoneResource, values, path=PATH)
    assert result == values
    assert result is not values


class Renamed(ResourceType):
    """The old 'count' was renamed 'size'; size is an integer of at most 5."""

    type_name: ClassVar[str] = "Test::Renamed"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "size": PropertySchema(INTEGER, required=True, constraints=(Constraint.range(1, 5),)),
        "count": PropertySchema(INTEGER),
    }

    def translation_rules(self) -> Sequence[TranslationRule]:
        return (TranslationRule(REPLACE, ("size",), value_path=("count",)),)


def test_translation_runs_before_validation() -> None:
    # Without translation, 'size' would be missing and required.
    assert prepare_properties(Renamed, {"count": "3"}, path=PATH) == {"size": 3, "count": None}
    # The moved value is validated under its new name.
    assert problems_of({"count": 9}, Renamed) == [
        (f"{PATH}.size", "must be between 1 and 5; got 9.")
    ]


def test_translation_problems_are_raised_as_property_problems() -> None:
    assert problems_of({"count": 2, "size": 3}, Renamed) == [
        (
            f"{PATH}.count",
            f"conflicts with {PATH}.size: both are set to different values; set only {PATH}.size.",
        )
    ]
