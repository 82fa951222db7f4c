"""A Celery task base for requests that carry credentials: monitors see none of them.

Celery's worker shows, in task events (Flower), its logs and `inspect`
replies, the argsrepr/kwargsrepr its sender wrote, and a sender that wrote
none sends the full repr of the arguments: an agent's credential would reach
Flower. Tasks on this base show the worker's own summary instead, whatever
the sender did: the values of the fields in SHOWN_FIELDS (names and ids),
only the key names of every other field. Their results, which may hold
credentials (a server's metadata, a credential just issued), are never shown
in logs or task events: only the caller reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import Any

from celery import Task
from celery.worker.request import Request

HIDDEN = "******"
SHOWN_FIELDS = frozenset({"tenant", "stack", "server", "name", "deployment", "action", "rotate"})
_MAX_KEYS = 20
_MAX_VALUE_CHARS = 100


def _value(value: object) -> object:
    if isinstance(value, str):
        return value if len(value) <= _MAX_VALUE_CHARS else value[:_MAX_VALUE_CHARS] + "..."
    if value is None or isinstance(value, bool | int | float):
        return value
    return HIDDEN


def shown_kwargs(kwargs: object) -> str:
    """What monitors see of a task's keyword arguments."""
    if not isinstance(kwargs, Mapping):
        return HIDDEN
    shown: dict[str, object] = {}
    for key in islice(kwargs, _MAX_KEYS):
        value = kwargs[key]
        if key in SHOWN_FIELDS:
            shown[str(_value(str(key)))] = _value(value)
        elif isinstance(value, Mapping):
            shown[str(_value(str(key)))] = {
                str(_value(str(k))): HIDDEN for k in islice(value, _MAX_KEYS)
            }
        else:
            shown[str(_value(str(key)))] = HIDDEN
    return repr(shown)


class SecretRequest(Request):
    """Celery's request, showing the worker's summary of the arguments, not the sender's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._argsrepr = repr((HIDDEN,) * len(self._args or ()))
        self._kwargsrepr = shown_kwargs(self._kwargs)
        # The pool process logs a task's failure with these headers.
        self._request_dict["argsrepr"] = self._argsrepr
        self._request_dict["kwargsrepr"] = self._kwargsrepr

    def info(self, safe: bool = False) -> dict[str, Any]:
        # `celery inspect active|reserved` asks for the raw arguments unless --safe.
        info: dict[str, Any] = super().info(safe=True)
        return info


class SecretTask(Task):
    """The base of the tasks whose arguments or results hold credentials."""

    Request = SecretRequest
    # The result's repr in the success log line and the task-succeeded event: one character,
    # which Celery's saferepr turns into "{, ...}" - the result itself never shows.
    resultrepr_maxsize = 1
