"""The web view's refusals: each becomes an HTML page with its status, never Heat's JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.edge import fault_of_answer
from conv_tasks.errors import ConvTasksError

TITLES: dict[int, str] = {
    400: "Bad request",
    401: "Sign in needed",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    413: "Too large",
    414: "Address too long",
    429: "Too many live streams",
    431: "Headers too large",
    500: "Something went wrong",
    503: "The engine cannot be reached",
}


class UiError(ConvTasksError):
    """A request the web view refuses: its status and a sentence saying what is wrong."""

    code = "ui_refusal"

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})

    @property
    def title(self) -> str:
        return TITLES.get(self.status, "Error")


def bad_request(message: str) -> UiError:
    return UiError(400, message)


def not_found(message: str) -> UiError:
    return UiError(404, message)


def refusal_of_answer(answer: Mapping[str, Any]) -> UiError:
    """The page for a task's refusal: the status the HTTP edge gives the same answer."""
    fault = fault_of_answer(answer)
    return UiError(fault.status, str(fault.body["error"]["message"]))
