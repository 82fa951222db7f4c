"""Evaluates intrinsic functions against parameter values and other resources' data.

Runs only on templates that load_template accepted, so argument shapes are known to be
right; what can still fail is data that is missing. It must never change its inputs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import ConvTasksError, Problem
from conv_tasks.template.document import join_path
from conv_tasks.template.functions import (
    GetAttr,
    GetParam,
    GetResource,
    ListJoin,
    StrReplace,
    function_call,
    parse_call,
)
from conv_tasks.template.member_view import MEMBER_VIEW, read_member_view
from conv_tasks.template.model import ResourceData


class Unresolvable(Exception):
    """A reference cannot be followed. The message is a sentence fragment."""


class Evaluator:
    """Evaluates values, collecting a problem for each call that cannot be resolved."""

    def __init__(self, parameters: Mapping[str, Any], inputs: Mapping[str, ResourceData]) -> None:
        self.parameters = parameters
        self.inputs = inputs
        self.problems: list[Problem] = []

    def evaluate(self, value: Any, path: str) -> Any:
        """value with every function call replaced by its result (None where one failed)."""
        call = function_call(value)
        if call is not None:
            name, args = call
            call_path = join_path(path, name)
            before = len(self.problems)
            try:
                return self._call(name, args, call_path)
            except Unresolvable as exc:
                # Report only the innermost failure; an outer call failing because an
                # argument came back as None would just repeat it.
                if len(self.problems) == before:
                    self.problems.append(Problem(call_path, str(exc)))
                return None
        if isinstance(value, Mapping):
            return {k: self.evaluate(v, join_path(path, k)) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.evaluate(v, join_path(path, i)) for i, v in enumerate(value)]
        return value

    def _call(self, name: str, args: Any, path: str) -> Any:
        call = parse_call(name, args)
        if isinstance(call, GetParam):
            if call.name not in self.parameters:
                raise Unresolvable(f"parameter '{call.name}' has no value")
            keys = self._path(call.path, path)
            return follow(self.parameters[call.name], keys, f"parameter '{call.name}'")
        if isinstance(call, GetResource):
            return self._input(call.name).ref
        if isinstance(call, GetAttr):
            attributes = self._input(call.resource).attributes
            if MEMBER_VIEW in attributes:
                return self._member_view(attributes[MEMBER_VIEW], call, path)
            if call.attribute not in attributes:
                raise Unresolvable(
                    f"resource '{call.resource}' has no attribute '{call.attribute}'"
                )
            keys = self._path(call.path, path)
            where = f"attribute '{call.attribute}' of resource '{call.resource}'"
            return follow(attributes[call.attribute], keys, where)
        if isinstance(call, StrReplace):
            return self._str_replace(call, path)
        return self._list_join(call, path)

    def _member_view(self, view: Any, call: GetAttr, path: str) -> Any:
        keys = self._path(call.path, path)
        try:
            return read_member_view(view, call.attribute, keys)
        except ConvTasksError as exc:
            raise Unresolvable(str(exc)) from None

    def _input(self, resource: str) -> ResourceData:
        data = self.inputs.get(resource)
        if data is None:
            raise Unresolvable(f"resource '{resource}' has no data yet (it is not complete)")
        return data

    def _path(self, items: tuple[Any, ...], path: str) -> list[Any]:
        keys = [self.evaluate(item, path) for item in items]
        for key in keys:
            if isinstance(key, bool) or not isinstance(key, str | int):
                raise Unresolvable("path items must be strings or integers")
        return keys

    def _str_replace(self, call: StrReplace, path: str) -> str:
        template = self.evaluate(call.template, join_path(path, "template"))
        params = self.evaluate(call.params, join_path(path, "params"))
        if not isinstance(template, str):
            raise Unresolvable("'template' must be a string")
        if not isinstance(params, Mapping) or not all(isinstance(k, str) and k for k in params):
            raise Unresolvable("'params' must be a mapping with non-empty string keys")
        if not params:
            return template
        replacements = {key: as_text(value) for key, value in params.items()}
        # One pass, longest key first, so a key inside another key's replacement or
        # inside a longer key is never replaced twice.
        keys = sorted(replacements, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(key) for key in keys))
        return pattern.sub(lambda match: replacements[match.group(0)], template)

    def _list_join(self, call: ListJoin, path: str) -> str:
        delimiter = self.evaluate(call.delimiter, join_path(path, 0))
        if not isinstance(delimiter, str):
            raise Unresolvable("the delimiter must be a string")
        items: list[str] = []
        for i, raw in enumerate(call.lists, start=1):
            value = self.evaluate(raw, join_path(path, i))
            if not isinstance(value, list | tuple):
                raise Unresolvable(f"argument {i} must be a list")
            items.extend(as_text(item) for item in value)
        return delimiter.join(items)


def as_text(value: Any) -> str:
    """How a value appears inside a string built by str_replace or list_join."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError, RecursionError) as exc:
        raise Unresolvable(f"a value cannot be turned into text: {exc}") from None


def follow(value: Any, keys: list[Any], where: str) -> Any:
    """value indexed by each key in turn: integers index lists, strings index mappings."""
    for key in keys:
        if value is None:
            # Data not available yet reads as None rather than failing.
            return None
        if isinstance(value, Mapping):
            if key not in value and str(key) in value:
                key = str(key)
            if key not in value:
                raise Unresolvable(f"{where} has no key {key!r}")
            value = value[key]
        elif isinstance(value, list | tuple):
            index = _index(key)
            if index is None or not -len(value) <= index < len(value):
                raise Unresolvable(f"{where} has no item {key!r}")
            value = value[index]
        else:
            raise Unresolvable(f"{where} cannot be indexed by {key!r}")
        where = f"{where}[{key!r}]"
    return value


def _index(key: Any) -> int | None:
    if isinstance(key, int):
        return key
    if isinstance(key, str) and re.fullmatch(r"-?[0-9]{1,18}", key):
        return int(key)
    return None
