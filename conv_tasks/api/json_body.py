"""A request's body as JSON, checked before anything reads it.

The body must be JSON (`Content-Type: application/json`), at most MAX_PAYLOAD_BYTES, nested
at most MAX_PAYLOAD_DEPTH deep, with finite numbers only: the limits of the public tasks
(conv_tasks/limits.py), so a body the edge accepts is one a task may accept. Refusals are
ApiFaults naming the limit.
"""

from __future__ import annotations

import json
import math
from typing import Any

from conv_tasks.edge import ApiFault, FaultProblem, bad_request
from conv_tasks.limits import MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH

JSON_TYPES = ("application/json",)


def check_content_type(content_type: str | None, body: bytes) -> None:
    """An empty body needs no type; any other must say it is JSON."""
    if not body:
        return
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media not in JSON_TYPES and not media.endswith("+json"):
        shown = media or "none"
        raise ApiFault(
            415,
            "UnsupportedMediaType",
            f"The body must be JSON sent as application/json, not {shown[:100]}.",
            [FaultProblem("Content-Type", f"must be application/json, got {shown[:100]}")],
        )


def too_large(size: int) -> ApiFault:
    return ApiFault(
        413,
        "RequestLimitExceeded",
        f"The body is larger than {MAX_PAYLOAD_BYTES} bytes (MAX_PAYLOAD_BYTES)"
        + (f": {size} bytes." if size else "."),
        [FaultProblem("body", f"must be at most {MAX_PAYLOAD_BYTES} bytes (MAX_PAYLOAD_BYTES)")],
    )


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is not a finite number")
    return value


def depth_of(value: Any) -> int:
    """How deep objects and lists nest in `value` (the value itself counts), without
    recursion; stops counting past the limit."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > MAX_PAYLOAD_DEPTH:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _check_depth(value: Any, what: str) -> None:
    if depth_of(value) > MAX_PAYLOAD_DEPTH:
        raise bad_request(
            f"The {what} nests objects and lists more than {MAX_PAYLOAD_DEPTH} deep "
            "(MAX_PAYLOAD_DEPTH).",
            "body",
            "RequestLimitExceeded",
        )


def _bracket_depth(text: str) -> int:
    """The deepest bracket nesting of JSON text, strings skipped: checked before parsing so
    that a hostile body never reaches the parser's recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_PAYLOAD_DEPTH:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def parse_json(body: bytes, *, what: str = "body") -> Any:
    """The JSON value of `body`; ApiFault 400 naming what is wrong with it."""
    if len(body) > MAX_PAYLOAD_BYTES:
        raise too_large(len(body))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad_request(
            f"The {what} is not UTF-8 text: byte {exc.start} cannot be decoded.", "body"
        ) from None
    if _bracket_depth(text) > MAX_PAYLOAD_DEPTH:
        _check_depth(_deep_marker(), what)
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError:
        _check_depth(_deep_marker(), what)
        raise
    except ValueError as exc:
        raise bad_request(f"The {what} is not valid JSON: {str(exc)[:200]}.", "body") from None
    _check_depth(value, what)
    return value


def _deep_marker() -> Any:
    """A value deeper than the limit, so that _check_depth refuses it with its message."""
    value: Any = []
    for _ in range(MAX_PAYLOAD_DEPTH + 1):
        value = [value]
    return value


def parse_object(body: bytes, *, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object; an empty body is {} unless `required`."""
    if not body.strip():
        if required:
            raise bad_request("The request needs a JSON object as its body.", "body")
        return {}
    value = parse_json(body)
    if not isinstance(value, dict):
        raise bad_request(f"The body must be a JSON object, not {type(value).__name__}.", "body")
    return value
