"""SupportStatus: the life-cycle rules of seed 004, to_dict and history."""

from __future__ import annotations

import json

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.resources.builtin import NoneResource, TestResource
from conv_tasks.sdk import DEPRECATED, HIDDEN, SUPPORTED, UNSUPPORTED, SupportStatus


def test_default_is_supported_with_nothing_else() -> None:
    status = SupportStatus()
    assert status.status == SUPPORTED
    assert status.version is None
    assert status.previous_status is None
    assert status.history() == [status]


@pytest.mark.parametrize("status", [SUPPORTED, DEPRECATED, HIDDEN, UNSUPPORTED])
def test_any_status_may_start_a_chain(status: str) -> None:
    assert SupportStatus(status=status, version="5.0.0").status == status


@pytest.mark.parametrize(
    ("previous", "current"),
    [
        (UNSUPPORTED, SUPPORTED),
        (SUPPORTED, DEPRECATED),
        (DEPRECATED, HIDDEN),
        (DEPRECATED, UNSUPPORTED),
    ],
)
def test_legal_successors(previous: str, current: str) -> None:
    status = SupportStatus(status=current, previous_status=SupportStatus(status=previous))
    assert [s.status for s in status.history()] == [previous, current]


@pytest.mark.parametrize(
    ("previous", "current"),
    [
        (SUPPORTED, HIDDEN),
        (SUPPORTED, UNSUPPORTED),
        (SUPPORTED, SUPPORTED),
        (UNSUPPORTED, DEPRECATED),
        (UNSUPPORTED, HIDDEN),
        (DEPRECATED, SUPPORTED),
        (DEPRECATED, DEPRECATED),
        (HIDDEN, SUPPORTED),
        (HIDDEN, DEPRECATED),
        (HIDDEN, UNSUPPORTED),
    ],
)
def test_illegal_successors_are_refused(previous: str, current: str) -> None:
    with pytest.raises(InvalidInput) as info:
        SupportStatus(status=current, previous_status=SupportStatus(status=previous))
    assert info.value.problems[0].path == "support_status.previous_status"
    assert f"{current} cannot follow {previous}" in info.value.problems[0].message


def test_unsupported_at_the_end_cannot_start_again() -> None:
    ended = SupportStatus(
        status=UNSUPPORTED,
        previous_status=SupportStatus(status=DEPRECATED, previous_status=SupportStatus()),
    )
    with pytest.raises(InvalidInput, match="SUPPORTED cannot follow UNSUPPORTED"):
        SupportStatus(status=SUPPORTED, previous_status=ended)


def test_full_life_cycle_and_history_oldest_first() -> None:
    hidden = SupportStatus(
        status=HIDDEN,
        version="6.0.0",
        previous_status=SupportStatus(
            status=DEPRECATED,
            version="5.0.0",
            previous_status=SupportStatus(
                version="2014.2",
                previous_status=SupportStatus(status=UNSUPPORTED, version="2014.1"),
            ),
        ),
    )
    assert [(s.status, s.version) for s in hidden.history()] == [
        (UNSUPPORTED, "2014.1"),
        (SUPPORTED, "2014.2"),
        (DEPRECATED, "5.0.0"),
        (HIDDEN, "6.0.0"),
    ]
    assert hidden.hidden
    assert not hidden.previous_status.hidden  # type: ignore[union-attr]


def test_unknown_status_and_bad_fields_are_all_reported() -> None:
    with pytest.raises(InvalidInput) as info:
        SupportStatus(status="GONE", version=5, substitute_class="X")  # type: ignore[arg-type]
    paths = [p.path for p in info.value.problems]
    assert paths == [
        "support_status.status",
        "support_status.version",
        "support_status.substitute_class",
    ]
    assert "'GONE' is not a support status" in str(info.value)


def test_previous_status_must_be_a_support_status() -> None:
    with pytest.raises(InvalidInput, match="must be a SupportStatus"):
        SupportStatus(status=DEPRECATED, previous_status="SUPPORTED")  # type: ignore[arg-type]


def test_to_dict_is_json_and_nests_previous_statuses() -> None:
    status = SupportStatus(
        status=DEPRECATED,
        version="5.0.0",
        message="Use OS::Heat::TestResource instead.",
        substitute_class=TestResource,
        previous_status=SupportStatus(version="2014.2", message="Available since 2014.2"),
    )
    data = status.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data == {
        "status": "DEPRECATED",
        "version": "5.0.0",
        "message": "Use OS::Heat::TestResource instead.",
        "substitute_class": "OS::Heat::TestResource",
        "previous_status": {
            "status": "SUPPORTED",
            "version": "2014.2",
            "message": "Available since 2014.2",
            "substitute_class": None,
            "previous_status": None,
        },
    }


def test_to_dict_names_a_plain_class_by_qualname() -> None:
    class Plain:
        pass

    assert SupportStatus(substitute_class=Plain).to_dict()["substitute_class"] == (
        "test_to_dict_names_a_plain_class_by_qualname.<locals>.Plain"
    )


def test_describe_is_a_sentence_with_the_substitute_once() -> None:
    assert (
        SupportStatus(status=DEPRECATED, version="5.0.0", substitute_class=NoneResource).describe()
        == "DEPRECATED since 5.0.0. Use OS::Heat::None instead."
    )
    assert (
        SupportStatus(
            status=DEPRECATED,
            version="5.0.0",
            message="Use OS::Heat::None instead",
            substitute_class=NoneResource,
        ).describe()
        == "DEPRECATED since 5.0.0: Use OS::Heat::None instead."
    )
    assert SupportStatus(status=UNSUPPORTED).describe() == "UNSUPPORTED."


def test_statuses_are_frozen_values() -> None:
    status = SupportStatus(version="1")
    with pytest.raises(AttributeError):
        status.version = "2"  # type: ignore[misc]
    assert status == SupportStatus(version="1")
