"""translate(): the five cases of seed 004, ADD on a non-list, conflicts, purity."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conv_tasks.errors import InvalidInput, NotFound
from conv_tasks.sdk import ADD, REPLACE, RESOLVE, TranslationRule, translate
from conv_tasks.sdk.translation import DELETE
from conv_tasks.template import contains_function

PATH = "resources.srv.properties"


def problems(values: dict[str, Any], *rules: TranslationRule) -> list[tuple[str, str]]:
    with pytest.raises(InvalidInput) as info:
        translate(values, rules, path=PATH)
    return [(p.path, p.message) for p in info.value.problems]


# Case 1: two scalar properties - the old one is moved to the new one.
def test_replace_scalar_with_scalar() -> None:
    rule = TranslationRule(REPLACE, ("subnet",), value_path=("subnet_id",))
    assert translate({"subnet_id": "s-1"}, [rule], path=PATH) == {"subnet": "s-1"}
    assert translate({"subnet": "s-2"}, [rule], path=PATH) == {"subnet": "s-2"}
    # Both given and equal: fine, the old one goes.
    assert translate({"subnet": "s", "subnet_id": "s"}, [rule], path=PATH) == {"subnet": "s"}


def test_replace_with_a_fixed_value() -> None:
    rule = TranslationRule(REPLACE, ("mode",), value="fast")
    assert translate({"mode": "slow", "x": 1}, [rule], path=PATH) == {"mode": "fast", "x": 1}


# Case 2: one property inside a MAP (or in LIST items) and one on top.
def test_replace_top_level_into_a_map() -> None:
    rule = TranslationRule(REPLACE, ("far", "red"), value_path=("bar",))
    assert translate({"bar": "dak"}, [rule], path=PATH) == {"far": {"red": "dak"}}
    assert translate({"bar": "dak", "far": {"blue": 1}}, [rule], path=PATH) == {
        "far": {"blue": 1, "red": "dak"}
    }


def test_replace_from_a_map_to_the_top() -> None:
    rule = TranslationRule(REPLACE, ("bar",), value_path=("far", "red"))
    assert translate({"far": {"red": "dak", "x": 1}}, [rule], path=PATH) == {
        "far": {"x": 1},
        "bar": "dak",
    }


def test_replace_top_level_into_every_list_item() -> None:
    rule = TranslationRule(REPLACE, ("networks", "port"), value_path=("port",))
    values = {"port": "p-1", "networks": [{"net": "a"}, {"net": "b", "port": "p-1"}]}
    assert translate(values, [rule], path=PATH) == {
        "networks": [{"net": "a", "port": "p-1"}, {"net": "b", "port": "p-1"}]
    }


def test_replace_into_an_empty_list_keeps_the_old_value() -> None:
    rule = TranslationRule(REPLACE, ("networks", "port"), value_path=("port",))
    assert translate({"port": "p", "networks": []}, [rule], path=PATH) == {
        "port": "p",
        "networks": [],
    }


# Case 3: two properties inside LIST items - replaced in every item.
def test_replace_between_siblings_in_every_list_item() -> None:
    rule = TranslationRule(REPLACE, ("networks", "network"), value_name="uuid")
    values = {
        "networks": [{"uuid": "n-1", "fixed_ip": "10.0.0.1"}, {"network": "n-2"}, {"uuid": "n-3"}]
    }
    assert translate(values, [rule], path=PATH) == {
        "networks": [
            {"network": "n-1", "fixed_ip": "10.0.0.1"},
            {"network": "n-2"},
            {"network": "n-3"},
        ]
    }


def test_sibling_conflict_in_a_list_item_names_both_paths() -> None:
    rule = TranslationRule(REPLACE, ("networks", "network"), value_name="uuid")
    values = {"networks": [{"uuid": "a", "network": "a"}, {"uuid": "b", "network": "c"}]}
    assert problems(values, rule) == [
        (
            f"{PATH}.networks[1].uuid",
            f"conflicts with {PATH}.networks[1].network: both are set to different values; "
            f"set only {PATH}.networks[1].network.",
        )
    ]


# Case 4: a non-LIST property replaced by a LIST property.
def test_add_old_scalar_to_the_new_list() -> None:
    rule = TranslationRule(ADD, ("security_groups",), value_path=("security_group",))
    assert translate({"security_group": "web"}, [rule], path=PATH) == {"security_groups": ["web"]}
    assert translate({"security_group": "web", "security_groups": ["db"]}, [rule], path=PATH) == {
        "security_groups": ["db", "web"]
    }
    # Already there: not added twice.
    assert translate({"security_group": "web", "security_groups": ["web"]}, [rule], path=PATH) == {
        "security_groups": ["web"]
    }


def test_add_an_old_scalar_as_a_map_of_the_new_list() -> None:
    # RandomString's sequence: X became one more item {class: X} of character_classes.
    rule = TranslationRule(ADD, ("classes",), value_path=("sequence",), item_key="class")
    assert translate({"sequence": "digits"}, [rule], path=PATH) == {
        "classes": [{"class": "digits"}]
    }
    both = {"sequence": "digits", "classes": [{"class": "letters", "min": 2}]}
    assert translate(both, [rule], path=PATH) == {
        "classes": [{"class": "letters", "min": 2}, {"class": "digits"}]
    }
    sibling = TranslationRule(ADD, ("rules", "ports"), value_name="port", item_key="number")
    assert translate({"rules": [{"port": 80}]}, [sibling], path=PATH) == {
        "rules": [{"ports": [{"number": 80}]}]
    }
    unknown = {"sequence": {"get_param": "s"}}
    assert translate(unknown, [rule], path=PATH, unknown=contains_function) == unknown


def test_item_key_is_only_for_an_add_that_moves_an_old_property() -> None:
    for bad in (
        {"rule": REPLACE, "value_path": ("a",)},
        {"rule": ADD, "value": ["x"]},
        {"rule": ADD, "value_path": ("a",), "item_key": ""},
    ):
        fields = {"item_key": "class", **bad}
        with pytest.raises(InvalidInput, match="item_key is for an Add rule"):
            TranslationRule(translation_path=("classes",), **fields)


def test_add_a_fixed_list_and_a_sibling_in_list_items() -> None:
    fixed = TranslationRule(ADD, ("tags",), value=["managed"])
    assert translate({"tags": ["a"]}, [fixed], path=PATH) == {"tags": ["a", "managed"]}
    sibling = TranslationRule(ADD, ("rules", "ports"), value_name="port")
    values = {"rules": [{"port": 80}, {"ports": [22], "port": 443}, {"ports": [1]}]}
    assert translate(values, [sibling], path=PATH) == {
        "rules": [{"ports": [80]}, {"ports": [22, 443]}, {"ports": [1]}]
    }


def test_add_to_a_non_list_target_is_refused() -> None:
    rule = TranslationRule(ADD, ("security_groups",), value_path=("security_group",))
    assert problems({"security_group": "web", "security_groups": "db"}, rule) == [
        (
            f"{PATH}.security_groups",
            "is not a list, so values of replaced properties cannot be added.",
        )
    ]


def test_add_rule_only_adds_lists() -> None:
    with pytest.raises(InvalidInput, match="an Add rule can only add a list value"):
        TranslationRule(ADD, ("tags",), value="one")


# Case 5: a name or id resolved to an id with a finder.
FLAVORS = {"small": "f-1", "large": "f-2"}


def find_flavor(name_or_id: Any) -> str:
    if name_or_id in FLAVORS.values():
        return str(name_or_id)
    if name_or_id in FLAVORS:
        return FLAVORS[name_or_id]
    raise NotFound(f"No flavor named {name_or_id!r}.")


def test_resolve_name_to_id() -> None:
    rule = TranslationRule(RESOLVE, ("flavor",), finder=find_flavor)
    assert translate({"flavor": "small"}, [rule], path=PATH) == {"flavor": "f-1"}
    assert translate({"flavor": "f-2"}, [rule], path=PATH) == {"flavor": "f-2"}
    assert translate({}, [rule], path=PATH) == {}


def test_resolve_every_item_of_a_list_and_in_list_items() -> None:
    listed = TranslationRule(RESOLVE, ("flavors",), finder=find_flavor)
    assert translate({"flavors": ["small", "large"]}, [listed], path=PATH) == {
        "flavors": ["f-1", "f-2"]
    }
    nested = TranslationRule(RESOLVE, ("groups", "flavor"), finder=find_flavor)
    assert translate({"groups": [{"flavor": "large"}, {}]}, [nested], path=PATH) == {
        "groups": [{"flavor": "f-2"}, {}]
    }


def test_resolve_failure_names_the_path() -> None:
    rule = TranslationRule(RESOLVE, ("flavors",), finder=find_flavor)
    assert problems({"flavors": ["small", "huge"]}, rule) == [
        (f"{PATH}.flavors[1]", "cannot resolve 'huge': No flavor named 'huge'.")
    ]


def test_delete_top_level_and_in_every_list_item() -> None:
    top = TranslationRule(DELETE, ("legacy",))
    assert translate({"legacy": 1, "keep": 2}, [top], path=PATH) == {"keep": 2}
    items = TranslationRule(DELETE, ("networks", "legacy"))
    assert translate({"networks": [{"legacy": 1, "a": 1}, {"a": 2}]}, [items], path=PATH) == {
        "networks": [{"a": 1}, {"a": 2}]
    }


def test_conflict_between_old_and_new_names_both_paths() -> None:
    rule = TranslationRule(REPLACE, ("subnet",), value_path=("subnet_id",))
    assert problems({"subnet": "a", "subnet_id": "b"}, rule) == [
        (
            f"{PATH}.subnet_id",
            f"conflicts with {PATH}.subnet: both are set to different values; "
            f"set only {PATH}.subnet.",
        )
    ]


def test_rules_apply_in_order_and_every_problem_is_collected() -> None:
    rules = [
        TranslationRule(REPLACE, ("a",), value_path=("old_a",)),
        TranslationRule(REPLACE, ("b",), value_path=("old_b",)),
        TranslationRule(RESOLVE, ("a",), finder=find_flavor),
    ]
    assert translate({"old_a": "small"}, rules, path=PATH) == {"a": "f-1"}
    assert [p for p, _ in problems({"old_a": 1, "a": 2, "old_b": 1, "b": 2}, *rules)] == [
        f"{PATH}.old_a",
        f"{PATH}.old_b",
        f"{PATH}.a",
    ]


def test_translate_is_pure() -> None:
    values = {"networks": [{"uuid": "n"}], "port": "p"}
    before = copy.deepcopy(values)
    rules = [
        TranslationRule(REPLACE, ("networks", "network"), value_name="uuid"),
        TranslationRule(REPLACE, ("networks", "port"), value_path=("port",)),
    ]
    result = translate(values, rules, path=PATH)
    assert values == before
    assert result == {"networks": [{"network": "n", "port": "p"}]}


def test_unknown_values_are_left_alone_and_resolve_is_skipped() -> None:
    def is_function(value: Any) -> bool:
        return isinstance(value, dict) and "get_param" in value

    rules = [
        TranslationRule(ADD, ("groups",), value_path=("group",)),
        TranslationRule(REPLACE, ("size",), value_path=("count",)),
        TranslationRule(RESOLVE, ("flavor",), finder=find_flavor),
    ]
    values = {
        "group": "web",
        "groups": {"get_param": "g"},
        "count": {"get_param": "n"},
        "size": 3,
        "flavor": "no-such",
    }
    assert translate(values, rules, path=PATH, unknown=is_function) == values


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"rule": "Move", "translation_path": ("a",)}, "'Move' is not a translation rule"),
        ({"rule": REPLACE, "translation_path": ()}, "non-empty sequence of property names"),
        ({"rule": REPLACE, "translation_path": ("a",)}, "exactly one of value"),
        (
            {"rule": REPLACE, "translation_path": ("a",), "value": 1, "value_name": "b"},
            "exactly one of value",
        ),
        ({"rule": RESOLVE, "translation_path": ("a",)}, "needs a finder"),
        ({"rule": DELETE, "translation_path": ("a",), "value": 1}, "takes no value"),
        ({"rule": ADD, "translation_path": ("a",), "value_path": ()}, "value_path must be"),
    ],
)
def test_malformed_rules_are_refused(kwargs: dict[str, Any], reason: str) -> None:
    with pytest.raises(InvalidInput, match="Invalid translation rule") as info:
        TranslationRule(**kwargs)
    assert reason in info.value.problems[0].message


def test_paths_given_as_lists_become_tuples() -> None:
    rule = TranslationRule(REPLACE, ["a", "b"], value_path=["c"])  # type: ignore[arg-type]
    assert rule.translation_path == ("a", "b")
    assert rule.value_path == ("c",)
