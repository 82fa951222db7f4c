"""What a signal to a wait condition handle holds (Heat's rules), and the wait's decisions."""

from __future__ import annotations

import json

import pytest

from conv_tasks.errors import PayloadError
from conv_tasks.limits import MAX_REASON_CHARS, MAX_WAIT_SIGNAL_DATA_BYTES, MAX_WAIT_SIGNALS
from conv_tasks.resources.builtin.wait_condition.decide import (
    MAX_POLL_SECS,
    WaitOutcome,
    judge,
    poll_after,
)
from conv_tasks.waitconditions.signals import (
    SignalStatus,
    WaitSignal,
    data_text,
    parse_signal,
    record,
)

OK = SignalStatus.SUCCESS
BAD = SignalStatus.FAILURE


def _paths(exc: pytest.ExceptionInfo[PayloadError]) -> list[str]:
    return [p.path for p in exc.value.problems]


def test_empty_signal_takes_heats_defaults_numbered_after_the_held_ones() -> None:
    first = parse_signal({}, ())
    assert first == WaitSignal("1", OK, "Signal 1 received", None)
    second = parse_signal(None, (first,))
    assert second == WaitSignal("2", OK, "Signal 2 received", None)


def test_given_fields_are_kept_and_an_integer_id_becomes_text() -> None:
    signal = parse_signal({"status": "FAILURE", "reason": "disk full", "data": [1], "id": 7}, ())
    assert signal == WaitSignal("7", BAD, "disk full", [1])


@pytest.mark.parametrize(
    ("details", "path", "words"),
    [
        ({"status": "DONE"}, "details.status", "SUCCESS, FAILURE"),
        ({"status": "success"}, "details.status", "SUCCESS, FAILURE"),
        ({"reason": 3}, "details.reason", "must be a string"),
        ({"reason": "x" * (MAX_REASON_CHARS + 1)}, "details.reason", "MAX_REASON_CHARS"),
        ({"id": True}, "details.id", "string or an integer"),
        ({"id": {"a": 1}}, "details.id", "string or an integer"),
        ({"id": ""}, "details.id", "MAX_NAME_CHARS"),
        ({"deploy_status": "COMPLETE"}, "details.deploy_status", "not a wait condition"),
        (
            {"data": "x" * MAX_WAIT_SIGNAL_DATA_BYTES},
            "details.data",
            "MAX_WAIT_SIGNAL_DATA_BYTES",
        ),
    ],
)
def test_malformed_signal_is_refused_naming_the_field(
    details: dict[str, object], path: str, words: str
) -> None:
    with pytest.raises(PayloadError) as exc:
        parse_signal(details, ())
    assert _paths(exc) == [path]
    assert words in str(exc.value)


def test_every_malformed_field_is_named_at_once() -> None:
    with pytest.raises(PayloadError) as exc:
        parse_signal({"status": "NOPE", "reason": 1, "extra": 2}, ())
    assert sorted(_paths(exc)) == ["details.extra", "details.reason", "details.status"]


def test_details_that_are_not_an_object_are_refused() -> None:
    with pytest.raises(PayloadError) as exc:
        parse_signal(["SUCCESS"], ())  # type: ignore[arg-type]
    assert _paths(exc) == ["details"]


def test_same_id_overwrites_in_place_and_a_new_id_is_added_last() -> None:
    a = WaitSignal("a", OK, "first", 1)
    b = WaitSignal("b", OK, "second", 2)
    again = WaitSignal("a", OK, "again", 3)
    assert record((a, b), again) == (again, b)
    c = WaitSignal("c", OK, "third", None)
    assert record((a, b), c) == (a, b, c)


def test_a_full_handle_refuses_new_ids_but_takes_overwrites() -> None:
    held = tuple(WaitSignal(str(n), OK, "r") for n in range(MAX_WAIT_SIGNALS))
    with pytest.raises(PayloadError) as exc:
        record(held, WaitSignal("new", OK, "r"))
    assert "MAX_WAIT_SIGNALS" in str(exc.value)
    assert len(record(held, WaitSignal("3", BAD, "x"))) == MAX_WAIT_SIGNALS


def test_data_attribute_is_json_text_of_data_by_id() -> None:
    signals = (WaitSignal("1", OK, "r", {"ip": "10.0.0.1"}), WaitSignal("web2", OK, "r", None))
    text = data_text(signals)
    assert isinstance(text, str)
    assert json.loads(text) == {"1": {"ip": "10.0.0.1"}, "web2": None}
    assert data_text(()) == "{}"


def test_json_round_trip_of_a_signal() -> None:
    signal = WaitSignal("x", BAD, "why", {"k": [1, 2]})
    assert WaitSignal.from_json(signal.to_json()) == signal


# ---------------------------------------------------------------- decisions
def test_waits_until_count_success_signals() -> None:
    one = (WaitSignal("1", OK, "r1"),)
    waiting = judge(one, count=2, waited=3.0, timeout=60)
    assert waiting.outcome == WaitOutcome.WAITING
    two = (*one, WaitSignal("2", OK, "r2"))
    assert judge(two, count=2, waited=3.0, timeout=60).outcome == WaitOutcome.SUCCEEDED
    assert judge(two, count=1, waited=0.0, timeout=60).outcome == WaitOutcome.SUCCEEDED


def test_a_failure_fails_at_once_with_the_failure_reasons_joined() -> None:
    signals = (
        WaitSignal("1", BAD, "disk full"),
        WaitSignal("2", OK, "fine"),
        WaitSignal("3", BAD, "no network"),
    )
    verdict = judge(signals, count=5, waited=0.0, timeout=60)
    assert verdict.outcome == WaitOutcome.FAILED
    assert verdict.reason == "disk full;no network"


def test_a_failure_fails_even_when_count_is_reached() -> None:
    signals = (WaitSignal("1", OK, "ok"), WaitSignal("2", BAD, "broken"))
    assert judge(signals, count=1, waited=0.0, timeout=60).outcome == WaitOutcome.FAILED


def test_timeout_says_how_many_arrived_and_their_reasons() -> None:
    verdict = judge((WaitSignal("1", OK, "web1 up"),), count=3, waited=60.0, timeout=60)
    assert verdict.outcome == WaitOutcome.TIMED_OUT
    assert verdict.reason == "1 of 3 received - web1 up"
    assert judge((), count=1, waited=61.0, timeout=60).reason == "0 of 1 received"


def test_signals_that_arrived_count_even_when_the_poll_is_late() -> None:
    signals = (WaitSignal("1", OK, "r"),)
    assert judge(signals, count=1, waited=100.0, timeout=60).outcome == WaitOutcome.SUCCEEDED


def test_polls_slow_down_but_never_wait_much_past_the_timeout() -> None:
    assert poll_after(0.0, 600) == pytest.approx(0.5)
    assert poll_after(1000.0, 3000) == MAX_POLL_SECS
    assert poll_after(9.0, 10) <= 1.05
