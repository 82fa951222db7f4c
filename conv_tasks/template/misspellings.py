"""Maps that were meant to be function calls: {list_jion: [...]}, {get_atr: [...]}.

A map with one key that is not a function's name is data, as in Heat, so a misspelt
function is not an error by itself; but it is rarely what the template's writer meant,
and the error it leads to ("must be a list, not a map") does not say why. A key counts as
a misspelling only when it is long enough not to be an ordinary word that happens to look
like a short function's name (`note`, `not`), very near a function's name, and its value
has the shape that function's arguments must have. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.suggestions import nearest
from conv_tasks.template.function_shapes import check_shape
from conv_tasks.template.functions import FUNCTION_NAMES, ArgumentError, parse_call
from conv_tasks.template.versions import ALL_CONDITION_FUNCTIONS, DATED_VERSIONS, FUNCTIONS

_CUTOFF = 0.8  # nearer than other names must be: any map with one key may be plain data
_SHORTEST = 5
_LATEST = FUNCTIONS[DATED_VERSIONS[-1]]
_REFERENCES = ("get_param", "get_resource", "get_attr")  # parse_call checks their shapes


def misspelt_function(value: Any) -> str | None:
    """For a map whose one key is nearly a function's name ({list_jion: ...}):
    "'list_jion' is not a function; did you mean 'list_join'?"; None for anything else."""
    if not (isinstance(value, Mapping) and len(value) == 1):
        return None
    [(key, args)] = value.items()
    if not isinstance(key, str) or len(key) < _SHORTEST or key in FUNCTION_NAMES:
        return None
    meant = nearest(key, [*_LATEST, *ALL_CONDITION_FUNCTIONS], cutoff=_CUTOFF)
    if meant is None:
        return None
    try:
        if meant in _REFERENCES:
            parse_call(meant, args)
        else:
            check_shape(meant, args, _LATEST.get(meant, ""))
    except ArgumentError:
        return None
    return f"'{key}' is not a function; did you mean '{meant}'?"
