"""What a REST service's answer means for a ConvTasks::HTTP::Resource action: statuses to the
SDK's errors, the service's message in one line, Retry-After, JSON bodies."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conv_tasks.provider_errors import Fatal, NotFound, Throttled, Transient
from conv_tasks.resources.builtin.http import Answer, decoded, failure, retry_after_seconds
from conv_tasks.resources.builtin.http.answers import MAX_RESPONSE_DEPTH, service_message


def _answer(status: int, content: Any = b"", **fields: Any) -> Answer:
    if not isinstance(content, bytes):
        content = json.dumps(content).encode()
        fields.setdefault("content_type", "application/json")
    return Answer("POST", "http://svc.test/items", status, content=content, **fields)


def test_429_is_throttled_with_its_retry_after() -> None:
    error = failure(_answer(429, {"message": "slow down"}, retry_after="7"), "web")
    assert isinstance(error, Throttled)
    assert error.retry_after == 7.0
    assert str(error) == "Resource web: POST http://svc.test/items answered 429: slow down"


@pytest.mark.parametrize("status", [502, 503, 504])
def test_a_gateway_or_unavailable_status_is_transient(status: int) -> None:
    error = failure(_answer(status, reason="Unavailable"), "web")
    assert type(error) is Transient
    assert str(error).endswith(f"answered {status} Unavailable.")


@pytest.mark.parametrize("status", [400, 401, 403, 409, 410, 422, 500, 501])
def test_any_other_4xx_or_5xx_is_fatal_with_the_services_message(status: int) -> None:
    error = failure(_answer(status, {"error": {"message": "name is\n  taken"}}), "web")
    assert type(error) is Fatal
    assert str(error) == (
        f"Resource web: POST http://svc.test/items answered {status}: name is taken"
    )


def test_404_is_not_found_which_a_delete_counts_as_gone() -> None:
    assert type(failure(_answer(404), "web")) is NotFound


def test_a_redirect_is_fatal_and_says_it_is_not_followed() -> None:
    error = failure(_answer(301, location="https://svc.test/v2/items"), "web")
    assert type(error) is Fatal
    assert "a redirect to https://svc.test/v2/items, which is not followed" in str(error)


def test_the_services_message_comes_from_json_or_plain_text_never_markup() -> None:
    assert service_message(_answer(400, {"detail": "bad size"})) == "bad size"
    assert service_message(_answer(400, {"errors": [{"message": "first"}]})) == "first"
    assert service_message(_answer(400, {"code": 7})) == ""
    plain = b"Error: Insert failed, duplicate id\n    at Function.insert (x.js:49:18)"
    assert service_message(_answer(500, plain)) == "Error: Insert failed, duplicate id"
    assert service_message(_answer(500, b"<html><body>Oops</body></html>")) == ""
    long = service_message(_answer(400, {"message": "x" * 1000}))
    assert len(long) == 300 and long.endswith("...")


def test_retry_after_is_seconds_or_an_http_date() -> None:
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0
    for unreadable in (None, "", "soon", "-1", "1.5e3"):
        assert retry_after_seconds(unreadable) is None, unreadable


def test_a_body_that_is_not_json_fails_in_one_line() -> None:
    assert decoded(_answer(201, {"id": 1}), "web") == {"id": 1}
    assert decoded(_answer(204), "web") is None
    html = _answer(201, b"<html>\n<p>created</p>\n</html>", content_type="text/html; x=1")
    with pytest.raises(Fatal) as caught:
        decoded(html, "web")
    assert str(caught.value) == (
        "Resource web: POST http://svc.test/items answered 201 with a body that is not JSON "
        "(text/html, 29 bytes)."
    )


def test_json_nested_too_deeply_is_refused() -> None:
    deep = "[" * (MAX_RESPONSE_DEPTH + 1) + "]" * (MAX_RESPONSE_DEPTH + 1)
    with pytest.raises(Fatal, match="nested more than 64 levels"):
        decoded(_answer(200, deep.encode()), "web")
    with pytest.raises(Fatal, match="not JSON"):
        decoded(_answer(200, b"[" * 100000), "web")
