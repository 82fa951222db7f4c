"""The contract of every public task: a JSON Schema of its kwargs and one of its result.

The kwargs schemas are generated from the tasks' registered Field specs
(conv_tasks.tasks.payload_schema), the very schemas the worker validates
payloads with. The result schemas are written here: every result is either
{"ok": true, ...} with the task's own fields, or the refusal {"ok": false,
"error": code, "message": text, "problems": [{"path", "message"}]}. A task
registered without its own result schema still gets the envelope. The
result schemas allow fields they do not name, so that adding a field to a
result is not a breaking change. `conv-tasks api schema [TASK]` prints them.
"""

from __future__ import annotations

import importlib
from typing import Any

from conv_tasks.tasks.payload_schema import DRAFT, kwargs_schema

_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
_BOOLEAN = {"type": "boolean"}
_OBJECT = {"type": "object"}
_OBJECTS = {"type": "array", "items": _OBJECT}
_STARTED = {
    "stack_id": _STRING,
    "name": _STRING,
    "action": _STRING,
    "status": _STRING,
    "traversal": _STRING,
    "event_id": _INTEGER,
    "warnings": {"type": "array", "items": _STRING},
}
_DEPLOYMENT_SIGNAL = {
    "stack_id": _STRING,
    "deployment": _STRING,
    "resource": _STRING,
    "duplicate": _BOOLEAN,
    "ended": _BOOLEAN,
    "deploy_status": _STRING,
    "message": _STRING,
}
# The fields of each task's successful result, and which of them are always there.
RESULT_FIELDS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "conv_tasks.stack.create": (_STARTED, ["stack_id", "action", "status", "traversal"]),
    "conv_tasks.stack.update": (_STARTED, ["stack_id", "action", "status", "traversal"]),
    "conv_tasks.stack.apply": (
        {**_STARTED, "result": {"enum": ["created", "updated", "unchanged"]}},
        ["stack_id", "action", "status", "result"],
    ),
    "conv_tasks.stack.delete": (_STARTED, ["stack_id", "action", "status", "traversal"]),
    "conv_tasks.stack.rollback": (_STARTED, ["stack_id", "action", "status", "traversal"]),
    "conv_tasks.stack.cancel_update": (_STARTED, ["stack_id", "action", "status"]),
    "conv_tasks.stack.check": (_STARTED, ["stack_id", "action", "status", "traversal"]),
    "conv_tasks.stack.suspend": (_STARTED, ["stack_id", "action", "status", "traversal"]),
    "conv_tasks.stack.resume": (_STARTED, ["stack_id", "action", "status", "traversal"]),
    "conv_tasks.resource.mark_unhealthy": (
        {"stack_id": _STRING, "resource": _STRING, "status": _STRING, "changed": _BOOLEAN},
        ["stack_id", "resource", "status", "changed"],
    ),
    "conv_tasks.stack.show": ({"stack_id": _STRING, "stack": _OBJECT}, ["stack_id", "stack"]),
    "conv_tasks.stack.list": ({"stacks": _OBJECTS}, ["stacks"]),
    "conv_tasks.stack.resources": ({"resources": _OBJECTS}, ["resources"]),
    "conv_tasks.stack.events": ({"events": _OBJECTS}, ["events"]),
    "conv_tasks.stack.outputs": ({"outputs": _OBJECT}, ["outputs"]),
    "conv_tasks.stack.history": (
        {"operations": _OBJECTS, "next": {"type": ["integer", "null"]}},
        ["operations", "next"],
    ),
    "conv_tasks.stack.overview": (
        {
            "attention": _OBJECTS,
            "attention_total": _INTEGER,
            "stacks": _OBJECTS,
            "next": {"type": ["string", "null"]},
            "total": _INTEGER,
        },
        ["attention", "attention_total", "stacks", "next", "total"],
    ),
    "conv_tasks.resource.signal": (
        {"stack_id": _STRING, "resource": _STRING, "deploy_status": _STRING, "message": _STRING},
        ["stack_id", "resource"],
    ),
    "conv_tasks.deployment.metadata": (
        {"server": _STRING, "deployments": _OBJECTS},
        ["server", "deployments"],
    ),
    "conv_tasks.deployment.signal": (_DEPLOYMENT_SIGNAL, ["deploy_status"]),
    "conv_tasks.deployment.credential": (
        {"stack_id": _STRING, "server": _STRING, "credential": _STRING, "rotated": _BOOLEAN},
        ["server", "credential"],
    ),
    "conv_tasks.deployment.list": ({"deployments": _OBJECTS}, ["deployments"]),
    "conv_tasks.deployment.show": ({"deployment": _OBJECT}, ["deployment"]),
    "conv_tasks.wait_condition.signal": (
        {
            "stack_id": _STRING,
            "resource": _STRING,
            "handle": _STRING,
            "id": _STRING,
            "status": {"enum": ["SUCCESS", "FAILURE"]},
            "replaced": _BOOLEAN,
            "signals": {"type": "integer", "minimum": 1},
            "message": _STRING,
        },
        ["stack_id", "resource", "handle", "id", "status"],
    ),
}

REFUSAL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"const": False},
        "error": {
            "type": "string",
            "description": "A code: invalid_payload, invalid_template, invalid_parameters, "
            "invalid_environment, "
            "dependency_cycle, not_found, not_supported, conflict, lost_race, not_authorized, "
            "unavailable (the worker cannot reach `service` at `url`).",
        },
        "message": _STRING,
        "service": {
            "enum": ["postgresql", "syncpoint_redis"],
            "description": "unavailable: what the worker cannot reach.",
        },
        "url": {"type": "string", "description": "unavailable: its URL, the password masked."},
        "detail": {"type": "string", "description": "unavailable: the error met."},
        "problems": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": _STRING, "message": _STRING},
                "required": ["path", "message"],
            },
        },
    },
    "required": ["ok", "error", "message"],
}

TASK_MODULES = (
    "conv_tasks.tasks.stack",
    "conv_tasks.tasks.deployment",
    "conv_tasks.tasks.wait_condition",
)


def result_schema(task: str) -> dict[str, Any]:
    properties, required = RESULT_FIELDS.get(task, ({}, []))
    success = {
        "type": "object",
        "properties": {"ok": {"const": True}, **properties},
        "required": ["ok", *required],
    }
    return {
        "$schema": DRAFT,
        "$id": f"urn:conv-tasks:task:{task}:result",
        "title": f"{task} result",
        "oneOf": [success, REFUSAL],
    }


def public_tasks() -> dict[str, list[Any]]:
    """Every registered public task's fields, by name (imports the task modules)."""
    for module in TASK_MODULES:
        importlib.import_module(module)
    from conv_tasks.tasks.app import app
    from conv_tasks.tasks.public import PUBLIC_TASKS

    app.loader.import_default_modules()  # tasks registered by other modules of the app
    return dict(sorted(PUBLIC_TASKS.items()))


def task_contract(task: str, fields: list[Any]) -> dict[str, Any]:
    return {"task": task, "kwargs": kwargs_schema(task, fields), "result": result_schema(task)}


def contracts(task: str | None = None) -> dict[str, dict[str, Any]]:
    """The contract of `task`, or of every public task; KeyError for an unknown task."""
    tasks = public_tasks()
    if task is not None:
        return {task: task_contract(task, tasks[task])}
    return {name: task_contract(name, fields) for name, fields in tasks.items()}
