"""json_string and test_constr: constraints on plain values.

Heat's test_constr waits as many seconds as the value says, so that its tests can watch a
slow check; here it passes every value at once, since a check must never hold a worker.
"""

from __future__ import annotations

import json
from typing import Any

from conv_tasks.constraints.network import NOT_TEXT


def json_string(value: Any) -> str | None:
    """A string that holds a JSON document (an empty value passes, as in Heat)."""
    if not isinstance(value, str):
        return NOT_TEXT
    if value == "":
        return None
    try:
        json.loads(value)
    except ValueError as exc:
        # The position, never the text: the value may be a hidden parameter's.
        where = getattr(exc, "pos", None)
        return "is not valid JSON" + (f" (at character {where})" if where is not None else "")
    return None


def any_value(value: Any) -> None:
    """Heat's constraint for its own tests: every value passes."""
    return None
