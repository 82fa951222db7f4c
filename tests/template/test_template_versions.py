"""The per-version function table follows Heat's HOTemplate classes."""

from __future__ import annotations

import pytest

from conv_tasks.template.versions import (
    CONDITION_FUNCTIONS,
    DATED_VERSIONS,
    FUNCTIONS,
    function_since,
    variant,
)

# Heat's functions tables, without the CloudFormation names (which conv_tasks refuses).
HEAT_2013 = {"get_attr", "get_file", "get_param", "get_resource", "list_join",
             "resource_facade", "str_replace"}  # fmt: skip
HEAT_2015_04 = HEAT_2013 | {"repeat", "digest"}
HEAT_2015_10 = HEAT_2015_04 | {"str_split"}
HEAT_2016_04 = HEAT_2015_10 | {"map_merge"}
HEAT_2016_10 = HEAT_2016_04 | {"yaql", "map_replace", "if"}
HEAT_2017_02 = HEAT_2016_10 | {"filter", "str_replace_strict"}
HEAT_2017_09 = HEAT_2017_02 | {"make_url", "list_concat", "str_replace_vstrict",
                               "list_concat_unique", "contains"}  # fmt: skip


@pytest.mark.parametrize(
    ("version", "names"),
    [
        ("2013-05-23", HEAT_2013),
        ("2014-10-16", HEAT_2013),
        ("2015-04-30", HEAT_2015_04),
        ("2015-10-15", HEAT_2015_10),
        ("2016-04-08", HEAT_2016_04),
        ("2016-10-14", HEAT_2016_10),
        ("2017-02-24", HEAT_2017_02),
        ("2017-09-01", HEAT_2017_09),
        ("2018-03-02", HEAT_2017_09),
        ("2018-08-31", HEAT_2017_09),
        ("2021-04-16", HEAT_2017_09),
    ],
)
def test_functions_of_each_version(version: str, names: set[str]) -> None:
    assert set(FUNCTIONS[version]) == names


def test_every_version_has_a_table() -> None:
    assert set(FUNCTIONS) == set(DATED_VERSIONS) == set(CONDITION_FUNCTIONS)


@pytest.mark.parametrize(
    ("function", "versions_and_variants"),
    [
        ("get_attr", [("2013-05-23", "then_select"), ("2014-10-16", "path"),
                      ("2015-04-30", "path"), ("2015-10-15", "all_attributes")]),
        ("list_join", [("2015-04-30", "single"), ("2015-10-15", "multiple")]),
        ("str_replace", [("2015-04-30", "plain"), ("2015-10-15", "json")]),
        ("repeat", [("2015-04-30", "lists"), ("2016-04-08", "lists"), ("2016-10-14", "maps"),
                    ("2017-02-24", "maps"), ("2017-09-01", "permutations")]),
        ("if", [("2018-08-31", "three"), ("2021-04-16", "nullable")]),
    ],
)  # fmt: skip
def test_variants_change_where_heat_changes_the_class(
    function: str, versions_and_variants: list[tuple[str, str]]
) -> None:
    for version, expected in versions_and_variants:
        assert variant(function, version) == expected, version


def test_condition_functions() -> None:
    assert CONDITION_FUNCTIONS["2015-10-15"] == frozenset()
    assert CONDITION_FUNCTIONS["2016-10-14"] == {"get_param", "equals", "not", "and", "or"}
    assert CONDITION_FUNCTIONS["2017-09-01"] == {
        "get_param", "equals", "not", "and", "or", "yaql", "contains"
    }  # fmt: skip


def test_function_since() -> None:
    assert function_since("list_join") == "2013-05-23"
    assert function_since("equals") == "2016-10-14"
    assert function_since("contains") == "2017-09-01"
    assert function_since("nothing") is None
