"""Stack tags: which are refused and where, and heatclient's four list filters."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import PayloadError
from conv_tasks.limits import MAX_TAG_CHARS, MAX_TAGS
from conv_tasks.tags import TagFilter, checked_tags, split_tags, tag_problems
from conv_tasks.tasks.contracts import public_tasks
from conv_tasks.tasks.payloads import parse_payload


def problems(tags: Any) -> dict[str, str]:
    with pytest.raises(PayloadError) as caught:
        checked_tags(tags)
    return {p.path: p.message for p in caught.value.problems}


def test_tags_keep_their_order_and_lose_repeats() -> None:
    assert checked_tags(["b", "a", "b"]) == ("b", "a")
    assert checked_tags([]) == ()


def test_each_bad_tag_is_named_by_its_index() -> None:
    found = problems(["ok", "", "x" * (MAX_TAG_CHARS + 1), "a,b", 7, "tab\there"])
    assert set(found) == {"tags[1]", "tags[2]", "tags[3]", "tags[4]", "tags[5]"}
    assert "empty" in found["tags[1]"]
    assert "MAX_TAG_CHARS" in found["tags[2]"]
    assert "comma" in found["tags[3]"]
    assert "string" in found["tags[4]"]
    assert "control character" in found["tags[5]"]


def test_too_many_tags_names_the_limit() -> None:
    found = problems([f"t{i}" for i in range(MAX_TAGS + 1)])
    assert "MAX_TAGS" in found["tags"]


def test_tags_must_be_a_list() -> None:
    assert "list of tags" in problems("a,b")["tags"]


def test_split_tags_reads_the_cli_form() -> None:
    assert split_tags("a, b,c") == ["a", "b", "c"]
    assert split_tags("") == []


STACKS = {
    "none": (),
    "a": ("a",),
    "ab": ("a", "b"),
    "bc": ("b", "c"),
    "abc": ("a", "b", "c"),
}


def kept(tag_filter: TagFilter) -> set[str]:
    return {name for name, tags in STACKS.items() if tag_filter.matches(tags)}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, {"none", "a", "ab", "bc", "abc"}),
        ({"tags": ["a", "b"]}, {"ab", "abc"}),
        ({"tags_any": ["a", "c"]}, {"a", "ab", "bc", "abc"}),
        ({"not_tags": ["a", "b"]}, {"none", "a", "bc"}),
        ({"not_tags_any": ["a", "c"]}, {"none"}),
        ({"tags": ["b"], "not_tags_any": ["c"]}, {"ab"}),
        ({"tags_any": ["a"], "not_tags": ["a", "c"]}, {"a", "ab"}),
    ],
)
def test_filters_mean_what_heatclient_says(filters: dict[str, Any], expected: set[str]) -> None:
    assert kept(TagFilter.build(**filters)) == expected


def test_an_empty_filter_is_false_and_a_bad_one_is_refused_at_its_name() -> None:
    assert not TagFilter.build()
    assert TagFilter.build(tags_any=["x"])
    with pytest.raises(PayloadError) as caught:
        TagFilter.build(not_tags=["ok", ""])
    assert [p.path for p in caught.value.problems] == ["not_tags[1]"]


def test_the_payload_refuses_a_bad_tag_at_its_index() -> None:
    fields = public_tasks()["conv_tasks.stack.create"]
    assert [f.check for f in fields if f.name == "tags"] == [tag_problems]
    with pytest.raises(PayloadError) as caught:
        parse_payload(
            "conv_tasks.stack.create",
            {"tenant": "t", "name": "s", "template": {}, "tags": ["fine", "a,b"]},
            fields,
        )
    assert [p.path for p in caught.value.problems] == ["tags[1]"]
