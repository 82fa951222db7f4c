"""What a task message must look like before Celery's consumer handles it.

Celery's consumer trusts the shape of a task message: a body that decoded to
`42` instead of `[args, kwargs, embed]`, headers without an `id`, a task id
that was a list or a `timelimit` of "xx" each raised in the worker's main
process, and the worker stopped for good. conv_tasks.tasks.consumer runs
these checks first and refuses a message that fails one. They only read, and
name what is wrong in a sentence; they never raise, whatever they are given.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from conv_tasks.limits import MAX_MESSAGE_BYTES, MAX_MESSAGE_DEPTH, MAX_NAME_CHARS
from conv_tasks.tasks.bounded_decoding import JSON_CONTENT_TYPE

# A time limit beyond this many seconds (about 31 years) is not a limit but a mistake.
MAX_TIME_LIMIT = 1e9

_TEXT_HEADERS = ("shadow", "eta", "expires", "group", "root_id", "parent_id", "origin", "lang")
_COUNT_HEADERS = ("retries", "group_index", "replaced_task_nesting")
_SIGNATURE_LISTS = ("callbacks", "errbacks", "chain")
# The one task of Celery's own a conv_tasks worker runs: beat sends it where the result backend
# cannot expire results itself. Celery's canvas tasks (group, chain, map, chord_unlock...)
# conv_tasks never sends, and with arguments of a sender's choosing they fail in the pool.
_CELERY_TASKS = frozenset({"celery.backend_cleanup"})


# The types a decoded JSON message is made of that hold nothing: checked by exact type first,
# since an isinstance check against Mapping (an ABC) costs several times more, on every
# header of every message.
_TEXT_TYPES = (str, bytes)
_PLAIN_TYPES = (int, float, bool, type(None))


def _too_large(value: object) -> str | None:
    """Whether a decoded value is larger or deeper than a message may be, walked without
    recursion."""
    chars = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind in _TEXT_TYPES:
            chars += len(item)  # type: ignore[arg-type]
        elif kind in _PLAIN_TYPES:
            chars += 8
        else:
            chars += len(item) if isinstance(item, str | bytes) else 8
            if isinstance(item, Mapping | list | tuple):
                if depth > MAX_MESSAGE_DEPTH:
                    return f"nested more than {MAX_MESSAGE_DEPTH} levels deep (MAX_MESSAGE_DEPTH)"
                pairs = item.items() if isinstance(item, Mapping) else enumerate(item)
                for key, inner in pairs:
                    stack.append((key, depth + 1))
                    stack.append((inner, depth + 1))
        if chars > MAX_MESSAGE_BYTES:
            return f"larger than the limit of {MAX_MESSAGE_BYTES} bytes (MAX_MESSAGE_BYTES)"
    return None


# Task names, task ids and the other identifiers in the headers are names too.
def _name(headers: Mapping[str, Any], key: str, *, required: bool) -> str | None:
    value = headers.get(key)
    if value is None:
        return f"the header {key!r} is missing" if required else None
    if not isinstance(value, str) or (required and not value):
        return f"the header {key!r} must be a string"
    if len(value) > MAX_NAME_CHARS:
        return f"the header {key!r} is longer than {MAX_NAME_CHARS} characters"
    return None


def _count(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _time_limit(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT


def _signature(value: object) -> bool:
    """A callback as Celery sends it: a mapping naming a task, with optional args and options."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("task"), str)
        and isinstance(value.get("args", []), list | tuple)
        and isinstance(value.get("kwargs", {}), Mapping)
        and isinstance(value.get("options", {}), Mapping)
    )


def envelope_problem(headers: object, properties: object, content_type: object) -> str | None:
    """What is wrong with a message's headers and properties, or None if nothing is."""
    if not isinstance(headers, Mapping) or "task" not in headers:
        return "the message has no task header (conv_tasks takes Celery's message protocol 2)"
    for key in ("task", "id"):
        problem = _name(headers, key, required=True)
        if problem:
            return problem
    task = headers["task"]
    if not task.startswith("conv_tasks.") and task not in _CELERY_TASKS:
        return f"{task} is not a conv_tasks task, and a conv_tasks worker runs no other"
    for key in _TEXT_HEADERS:
        problem = _name(headers, key, required=False)
        if problem:
            return problem
    for key in _COUNT_HEADERS:
        if not _count(headers.get(key)):
            return f"the header {key!r} must be a whole number, zero or more"
    limits = headers.get("timelimit")
    if limits is not None and not (
        isinstance(limits, list | tuple) and len(limits) == 2 and all(map(_time_limit, limits))
    ):
        return (
            "the header 'timelimit' must be [soft, hard], each null or a number of seconds "
            f"above zero and at most {MAX_TIME_LIMIT:.0f}"
        )
    if headers.get("ignore_result") not in (None, True, False):
        return "the header 'ignore_result' must be true or false"
    stamped = headers.get("stamped_headers")
    if stamped is not None and not (
        isinstance(stamped, list | tuple) and all(isinstance(s, str) for s in stamped)
    ):
        return "the header 'stamped_headers' must be a list of strings"
    if not isinstance(headers.get("stamps", {}), Mapping | None):
        return "the header 'stamps' must be a mapping"
    if not isinstance(properties, Mapping):
        return "the message properties must be a mapping"
    for what, value in (("headers", headers), ("properties", properties)):
        problem = _too_large(value)
        if problem:
            return f"the message {what} are {problem}"
    if content_type != JSON_CONTENT_TYPE:
        return f"the message body is {content_type!r}; conv_tasks takes {JSON_CONTENT_TYPE} only"
    return None


def body_problem(task: str, payload: object) -> str | None:
    """What is wrong with a decoded body, [args, kwargs, embed], or None if nothing is."""
    if not isinstance(payload, list | tuple) or len(payload) != 3:
        return "the message body must be a list [args, kwargs, embed]"
    args, kwargs, embed = payload
    if not isinstance(args, list | tuple):
        return "the task's positional arguments must be a list"
    if not isinstance(kwargs, Mapping):
        return "the task's keyword arguments must be a mapping"
    if args and task.startswith("conv_tasks."):
        return f"{task} takes keyword arguments only, got {len(args)} positional"
    if embed is None:
        return None
    if not isinstance(embed, Mapping):
        return "the third item of the message body (callbacks, chain, chord) must be a mapping"
    for key in _SIGNATURE_LISTS:
        value = embed.get(key)
        if value is not None and not (
            isinstance(value, list | tuple) and all(map(_signature, value))
        ):
            return f"{key!r} must be a list of task signatures"
    chord = embed.get("chord")
    if chord is not None and not _signature(chord):
        return "'chord' must be a task signature"
    return None


@lru_cache(maxsize=256)
def _function_signature(run: Callable[..., Any]) -> inspect.Signature | None:
    """The signature of a task's function, read once per function (None: it has none)."""
    try:
        # The function Celery calls, not one it wraps: a public task takes any keyword
        # arguments, and refuses the wrong ones itself, naming each.
        return inspect.signature(run, follow_wrapped=False)
    except (TypeError, ValueError):
        return None


@lru_cache(maxsize=256)
def _takes_any_keywords(signature: inspect.Signature) -> bool:
    """Whether the signature is `(**kwargs)` alone: any keyword arguments bind, no others."""
    kinds = [p.kind for p in signature.parameters.values()]
    return kinds == [inspect.Parameter.VAR_KEYWORD]


def arguments_problem(task: str, run: Callable[..., Any], args: Any, kwargs: Any) -> str | None:
    """Whether the task's function takes these arguments (else a TypeError in the pool)."""
    signature = _function_signature(run)
    if signature is None:
        return None  # nothing to check against
    if not args and _takes_any_keywords(signature) and all(isinstance(k, str) for k in kwargs):
        return None  # what bind() would say, without building a binding (every graph node)
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        return f"{task} does not take these arguments: {exc}"
    return None
