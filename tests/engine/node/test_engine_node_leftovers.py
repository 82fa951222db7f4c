"""A create that ended without a physical id still gets a delete, by its create's token
(issue 31, item 4): cancelled, failed, rolled back, replaced, its worker killed mid-step, then
the stack deleted, nothing it made is left on the sandbox. A version that never began a
create, one whose create completed, and a type that makes nothing get no such call. On the
stand-ins, one delivery at a time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, ClassVar

import pytest
from standins import (
    RecordingDispatcher,
    StandinDatabase,
    SteppedResource,
    standin_env,
    stepped_registry,
    template,
)

from conv_tasks.db import ResourceRow, ResourceVersion
from conv_tasks.engine import ChangeRequest, EngineEnv, NewStackRequest, Outcome, TenantStacks
from conv_tasks.engine.node.adopt import ADOPT
from conv_tasks.engine.node.leftovers import create_token, unaccounted, unfinished_create
from conv_tasks.resources import ActionContext, Progress
from conv_tasks.resources.builtin.test_resource import SANDBOX_KIND
from conv_tasks.statuses import Action, Status

MADE_FIRST = "Test::MadeFirst"
# The contexts every delete of a MadeFirst got: (physical id, create token).
seen_deletes: list[tuple[str | None, str | None]] = []


class WorkerDied(BaseException):
    """The worker running the step died right after the service acted (nothing caught it)."""


class MadeFirstResource(SteppedResource):
    """A stepped resource whose service makes the object as its create starts; the type
    learns the object's id only when the create ends (after `polls` polls). With `die`,
    the worker dies right after the object is made, before the step returns."""

    __test__ = False
    type_name: ClassVar[str] = MADE_FIRST

    def create(self, ctx: ActionContext) -> Progress:
        ctx.sandbox.create(ctx.idempotency_token, SANDBOX_KIND, {"value": ctx.properties["value"]})
        if ctx.properties.get("update_replace_value") == "die":
            raise WorkerDied(ctx.resource_name)
        progress = super().create(ctx)
        return replace(progress, physical_id=None) if not progress.done else progress

    def delete(self, ctx: ActionContext) -> Progress:
        seen_deletes.append((ctx.physical_id, ctx.create_token))
        return super().delete(ctx)


@pytest.fixture
def env() -> EngineEnv:
    seen_deletes.clear()
    return standin_env(registry=stepped_registry().with_types({MADE_FIRST: MadeFirstResource}))


def made_first(value: str = "v1", **properties: Any) -> dict[str, Any]:
    return {"type": MADE_FIRST, "properties": {"value": value, **properties}}


def _create(stacks: TenantStacks, resources: Mapping[str, Any], *, rollback: bool = False) -> str:
    request = NewStackRequest("web", template(resources), {}, disable_rollback=not rollback)
    return stacks.create(request).stack_id


def _versions(db: StandinDatabase, stack_id: str, name: str = "r") -> list[ResourceRow]:
    return [row for row in db.resources(stack_id) if row.name == name]


def _live_objects(db: StandinDatabase) -> list[str]:
    return sorted(str(o["properties"]["value"]) for o in db.sandbox_objects() if not o["deleted"])


def _delete_events(db: StandinDatabase, stack_id: str, name: str) -> list[str]:
    return [
        e.state
        for e in db.events(stack_id)
        if e.resource_name == name and e.state.startswith("DELETE")
    ]


def test_a_cancelled_create_that_made_its_object_is_deleted_by_its_token(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"r": made_first(polls=3)})
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING
    assert _live_objects(db) == ["v1"]

    stacks.cancel(stack_id, rollback=False)
    dispatcher.drain(stacks.env)
    [row] = _versions(db, stack_id)
    assert (row.state, row.physical_id) == ("CREATE_FAILED", None)
    assert "interrupted" in row.status_reason
    assert _live_objects(db) == ["v1"]  # the cancel stops the create; it deletes nothing

    stacks.delete(stack_id)
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "DELETE_COMPLETE"
    assert _live_objects(db) == []
    assert seen_deletes == [(None, f"{stack_id}:{row.id}:CREATE")]


def test_a_failed_create_is_deleted_by_its_token_on_rollback(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"r": made_first(polls=1, fail=True)}, rollback=True)
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "ROLLBACK_COMPLETE"
    assert _live_objects(db) == []
    assert seen_deletes and seen_deletes[0][0] is None


def test_a_replacement_of_a_failed_create_deletes_what_it_left(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"r": made_first("v1", polls=1, fail=True)})
    dispatcher.drain(stacks.env)
    [failed] = _versions(db, stack_id)
    assert (failed.state, failed.physical_id) == ("CREATE_FAILED", None)

    # The next update replaces it ("the previous create failed"); the new version's write
    # must not purge the old row as if it held nothing: its clean-up deletes by token.
    stacks.update("web", ChangeRequest(template({"r": made_first("v2", polls=1)}), {}))
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "UPDATE_COMPLETE"
    [head] = _versions(db, stack_id)
    assert head.state == "CREATE_COMPLETE"
    assert _live_objects(db) == ["v2"]
    assert seen_deletes == [(None, f"{stack_id}:{failed.id}:CREATE")]
    assert _delete_events(db, stack_id, "r") == ["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]


def test_a_create_whose_worker_died_mid_step_is_recorded_and_deleted_by_its_token(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"r": made_first(update_replace_value="die")})
    with pytest.raises(WorkerDied):
        dispatcher.deliver(stacks.env)
    # The create was recorded as begun, with its properties, before the type acted.
    [row] = _versions(db, stack_id)
    assert (row.state, row.physical_id) == ("CREATE_IN_PROGRESS", None)
    assert row.properties_data["value"] == "v1"
    assert _live_objects(db) == ["v1"]

    stacks.delete(stack_id)
    # The clean-up waits out the dead worker's lease, then deletes by the create's token.
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "DELETE_COMPLETE"
    assert _live_objects(db) == []
    assert seen_deletes == [(None, f"{stack_id}:{row.id}:CREATE")]


def test_a_version_that_never_began_its_create_gets_no_delete(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(
        stacks,
        {
            "a": made_first("a", polls=1, fail=True),
            "b": {**made_first("b"), "depends_on": ["a"]},
        },
    )
    dispatcher.drain(stacks.env)
    [a], [b] = _versions(db, stack_id, "a"), _versions(db, stack_id, "b")
    assert (a.state, b.state) == ("CREATE_FAILED", "INIT_COMPLETE")

    stacks.delete(stack_id)
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "DELETE_COMPLETE"
    assert _delete_events(db, stack_id, "b") == []
    assert seen_deletes == [(None, f"{stack_id}:{a.id}:CREATE")]


def test_the_version_an_update_in_place_took_the_object_from_gets_no_delete_by_token(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"r": made_first("v1")})
    dispatcher.drain(stacks.env)
    # An update in place that fails leaves the first version (its object handed on) behind.
    stacks.update("web", ChangeRequest(template({"r": made_first("v2", fail=True)}), {}))
    dispatcher.drain(stacks.env)
    assert [v.state for v in _versions(db, stack_id)] == ["CREATE_COMPLETE", "UPDATE_FAILED"]

    stacks.update("web", ChangeRequest(template({"r": made_first("v3")}), {}))
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "UPDATE_COMPLETE"
    [head] = _versions(db, stack_id)
    assert head.state == "UPDATE_COMPLETE"
    # The object made by the first version's create is the resource's: it stays.
    assert _live_objects(db) == ["v3"]
    assert seen_deletes == []


def test_a_version_whose_type_is_gone_is_dropped_as_before(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"r": made_first(polls=1, fail=True)})
    dispatcher.drain(stacks.env)
    # The type is no longer installed: nothing can be asked to delete by token.
    stacks.env.registry = stepped_registry()
    stacks.delete(stack_id)
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "DELETE_COMPLETE"
    assert seen_deletes == []
    assert _live_objects(db) == ["v1"]


def test_a_type_that_makes_nothing_is_not_recorded_before_its_step(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"n": {"type": "OS::Heat::None"}})
    before = len(db.events(stack_id))
    assert dispatcher.deliver(stacks.env).outcome == Outcome.COMPLETE
    [row] = _versions(db, stack_id, "n")
    assert row.state == "CREATE_COMPLETE"
    assert [e.state for e in db.events(stack_id)[before:] if e.resource_name == "n"] == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
    ]


# ------------------------------------------------------------------ the decision, pure


def _version(action: Action, status: Status, **fields: Any) -> ResourceVersion:
    values: dict[str, Any] = {
        "id": 7,
        "name": "r",
        "version": 0,
        "type": MADE_FIRST,
        "physical_id": None,
        "action": action,
        "status": status,
        "status_reason": "",
        "template_id": 1,
        "properties": {"value": "v1"},
        "attributes": {},
        "plugin_data": {},
        "definition_hash": "h",
        "requires": (),
        "deletion_policy": "Delete",
        "replaces": None,
        "replaced_by": None,
        "lock_nonce": None,
        "action_started_at": datetime.now(UTC),
    }
    return ResourceVersion(**{**values, **fields})


@pytest.mark.parametrize(
    ("action", "status", "fields", "expected"),
    [
        (Action.INIT, Status.COMPLETE, {}, False),  # never began
        (Action.CREATE, Status.IN_PROGRESS, {}, True),  # abandoned, or its worker died
        (Action.CREATE, Status.FAILED, {}, True),  # failed, interrupted, timed out
        (Action.CREATE, Status.COMPLETE, {}, False),  # done: an update took its object on
        (Action.DELETE, Status.IN_PROGRESS, {}, True),  # a delete by token under way
        (Action.DELETE, Status.FAILED, {}, True),  # a delete by token to try again
        (Action.DELETE, Status.COMPLETE, {}, False),  # deleted
        (Action.UPDATE, Status.FAILED, {}, False),  # its object went to a newer version
        (Action.CREATE, Status.FAILED, {"physical_id": "p"}, False),  # deleted by its id
        (Action.CREATE, Status.FAILED, {"plugin_data": {ADOPT: {"id": "x"}}}, False),
    ],
)
def test_which_versions_need_a_delete_by_token(
    action: Action, status: Status, fields: dict[str, Any], expected: bool
) -> None:
    version = _version(action, status, **fields)
    assert unfinished_create(version) is expected
    assert unaccounted(version, makes_objects=True) is expected
    assert unaccounted(version, makes_objects=False) is False


def test_the_create_token_names_the_version_and_its_create() -> None:
    assert create_token("s1", _version(Action.CREATE, Status.FAILED)) == "s1:7:CREATE"


def test_a_delete_by_token_is_polled_until_it_ends(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = _create(stacks, {"r": made_first(polls=2)})
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING
    stacks.cancel(stack_id, rollback=False)
    dispatcher.drain(stacks.env)
    [row] = _versions(db, stack_id)

    stacks.delete(stack_id)
    # The delete takes two polls too (Test::Stepped); its polls still name the create's token.
    assert [d.outcome for d in dispatcher.drain(stacks.env)].count(Outcome.POLLING) == 2
    assert db.stack(stack_id).state == "DELETE_COMPLETE"
    assert _live_objects(db) == []
    assert seen_deletes == [(None, f"{stack_id}:{row.id}:CREATE")]
