"""Parameter declarations, types, constraints, defaults and hidden values."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import ParameterError, TemplateError
from conv_tasks.template import Template, load_template, public_parameters, validate_parameters


def template_with(parameters: dict[str, Any]) -> Template:
    return load_template({"heat_template_version": "2018-08-31", "parameters": parameters})


def one(type_name: str, **spec: Any) -> Template:
    return template_with({"p": {"type": type_name, **spec}})


def parameter_problems(template: Template, values: dict[str, Any]) -> list[str]:
    with pytest.raises(ParameterError) as info:
        validate_parameters(template, values)
    return [str(p) for p in info.value.problems]


def load_problems(parameters: dict[str, Any]) -> list[str]:
    with pytest.raises(TemplateError) as info:
        template_with(parameters)
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize(
    ("given", "expected"),
    [("abc", "abc"), (3, "3"), (2.5, "2.5"), (True, "true"), ("", "")],
)
def test_string_values(given: Any, expected: str) -> None:
    assert validate_parameters(one("string"), {"p": given}) == {"p": expected}


@pytest.mark.parametrize(
    ("given", "expected"),
    [(3, 3), (2.5, 2.5), ("7", 7), (" 1.5 ", 1.5), ("1e3", 1000.0), ("-4", -4)],
)
def test_number_values(given: Any, expected: float) -> None:
    value = validate_parameters(one("number"), {"p": given})["p"]
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize("given", ["abc", True, [1], "nan", "inf", {}])
def test_number_rejects(given: Any) -> None:
    [problem] = parameter_problems(one("number"), {"p": given})
    assert problem.startswith("parameters.p: the value ")
    assert "number" in problem


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (True, True),
        (False, False),
        ("true", True),
        ("No", False),
        ("on", True),
        ("off", False),
        ("yes", True),
        ("1", True),
        ("0", False),
        (1, True),
        (0, False),
    ],
)
def test_boolean_values(given: Any, expected: bool) -> None:
    assert validate_parameters(one("boolean"), {"p": given}) == {"p": expected}


@pytest.mark.parametrize("given", ["maybe", 2, [True], 1.0])
def test_boolean_rejects(given: Any) -> None:
    [problem] = parameter_problems(one("boolean"), {"p": given})
    assert "is not a boolean" in problem


@pytest.mark.parametrize(
    ("given", "expected"),
    [({"a": 1}, {"a": 1}), ([1, 2], [1, 2]), ('{"a": [1]}', {"a": [1]}), ("[]", [])],
)
def test_json_values(given: Any, expected: Any) -> None:
    assert validate_parameters(one("json"), {"p": given}) == {"p": expected}


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("{bad", "is not valid JSON"),
        ("3", "is not a JSON object or list"),
        (5, "is not a JSON object or list"),
    ],
)
def test_json_rejects(given: Any, reason: str) -> None:
    [problem] = parameter_problems(one("json"), {"p": given})
    assert problem.endswith(reason)


@pytest.mark.parametrize(
    ("given", "expected"),
    [("a, b ,c", ["a", "b", "c"]), ("", []), ("one", ["one"]), (["x", 1], ["x", "1"])],
)
def test_comma_delimited_list_values(given: Any, expected: list[str]) -> None:
    assert validate_parameters(one("comma_delimited_list"), {"p": given}) == {"p": expected}


@pytest.mark.parametrize("given", [{"a": 1}, [["nested"]], 4, [None]])
def test_comma_delimited_list_rejects(given: Any) -> None:
    [problem] = parameter_problems(one("comma_delimited_list"), {"p": given})
    assert "list" in problem


def test_defaults_are_applied_and_coerced() -> None:
    template = template_with(
        {
            "n": {"type": "number", "default": "5"},
            "l": {"type": "comma_delimited_list", "default": "a,b"},
            "s": {"type": "string", "default": "x"},
        }
    )
    assert template.parameters["n"].default == 5
    assert validate_parameters(template, {"s": "given"}) == {"n": 5, "l": ["a", "b"], "s": "given"}


def test_missing_and_unknown_and_wrong_type_reported_together() -> None:
    template = template_with({"a": {"type": "string"}, "b": {"type": "number"}})
    assert parameter_problems(template, {"b": "x", "c": 1}) == [
        "parameters.c: is not a parameter of this template",
        "parameters.a: a value is required (there is no default)",
        "parameters.b: the value 'x' is not a number",
    ]


def test_none_value_means_not_given() -> None:
    template = template_with({"a": {"type": "string", "default": "d"}})
    assert validate_parameters(template, {"a": None}) == {"a": "d"}


def test_values_must_be_a_mapping() -> None:
    assert parameter_problems(one("string", default="x"), ["p"]) == [  # type: ignore[arg-type]
        "parameters: must be a mapping of names to values"
    ]


def test_allowed_values() -> None:
    template = one("string", constraints=[{"allowed_values": ["a", "b"]}])
    assert validate_parameters(template, {"p": "a"}) == {"p": "a"}
    assert parameter_problems(template, {"p": "c"}) == [
        'parameters.p: the value must be one of "a", "b"'
    ]


def test_allowed_values_number_and_list() -> None:
    numbers = one("number", constraints=[{"allowed_values": [1, "2"]}])
    assert validate_parameters(numbers, {"p": "2"}) == {"p": 2}
    assert parameter_problems(numbers, {"p": 3}) == ["parameters.p: the value must be one of 1, 2"]
    items = one("comma_delimited_list", constraints=[{"allowed_values": ["a", "b"]}])
    assert validate_parameters(items, {"p": "a,b,a"}) == {"p": ["a", "b", "a"]}
    assert parameter_problems(items, {"p": "a,z"}) == [
        'parameters.p: every item must be one of "a", "b"'
    ]


@pytest.mark.parametrize(
    ("bounds", "good", "bad", "reason"),
    [
        ({"min": 1, "max": 10}, 10, 11, "the value must be between 1 and 10"),
        ({"min": 1}, 1, 0.5, "the value must be at least 1"),
        ({"max": 2.5}, 2.5, 3, "the value must be at most 2.5"),
    ],
)
def test_range(bounds: dict[str, Any], good: float, bad: float, reason: str) -> None:
    template = one("number", constraints=[{"range": bounds}])
    assert validate_parameters(template, {"p": good}) == {"p": good}
    assert parameter_problems(template, {"p": bad}) == [f"parameters.p: {reason}"]


@pytest.mark.parametrize(
    ("type_name", "good", "bad"),
    [
        ("string", "abc", "abcd"),
        ("comma_delimited_list", "a,b", "a,b,c,d"),
        ("json", {"a": 1, "b": 2}, [1, 2, 3, 4]),
    ],
)
def test_length(type_name: str, good: Any, bad: Any) -> None:
    template = one(type_name, constraints=[{"length": {"min": 2, "max": 3}}])
    validate_parameters(template, {"p": good})
    assert parameter_problems(template, {"p": bad}) == [
        "parameters.p: the length must be between 2 and 3"
    ]


def test_allowed_pattern_must_match_whole_value() -> None:
    template = one("string", constraints=[{"allowed_pattern": "[a-z]+"}])
    assert validate_parameters(template, {"p": "abc"}) == {"p": "abc"}
    assert parameter_problems(template, {"p": "abc1"}) == [
        "parameters.p: the value must match the pattern '[a-z]+'"
    ]


def test_constraint_description_is_in_message_and_all_violations_listed() -> None:
    template = one(
        "string",
        constraints=[
            {"length": {"min": 5}, "description": "Use at least 5 characters."},
            {"allowed_pattern": "[0-9]*", "description": "Digits only."},
        ],
    )
    assert parameter_problems(template, {"p": "ab"}) == [
        "parameters.p: the length must be at least 5 (Use at least 5 characters.)",
        "parameters.p: the value must match the pattern '[0-9]*' (Digits only.)",
    ]


def test_hidden_value_never_in_messages() -> None:
    secret = "s3cr3t-value"
    template = template_with(
        {
            "pw": {"type": "number", "hidden": True},
            "key": {
                "type": "string",
                "hidden": True,
                "constraints": [
                    {"allowed_values": ["other"]},
                    {"length": {"min": 50}},
                    {"allowed_pattern": "x+"},
                ],
            },
        }
    )
    with pytest.raises(ParameterError) as info:
        validate_parameters(template, {"pw": secret, "key": secret})
    assert secret not in str(info.value)
    assert secret not in repr(info.value.to_dict())
    assert [p.path for p in info.value.problems] == ["parameters.pw"] + ["parameters.key"] * 3
    assert str(info.value.problems[0]) == "parameters.pw: the value is not a number"


def test_hidden_default_never_in_messages() -> None:
    with pytest.raises(TemplateError) as info:
        template_with({"pw": {"type": "number", "hidden": True, "default": "hunter2"}})
    assert "hunter2" not in str(info.value)
    assert [str(p) for p in info.value.problems] == [
        "parameters.pw.default: the value is not a number"
    ]


def test_visible_value_is_shown() -> None:
    assert parameter_problems(one("number"), {"p": "abc"}) == [
        "parameters.p: the value 'abc' is not a number"
    ]


def test_public_parameters_masks_hidden() -> None:
    template = template_with({"pw": {"type": "string", "hidden": True}, "n": {"type": "string"}})
    values = validate_parameters(template, {"pw": "secret", "n": "name"})
    assert public_parameters(template, values) == {"pw": "******", "n": "name"}
    assert values["pw"] == "secret"
    assert template.hidden_parameters() == frozenset({"pw"})


def test_declaration_problems() -> None:
    assert load_problems(
        {
            "a": {"default": 1},
            "b": {"type": "string", "hidden": "yes", "label": 3, "colour": "red"},
            "c": "string",
            "d": {"type": "string", "default": "toolong", "constraints": [{"length": {"max": 3}}]},
            "e": {"type": "string", "constraints": {"length": {}}},
        }
    ) == [
        "parameters.a.type: is required",
        "parameters.b.colour: unknown key; expected one of type, default, hidden, label, "
        "description, constraints, immutable, tags",
        "parameters.b.hidden: must be true or false",
        "parameters.b.label: must be a string",
        "parameters.c: a parameter must be a mapping with at least a type",
        "parameters.d.default: the length must be at most 3",
        "parameters.e.constraints: must be a list",
    ]


def test_constraint_declaration_problems() -> None:
    constraints = [
        {"range": {"min": 5, "max": 1}},
        {"length": {"min": 1}},
        {"allowed_pattern": "("},
        {"allowed_values": []},
        {"between": [1, 2]},
        {"description": "nothing"},
        {"range": {"min": "a", "low": 1}},
        {"allowed_values": ["x"]},
        {"range": {"min": 1}, "allowed_values": [1]},
        "no",
    ]
    problems = load_problems({"n": {"type": "number", "constraints": constraints}})
    prefix = "parameters.n.constraints"
    assert problems[0] == f"{prefix}.0.range: min must not be greater than max"
    assert problems[1] == (
        f"{prefix}.1.length: does not apply to number parameters; it applies to "
        "string, comma_delimited_list, json"
    )
    assert problems[2].startswith(f"{prefix}.2.allowed_pattern: does not apply to number")
    assert problems[3] == f"{prefix}.3.allowed_values: must be a non-empty list"
    assert problems[4].startswith(f"{prefix}.4.between: unknown constraint 'between'")
    assert problems[5].startswith(f"{prefix}.5: a constraint must have exactly one of")
    assert problems[6] == f"{prefix}.6.range.low: unknown key; expected min or max"
    assert problems[7] == f"{prefix}.6.range.min: must be a number"
    assert problems[8] == f"{prefix}.7.allowed_values.0: the allowed value is not a number"
    assert problems[9].startswith(f"{prefix}.8: a constraint must have exactly one of")
    assert problems[10].startswith(f"{prefix}.9: a constraint must be a mapping")
    assert len(problems) == 11


def test_invalid_pattern_reported() -> None:
    [problem] = load_problems({"s": {"type": "string", "constraints": [{"allowed_pattern": "("}]}})
    assert problem.startswith(
        "parameters.s.constraints.0.allowed_pattern: is not a valid regular expression"
    )


def test_immutable_is_read() -> None:
    assert one("string", immutable=True).parameters["p"].immutable is True
    assert one("string", immutable=False).parameters["p"].immutable is False
    assert one("string").parameters["p"].immutable is False
    assert load_problems({"p": {"type": "string", "immutable": "yes"}}) == [
        "parameters.p.immutable: must be true or false"
    ]


@pytest.mark.parametrize("version", ["2013-05-23", "2014-10-16", "2018-08-31"])
def test_immutable_exists_in_every_version(version: str) -> None:
    template = load_template(
        {
            "heat_template_version": version,
            "parameters": {"p": {"type": "number", "default": 1, "immutable": True}},
        }
    )
    assert template.parameters["p"].immutable


def test_tags_are_read_from_2018_03_02() -> None:
    tagged = load_template(
        {
            "heat_template_version": "2018-03-02",
            "parameters": {"p": {"type": "string", "tags": ["role", "db"]}},
        }
    )
    assert tagged.parameters["p"].tags == ("role", "db")
    assert one("string").parameters["p"].tags == ()


def test_tags_before_2018_03_02_are_refused_with_the_version() -> None:
    with pytest.raises(TemplateError) as info:
        load_template(
            {
                "heat_template_version": "2017-09-01",
                "parameters": {"p": {"type": "string", "tags": ["a"]}},
            }
        )
    assert [str(p) for p in info.value.problems] == [
        "parameters.p.tags: parameter tags need heat_template_version 2018-03-02 or later "
        "(this template is 2017-09-01)"
    ]


@pytest.mark.parametrize("tags", ["role", [1], {"a": "b"}, ["a", None]])
def test_tags_must_be_a_list_of_strings(tags: Any) -> None:
    assert load_problems({"p": {"type": "string", "tags": tags}}) == [
        "parameters.p.tags: must be a list of strings"
    ]


def modulo(step: Any, offset: Any, version: str = "2017-02-24", **more: Any) -> Template:
    return load_template(
        {
            "heat_template_version": version,
            "parameters": {
                "n": {
                    "type": "number",
                    "constraints": [{"modulo": {"step": step, "offset": offset}, **more}],
                }
            },
        }
    )


@pytest.mark.parametrize(("value", "fits"), [(1, True), (7, True), ("9", True), (2, False)])
def test_modulo_holds_the_remainder(value: Any, fits: bool) -> None:
    template = modulo(2, 1)
    if fits:
        assert validate_parameters(template, {"n": value}) == {"n": int(value)}
    else:
        assert parameter_problems(template, {"n": value}) == [
            "parameters.n: the value must leave 1 when divided by 2"
        ]


def test_modulo_with_negative_step_and_description() -> None:
    template = modulo(-3, -1, description="odd thirds")
    assert validate_parameters(template, {"n": -4}) == {"n": -4}
    assert parameter_problems(template, {"n": 3}) == [
        "parameters.n: the value must leave -1 when divided by -3 (odd thirds)"
    ]


@pytest.mark.parametrize(
    ("step", "offset", "problem"),
    [
        (0, 0, "modulo.step: must not be 0"),
        (2, 2, "modulo.offset: must be smaller than step (in size)"),
        (3, -1, "modulo: step and offset must have the same sign"),
        (2.5, 1, "modulo.step: must be a whole number"),
        (None, 1, "modulo.step: is required"),
        (2, "1", "modulo.offset: must be a whole number"),
    ],
)
def test_modulo_declaration_problems(step: Any, offset: Any, problem: str) -> None:
    with pytest.raises(TemplateError) as info:
        modulo(step, offset)
    assert [str(p) for p in info.value.problems] == [f"parameters.n.constraints.0.{problem}"]


def test_modulo_before_2017_02_24_is_refused_with_the_version() -> None:
    with pytest.raises(TemplateError) as info:
        modulo(2, 1, version="2016-10-14")
    assert [str(p) for p in info.value.problems] == [
        "parameters.n.constraints.0.modulo: the modulo constraint needs heat_template_version "
        "2017-02-24 or later (this template is 2016-10-14)"
    ]


def test_modulo_applies_to_numbers_only() -> None:
    with pytest.raises(TemplateError, match="modulo: does not apply to string parameters"):
        load_template(
            {
                "heat_template_version": "2018-08-31",
                "parameters": {
                    "s": {"type": "string", "constraints": [{"modulo": {"step": 2, "offset": 0}}]}
                },
            }
        )


class Checks:
    """A stand-in for conv_tasks.constraints' checkers: `even` knows numbers."""

    def knows(self, name: str) -> bool:
        return name == "even"

    def check(self, name: str, value: Any) -> str | None:
        return None if int(value) % 2 == 0 else f"{value} is odd"


def custom(type_name: str = "number", **spec: Any) -> Template:
    constraint = {"custom_constraint": "even", **spec.pop("constraint", {})}
    return one(type_name, constraints=[constraint], **spec)


def test_custom_constraints_are_read_for_the_types_heat_allows() -> None:
    [constraint] = custom().parameters["p"].constraints
    assert (constraint.kind, constraint.custom) == ("custom_constraint", "even")
    for type_name in ("string", "comma_delimited_list", "boolean"):
        assert custom(type_name).parameters["p"].constraints[0].custom == "even"
    [problem] = load_problems({"j": {"type": "json", "constraints": [{"custom_constraint": "x"}]}})
    assert problem == (
        "parameters.j.constraints.0.custom_constraint: does not apply to json parameters; it "
        "applies to string, number, comma_delimited_list, boolean"
    )
    bad = [{"custom_constraint": ""}, {"custom_constraint": ["ip_addr"]}]
    problems = load_problems({"s": {"type": "string", "constraints": bad}})
    assert problems == [
        f"parameters.s.constraints.{i}.custom_constraint: must name a constraint (a string "
        "such as ip_addr)"
        for i in (0, 1)
    ]


def test_custom_constraints_are_checked_only_with_the_checks_of_a_request() -> None:
    template = custom(constraint={"description": "pairs only"})
    assert validate_parameters(template, {"p": 3}) == {"p": 3}  # a stored stack: unchecked
    assert validate_parameters(template, {"p": 4}, Checks()) == {"p": 4}
    with pytest.raises(ParameterError) as caught:
        validate_parameters(template, {"p": 3}, Checks())
    assert [str(p) for p in caught.value.problems] == [
        "parameters.p: the value does not pass the custom constraint 'even': 3 is odd (pairs only)"
    ]


def test_a_constraint_the_checks_do_not_know_is_passed_over() -> None:
    template = one("string", constraints=[{"custom_constraint": "nova.flavor"}])
    assert validate_parameters(template, {"p": "m1.tiny"}, Checks()) == {"p": "m1.tiny"}


def test_each_item_of_a_list_is_checked() -> None:
    template = custom("comma_delimited_list")
    assert validate_parameters(template, {"p": "2,4"}, Checks()) == {"p": ["2", "4"]}
    with pytest.raises(ParameterError, match=r"item 1 of the value does not pass .*: 5 is odd"):
        validate_parameters(template, {"p": "2,5"}, Checks())


def test_a_default_is_checked_against_its_custom_constraints_at_its_path() -> None:
    template = custom(default=7)  # it loads: there are no checks when a template loads
    with pytest.raises(ParameterError) as caught:
        validate_parameters(template, {}, Checks())
    assert [p.path for p in caught.value.problems] == ["parameters.p.default"]
    assert validate_parameters(template, {"p": 8}, Checks()) == {"p": 8}


def test_a_hidden_value_is_not_quoted_by_its_checker() -> None:
    template = custom(hidden=True)
    with pytest.raises(ParameterError) as caught:
        validate_parameters(template, {"p": 12345}, Checks())
    assert str(caught.value.problems[0]) == (
        "parameters.p: the value does not pass the custom constraint 'even'"
    )
    assert "12345" not in str(caught.value)
