"""Registering a public task: its payload checked, refusals turned into JSON.

Every public task (conv_tasks.tasks.stack, conv_tasks.tasks.deployment) is a
function of checked keyword arguments returning a dict; the task answers
{"ok": true, ...} with it, or {"ok": false, "error": code, "message": ...,
"problems": [...]} when the request is refused (and then nothing changed).
A worker that cannot reach PostgreSQL or the SyncPoint Redis answers the
refusal `unavailable` with the service and its URL (password masked), which
the caller can show in one line, instead of failing with a traceback.

A read (a task that changes nothing: show, list, events, ...) sends no task
events unless CONV_TASKS_READ_TASK_EVENTS=1. Reads are what every poller sends
again and again (the CLI's `--wait` and `--follow`, `Client.wait`, the API's
clients, dashboards): with events, they were half of Flower's task list, and
pushed the graph nodes out of the history Flower keeps. A read's failure still
reaches the worker's log, and the request queue's depth Flower's Broker page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from celery import Task

from conv_tasks.errors import ConvTasksError
from conv_tasks.faults import TRANSIENT_FAULTS, unavailable
from conv_tasks.requests import Field, Request, task_fields
from conv_tasks.settings import get_settings
from conv_tasks.tasks.app import app
from conv_tasks.tasks.payloads import parse_payload

log = logging.getLogger(__name__)
R = TypeVar("R", bound=Request)

# The fields most public tasks share.
TENANT = Field("tenant", (str,), required=True, is_name=True)
STACK = Field("stack", (str,), required=True, is_name=True)

# Every public task's name and fields, as registered: `conv-tasks api schema` makes each
# task's JSON Schema from them (conv_tasks.tasks.contracts).
PUBLIC_TASKS: dict[str, list[Field]] = {}


def public_task(
    name: str, fields: list[Field], *, base: type[Task] | None = None, reads: bool = False
) -> Callable[[Callable[..., dict[str, Any]]], Any]:
    """Register func as the public task `name`, taking the keyword arguments `fields`;
    `reads` says it changes nothing (see above for what that means to monitors)."""

    PUBLIC_TASKS[name] = fields

    def decorate(func: Callable[..., Any]) -> Any:
        @wraps(func)
        def run(**payload: Any) -> dict[str, Any]:
            try:
                args = parse_payload(name, payload, fields)
                result = func(**args)
            except ConvTasksError as exc:
                log.info("%s refused: %s", name, exc)
                return {"ok": False, **exc.to_dict()}
            except TRANSIENT_FAULTS as exc:
                down = unavailable(exc, get_settings())
                if down is None:
                    raise
                log.warning("%s: %s", name, down)
                return {"ok": False, **down.to_dict()}
            if isinstance(result, dict):
                return {"ok": True, **result}
            return {"ok": True, "result": result}

        options: dict[str, Any] = {"name": name, "acks_late": False}
        if base is not None:
            options["base"] = base
        if reads:
            options["send_events"] = get_settings().read_task_events
        return app.task(**options)(run)

    return decorate


def request_task(
    request: type[R], *, reads: bool = False
) -> Callable[[Callable[[str, R], dict[str, Any]]], Any]:
    """Register func(tenant, request) as the public task the request class names
    (conv_tasks.requests): it takes the tenant and the request's fields as declared there,
    and func gets them as one request. `reads` as public_task's."""

    def decorate(func: Callable[[str, R], dict[str, Any]]) -> Any:
        @wraps(func)
        def run(tenant: str, **fields: Any) -> dict[str, Any]:
            return func(tenant, request(**fields))

        fields = [TENANT, *task_fields(request)]
        return public_task(request.TASK, fields, reads=reads)(run)

    return decorate
