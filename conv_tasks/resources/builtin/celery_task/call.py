"""One call of another service's Celery task, as a resource's property describes it: its
task, queue and kwargs, checked; the task id a call gets from its action's token; reading
the physical id out of a result; and what counts as JSON here. Pure: no broker, no I/O.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.sdk import MAX_TASK_JSON_BYTES

# A task's registered name: identifiers joined by dots (Celery names a task module.function).
TASK_NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)+"
# Where the physical id is in a create task's result: keys joined by dots; a part made of
# digits indexes a list.
ID_PATH_PATTERN = r"[^.\s]+(\.[^.\s]+)*"
QUEUE_PATTERN = r"\S+"

# What conv_tasks adds to every call's kwargs: the action's idempotency token...
IDEMPOTENCY_KEY = "idempotency_key"
# ...and to an update's and a delete's, the resource's physical id.
RESOURCE_ID = "id"
ENGINE_KWARGS = {
    "create": (IDEMPOTENCY_KEY,),
    "update": (IDEMPOTENCY_KEY, RESOURCE_ID),
    "delete": (IDEMPOTENCY_KEY, RESOURCE_ID),
}

# Fixed, so that a token gives the same task id on every host and after every restart.
_TASK_ID_NAMESPACE = uuid.UUID("0c6f4f1e-3b1d-4f0e-9a51-7f3d2e8c9b44")
# The longest physical id a resource row holds.
MAX_PHYSICAL_ID_CHARS = 255


def task_id_for(token: str) -> str:
    """The Celery task id of the call an action with this idempotency token makes: a call
    sent again (a worker died before its step was recorded) is the same task."""
    return str(uuid.uuid5(_TASK_ID_NAMESPACE, token))


@dataclass(frozen=True)
class TaskCall:
    """A task to send, where, and with which keyword arguments (the template's own)."""

    task: str
    queue: str | None = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> TaskCall:
        """The call a validated property value ({task, queue, kwargs}) describes."""
        return cls(str(spec["task"]), spec.get("queue") or None, dict(spec.get("kwargs") or {}))

    def sent_kwargs(self, token: str, physical_id: str | None = None) -> dict[str, Any]:
        """The kwargs the task receives: the template's, the idempotency key, and for an
        update or a delete (physical_id given) the resource's id."""
        added: dict[str, Any] = {IDEMPOTENCY_KEY: token}
        if physical_id is not None:
            added[RESOURCE_ID] = physical_id
        return {**self.kwargs, **added}


def json_problem(
    value: Any,
    *,
    max_bytes: int = MAX_TASK_JSON_BYTES,
    skip: Callable[[Any], bool] | None = None,
) -> str | None:
    """Why `value` is not JSON that conv_tasks can keep, as a phrase ("holds NaN at a.b"), or
    None if it is: objects with string keys, lists, strings without NUL characters (which
    PostgreSQL cannot store), finite numbers, booleans and null, at most `max_bytes` as JSON.
    `skip`: parts taken on trust (intrinsic functions in a template)."""
    todo: list[tuple[Any, str]] = [(value, "")]
    while todo:
        item, where = todo.pop()
        if skip is not None and skip(item):
            continue
        at = f" at {where}" if where else ""
        if isinstance(item, Mapping):
            for key, inner in item.items():
                if not isinstance(key, str):
                    return f"has a key that is not a string ({key!r}){at}"
                todo.append((inner, f"{where}.{key}" if where else key))
        elif isinstance(item, list | tuple):
            todo.extend((inner, f"{where}[{n}]") for n, inner in enumerate(item))
        elif isinstance(item, str):
            if "\x00" in item:
                return f"holds a NUL character{at}"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"holds {item!r}{at}, which JSON has no number for"
        elif item is not None and not isinstance(item, bool | int):
            return f"holds a {type(item).__name__}{at}, which is not a JSON value"
    if skip is None:
        size = len(json.dumps(value, separators=(",", ":")).encode())
        if size > max_bytes:
            return f"is {size} bytes as JSON, over the limit of {max_bytes} (MAX_TASK_JSON_BYTES)"
    return None


def kwargs_problems(
    kwargs: Any, action: str, *, skip: Callable[[Any], bool] | None = None
) -> list[tuple[str, str]]:
    """(path under kwargs, message) for every reason `kwargs` cannot be sent to an `action`
    task: not a JSON object, or naming an argument conv_tasks sets itself."""
    if skip is not None and skip(kwargs):
        return []
    if not isinstance(kwargs, Mapping):
        return [("", "must be a JSON object (a map of argument names to values)")]
    found = [
        (f".{key}", f"is set by conv_tasks (the {action} task receives it); remove it")
        for key in ENGINE_KWARGS[action]
        if key in kwargs
    ]
    problem = json_problem(kwargs, skip=skip)
    if problem is not None:
        found.append(("", f"must be a JSON object: it {problem}"))
    return found


def physical_id_at(result: Any, id_path: str) -> str:
    """The physical id at `id_path` in a create task's result; ValueError, saying what is
    missing, if there is none (or it is not a string or a whole number)."""
    found = result
    walked: list[str] = []
    for part in id_path.split("."):
        walked.append(part)
        if isinstance(found, Mapping) and part in found:
            found = found[part]
        elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
        else:
            raise ValueError(f"the create task's result has no {'.'.join(walked)} (id_path)")
    if isinstance(found, bool) or not isinstance(found, str | int) or found == "":
        raise ValueError(
            f"the create task's result holds {found!r} at {id_path} (id_path): "
            "an id must be a non-empty string or a whole number"
        )
    text = str(found)
    if len(text) > MAX_PHYSICAL_ID_CHARS:
        raise ValueError(
            f"the create task's result holds an id of {len(text)} characters at {id_path} "
            f"(id_path); at most {MAX_PHYSICAL_ID_CHARS} fit"
        )
    return text


def one_line(text: str, limit: int = 500) -> str:
    """`text` on one line (whitespace runs as one space), cut to `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
