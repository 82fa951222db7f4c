"""The pure parts of checking nested stacks: the child check's traversal id from the parent's
check key, and the secret texts a parent hands down."""

from __future__ import annotations

import uuid

from conv_tasks.engine.features.nested.child_stacks import _texts
from conv_tasks.engine.stack import child_check_traversal


def test_a_key_always_names_the_same_child_check_and_keys_differ() -> None:
    first = child_check_traversal("stack:12:CHECK:trav-a")
    assert first == child_check_traversal("stack:12:CHECK:trav-a")
    assert first != child_check_traversal("stack:12:CHECK:trav-b")
    assert str(uuid.UUID(first)) == first  # a traversal id like any other (a UUID)


def test_secret_texts_are_found_however_nested() -> None:
    value = {"token": "t0k", "more": ["a", {"b": "c"}, 3, None], "n": 1}
    assert sorted(_texts(value)) == ["a", "c", "t0k"]
    assert _texts("plain") == ["plain"]
    assert _texts(42) == []
