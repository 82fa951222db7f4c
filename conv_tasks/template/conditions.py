"""The conditions section: checking it when a template is loaded, and deciding each
condition from parameter values.

Conditions depend only on parameters, so they are decided once per stack definition.
Pure: it must never look at resources' data or do I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.template.collection_functions import contains
from conv_tasks.template.document import join_path
from conv_tasks.template.function_checks import Scope, check_condition
from conv_tasks.template.functions import GetParam, function_call, parse_call
from conv_tasks.template.unresolvable import Unresolvable
from conv_tasks.template.versions import CONDITIONS_SINCE

_IN_PROGRESS = object()
# How deep conditions may refer to conditions: deciding them recurses, so a chain longer
# than this is refused rather than allowed to exhaust the stack.
MAX_CONDITION_DEPTH = 100


def check_conditions_section(value: Any, scope: Scope) -> list[Problem]:
    """Every problem with the conditions section: its shape, the functions it uses, the
    names it refers to and circular definitions."""
    if value is None:
        return []
    if scope.version < CONDITIONS_SINCE:
        return [
            Problem(
                "conditions",
                f"the conditions section needs heat_template_version {CONDITIONS_SINCE} or "
                f"later (this template is {scope.version})",
            )
        ]
    if not isinstance(value, Mapping):
        return [Problem("conditions", "must be a mapping of condition names to definitions")]
    problems: list[Problem] = []
    for name, definition in value.items():
        path = join_path("conditions", name)
        if not isinstance(definition, bool) and function_call(definition) is None:
            problems.append(Problem(path, "must be true, false or a condition function"))
            continue
        problems.extend(check_condition(definition, path, scope))
    if not problems:
        problems.extend(_cycles(value))
    return problems


def condition_names(value: Any) -> list[str]:
    """The condition names a condition refers to (the arguments of not, and, or)."""
    found: list[str] = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            found.append(item)
            continue
        call = function_call(item)
        if call is None:
            continue
        name, args = call
        if name == "not":
            todo.append(args)
        elif name in ("and", "or") and isinstance(args, list):
            todo.extend(args)
        elif name in ("equals", "contains") and isinstance(args, list):
            # Their arguments are values, but may hold condition functions in turn.
            todo.extend(a for a in args if function_call(a) is not None)
    return found


def _cycles(definitions: Mapping[str, Any]) -> list[Problem]:
    """The first circular definition found, as a problem (an iterative depth-first search:
    a long chain of conditions must not exhaust the stack)."""
    done: set[str] = set()
    for start in definitions:
        if start in done:
            continue
        trail = [start]
        on_trail = {start}
        pending = [iter(condition_names(definitions[start]))]
        while pending:
            following = next(pending[-1], None)
            if following is None:
                pending.pop()
                finished = trail.pop()
                on_trail.discard(finished)
                done.add(finished)
                continue
            if following not in definitions or following in done:
                continue
            if following in on_trail:
                loop = [*trail[trail.index(following) :], following]
                return [
                    Problem(
                        join_path("conditions", following),
                        "circular definition: " + " -> ".join(loop),
                    )
                ]
            trail.append(following)
            on_trail.add(following)
            pending.append(iter(condition_names(definitions[following])))
    return []


class ConditionSet:
    """Decides conditions from parameter values; each named condition at most once."""

    def __init__(self, definitions: Mapping[str, Any], parameters: Mapping[str, Any]) -> None:
        self.definitions = definitions
        self.parameters = parameters
        self._decided: dict[str, object] = {}
        self._depth = 0

    def enabled(self, condition: Any) -> bool:
        """Whether a condition (a name, a boolean, None or an expression) holds."""
        if condition is None:
            return True
        if isinstance(condition, bool):
            return condition
        if function_call(condition) is not None:
            result = self._value(condition)
            if isinstance(result, bool):
                return result
            return self.enabled_by_name(result)
        return self.enabled_by_name(condition)

    def enabled_by_name(self, name: Any) -> bool:
        if not isinstance(name, str) or name not in self.definitions:
            # Names written in the template were checked when it was loaded, so this one
            # came from a parameter: its value is not repeated (the parameter may be hidden).
            raise Unresolvable(
                "a value read from a parameter is used as a condition, and it is neither "
                "true, false nor the name of a condition"
            )
        decided = self._decided.get(name)
        if decided is _IN_PROGRESS:
            raise Unresolvable(f"condition '{name}' is defined in terms of itself")
        if decided is None:
            if self._depth >= MAX_CONDITION_DEPTH:
                raise Unresolvable(
                    f"conditions refer to other conditions more than {MAX_CONDITION_DEPTH} deep"
                )
            self._decided[name] = _IN_PROGRESS
            self._depth += 1
            try:
                result = self._value(self.definitions[name])
            except Unresolvable:
                del self._decided[name]  # undecided, not in progress, for the next caller
                raise
            finally:
                self._depth -= 1
            if not isinstance(result, bool):
                # The value is not shown: it may be a hidden parameter's.
                raise Unresolvable(
                    f"condition '{name}' must come out true or false, not a "
                    f"{type(result).__name__} value"
                )
            self._decided[name] = result
            decided = result
        return bool(decided)

    def _value(self, value: Any) -> Any:
        """A value inside a condition, with its condition functions evaluated."""
        call = function_call(value)
        if call is None:
            if isinstance(value, Mapping):
                return {k: self._value(v) for k, v in value.items()}
            if isinstance(value, list):
                return [self._value(v) for v in value]
            return value
        name, args = call
        if name == "get_param":
            return self._get_param(parse_call(name, args))
        if name == "equals":
            return self._value(args[0]) == self._value(args[1])
        if name == "contains":
            return contains(self._value(args[0]), self._value(args[1]))
        if name == "not":
            return not self.enabled(self._value(args))
        if name == "and":
            return all(self.enabled(self._value(item)) for item in args)
        if name == "or":
            return any(self.enabled(self._value(item)) for item in args)
        raise Unresolvable(f"the function '{name}' cannot be used in a condition")

    def _get_param(self, call: Any) -> Any:
        assert isinstance(call, GetParam)
        if call.name not in self.parameters:
            raise Unresolvable(f"parameter '{call.name}' has no value")
        value = self.parameters[call.name]
        for key in (self._value(k) for k in call.path):
            if isinstance(value, Mapping):
                value = value.get(key, value.get(str(key), "")) if value else ""
            elif isinstance(value, list) and str(key).lstrip("-").isdigit():
                index = int(key)
                value = value[index] if -len(value) <= index < len(value) else ""
            else:
                value = ""  # as Heat: a path that leads nowhere gives ""
        return value
