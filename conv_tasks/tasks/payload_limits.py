"""Measuring a public task's payload against the limits before anything reads it.

One pass over the whole payload, without recursion (a payload may be nested
far deeper than Python's stack): its size in bytes as compact JSON, how deep
it nests, and every string and number in it. Strings must be storable text
(conv_tasks.input_text), numbers finite; the first problems found are named
by their dotted path. It stops as soon as the payload is too large, so a
huge payload costs no more than the limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.input_text import text_problem, utf8_length
from conv_tasks.limits import MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH
from conv_tasks.template import FLOAT_MAX

# Listing every NUL of a hostile payload would make the refusal as large as the payload.
MAX_LISTED = 20


@dataclass
class PayloadMeasure:
    """What one pass over a payload found."""

    problems: list[Problem] = field(default_factory=list)
    # Bytes of each top-level field, as compact JSON (a string field: its UTF-8 text).
    sizes: dict[str, int] = field(default_factory=dict)
    too_large: bool = False

    @property
    def bad_fields(self) -> frozenset[str]:
        """Top-level fields that have a problem already."""
        return frozenset(p.path.split(".", 1)[0] for p in self.problems)


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def measure_payload(payload: Mapping[str, Any]) -> PayloadMeasure:
    """Size, depth and the strings and numbers of payload, checked against the limits."""
    found = PayloadMeasure()
    total = 2
    for name, value in payload.items():
        problem = text_problem(name) if isinstance(name, str) else "must be a string"
        if problem is not None:
            _add(found, "", f"an argument name {problem}")
            continue
        size = _measure_value(value, name, found, MAX_PAYLOAD_BYTES - total)
        # A string field weighs its text (a template's limit is on its text), without the
        # quotes JSON puts around it; the payload's size counts them.
        found.sizes[name] = size - 2 if isinstance(value, str) else size
        total += size + len(name) + 4
        if total > MAX_PAYLOAD_BYTES:
            found.too_large = True
            found.problems = [
                Problem(
                    "",
                    f"the payload is larger than {MAX_PAYLOAD_BYTES} bytes as JSON "
                    "(MAX_PAYLOAD_BYTES)",
                )
            ]
            break
    return found


def _measure_value(value: Any, path: str, found: PayloadMeasure, budget: int) -> int:
    """Bytes of value as compact JSON, adding its problems to found; stops past budget."""
    size = 0
    # Depth counts the payload itself as 1, so a top-level field's value is at depth 2.
    pending: list[tuple[Any, str, int]] = [(value, path, 2)]
    while pending and size <= budget:
        item, where, depth = pending.pop()
        if isinstance(item, str):
            length = utf8_length(item)
            size += (length or len(item)) + 2
            problem = text_problem(item)
            if problem is not None:
                _add(found, where, problem)
        elif isinstance(item, bool) or item is None:
            size += 5
        elif isinstance(item, int):
            if abs(item) > FLOAT_MAX:
                _add(found, where, "numbers must be finite (this one is beyond a 64-bit float)")
                size += 309
            else:
                size += len(str(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                _add(found, where, "numbers must be finite")
            size += len(repr(item))
        elif isinstance(item, Mapping | list | tuple):
            if depth > MAX_PAYLOAD_DEPTH:
                _add(
                    found,
                    where,
                    f"is nested more than {MAX_PAYLOAD_DEPTH} levels deep (MAX_PAYLOAD_DEPTH)",
                )
                continue
            size += 2 + max(len(item) - 1, 0)
            if isinstance(item, Mapping):
                for key, inner in item.items():
                    if not isinstance(key, str):
                        _add(found, where, "keys must be strings")
                        continue
                    size += (utf8_length(key) or len(key)) + 3
                    problem = text_problem(key)
                    if problem is not None:
                        # Not looked into: its path would carry the bad key.
                        _add(found, where, f"a key {problem}")
                        continue
                    pending.append((inner, _join(where, key), depth + 1))
            else:
                pending.extend((inner, _join(where, i), depth + 1) for i, inner in enumerate(item))
        else:
            _add(found, where, f"a value of type {type(item).__name__} is not JSON")
    return size


def _add(found: PayloadMeasure, path: str, message: str) -> None:
    if len(found.problems) < MAX_LISTED:
        found.problems.append(Problem(path, message))
