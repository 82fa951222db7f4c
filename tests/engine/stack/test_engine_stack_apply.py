"""Apply on the stand-ins: create, then unchanged while the request is the same, updated when
anything it sets changes; what counts as the same, and what is refused."""

from __future__ import annotations

import pytest
import yaml
from standins import RecordingDispatcher, StandinDatabase, resource, template

from conv_tasks.engine import ApplyRequest, ChangeRequest, TenantStacks
from conv_tasks.errors import Conflict, InvalidInput, PayloadError, TemplateError

ONE = template({"a": resource("v1")})


def _apply(
    stacks: TenantStacks, dispatcher: RecordingDispatcher, request: ApplyRequest
) -> dict[str, object]:
    answer = stacks.apply(request).to_json()
    dispatcher.drain(stacks.env)
    return answer


def test_created_then_unchanged_then_updated(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    request = ApplyRequest("web", ONE, {}, tags=("t",))
    first = _apply(stacks, dispatcher, request)
    assert (first["result"], first["action"], first["status"]) == (
        "created",
        "CREATE",
        "CREATE_IN_PROGRESS",
    )
    stack_id = str(first["stack_id"])
    assert db.stack(stack_id).state == "CREATE_COMPLETE"
    events, templates = len(db.events(stack_id)), db.template_ids()

    again = stacks.apply(request).to_json()
    assert again == {
        "stack_id": stack_id,
        "name": "web",
        "action": "CREATE",
        "status": "CREATE_COMPLETE",
        "warnings": [],
        "result": "unchanged",
    }
    # Nothing started: no traversal, no event, no template stored, nothing sent.
    assert dispatcher.pending == []
    assert (len(db.events(stack_id)), db.template_ids()) == (events, templates)

    changed = _apply(stacks, dispatcher, ApplyRequest("web", template({"a": resource("v2")}), {}))
    assert (changed["result"], changed["status"]) == ("updated", "UPDATE_IN_PROGRESS")
    stack = db.stack(stack_id)
    assert (stack.state, stack.tags) == ("UPDATE_COMPLETE", ())  # the tags the apply gave
    again = stacks.apply(ApplyRequest("web", template({"a": resource("v2")}), {})).to_json()
    assert again["result"] == "unchanged"


def test_yaml_text_and_the_mapping_it_loads_are_the_same_request(
    stacks: TenantStacks, dispatcher: RecordingDispatcher
) -> None:
    _apply(stacks, dispatcher, ApplyRequest("web", ONE, {}))
    assert stacks.apply(ApplyRequest("web", yaml.safe_dump(ONE), {})).result == "unchanged"


@pytest.mark.parametrize(
    "change",
    [
        {"parameters": {"p": "other"}},
        {"environment": [{"parameter_defaults": {"p": "env"}}]},
        {"files": {"f.txt": "text"}},
        {"tags": ("new",)},
        {"disable_rollback": True},
        {"timeout_mins": 7},
    ],
    ids=lambda change: next(iter(change)),
)
def test_each_thing_the_request_sets_counts(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    change: dict[str, object],
) -> None:
    with_param = template({"a": resource({"get_param": "p"})})
    with_param["parameters"] = {"p": {"type": "string", "default": "d"}}
    base = ApplyRequest("web", with_param, {})
    stack_id = str(_apply(stacks, dispatcher, base)["stack_id"])
    assert stacks.apply(base).result == "unchanged"

    changed = ApplyRequest(**{**base.__dict__, **change})  # type: ignore[arg-type]
    assert _apply(stacks, dispatcher, changed)["result"] == "updated"
    assert db.stack(stack_id).state == "UPDATE_COMPLETE"
    assert stacks.apply(changed).result == "unchanged"


def test_omitted_settings_keep_the_stacks_own(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    set_up = ApplyRequest("web", ONE, {}, disable_rollback=True, timeout_mins=9)
    stack_id = str(_apply(stacks, dispatcher, set_up)["stack_id"])
    assert stacks.apply(ApplyRequest("web", ONE, {})).result == "unchanged"
    _apply(stacks, dispatcher, ApplyRequest("web", template({"a": resource("v2")}), {}))
    stack = db.stack(stack_id)
    assert (stack.disable_rollback, stack.timeout_mins) == (True, 9)


def test_a_stack_that_is_not_complete_is_updated_even_on_the_same_request(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    failing = ApplyRequest("web", template({"a": resource("v1")}), {}, disable_rollback=True)
    stack_id = str(_apply(stacks, dispatcher, failing)["stack_id"])
    stacks.update("web", ChangeRequest(template({"a": resource("v1", fail=True)}), {}))
    dispatcher.drain(stacks.env)
    assert db.stack(stack_id).state == "UPDATE_FAILED"

    assert _apply(stacks, dispatcher, failing)["result"] == "updated"
    assert db.stack(stack_id).state == "UPDATE_COMPLETE"


def test_bad_requests_are_refused_and_change_nothing(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    stack_id = str(_apply(stacks, dispatcher, ApplyRequest("web", ONE, {}))["stack_id"])
    events, templates = len(db.events(stack_id)), db.template_ids()
    broken = template({"a": {"type": "No::Such::Type"}})

    with pytest.raises(TemplateError, match="No::Such::Type"):
        stacks.apply(ApplyRequest("web", broken, {}))  # on the existing stack
    with pytest.raises(TemplateError, match="No::Such::Type"):
        stacks.apply(ApplyRequest("fresh", broken, {}))  # a new one
    with pytest.raises(PayloadError, match="stack name"):
        stacks.apply(ApplyRequest("9-not-a-name", ONE, {}))
    with pytest.raises(InvalidInput, match="tags"):
        stacks.apply(ApplyRequest("web", ONE, {}, tags=("a,b",)))
    assert (len(db.events(stack_id)), db.template_ids()) == (events, templates)
    assert [s.name for s in db.stacks()] == ["web"]

    stacks.delete("web")
    with pytest.raises(Conflict, match="being deleted"):
        stacks.apply(ApplyRequest("web", ONE, {}))
