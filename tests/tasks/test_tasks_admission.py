"""The checks a task message passes before Celery's consumer handles it (no broker needed)."""

from __future__ import annotations

import inspect
from enum import StrEnum
from typing import Any

import pytest

from conv_tasks.limits import MAX_MESSAGE_BYTES, MAX_MESSAGE_DEPTH
from conv_tasks.tasks import admission
from conv_tasks.tasks.admission import arguments_problem, envelope_problem


class Word(StrEnum):
    BIG = "x"


def _headers(**more: Any) -> dict[str, Any]:
    return {"task": "conv_tasks.node.converge", "id": "0f7d", "lang": "py", **more}


def test_plain_headers_pass() -> None:
    properties = {"delivery_info": {"exchange": "", "routing_key": "q"}, "priority": 0}
    assert envelope_problem(_headers(retries=0), properties, "application/json") is None


@pytest.mark.parametrize(
    "big",
    [
        "x" * (MAX_MESSAGE_BYTES + 1),
        b"x" * (MAX_MESSAGE_BYTES + 1),
        Word.BIG * (MAX_MESSAGE_BYTES + 1),  # a str subclass counts as its text too
        ["x" * 1000] * (MAX_MESSAGE_BYTES // 1000 + 1),
        {f"k{i}": 1.5 for i in range(MAX_MESSAGE_BYTES // 8)},
    ],
    ids=["str", "bytes", "str-subclass", "list", "numbers"],
)
def test_headers_past_the_size_limit_are_refused(big: object) -> None:
    problem = envelope_problem(_headers(argsrepr=big), {}, "application/json")
    assert problem is not None and "MAX_MESSAGE_BYTES" in problem


def test_headers_nested_past_the_depth_limit_are_refused() -> None:
    deep: Any = "leaf"
    for _ in range(MAX_MESSAGE_DEPTH + 1):
        deep = [deep]
    problem = envelope_problem(_headers(stamps={"deep": deep}), {}, "application/json")
    assert problem is not None and "MAX_MESSAGE_DEPTH" in problem


def _keywords(**payload: Any) -> None:
    pass


def _named(stack_id: str, *, tenant: str = "default") -> None:
    pass


def test_arguments_of_a_keywords_task_bind_and_others_are_refused() -> None:
    assert arguments_problem("t", _keywords, [], {"node": "x", "stack_id": "s"}) is None
    assert "does not take" in (arguments_problem("t", _keywords, [1], {}) or "")
    assert arguments_problem("t", _named, [], {"stack_id": "s"}) is None
    assert "does not take" in (arguments_problem("t", _named, [], {"other": 1}) or "")
    assert "does not take" in (arguments_problem("t", _named, [], {}) or "")


def test_a_task_function_signature_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # inspect.signature was read for every message: every graph node paid for it.
    calls = []
    real = inspect.signature

    def counted(*args: Any, **kwargs: Any) -> inspect.Signature:
        calls.append(args)
        return real(*args, **kwargs)

    def task(**payload: Any) -> None:
        pass

    monkeypatch.setattr(admission.inspect, "signature", counted)
    for i in range(5):
        assert arguments_problem("t", task, [], {"i": i}) is None
    assert len(calls) == 1
