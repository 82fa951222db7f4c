"""The wait condition signal task: its contract, and no token shown to monitors."""

from __future__ import annotations

from types import SimpleNamespace

from jsonschema import Draft202012Validator

from conv_tasks.tasks.app import app
from conv_tasks.tasks.contracts import contracts
from conv_tasks.tasks.request import HIDDEN, Request, ResultHiddenTask, shown_kwargs

TASK = "conv_tasks.wait_condition.signal"


def test_monitors_see_the_handle_never_the_token_or_details() -> None:
    shown = shown_kwargs(
        {"handle": "h-1", "token": "SECRET", "details": {"data": "SECRET", "reason": "SECRET"}}
    )
    assert "SECRET" not in shown
    assert "'handle': 'h-1'" in shown and f"'token': '{HIDDEN}'" in shown


def test_the_request_replaces_a_plain_senders_kwargsrepr() -> None:
    import conv_tasks.tasks.wait_condition  # noqa: F401 - registers the task

    kwargs = {"handle": "h-1", "token": "SECRET", "details": {}}
    headers = {"id": "1", "task": TASK, "argsrepr": "()", "kwargsrepr": repr(kwargs)}
    body = ((), kwargs, {})
    message = SimpleNamespace(
        headers=headers,
        body=body,
        payload=body,
        delivery_info={},
        properties={},
        content_type="application/json",
        content_encoding="utf-8",
    )
    request = Request(
        message, app=app, task=app.tasks[TASK], decoded=True, body=body, headers=headers
    )
    assert "SECRET" not in request.kwargsrepr
    assert isinstance(app.tasks[TASK], ResultHiddenTask)


def test_contract_requires_handle_and_token_and_takes_only_details_besides() -> None:
    contract = contracts(TASK)[TASK]
    kwargs = Draft202012Validator(contract["kwargs"])
    assert kwargs.is_valid({"handle": "h", "token": "t", "details": {"status": "SUCCESS"}})
    assert kwargs.is_valid({"handle": "h", "token": "t"})
    assert not kwargs.is_valid({"handle": "h"})
    assert not kwargs.is_valid({"handle": "h", "token": "t", "tenant": "x"})
    result = Draft202012Validator(contract["result"])
    answer = {
        "ok": True,
        "stack_id": "s",
        "resource": "handle",
        "handle": "h",
        "id": "1",
        "status": "SUCCESS",
        "replaced": False,
        "signals": 1,
        "message": "Signal: status:SUCCESS reason:Signal 1 received",
    }
    assert result.is_valid(answer)
    assert not result.is_valid({**answer, "status": "DONE"})
