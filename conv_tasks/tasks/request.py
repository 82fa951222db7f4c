"""What a worker shows of a task's arguments: in task events, its logs and `inspect` replies.

Celery's worker shows the `argsrepr` and `kwargsrepr` headers its sender
wrote, and a sender that writes none sends the full repr of the arguments:
parameter values, templates and signal details reached Flower. The worker
writes its own summary instead, whatever the sender did: the values of the
fields that only identify a request (tenant, stack, resource, node...), and of
every other field only its key names. Every conv_tasks task uses this
Request (conv_tasks.tasks.app sets Task as the app's task class).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import Any

from celery import Task as CeleryTask
from celery.worker.request import Request as CeleryRequest

from conv_tasks.tasks.node_summary import NODE_TASK, node_summary

HIDDEN = "******"

# The fields whose values a monitor may see: names, ids, flags and counts, never data.
SHOWN_FIELDS = frozenset(
    {
        "tenant",
        "stack",
        "name",
        "resource",
        "stack_id",
        "traversal",
        "template_id",
        "node",
        "include_deleted",
        "all_versions",
        "after_id",
        "rollback",
        "disable_rollback",
        "existing_parameters",
        "timeout_mins",
        "poll",
        "attempt",
        "recheck",
        "server",
        "deployment",
        "action",
        "rotate",
        "handle",
    }
)
# A summary shows at most this many fields (and keys of a field), and this many characters.
_MAX_KEYS = 20
_MAX_VALUE_CHARS = 100
_MAX_CHARS = 1024


def _more(count: int) -> str:
    return f"...{count} more"


def _value(value: object) -> object:
    if isinstance(value, str):
        return value if len(value) <= _MAX_VALUE_CHARS else value[:_MAX_VALUE_CHARS] + "..."
    if value is None or isinstance(value, bool | int | float):
        return value
    return HIDDEN


def _keys_only(value: object) -> object:
    """A mapping's key names with their values masked; anything else masked whole."""
    if not isinstance(value, Mapping):
        return HIDDEN
    shown: dict[str, object] = {str(_value(str(key))): HIDDEN for key in islice(value, _MAX_KEYS)}
    if len(value) > _MAX_KEYS:
        shown[_more(len(value) - _MAX_KEYS)] = HIDDEN
    return shown


def _fit(text: str) -> str:
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 3] + "..."


def shown_kwargs(kwargs: object) -> str:
    """What monitors see of a task's keyword arguments."""
    if not isinstance(kwargs, Mapping):
        return HIDDEN
    shown: dict[str, object] = {}
    for key in islice(kwargs, _MAX_KEYS):
        value = kwargs[key]
        name = str(_value(str(key)))
        shown[name] = _value(value) if key in SHOWN_FIELDS else _keys_only(value)
    if len(kwargs) > _MAX_KEYS:
        shown[_more(len(kwargs) - _MAX_KEYS)] = HIDDEN
    return _fit(repr(shown))


def shown_args(args: object) -> str:
    """What monitors see of a task's positional arguments: how many there are."""
    if not isinstance(args, list | tuple):
        return HIDDEN
    return _fit(repr((HIDDEN,) * min(len(args), _MAX_KEYS)))


class Request(CeleryRequest):
    """Celery's request, showing the worker's summary of the arguments, not the sender's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._argsrepr = shown_args(self._args)
        # A graph node says which stack, resource, phase and poll it is (tasks/node_summary.py).
        node = self.name == NODE_TASK
        self._kwargsrepr = node_summary(self._kwargs) if node else shown_kwargs(self._kwargs)
        # The pool process logs a task's failure and success with these headers.
        self._request_dict["argsrepr"] = self._argsrepr
        self._request_dict["kwargsrepr"] = self._kwargsrepr

    def info(self, safe: bool = False) -> dict[str, Any]:
        # `celery inspect active|reserved|scheduled` asks for the raw arguments unless --safe.
        info: dict[str, Any] = super().info(safe=True)
        return info


class Task(CeleryTask):
    """The base of every conv_tasks task."""

    Request = Request


class ResultHiddenTask(Task):
    """The base of the tasks whose results hold credentials (a server's deployment metadata,
    a credential just issued): the result's repr in the success log line and the
    task-succeeded event is one character, which Celery's saferepr turns into "{, ...}"."""

    resultrepr_maxsize = 1
