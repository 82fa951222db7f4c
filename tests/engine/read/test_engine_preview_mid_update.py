"""A preview while an update is under way says what applying would do (issue 31, item 5).

The node that meets an action under way finishes it with that action's definition, then
converges afresh to the new one: a property that cannot change in place then replaces the
resource, and the preview must say replace, not "update (UPDATE was interrupted)". A
resource that reads one whose action is under way is resolved with the last output that
one recorded, not refused for an attribute it does have.
"""

from __future__ import annotations

from typing import Any

from standins import RecordingDispatcher, StandinDatabase, stepped, template

from conv_tasks.engine import ChangeRequest, NewStackRequest, Outcome, TenantStacks
from conv_tasks.engine.read.preview import preview_stack

READER = {
    "type": "OS::Heat::TestResource",
    "properties": {"value": {"get_attr": ["web", "output"]}},
}


def _stack(web: dict[str, Any]) -> dict[str, Any]:
    return template({"web": web, "app": READER})


def _mid_update(stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher) -> str:
    """A stack whose update of web (in place, two polls) has started and not finished."""
    created = stacks.create(
        NewStackRequest("s", _stack(stepped("a", polls=1, update_replace_value="x")), {})
    )
    dispatcher.drain(stacks.env)
    stacks.update("s", ChangeRequest(_stack(stepped("b", polls=2, update_replace_value="x")), {}))
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING
    [head] = [r for r in db.resources(created.stack_id) if r.name == "web" and r.is_head]
    assert head.state == "UPDATE_IN_PROGRESS"
    return created.stack_id


def _entries(stacks: TenantStacks, new: dict[str, Any]) -> dict[str, dict[str, Any]]:
    report = preview_stack(
        stacks.env, tenant=stacks.tenant, stack_ref="s", template=new, parameters={}
    )
    return {entry["name"]: entry for entry in report["resources"]}


def test_a_change_that_cannot_be_made_in_place_replaces_even_mid_update(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    _mid_update(stacks, db, dispatcher)
    before = db.snapshot()

    entries = _entries(stacks, _stack(stepped("b", polls=2, update_replace_value="y")))

    web = entries["web"]
    assert web["action"] == "replace", web
    assert web["reason"] == (
        "its UPDATE under way finishes first; then: a property that cannot be updated in "
        "place changed"
    )
    assert web["changes"] == {"update_replace_value": {"old": "x", "new": "y"}}
    assert db.snapshot() == before  # a preview writes nothing


def test_the_same_template_mid_update_says_the_update_finishes(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    _mid_update(stacks, db, dispatcher)

    web = _entries(stacks, _stack(stepped("b", polls=2, update_replace_value="x")))["web"]

    assert (web["action"], web["reason"]) == (
        "update",
        "its UPDATE under way finishes first; then nothing more changes",
    )


def test_a_reader_of_a_resource_under_way_is_resolved_with_its_last_output(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    _mid_update(stacks, db, dispatcher)

    app = _entries(stacks, _stack(stepped("b", polls=2, update_replace_value="x")))["app"]

    assert "has no attribute" not in str(app), app
    assert app["uncertain"] == (
        "reads web's UPDATE under way: its values here are the last ones recorded, the new "
        "ones are known when it finishes"
    )
    assert app["action"] == "unchanged"  # web's last output is still "a", as app holds


def test_a_create_under_way_that_nothing_else_changes_is_still_a_create(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    same = _stack(stepped("a", polls=2))
    stacks.create(NewStackRequest("s", same, {}))
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING  # web's create polls

    entries = _entries(stacks, same)

    assert (entries["web"]["action"], entries["web"]["reason"]) == (
        "create",
        "its CREATE under way finishes first; then nothing more changes",
    )
