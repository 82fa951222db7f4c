"""Evaluates intrinsic functions against parameter values and other resources' data.

Runs only on templates that load_template accepted, so argument shapes are known to be
right; what can still fail is data that is missing or of the wrong kind. References are
followed here; string_functions and collection_functions compute the other results, with
the behaviour of the template's version. It must never change its inputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import ConvTasksError, Problem
from conv_tasks.template import collection_functions as collections
from conv_tasks.template import string_functions as strings
from conv_tasks.template.conditions import ConditionSet
from conv_tasks.template.document import join_path
from conv_tasks.template.functions import GetAttr, GetParam, function_call, parse_call
from conv_tasks.template.member_view import MEMBER_VIEW, read_member_view
from conv_tasks.template.model import ResourceData
from conv_tasks.template.nested_attributes import nested_attribute
from conv_tasks.template.unresolvable import Unresolvable
from conv_tasks.template.versions import DATED_VERSIONS, variant

__all__ = ["Evaluator", "Unresolvable", "follow"]

_LATEST = DATED_VERSIONS[-1]


class Evaluator:
    """Evaluates values, collecting a problem for each call that cannot be resolved."""

    def __init__(
        self,
        parameters: Mapping[str, Any],
        inputs: Mapping[str, ResourceData],
        *,
        version: str = _LATEST,
        conditions: Mapping[str, Any] | None = None,
    ) -> None:
        self.parameters = parameters
        self.inputs = inputs
        self.version = version
        self.problems: list[Problem] = []
        self._conditions = ConditionSet(conditions or {}, parameters)

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
        if name in ("get_param", "get_resource", "get_attr"):
            return self._reference(name, args, path)
        if name == "if":
            # Normally applied when the definition is built; here for templates used as is.
            chosen = self._conditions.enabled(args[0])
            if chosen:
                return self.evaluate(args[1], join_path(path, 1))
            return self.evaluate(args[2], join_path(path, 2)) if len(args) > 2 else None
        if name in ("get_file", "resource_facade"):
            raise Unresolvable(f"{name} should have been resolved when the template was loaded")
        used = variant(name, self.version) or "plain"
        if name == "repeat":
            return collections.repeat(
                self.evaluate(args["template"], join_path(path, "template")),
                self.evaluate(args["for_each"], join_path(path, "for_each")),
                used,
                bool(args.get("permutations", True)),
            )
        value = self.evaluate(args, path)
        if name in ("str_replace", "str_replace_strict", "str_replace_vstrict"):
            return strings.str_replace(
                value["template"],
                value["params"],
                variant("str_replace", self.version) or "json",
                strict=name != "str_replace",
                allow_empty=name != "str_replace_vstrict",
            )
        if name == "list_join":
            return strings.list_join(value[0], value[1:], used)
        if name == "str_split":
            return strings.str_split(*value)
        if name == "digest":
            return strings.digest(*value)
        if name == "make_url":
            return strings.make_url(value)
        if name == "map_merge":
            return collections.map_merge(value)
        if name == "map_replace":
            return collections.map_replace(*value)
        if name == "filter":
            return collections.filter_list(*value)
        if name in ("list_concat", "list_concat_unique"):
            return collections.list_concat(value, unique=name == "list_concat_unique")
        if name == "contains":
            return collections.contains(*value)
        raise Unresolvable(f"the function '{name}' cannot be evaluated here")

    def _reference(self, name: str, args: Any, path: str) -> Any:
        call = parse_call(name, args)
        if isinstance(call, GetParam):
            if call.name not in self.parameters:
                raise Unresolvable(f"parameter '{call.name}' has no value")
            keys = self._path(call.path, path)
            return follow(self.parameters[call.name], keys, "")
        if isinstance(call, GetAttr):
            attributes = self._input(call.resource).attributes
            if MEMBER_VIEW in attributes:
                return self._member_view(attributes[MEMBER_VIEW], call, path)
            if call.attribute is None:
                return dict(attributes)
            # resource.NAME + [ATTR, ...] is read from resource.NAME.ATTR (a provider's child).
            attribute, rest = nested_attribute(call.attribute, self._path(call.path, path))
            if attribute not in attributes:
                raise Unresolvable(f"resource '{call.resource}' has no attribute '{attribute}'")
            return follow(attributes[attribute], list(rest), None)
        return self._input(call.name).ref

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


def follow(value: Any, keys: list[Any], missing: Any) -> Any:
    """value indexed by each key in turn: integers (or their digits) index lists and
    strings, strings index mappings. A path that leads nowhere gives `missing`, as in Heat
    ("" for get_param, None for get_attr): templates test optional keys that way."""
    for key in keys:
        if value is None:
            # Data not available yet reads as None rather than failing.
            return None
        if isinstance(value, Mapping):
            if key not in value and str(key) in value:
                key = str(key)
            if key not in value:
                return missing
            value = value[key]
        elif isinstance(value, list | tuple | str):
            index = _index(key)
            if index is None or not -len(value) <= index < len(value):
                return missing
            value = value[index]
        else:
            return missing
    return value


def _index(key: Any) -> int | None:
    if isinstance(key, int):
        return key
    if isinstance(key, str) and re.fullmatch(r"-?[0-9]{1,18}", key):
        return int(key)
    return None
