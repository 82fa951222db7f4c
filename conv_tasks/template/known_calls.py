"""known_call_problems: function calls that must fail, found before anything runs.

A call whose arguments are all known when a stack is requested (literals, and get_param
of a parameter with a value) gives the same result at every traversal: if it fails
(str_replace_strict with a key not in the text, map_replace key collisions, repeat over
a non-list, str_split with a bad index, ...), the request is refused, as Heat refuses it
at stack create. A call that reads a resource (get_resource, get_attr), a parameter
without a value, or a hidden parameter (its value must not reach a message) is left to
the traversal. It must never change the template it is given.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.template.document import join_path
from conv_tasks.template.evaluate import Evaluator
from conv_tasks.template.functions import ArgumentError, GetParam, function_call, parse_call
from conv_tasks.template.model import Template

# The calls evaluated here; any other (get_resource, get_attr, if, ...) waits for the
# traversal, and so does every call around it.
_EVALUATED = frozenset(
    {
        "get_param",
        "repeat",
        "str_replace",
        "str_replace_strict",
        "str_replace_vstrict",
        "list_join",
        "str_split",
        "digest",
        "make_url",
        "map_merge",
        "map_replace",
        "filter",
        "list_concat",
        "list_concat_unique",
    }
)

_MISSING = "these params are not in the template: "


def known_call_problems(
    template: Template, parameters: Mapping[str, Any], hidden: Collection[str] = ()
) -> list[Problem]:
    """A problem for every call in a resource's properties or metadata whose arguments are
    known (parameters: the values known now; hidden: names whose values are never read
    here) and whose evaluation fails, with the path of the innermost failing call."""
    known = {k: v for k, v in parameters.items() if k not in hidden and v is not None}
    evaluator = Evaluator(known, {}, version=template.version, conditions=template.conditions)
    for name, snippet in template.resources.items():
        path = join_path("resources", name)
        for section, value in (("properties", snippet.properties), ("metadata", snippet.metadata)):
            _check(value, join_path(path, section), known, evaluator)
    return [_at_missing_key(p) for p in evaluator.problems]


def _at_missing_key(problem: Problem) -> Problem:
    """A strict str_replace missing one key is reported at that key, where its line is."""
    missing = problem.message.removeprefix(_MISSING)
    if missing == problem.message or ", " in missing:
        return problem
    if not problem.path.endswith(("str_replace_strict", "str_replace_vstrict")):
        return problem
    return Problem(join_path(join_path(problem.path, "params"), missing), problem.message)


def _check(value: Any, path: str, known: Mapping[str, Any], evaluator: Evaluator) -> None:
    todo: list[tuple[Any, str]] = [(value, path)]
    while todo:
        item, where = todo.pop()
        call = function_call(item)
        if call is not None:
            name, args = call
            if _is_known(item, known):
                evaluator.evaluate(item, where)
            elif name != "if":  # the branch not taken is never evaluated
                todo.append((args, join_path(where, name)))
        elif isinstance(item, Mapping):
            todo.extend((v, join_path(where, k)) for k, v in item.items())
        elif isinstance(item, list):
            todo.extend((v, join_path(where, i)) for i, v in enumerate(item))


def _is_known(value: Any, known: Mapping[str, Any]) -> bool:
    """True if value holds no call whose result waits for the traversal."""
    todo = [value]
    while todo:
        item = todo.pop()
        call = function_call(item)
        if call is not None:
            name, args = call
            if name not in _EVALUATED:
                return False
            if name == "get_param":
                try:
                    parsed = parse_call(name, args)
                except ArgumentError:
                    return False
                if not isinstance(parsed, GetParam) or parsed.name not in known:
                    return False
            todo.append(args)
        elif isinstance(item, Mapping):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return True
