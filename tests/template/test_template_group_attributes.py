"""get_attr on a group: its attributes assembled from its members, with Heat's meaning of each
name (conv_tasks/template/group_attributes.py)."""

from __future__ import annotations

import pytest

from conv_tasks.errors import InvalidInput, NotFound
from conv_tasks.template.group_attributes import (
    GroupView,
    MemberData,
    group_attribute,
    reference_problem,
)

# Members 0, 2 and 10 (1 was removed by a policy); ordered by index, not as strings.
VIEW = GroupView(
    group="grp",
    names=("0", "2", "10"),
    members={
        "0": MemberData("0", "id-0", {"name": "n0", "net": {"ips": ["a0", "b0"]}}),
        "2": MemberData("2", "id-2", {"name": "n2", "net": {"ips": ["a2"]}}),
        "10": MemberData("10", "id-10", {"name": "n10", "net": {}, "a.b": "dotted"}),
    },
    skiplist=("1", "11"),
)


def test_refs_in_index_order() -> None:
    assert group_attribute(VIEW, "refs") == ["id-0", "id-2", "id-10"]


def test_refs_with_a_path_selects_from_the_list() -> None:
    assert group_attribute(VIEW, "refs", [1]) == "id-2"
    assert group_attribute(VIEW, "refs", ["2"]) == "id-10"
    assert group_attribute(VIEW, "refs", [7]) is None


def test_refs_map() -> None:
    assert group_attribute(VIEW, "refs_map") == {"0": "id-0", "2": "id-2", "10": "id-10"}
    assert group_attribute(VIEW, "refs_map", ["10"]) == "id-10"


def test_attributes_maps_member_names_to_the_named_attribute() -> None:
    assert group_attribute(VIEW, "attributes", ["name"]) == {"0": "n0", "2": "n2", "10": "n10"}


def test_attributes_applies_the_rest_of_the_path_to_each_member() -> None:
    assert group_attribute(VIEW, "attributes", ["net", "ips", 0]) == {
        "0": "a0",
        "2": "a2",
        "10": None,
    }


def test_attributes_without_a_name_is_refused() -> None:
    with pytest.raises(InvalidInput) as exc:
        group_attribute(VIEW, "attributes")
    assert exc.value.problems[0].path == "grp.attributes"
    assert "needs the name of a member attribute" in exc.value.problems[0].message


def test_a_member_attribute_name_gives_the_list_of_every_members() -> None:
    assert group_attribute(VIEW, "name") == ["n0", "n2", "n10"]


def test_a_member_attribute_path_applies_to_each_member_not_to_the_list() -> None:
    assert group_attribute(VIEW, "net", ["ips", 0]) == ["a0", "a2", None]
    assert group_attribute(VIEW, "net", ["ips"]) == [["a0", "b0"], ["a2"], None]


def test_an_attribute_no_member_has_is_a_list_of_nothing() -> None:
    assert group_attribute(VIEW, "missing") == [None, None, None]


def test_resource_n_is_the_members_reference() -> None:
    assert group_attribute(VIEW, "resource.10") == "id-10"


def test_resource_n_attr() -> None:
    assert group_attribute(VIEW, "resource.2.name") == "n2"
    assert group_attribute(VIEW, "resource.0.net", ["ips", 1]) == "b0"


def test_resource_n_with_a_path_reads_the_attribute_named_first() -> None:
    assert group_attribute(VIEW, "resource.0", ["name"]) == "n0"
    assert group_attribute(VIEW, "resource.0", ["net", "ips", 0]) == "a0"


def test_attribute_names_after_resource_n_may_contain_dots() -> None:
    assert group_attribute(VIEW, "resource.10.a.b") == "dotted"


def test_a_member_the_group_does_not_have_is_not_found() -> None:
    with pytest.raises(NotFound) as exc:
        group_attribute(VIEW, "resource.1")
    assert str(exc.value) == "Resource group 'grp' has no member '1' (its members: 0, 2, 10)."
    with pytest.raises(NotFound):
        group_attribute(VIEW, "resource.3.name")


def test_resource_without_a_member_is_refused() -> None:
    with pytest.raises(InvalidInput):
        group_attribute(VIEW, "resource.")


def test_removed_rsrc_list_is_the_sorted_skip_list() -> None:
    view = GroupView("grp", (), {}, skiplist=("3", "1"))
    assert group_attribute(view, "removed_rsrc_list") == ["1", "3"]
    assert group_attribute(view, "removed_rsrc_list", [0]) == "1"


def test_members_without_data_yet_read_as_nothing() -> None:
    view = GroupView("grp", ("0", "1"), {"0": MemberData("0", "id-0", {"name": "n0"})})
    assert group_attribute(view, "refs") == ["id-0", None]
    assert group_attribute(view, "name") == ["n0", None]
    assert group_attribute(view, "resource.1") is None


def test_an_empty_group() -> None:
    view = GroupView("grp", (), {})
    assert group_attribute(view, "refs") == []
    assert group_attribute(view, "refs_map") == {}
    assert group_attribute(view, "attributes", ["name"]) == {}
    assert group_attribute(view, "name") == []


def test_attributes_leave_member_data_alone() -> None:
    value = group_attribute(VIEW, "net")
    assert value[0] is VIEW.members["0"].attributes["net"]
    # Selecting does not change anything either.
    group_attribute(VIEW, "net", ["ips", 0])
    assert VIEW.members["0"].attributes["net"] == {"ips": ["a0", "b0"]}


@pytest.mark.parametrize(
    ("key", "path", "ok"),
    [
        ("attributes", [], False),
        ("attributes", ["name"], True),
        ("resource.", [], False),
        ("resource.0", [], True),
        ("refs", [], True),
        ("anything", [], True),
    ],
)
def test_reference_problem_for_validation(key: str, path: list[str], ok: bool) -> None:
    assert (reference_problem(key, path) is None) is ok
