"""Heat's fault bodies: what every refusal of the HTTP edge looks like.

A fault is `{"code", "title", "explanation", "error": {"type", "message", "traceback"}}`
(heat/api/middleware/fault.py), so heatclient and the `openstack` CLI print its message.
conv_tasks adds `error.problems` (`[{"path", "message"}]`) when it knows where the input
was wrong. The error codes of the task answers map to statuses here, and only here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.errors import ConvTasksError

_TITLES: dict[int, tuple[str, str]] = {
    400: ("Bad Request", "The request is malformed or asks for something invalid."),
    401: ("Unauthorized", "The request carries no credential this service accepts."),
    403: ("Forbidden", "The credential may not do this."),
    404: ("Not Found", "Nothing was found at this address."),
    405: ("Method Not Allowed", "This address does not take that method."),
    409: ("Conflict", "The request conflicts with the stack's current state."),
    413: ("Request Entity Too Large", "The request's body is larger than the limit."),
    414: ("Request-URI Too Long", "The request's address is longer than the limit."),
    415: ("Unsupported Media Type", "The request's body must be JSON (application/json)."),
    431: ("Request Header Fields Too Large", "The request's headers are over the limits."),
    500: ("Internal Server Error", "The service failed to answer the request."),
    501: ("Not Implemented", "conv_tasks does not implement this operation."),
    503: ("Service Unavailable", "The engine cannot be reached now; try again later."),
}

# The task answers' error codes (docs/task-api.md): the status and Heat's exception name.
_BY_CODE: dict[str, tuple[int, str]] = {
    "not_found": (404, "EntityNotFound"),
    "conflict": (409, "ActionInProgress"),
    "lost_race": (409, "ConcurrentTransaction"),
    "invalid_payload": (400, "InvalidRequest"),
    "invalid_template": (400, "StackValidationFailed"),
    "invalid_parameters": (400, "UserParameterMissing"),
    "invalid_environment": (400, "InvalidEnvironment"),
    "invalid_files": (400, "InvalidFiles"),
    "invalid_input": (400, "Invalid"),
    "dependency_cycle": (400, "CircularDependencyException"),
    "not_supported": (400, "NotSupported"),
    "not_authorized": (403, "Forbidden"),
    "unavailable": (503, "ServiceUnavailable"),
}


@dataclass(frozen=True)
class FaultProblem:
    path: str
    message: str


class ApiFault(ConvTasksError):
    """A refusal the edge answers with Heat's fault body and `status`."""

    code = "api_fault"

    def __init__(
        self,
        status: int,
        error_type: str,
        message: str,
        problems: Sequence[FaultProblem] = (),
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message
        self.problems = tuple(problems)
        self.headers = dict(headers or {})


@dataclass(frozen=True)
class Fault:
    """A fault body and its status, ready to send."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def fault_body(
    status: int, error_type: str, message: str, problems: Sequence[FaultProblem] = ()
) -> dict[str, Any]:
    title, explanation = _TITLES.get(status, ("Error", "The request failed."))
    error: dict[str, Any] = {"type": error_type, "message": message, "traceback": None}
    if problems:
        error["problems"] = [{"path": p.path, "message": p.message} for p in problems]
    return {"code": status, "title": title, "explanation": explanation, "error": error}


def fault_of(exc: ApiFault) -> Fault:
    return Fault(
        exc.status, fault_body(exc.status, exc.error_type, exc.message, exc.problems), exc.headers
    )


def fault_of_answer(answer: Mapping[str, Any]) -> Fault:
    """The fault for a task's refusal `{"ok": false, "error", "message", "problems"}`."""
    code = str(answer.get("error", ""))
    status, error_type = _BY_CODE.get(code, (400, "Invalid"))
    if code.startswith("invalid_") and code not in _BY_CODE:
        status, error_type = 400, "Invalid"
    message = str(answer.get("message") or "The request was refused.")
    if code == "unavailable":
        # The service and its masked URL say what is down; the detail may name more.
        message = f"The engine cannot reach {answer.get('service') or 'a service'}: {message}"
    problems = [
        FaultProblem(str(p.get("path", "")), str(p.get("message", "")))
        for p in answer.get("problems") or ()
        if isinstance(p, Mapping)
    ]
    return Fault(status, fault_body(status, error_type, message, problems))


def not_implemented(operation: str) -> ApiFault:
    return ApiFault(
        501,
        "NotImplemented",
        f"conv_tasks does not implement {operation}.",
    )


def bad_request(message: str, path: str = "", error_type: str = "InvalidRequest") -> ApiFault:
    problems = [FaultProblem(path, message)] if path else []
    return ApiFault(400, error_type, message, problems)


def not_found(message: str) -> ApiFault:
    return ApiFault(404, "EntityNotFound", message)
