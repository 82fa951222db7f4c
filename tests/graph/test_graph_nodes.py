"""NodeKey: text round trip and rejection of malformed text."""

from __future__ import annotations

import pickle

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.graph import NodeKey, Phase
from conv_tasks.graph.nodes import sort_key


@pytest.mark.parametrize(
    "key",
    [
        NodeKey(Phase.UPDATE, "web"),
        NodeKey(Phase.CLEANUP, "web"),
        NodeKey(Phase.UPDATE, "a:b:c"),
        NodeKey(Phase.CLEANUP, ":"),
        NodeKey(Phase.UPDATE, "update:x"),
        NodeKey(Phase.CHECK, "web"),
    ],
)
def test_round_trip(key: NodeKey) -> None:
    assert NodeKey.parse(str(key)) == key


def test_str_format() -> None:
    assert str(NodeKey(Phase.UPDATE, "web")) == "update:web"
    assert str(NodeKey(Phase.CLEANUP, "db:1")) == "cleanup:db:1"
    assert str(NodeKey(Phase.CHECK, "db")) == "check:db"


@pytest.mark.parametrize(
    "text",
    ["", "web", "update", "update:", ":web", "delete:web", "UPDATE:web", " update:web"],
)
def test_parse_rejects_malformed(text: str) -> None:
    with pytest.raises(InvalidInput) as info:
        NodeKey.parse(text)
    assert repr(text) in str(info.value)


def test_parse_rejects_non_string() -> None:
    with pytest.raises(InvalidInput):
        NodeKey.parse(42)  # type: ignore[arg-type]


def test_constructor_rejects_bad_phase_and_empty_name() -> None:
    with pytest.raises(InvalidInput):
        NodeKey("delete", "web")
    with pytest.raises(InvalidInput):
        NodeKey(Phase.UPDATE, "")


def test_ordering_is_by_phase_then_name() -> None:
    keys = [NodeKey(Phase.UPDATE, "a"), NodeKey(Phase.CLEANUP, "b"), NodeKey(Phase.CLEANUP, "a")]
    assert sorted(keys) == [
        NodeKey(Phase.CLEANUP, "a"),
        NodeKey(Phase.CLEANUP, "b"),
        NodeKey(Phase.UPDATE, "a"),
    ]


def test_equal_keys_hash_alike_and_survive_pickle() -> None:
    key = NodeKey(Phase.UPDATE, "web")
    assert hash(key) == hash(NodeKey(Phase.UPDATE, "web"))
    assert {key: 1}[NodeKey(Phase.UPDATE, "web")] == 1
    again = pickle.loads(pickle.dumps(key))
    assert again == key and hash(again) == hash(key)


def test_sort_key_matches_ordering() -> None:
    keys = [NodeKey(p, n) for p in (Phase.UPDATE, Phase.CLEANUP) for n in ("b", "a:z", "a", "B")]
    assert sorted(keys, key=sort_key) == sorted(keys)
