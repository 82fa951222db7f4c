"""The one error of evaluation: a function whose data does not let it give a value.

Kept apart so that the modules computing function results and the evaluator that calls
them share it without importing each other. It must never carry a template path: the
evaluator adds the path of the call.
"""

from __future__ import annotations


class Unresolvable(Exception):
    """A reference cannot be followed or a function's data is wrong. The message is a
    sentence fragment."""
