"""Stack tags through real workers: stored on create, replaced, kept or cleared on update as
Heat does, shown, and filtered in the listing."""

from __future__ import annotations

import pytest
from integration_support import template

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput

EMPTY = template({"n": {"type": "OS::Heat::None"}})
OTHER = template({"m": {"type": "OS::Heat::None"}})


def make(client: Client, name: str, tags: list[str]) -> str:
    stack_id = client.create(name, EMPTY, tags=tags)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    return str(stack_id)


def names(stacks: list[dict[str, object]]) -> set[object]:
    return {s["name"] for s in stacks}


def test_tags_are_stored_shown_and_filtered(client: Client) -> None:
    make(client, "plain", [])
    make(client, "web", ["prod", "web"])
    make(client, "db", ["prod", "db"])
    make(client, "dev", ["dev", "web"])

    assert client.get("web")["tags"] == ["prod", "web"]
    listed = {s["name"]: s["tags"] for s in client.list()}
    assert listed == {
        "plain": [],
        "web": ["prod", "web"],
        "db": ["prod", "db"],
        "dev": ["dev", "web"],
    }

    assert names(client.list(tags=["prod", "web"])) == {"web"}
    assert names(client.list(tags_any=["db", "dev"])) == {"db", "dev"}
    assert names(client.list(not_tags=["prod", "web"])) == {"plain", "db", "dev"}
    assert names(client.list(not_tags_any=["web"])) == {"plain", "db"}
    assert names(client.list(tags=["prod"], not_tags_any=["db"])) == {"web"}


def test_update_replaces_keeps_or_clears_tags_as_heat(client: Client) -> None:
    stack_id = make(client, "tagged", ["a", "b"])

    client.update(stack_id, parameters={})  # no new template: a PATCH, tags kept
    assert client.wait(stack_id)["tags"] == ["a", "b"]
    client.update(stack_id, OTHER, existing_parameters=True)  # PATCH with a template: kept
    assert client.wait(stack_id)["tags"] == ["a", "b"]
    client.update(stack_id, EMPTY, tags=["c"])  # given: replaced
    assert client.wait(stack_id)["tags"] == ["c"]
    client.update(stack_id, OTHER)  # a full update without tags clears them (Heat's PUT)
    assert client.wait(stack_id)["tags"] == []


def test_a_bad_tag_is_refused_by_index_and_changes_nothing(client: Client) -> None:
    with pytest.raises(InvalidInput) as info:
        client.create("refused", EMPTY, tags=["ok", "a,b"])
    assert "tags[1]" in str(info.value)
    assert client.list() == []
    stack_id = make(client, "kept", ["x"])
    with pytest.raises(InvalidInput) as info:
        client.update(stack_id, EMPTY, tags=[" "])
    assert "tags[0]" in str(info.value)
    assert client.get(stack_id)["tags"] == ["x"]
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"
    with pytest.raises(InvalidInput) as info:
        client.list(tags_any=["x" * 81])
    assert "tags_any" in str(info.value)
