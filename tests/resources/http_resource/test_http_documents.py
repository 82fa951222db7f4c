"""The JSON ConvTasks::HTTP::Resource sends and reads back: ids at id_path, the part of an
object its template sets, secrets masked."""

from __future__ import annotations

from conv_tasks.resources.builtin.http import MISSING, found_at, masked, placed_at, projected
from conv_tasks.resources.builtin.http.documents import MASK, depth


def test_an_id_is_found_at_a_dotted_path_through_maps_and_lists() -> None:
    answer = {"id": 3, "data": {"id": "a1", "items": [{"id": "first"}, {"id": None}]}}
    assert found_at(answer, "id") == 3
    assert found_at(answer, "data.id") == "a1"
    assert found_at(answer, "data.items.0.id") == "first"
    assert found_at(answer, "data.items.1.id") is None
    for absent in ("name", "data.name", "data.items.2.id", "data.items.x", "id.more"):
        assert found_at(answer, absent) is MISSING, absent
    assert found_at(None, "id") is MISSING
    assert found_at([{"id": 1}], "0.id") == 1


def test_an_id_is_placed_in_a_copy_making_maps_on_the_way() -> None:
    body = {"name": "web", "meta": {"team": "ops"}}
    assert placed_at(body, "id", "x") == {"name": "web", "meta": {"team": "ops"}, "id": "x"}
    assert placed_at(body, "meta.id", "x") == {"name": "web", "meta": {"team": "ops", "id": "x"}}
    assert placed_at(body, "a.b.id", "x") == {**body, "a": {"b": {"id": "x"}}}
    assert body == {"name": "web", "meta": {"team": "ops"}}  # untouched
    assert placed_at(body, "name.id", "x") is None  # through a string


def test_the_projection_keeps_what_the_template_sets_and_drops_what_the_service_adds() -> None:
    real = {"id": "x", "name": "web", "size": 2, "meta": {"team": "ops", "at": 5}, "tags": [1]}
    wanted = {"name": "web", "size": 3, "meta": {"team": "ops"}, "tags": [1, 2], "gone": 1}
    assert projected(real, wanted) == {
        "name": "web",
        "size": 2,
        "meta": {"team": "ops"},
        "tags": [1],
    }
    assert projected("text", {"a": 1}) == "text"


def test_secrets_are_masked_in_keys_and_strings_at_any_depth() -> None:
    answer = {"seen": "Bearer s3cret", "s3cret": [{"x": "a s3cret b"}], "n": 1}
    assert masked(answer, ("s3cret",)) == {
        "seen": f"Bearer {MASK}",
        MASK: [{"x": f"a {MASK} b"}],
        "n": 1,
    }
    assert masked(answer, ()) is answer
    assert masked(answer, ("",)) is answer


def test_depth_counts_nesting_without_recursion() -> None:
    assert depth(1) == 0
    assert depth({"a": [1, {"b": 2}]}) == 3
    deep: list = []
    here = deep
    for _ in range(5000):
        here.append([])
        here = here[0]
    assert depth(deep) == 5001
