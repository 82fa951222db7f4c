"""Adopting an object (external_id): the create step that observes instead of creating, what
it records for the next update to diff against, and when an external_id is refused."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

from conv_tasks.db.nodes import ResourceVersion
from conv_tasks.engine.node.adopt import (
    ADOPT,
    adopt,
    adopted_fields,
    adopting,
    adoption_refusal,
    adopts,
    replacement_refusal,
)
from conv_tasks.provider_errors import Fatal
from conv_tasks.resources import ActionContext, ResourceType
from conv_tasks.sdk import Observed
from conv_tasks.statuses import Action, Status
from conv_tasks.template.resolve import definition_hash


def view(**changes: Any) -> ResourceVersion:
    base = ResourceVersion(
        id=1,
        name="r",
        version=1,
        type="Test::Seen",
        physical_id="obj-1",
        action=Action.CREATE,
        status=Status.COMPLETE,
        status_reason="",
        template_id=1,
        properties={"value": "old"},
        attributes={},
        plugin_data={},
        definition_hash="h",
        requires=(),
        deletion_policy="Delete",
        replaces=None,
        replaced_by=None,
        lock_nonce=None,
        action_started_at=None,
    )
    return dataclasses.replace(base, **changes)


class Seen(ResourceType):
    """Observes a fixed world: id -> the properties it can read back."""

    type_name = "Test::Seen"
    world: Mapping[str, Mapping[str, Any]] = {"obj-1": {"value": "real"}}
    asked: list[str | None] = []

    def create(self, ctx: ActionContext) -> Any:
        raise AssertionError("an adopting resource must never be created")

    def observe(self, ctx: ActionContext) -> Observed | None:
        self.asked.append(ctx.physical_id)
        found = self.world.get(str(ctx.physical_id))
        if found is None:
            return Observed(exists=False)
        return Observed(exists=True, properties=found, data={"seen": ctx.physical_id})


def _ctx(**changes: Any) -> ActionContext:
    base = ActionContext(
        stack_id="s",
        resource_name="r",
        action=Action.CREATE,
        idempotency_token="s:1:CREATE",
        properties={"value": "wanted", "size": 1},
        old_properties=None,
        physical_id=None,
        data={},
        started_at=0.0,
        now=0.0,
        sandbox=None,  # type: ignore[arg-type]
    )
    return dataclasses.replace(base, **changes)


def test_adopting_observes_the_object_with_that_id_and_never_creates() -> None:
    ctx = adopting(_ctx(), "obj-1")
    assert adopts(ctx)
    assert not adopts(dataclasses.replace(ctx, action=Action.UPDATE))
    Seen.asked = []
    progress = adopt(Seen(), ctx)
    assert Seen.asked == ["obj-1"]
    assert progress.done and progress.physical_id == "obj-1"
    assert progress.data["seen"] == "obj-1"  # what the type keeps, as its create would
    assert progress.data[ADOPT] == {"id": "obj-1", "properties": {"value": "real"}}


def test_an_id_that_names_nothing_fails_naming_it() -> None:
    with pytest.raises(Fatal) as caught:
        adopt(Seen(), adopting(_ctx(), "obj-404"))
    assert "external_id 'obj-404' names no existing Test::Seen object" in str(caught.value)


def test_the_observed_properties_are_recorded_over_the_templates() -> None:
    data = {ADOPT: {"id": "obj-1", "properties": {"value": "real"}}}
    recorded = {"properties_data": {"value": "wanted", "size": 1}, "definition_hash": "t"}
    fields = adopted_fields(recorded, view(), data)
    # What observe cannot read keeps the template's value: only what differs is changed later.
    assert fields["properties_data"] == {"value": "real", "size": 1}
    assert fields["definition_hash"] != "t"
    assert len(fields["definition_hash"]) == 64
    assert fields["definition_hash"] != definition_hash("Test::Seen", {"value": "real"}, {})
    assert "adopted the existing object obj-1" in fields["status_reason"]


def test_an_object_that_already_matches_keeps_the_templates_hash() -> None:
    data = {ADOPT: {"id": "obj-1", "properties": {"value": "wanted"}}}
    recorded = {"properties_data": {"value": "wanted", "size": 1}, "definition_hash": "t"}
    fields = adopted_fields(recorded, view(), data)
    assert "properties_data" not in fields and "definition_hash" not in fields
    assert fields["status_reason"].startswith("adopted")


def test_a_create_that_adopted_nothing_records_nothing_more() -> None:
    assert adopted_fields({}, view(), {"id": "x"}) == {}
    assert adopted_fields({}, view(), {ADOPT: {"id": "x"}}) == {}  # not found yet


def test_external_id_cannot_be_added_to_or_changed_on_a_resource_with_an_object() -> None:
    assert adoption_refusal(view(), None) is None
    assert adoption_refusal(view(), "obj-1") is None  # the object it adopted
    changed = adoption_refusal(view(), "obj-2")
    assert changed is not None and "'obj-2' is not its object 'obj-1'" in changed
    # Nothing made yet, or a create that failed with no object: it adopts.
    assert adoption_refusal(view(action=Action.INIT, physical_id=None), "obj-2") is None
    assert adoption_refusal(view(status=Status.FAILED, physical_id=None), "obj-2") is None


def test_an_adopted_resource_is_not_replaced_while_it_names_external_id() -> None:
    refusal = replacement_refusal("obj-1", view(), "a property changed")
    assert refusal is not None and "cannot be replaced (a property changed)" in refusal
    assert replacement_refusal(None, view(), "why") is None
    assert replacement_refusal("obj-1", view(physical_id=None), "why") is None
