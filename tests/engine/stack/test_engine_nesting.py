"""The pure rules of nested stacks: a child's name, its depth, and the refusals."""

from __future__ import annotations

import pytest

from conv_tasks.engine import check_stack_name
from conv_tasks.engine.stack.nesting import (
    SHORT_ID_CHARS,
    child_stack_name,
    nesting_of_child,
    refuse_direct_change,
)
from conv_tasks.errors import Conflict, NotSupported
from conv_tasks.limits import MAX_NAME_CHARS, MAX_NESTING_DEPTH


def test_a_child_is_named_after_its_parent_and_resource_and_the_token() -> None:
    name = child_stack_name("web", "db", "stack:1:CREATE")
    assert name.startswith("web-db-") and len(name) == len("web-db-") + SHORT_ID_CHARS
    assert name == child_stack_name("web", "db", "stack:1:CREATE")  # a step run again
    assert name != child_stack_name("web", "db", "stack:2:CREATE")


def test_a_child_name_is_always_a_valid_stack_name() -> None:
    name = child_stack_name("p" * MAX_NAME_CHARS, "a resource/with:odd chars", "t")
    assert len(name) <= MAX_NAME_CHARS
    check_stack_name(name)
    odd = child_stack_name("p", "a resource/with:odd chars", "t")
    assert odd.startswith("p-a-resource-with-odd-chars-")
    check_stack_name(odd)


def test_depth_is_counted_and_limited() -> None:
    first = nesting_of_child("parent-id", "top", 0, "inner")
    assert (first.parent_stack_id, first.parent_resource, first.depth) == ("parent-id", "inner", 1)
    assert nesting_of_child("p", "deep", MAX_NESTING_DEPTH - 1, "r").depth == MAX_NESTING_DEPTH
    with pytest.raises(NotSupported) as refused:
        nesting_of_child("p", "deep", MAX_NESTING_DEPTH, "r")
    message = str(refused.value)
    assert "MAX_NESTING_DEPTH" in message and "Resource r of stack 'deep'" in message


def test_a_direct_change_names_the_parent() -> None:
    with pytest.raises(Conflict) as refused:
        refuse_direct_change("web-db-abc", "web", "db")
    assert "nested in stack 'web' (resource db)" in str(refused.value)
