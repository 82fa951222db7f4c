"""The regular expressions of allowed_pattern constraints, run in bounded time.

A template's author writes these and a user's values are matched against
them, so both sides may be hostile. Python's `re` backtracks: `(a+)+$`
against forty characters takes longer than anyone waits, and no timeout can
stop it. So patterns run on RE2, which never backtracks: a match takes time
proportional to the pattern's compiled program size times the value's
length, whatever either holds. Both factors are known before matching, so
their product is charged against a budget (MAX_PATTERN_WORK) for all the
checks of one template load or one set of parameter values; a check past it
is refused, naming the limit, without being run. Pattern text is limited to
MAX_PATTERN_CHARS, and RE2 refuses repetition counts past 1,000 and programs
past its memory budget, so compiling is bounded too.

RE2 has no backreferences and no look-around; a pattern using them is
refused when the template is loaded, saying so.
"""

from __future__ import annotations

import functools
from typing import Any

import re2

from conv_tasks.input_text import utf8_length
from conv_tasks.limits import MAX_PATTERN_CHARS, MAX_PATTERN_WORK


class PatternRefused(Exception):
    """The pattern cannot be run in bounded time; the message completes 'the pattern ...'."""


def _options() -> Any:
    options = re2.Options()
    # RE2 would otherwise print every refused pattern on the worker's stderr.
    options.log_errors = False
    # Compiled programs and their match caches stay within this (RE2's default is 8 MiB).
    options.max_mem = 2 * 1024 * 1024
    return options


_OPTIONS = _options()


_LOOK_AROUND = ("(?=", "(?!", "(?<=", "(?<!")


def _refusal(pattern: str, error: str) -> str:
    unsupported = "which allowed_pattern does not support (its syntax is RE2's)"
    numbered = error.startswith("invalid escape sequence: \\") and error[-1:].isdigit()
    if numbered or "(?P=" in pattern:
        return f"uses a backreference, {unsupported}"
    if error.startswith("invalid perl operator: ") and error.endswith(_LOOK_AROUND):
        return f"uses look-around, {unsupported}"
    return f"is not a valid regular expression (RE2 syntax): {error}"


@functools.lru_cache(maxsize=64)
def compile_pattern(pattern: str) -> Any:
    """The compiled pattern; PatternRefused if it is too long or RE2 cannot run it."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternRefused(
            f"is {len(pattern)} characters long; the limit is {MAX_PATTERN_CHARS} "
            "(MAX_PATTERN_CHARS)"
        )
    if utf8_length(pattern) is None or "\x00" in pattern:
        raise PatternRefused("is not valid text")
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        error = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        raise PatternRefused(_refusal(pattern, error)) from None


class PatternWork:
    """What the pattern checks of one template load or one set of values may still spend."""

    def __init__(self, budget: int = MAX_PATTERN_WORK) -> None:
        self.left = budget

    def full_match(self, pattern: str, value: str) -> bool | None:
        """Whether the whole value matches; None when the check would pass the budget.

        The pattern must have compiled when its template was loaded.
        """
        compiled = compile_pattern(pattern)
        length = utf8_length(value)
        if length is None:
            return False
        cost = compiled.programsize * (length + 1)
        if cost > self.left:
            self.left = 0
            return None
        self.left -= cost
        return compiled.fullmatch(value) is not None
