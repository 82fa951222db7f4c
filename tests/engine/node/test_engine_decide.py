"""decide(): how an update node brings a resource from its head version to a new definition."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

from conv_tasks.db.nodes import ResourceVersion
from conv_tasks.engine.node.decide import Decision, Verdict, decide, settles
from conv_tasks.statuses import Action, Status

TYPE = "OS::Heat::TestResource"
OTHER_TYPE = "OS::Heat::None"
NEW_HASH = "hash-new"
OLD_HASH = "hash-old"


def view(**changes: Any) -> ResourceVersion:
    """A created, complete version 1 of TYPE with OLD_HASH; override any field."""
    base = ResourceVersion(
        id=1,
        name="r",
        version=1,
        type=TYPE,
        physical_id="phys-1",
        action=Action.CREATE,
        status=Status.COMPLETE,
        status_reason="",
        template_id=1,
        properties={"value": "old"},
        attributes={},
        plugin_data={},
        definition_hash=OLD_HASH,
        requires=(),
        deletion_policy="Delete",
        replaces=None,
        replaced_by=None,
        lock_nonce=None,
        action_started_at=None,
    )
    return dataclasses.replace(base, **changes)


def never(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    return False


def always(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    return True


def run(
    head: ResourceVersion,
    others: tuple[ResourceVersion, ...] = (),
    *,
    type_name: str = TYPE,
    definition_hash: str = NEW_HASH,
    properties: Mapping[str, Any] | None = None,
    needs_replacement: Any = never,
    substitutes: Any = None,
) -> Decision:
    extra = {} if substitutes is None else {"substitutes": substitutes}
    return decide(
        head,
        [head, *others],
        type_name=type_name,
        definition_hash=definition_hash,
        properties={"value": "new"} if properties is None else properties,
        needs_replacement=needs_replacement,
        **extra,
    )


# ---------------------------------------------------------------- head-only verdicts


def test_complete_head_with_same_type_and_hash_is_noop() -> None:
    head = view(definition_hash=NEW_HASH)
    decision = run(head, needs_replacement=always)
    assert decision.verdict == Verdict.NOOP
    assert decision.version is head


@pytest.mark.parametrize("action", [Action.CREATE, Action.UPDATE, Action.DELETE, "CHECK"])
def test_interrupted_action_is_resumed_whatever_else_differs(action: str) -> None:
    head = view(action=action, status=Status.IN_PROGRESS, type=OTHER_TYPE, physical_id=None)
    decision = run(head, needs_replacement=always)
    assert decision.verdict == Verdict.RESUME
    assert decision.version is head
    assert action in decision.reason


def test_head_never_created_is_created() -> None:
    head = view(action=Action.INIT, status=Status.COMPLETE, physical_id=None, definition_hash=None)
    decision = run(head)
    assert decision.verdict == Verdict.CREATE
    assert decision.version is head


def test_init_head_is_created_even_if_its_hash_matches() -> None:
    head = view(
        action=Action.INIT, status=Status.COMPLETE, physical_id=None, definition_hash=NEW_HASH
    )
    assert run(head).verdict == Verdict.CREATE


def test_same_hash_but_failed_is_not_noop() -> None:
    head = view(action=Action.UPDATE, status=Status.FAILED, definition_hash=NEW_HASH)
    assert run(head).verdict == Verdict.UPDATE


def test_same_hash_but_other_type_is_not_noop() -> None:
    head = view(type=OTHER_TYPE, definition_hash=NEW_HASH)
    assert run(head).verdict == Verdict.REPLACE


def test_changed_properties_update_in_place() -> None:
    head = view()
    decision = run(head)
    assert decision == Decision(Verdict.UPDATE, head)


def test_failed_update_with_physical_resource_is_updated_again() -> None:
    head = view(action=Action.UPDATE, status=Status.FAILED)
    assert run(head).verdict == Verdict.UPDATE


# ---------------------------------------------------------------- replacement reasons


def test_deleted_head_is_replaced() -> None:
    head = view(action=Action.DELETE, status=Status.COMPLETE, definition_hash=NEW_HASH)
    decision = run(head)
    assert decision.verdict == Verdict.REPLACE
    assert decision.version is head
    assert "deleted" in decision.reason


def test_deleted_head_is_replaced_even_when_an_old_version_matches() -> None:
    head = view(id=2, version=2, action=Action.DELETE)
    older = view(id=1, version=1, definition_hash=NEW_HASH)
    assert run(head, (older,)).verdict == Verdict.REPLACE


def test_type_change_replaces() -> None:
    head = view(type=OTHER_TYPE)
    decision = run(head)
    assert decision.verdict == Verdict.REPLACE
    assert decision.reason == f"type changed from {OTHER_TYPE} to {TYPE}"


def test_failed_create_replaces() -> None:
    head = view(action=Action.CREATE, status=Status.FAILED)
    decision = run(head)
    assert decision.verdict == Verdict.REPLACE
    assert "create failed" in decision.reason


def test_failed_create_replaces_even_if_its_hash_matches() -> None:
    head = view(action=Action.CREATE, status=Status.FAILED, definition_hash=NEW_HASH)
    assert run(head).verdict == Verdict.REPLACE


def test_no_physical_id_replaces() -> None:
    head = view(action=Action.UPDATE, physical_id=None)
    decision = run(head)
    assert decision.verdict == Verdict.REPLACE
    assert "no physical resource" in decision.reason


def test_property_needing_replacement_replaces() -> None:
    head = view()
    seen: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []

    def needs(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        seen.append((old, new))
        return True

    decision = run(head, properties={"value": "new"}, needs_replacement=needs)
    assert decision.verdict == Verdict.REPLACE
    assert "cannot be updated in place" in decision.reason
    assert seen == [({"value": "old"}, {"value": "new"})]


def test_needs_replacement_is_not_asked_for_a_noop() -> None:
    def explode(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        raise AssertionError("needs_replacement must not be called")

    assert run(view(definition_hash=NEW_HASH), needs_replacement=explode).verdict == Verdict.NOOP


# ---------------------------------------------------------------- reinstating an old version


def test_older_matching_version_with_physical_id_is_reinstated() -> None:
    head = view(id=2, version=2, action=Action.UPDATE, definition_hash="hash-2")
    older = view(id=1, version=1, physical_id="phys-old", definition_hash=NEW_HASH)
    decision = run(head, (older,), needs_replacement=always)
    assert decision.verdict == Verdict.REINSTATE
    assert decision.version is older
    assert decision.reason == "version 1 matches"


def test_reinstate_wins_over_type_change_of_the_head() -> None:
    head = view(id=2, version=2, type=OTHER_TYPE)
    older = view(id=1, version=1, definition_hash=NEW_HASH)
    decision = run(head, (older,))
    assert decision.verdict == Verdict.REINSTATE
    assert decision.version is older


def test_reinstate_wins_over_a_failed_create_head() -> None:
    head = view(id=2, version=2, status=Status.FAILED, physical_id=None)
    older = view(id=1, version=1, action=Action.UPDATE, definition_hash=NEW_HASH)
    assert run(head, (older,)).version is older


def test_first_matching_candidate_is_reinstated() -> None:
    head = view(id=3, version=3)
    first = view(id=1, version=1, definition_hash=NEW_HASH)
    second = view(id=2, version=2, definition_hash=NEW_HASH)
    assert run(head, (first, second)).version is first


@pytest.mark.parametrize(
    "candidate_changes",
    [
        pytest.param({"action": Action.INIT}, id="init"),
        pytest.param({"action": Action.DELETE}, id="deleted"),
        pytest.param({"physical_id": None}, id="no-physical-id"),
        pytest.param({"type": OTHER_TYPE}, id="other-type"),
        pytest.param({"status": Status.FAILED}, id="failed"),
        pytest.param({"status": Status.IN_PROGRESS}, id="in-progress"),
        pytest.param({"definition_hash": "hash-else"}, id="other-hash"),
        # A clean-up leased it (and may have died mid-delete): its row cannot be trusted.
        pytest.param({"lock_nonce": "a-clean-up's nonce"}, id="leased-by-a-clean-up"),
    ],
)
def test_unusable_older_version_is_not_reinstated(candidate_changes: dict[str, Any]) -> None:
    head = view(id=2, version=2, action=Action.UPDATE, definition_hash="hash-2")
    older = view(**{"id": 1, "version": 1, "definition_hash": NEW_HASH, **candidate_changes})
    decision = run(head, (older,))
    assert decision.verdict == Verdict.UPDATE
    assert decision.version is head


def test_a_version_with_the_head_id_is_never_reinstated() -> None:
    # versions holds the head too, possibly as another (stale) view of the same row.
    head = view(id=1, version=2, action=Action.UPDATE, definition_hash="hash-2")
    same_row = view(id=1, version=2, definition_hash=NEW_HASH)
    decision = run(head, (same_row,))
    assert decision.verdict == Verdict.UPDATE
    assert decision.version is head


# ---------------------------------------------------------------- finishing a taken-over action
# A newer traversal resumes an action whose worker died (RESUME). The action finishes with the
# definition its own, older traversal gave it; `settles` says whether that is the one the
# newer traversal wants, and if not the node decides afresh on what the action left.


def finish(version: ResourceVersion) -> ResourceVersion:
    return dataclasses.replace(version, status=Status.COMPLETE)


def test_resumed_create_then_a_different_definition_is_updated_in_place() -> None:
    head = view(action=Action.CREATE, status=Status.IN_PROGRESS, physical_id=None)
    assert run(head).verdict == Verdict.RESUME
    done = finish(dataclasses.replace(head, physical_id="phys-1"))
    assert not settles(done, type_name=TYPE, definition_hash=NEW_HASH)
    assert run(done) == Decision(Verdict.UPDATE, done)


def test_resumed_create_then_a_change_it_cannot_take_in_place_is_replaced() -> None:
    head = view(action=Action.CREATE, status=Status.IN_PROGRESS)
    done = finish(head)
    assert not settles(done, type_name=TYPE, definition_hash=NEW_HASH)
    assert run(done, needs_replacement=always).verdict == Verdict.REPLACE
    assert not settles(done, type_name=OTHER_TYPE, definition_hash=OLD_HASH)
    assert run(done, type_name=OTHER_TYPE, definition_hash=OLD_HASH).verdict == Verdict.REPLACE


def test_resumed_action_of_the_same_definition_settles() -> None:
    for action in (Action.CREATE, Action.UPDATE):
        head = view(action=action, status=Status.IN_PROGRESS, definition_hash=NEW_HASH)
        assert run(head).verdict == Verdict.RESUME
        done = finish(head)
        assert settles(done, type_name=TYPE, definition_hash=NEW_HASH)
        assert run(done).verdict == Verdict.NOOP


def test_resumed_update_of_an_older_definition_is_updated_again() -> None:
    head = view(id=2, version=2, action=Action.UPDATE, status=Status.IN_PROGRESS, replaces=1)
    older = view(id=1, version=1, physical_id=None, replaced_by=2, definition_hash="hash-1")
    assert run(head, (older,)).verdict == Verdict.RESUME
    done = finish(head)
    assert not settles(done, type_name=TYPE, definition_hash=NEW_HASH)
    assert run(done, (older,)) == Decision(Verdict.UPDATE, done)


def test_resumed_replacement_gives_way_to_the_version_it_replaces_when_that_one_matches() -> None:
    # v2 was replacing v1 when its worker died; the newer traversal (a rollback) wants v1 back.
    v1 = view(id=1, version=1, physical_id="phys-1", replaced_by=2, definition_hash=NEW_HASH)
    v2 = view(
        id=2,
        version=2,
        status=Status.IN_PROGRESS,
        physical_id=None,
        replaces=1,
        definition_hash=OLD_HASH,
    )
    assert run(v2, (v1,)).verdict == Verdict.RESUME
    done = finish(dataclasses.replace(v2, physical_id="phys-2"))
    assert not settles(done, type_name=TYPE, definition_hash=NEW_HASH)
    assert run(done, (v1,)) == Decision(Verdict.REINSTATE, v1, "version 1 matches")


def test_resumed_replacement_of_another_definition_is_updated_in_place() -> None:
    v1 = view(id=1, version=1, physical_id="phys-1", replaced_by=2, definition_hash="hash-1")
    v2 = view(id=2, version=2, status=Status.IN_PROGRESS, replaces=1, definition_hash=OLD_HASH)
    done = finish(v2)
    assert not settles(done, type_name=TYPE, definition_hash=NEW_HASH)
    assert run(done, (v1,)) == Decision(Verdict.UPDATE, done)


def test_an_action_that_did_not_complete_never_settles() -> None:
    for status in (Status.IN_PROGRESS, Status.FAILED):
        version = view(status=status, definition_hash=NEW_HASH)
        assert not settles(version, type_name=TYPE, definition_hash=NEW_HASH)


# ---------------------------------------------------------------- substitution (seed 004)

OLD_TYPE = "OS::Heat::TestResourceOld"


def substitute_of_old(old_type: str, new_type: str) -> bool:
    return (old_type, new_type) == (OLD_TYPE, TYPE)


def test_type_change_to_the_substitute_updates_in_place() -> None:
    head = view(type=OLD_TYPE)
    decision = run(head, substitutes=substitute_of_old)
    assert decision == Decision(Verdict.UPDATE, head)


def test_type_change_back_from_the_substitute_replaces() -> None:
    # The substitute is not the old type's substitute: the relation goes one way only.
    head = view(type=TYPE)
    decision = run(head, type_name=OLD_TYPE, substitutes=substitute_of_old)
    assert decision.verdict == Verdict.REPLACE
    assert decision.reason == f"type changed from {TYPE} to {OLD_TYPE}"


def test_substitution_still_replaces_for_a_property_that_cannot_change() -> None:
    head = view(type=OLD_TYPE)
    decision = run(head, substitutes=substitute_of_old, needs_replacement=always)
    assert decision.verdict == Verdict.REPLACE


def test_substitutes_is_not_asked_when_the_type_is_the_same() -> None:
    def boom(old_type: str, new_type: str) -> bool:
        raise AssertionError("asked")

    assert run(view(), substitutes=boom).verdict == Verdict.UPDATE


# ---------------------------------------------------------------- health (CHECK_*)


def test_check_failed_head_is_replaced_with_its_reason() -> None:
    head = view(action=Action.CHECK, status=Status.FAILED, status_reason="disk gone")
    decision = run(head, definition_hash=OLD_HASH)
    assert decision == Decision(Verdict.REPLACE, head, "the resource is unhealthy: disk gone")


def test_check_failed_head_is_replaced_even_when_an_old_version_matches() -> None:
    head = view(action=Action.CHECK, status=Status.FAILED)
    older = view(id=0, version=0, definition_hash=NEW_HASH)
    assert run(head, (older,)).verdict == Verdict.REPLACE


def test_check_complete_head_behaves_as_complete() -> None:
    head = view(action=Action.CHECK, status=Status.COMPLETE)
    assert run(head, definition_hash=OLD_HASH).verdict == Verdict.NOOP
    assert run(head).verdict == Verdict.UPDATE


def test_a_nested_resource_whose_child_failed_its_check_is_updated_in_place() -> None:
    head = view(action=Action.CHECK, status=Status.FAILED, status_reason="nested stack ...")
    asked: list[ResourceVersion] = []

    def child_failed(version: ResourceVersion) -> bool:
        asked.append(version)
        return True

    decision = decide(
        head,
        [head],
        type_name=TYPE,
        definition_hash=OLD_HASH,
        properties={"value": "old"},
        needs_replacement=always,
        repaired_in_place=child_failed,
    )
    assert decision == Decision(Verdict.UPDATE, head, "its nested stack failed its check")
    assert asked == [head]
    # A change of type still replaces it; a healthy head is never asked.
    changed = decide(
        head,
        [head],
        type_name=OTHER_TYPE,
        definition_hash=OLD_HASH,
        properties={},
        needs_replacement=never,
        repaired_in_place=child_failed,
    )
    assert changed.verdict == Verdict.REPLACE
    decide(
        view(),
        [view()],
        type_name=TYPE,
        definition_hash=NEW_HASH,
        properties={},
        needs_replacement=never,
        repaired_in_place=child_failed,
    )
    assert len(asked) == 1
