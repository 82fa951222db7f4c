"""Schema declarations: constraints and malformed schemas refused when built."""

from __future__ import annotations

from enum import IntEnum, StrEnum

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.sdk import (
    DEPRECATED,
    HIDDEN,
    INTEGER,
    LIST,
    MAP,
    STRING,
    AttributeSchema,
    Constraint,
    PropertySchema,
    SupportStatus,
)


@pytest.mark.parametrize(
    ("constraint", "value", "reason"),
    [
        (Constraint.allowed_values("a", "b"), "c", "must be one of 'a', 'b', not 'c'."),
        (Constraint.range(1, 5), 6, "must be between 1 and 5; got 6."),
        (Constraint.range(1, None), 0, "must be at least 1; got 0."),
        (Constraint.range(None, 5), 5.5, "must be at most 5; got 5.5."),
        (Constraint.length(2, 3), "abcd", "must have a length between 2 and 3; got 4."),
        (Constraint.length(1), [], "must have a length of at least 1; got 0."),
        (Constraint.length(None, 1), {"a": 1, "b": 2}, "must have a length of at most 1; got 2."),
        (
            Constraint.allowed_pattern("[a-z]+"),
            "abc1",
            "must match the pattern '[a-z]+'; 'abc1' does not.",
        ),
    ],
)
def test_constraint_violations_are_sentences(
    constraint: Constraint, value: object, reason: str
) -> None:
    assert constraint.violation(value) == reason


@pytest.mark.parametrize(
    ("constraint", "value"),
    [
        (Constraint.allowed_values("a", "b"), "a"),
        (Constraint.range(1, 5), 1),
        (Constraint.range(1, 5), 5.0),
        (Constraint.length(2, 3), "abc"),
        (Constraint.allowed_pattern("[a-z]+"), "abc"),
        # A constraint that does not apply to the value's type is left to the type check.
        (Constraint.range(1, 5), "x"),
        (Constraint.length(1, 2), 12345),
        (Constraint.allowed_pattern("x"), 7),
    ],
)
def test_values_that_keep_constraints(constraint: Constraint, value: object) -> None:
    assert constraint.violation(value) is None


class Word(StrEnum):
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"


class Number(IntEnum):
    ONE = 1


def test_enum_members_are_allowed_as_the_words_a_template_writes() -> None:
    constraint = Constraint.allowed_values(*Word, Number.ONE)
    assert constraint.violation("REBOOT") == (
        "must be one of 'SUSPEND', 'RESUME', 1, not 'REBOOT'."
    )
    assert constraint.violation("RESUME") is None and constraint.violation(1) is None
    assert constraint.to_dict()["args"] == ["SUSPEND", "RESUME", 1]
    assert all(type(arg) in (str, int) for arg in constraint.args)


def test_constraint_description_replaces_the_default_reason() -> None:
    constraint = Constraint.range(1, 5, description="Must be a small number.")
    assert constraint.violation(9) == "Must be a small number. (got 9)"


@pytest.mark.parametrize(
    ("kind", "args", "reason"),
    [
        ("size", (1, 2), "unknown constraint kind"),
        ("allowed_values", (), "non-empty tuple"),
        ("range", (1,), "(min, max) pair"),
        ("range", (None, None), "at least one bound"),
        ("range", (5, 1), "minimum 5 is greater than its maximum 1"),
        ("length", ("1", 2), "bounds must be numbers"),
        ("allowed_pattern", "([", "not a valid regular expression"),
        ("allowed_pattern", 5, "regular expression string"),
    ],
)
def test_malformed_constraints_are_refused(kind: str, args: object, reason: str) -> None:
    with pytest.raises(InvalidInput, match="Invalid schema") as info:
        Constraint(kind, args)
    assert reason in info.value.problems[0].message


def test_malformed_property_schemas_are_refused() -> None:
    with pytest.raises(InvalidInput, match="'text' is not a property type"):
        PropertySchema("text")
    with pytest.raises(InvalidInput, match="a string property has no sub-schema"):
        PropertySchema(STRING, schema=PropertySchema(STRING))
    with pytest.raises(InvalidInput, match="a map's schema must map names"):
        PropertySchema(MAP, schema=PropertySchema(STRING))
    with pytest.raises(InvalidInput, match="a list's schema must be a PropertySchema"):
        PropertySchema(LIST, schema="string")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="must be a tuple of Constraint"):
        PropertySchema(STRING, constraints=[Constraint.length(1)])  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="not an attribute type"):
        AttributeSchema(type="blob")


def test_a_list_of_sub_properties_means_items_are_maps() -> None:
    schema = PropertySchema(LIST, schema={"port": PropertySchema(INTEGER)})
    assert isinstance(schema.schema, PropertySchema)
    assert schema.schema.type == MAP
    assert schema.schema.schema == {"port": PropertySchema(INTEGER)}


def test_to_dict_leaves_hidden_sub_properties_out() -> None:
    gone = SupportStatus(status=HIDDEN, previous_status=SupportStatus(status=DEPRECATED))
    schema = PropertySchema(
        MAP,
        "Networks.",
        schema={"uuid": PropertySchema(STRING, support_status=gone), "id": PropertySchema(STRING)},
        constraints=(Constraint.length(1),),
    )
    data = schema.to_dict()
    assert list(data["schema"]) == ["id"]
    assert data["constraints"] == [{"kind": "length", "args": [1, None], "description": ""}]
    assert data["support_status"]["status"] == "SUPPORTED"
