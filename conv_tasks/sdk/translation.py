"""Property translation rules (seed 004): move values from old properties to new ones.

A resource type whose old properties were replaced keeps accepting them:
its translation rules rewrite the values to the new properties before they
are validated. translate() is pure - it returns a new dict and never changes
what it was given. Paths are tuples of property names; a path that runs
through a list applies to every item of that list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conv_tasks.errors import ConvTasksError, InvalidInput, Problem

ADD = "Add"
REPLACE = "Replace"
DELETE = "Delete"
RESOLVE = "Resolve"
RULES = (ADD, REPLACE, DELETE, RESOLVE)


@dataclass(frozen=True)
class TranslationRule:
    """One rewrite of the property at translation_path.

    ADD: append value (a list), or the old property at value_path or the
    sibling value_name, to the list at translation_path; with item_key, the
    old property is appended as the map {item_key: old value} (a string
    property that became a list of maps, such as RandomString's sequence).
    REPLACE: set translation_path to value, or move the old property at
    value_path (anywhere) or value_name (a sibling, e.g. in every list item).
    DELETE: remove the property.
    RESOLVE: turn a name into an id with finder (each item of a list value).
    """

    rule: str
    translation_path: tuple[str, ...]
    value: Any = None
    value_name: str | None = None
    value_path: tuple[str, ...] | None = None
    finder: Callable[[Any], Any] | None = None
    item_key: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "translation_path", tuple(self.translation_path))
        if self.value_path is not None:
            object.__setattr__(self, "value_path", tuple(self.value_path))
        reason = self._problem()
        if reason:
            where = ".".join(self.translation_path) or "translation_path"
            raise InvalidInput([Problem(where, reason)], what="translation rule")

    def _problem(self) -> str | None:
        if self.rule not in RULES:
            return f"{self.rule!r} is not a translation rule; use one of {', '.join(RULES)}."
        if not self.translation_path or not all(
            isinstance(p, str) and p for p in self.translation_path
        ):
            return "translation_path must be a non-empty sequence of property names."
        if self.value_path is not None and not (
            self.value_path and all(isinstance(p, str) and p for p in self.value_path)
        ):
            return "value_path must be a non-empty sequence of property names."
        sources = sum(x is not None for x in (self.value, self.value_name, self.value_path))
        if self.rule in (ADD, REPLACE) and sources != 1:
            return f"a {self.rule} rule needs exactly one of value, value_name and value_path."
        if self.rule == ADD and self.value is not None and not isinstance(self.value, list):
            return "an Add rule can only add a list value."
        if self.item_key is not None and (
            self.rule != ADD or self.value is not None or not self.item_key
        ):
            return (
                "item_key is for an Add rule that moves an old property (value_path or value_name)."
            )
        if self.rule == RESOLVE and not callable(self.finder):
            return "a Resolve rule needs a finder function."
        if self.rule in (DELETE, RESOLVE) and sources:
            return f"a {self.rule} rule takes no value, value_name or value_path."
        return None


def translate(
    values: Mapping[str, Any],
    rules: Sequence[TranslationRule],
    *,
    path: str,
    unknown: Callable[[Any], bool] | None = None,
) -> dict[str, Any]:
    """Apply rules in order to a copy of values. Raises InvalidInput with every problem.

    unknown: when given (checking a template before it runs), values it
    returns True for cannot be known yet; rules touching them are left
    undone and RESOLVE rules are not run at all.
    """
    data = _plain(values)
    run = _Run(path, unknown)
    for rule in rules:
        if rule.rule == RESOLVE and unknown is not None:
            continue
        {ADD: run.add, REPLACE: run.replace, DELETE: run.delete, RESOLVE: run.resolve}[rule.rule](
            data, rule
        )
    if run.problems:
        raise InvalidInput(run.problems, what="properties")
    return data


def _item(rule: TranslationRule, old: Any) -> Any:
    """What an Add rule appends for the old value: the value, or the map holding it."""
    return old if rule.item_key is None else [{rule.item_key: old}]


def _plain(value: Any) -> Any:
    """A deep copy made of plain dicts and lists, so rules can edit it freely."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


class _Run:
    def __init__(self, path: str, unknown: Callable[[Any], bool] | None) -> None:
        self.path = path
        self.unknown = unknown
        self.problems: list[Problem] = []

    def _is_unknown(self, value: Any) -> bool:
        return value is not None and self.unknown is not None and self.unknown(value)

    def _parents(
        self, data: dict[str, Any], keys: Sequence[str], *, create: bool
    ) -> Iterator[tuple[dict[str, Any], str]]:
        """Each map that holds the last property of a path, with its display path.

        Lists along the way fan out to their items. With create, missing maps
        along the way are made (a missing list cannot be: it has no items).
        """

        def walk(node: dict[str, Any], index: int, where: str) -> Iterator[Any]:
            if index == len(keys):
                yield node, where
                return
            key = keys[index]
            child = node.get(key)
            here = f"{where}.{key}"
            if self._is_unknown(child):
                return
            if child is None and create:
                child = node[key] = {}
            if isinstance(child, dict):
                yield from walk(child, index + 1, here)
            elif isinstance(child, list):
                for number, item in enumerate(child):
                    if isinstance(item, dict) and not self._is_unknown(item):
                        yield from walk(item, index + 1, f"{here}[{number}]")

        yield from walk(data, 0, self.path)

    def _take_old(self, data: dict[str, Any], keys: Sequence[str]) -> tuple[Any, str, Any]:
        """The old value at value_path (through maps only), where it is, and its parent map."""
        node: Any = data
        for key in keys[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        where = ".".join([self.path, *keys])
        if not isinstance(node, dict):
            return None, where, None
        return node.get(keys[-1]), where, node

    def _conflict(self, old_where: str, new_where: str) -> None:
        self.problems.append(
            Problem(
                old_where,
                f"conflicts with {new_where}: both are set to different values; "
                f"set only {new_where}.",
            )
        )

    def add(self, data: dict[str, Any], rule: TranslationRule) -> None:
        *parent_keys, key = rule.translation_path
        if rule.value_path is not None:
            old, _where, holder = self._take_old(data, rule.value_path)
            if old is None or self._is_unknown(old):
                return
            if self._add_to_all(data, parent_keys, key, _item(rule, old)):
                del holder[rule.value_path[-1]]
            return
        for parent, where in list(self._parents(data, parent_keys, create=rule.value is not None)):
            if rule.value_name is None:
                self._add_one(parent, key, f"{where}.{key}", rule.value)
                continue
            old = parent.get(rule.value_name)
            if old is None or self._is_unknown(old):
                continue
            if self._add_one(parent, key, f"{where}.{key}", _item(rule, old)):
                del parent[rule.value_name]

    def _add_to_all(
        self, data: dict[str, Any], parent_keys: Sequence[str], key: str, value: Any
    ) -> bool:
        parents = list(self._parents(data, parent_keys, create=True))
        results = [self._add_one(parent, key, f"{where}.{key}", value) for parent, where in parents]
        return bool(results) and all(results)

    def _add_one(self, parent: dict[str, Any], key: str, where: str, value: Any) -> bool:
        """Append value (each item of it, if a list) to parent[key]; False if it was not done."""
        target = parent.get(key)
        if self._is_unknown(target):
            return False
        if target is None:
            target = parent[key] = []
        if not isinstance(target, list):
            self.problems.append(
                Problem(where, "is not a list, so values of replaced properties cannot be added.")
            )
            return False
        for item in value if isinstance(value, list) else [value]:
            if item not in target:
                target.append(_plain(item))
        return True

    def replace(self, data: dict[str, Any], rule: TranslationRule) -> None:
        *parent_keys, key = rule.translation_path
        if rule.value_name is not None:
            for parent, where in list(self._parents(data, parent_keys, create=False)):
                old = parent.get(rule.value_name)
                if old is None:
                    continue
                if self._move(parent, key, old, f"{where}.{rule.value_name}", f"{where}.{key}"):
                    del parent[rule.value_name]
            return
        if rule.value_path is not None:
            old, old_where, holder = self._take_old(data, rule.value_path)
            if old is None:
                return
            targets = list(self._parents(data, parent_keys, create=True))
            moved = [self._move(p, key, old, old_where, f"{where}.{key}") for p, where in targets]
            if moved and all(moved):
                del holder[rule.value_path[-1]]
            return
        for parent, _where in list(self._parents(data, parent_keys, create=True)):
            parent[key] = _plain(rule.value)

    def _move(
        self, parent: dict[str, Any], key: str, old: Any, old_where: str, new_where: str
    ) -> bool:
        """Put old into parent[key] unless a different value is there; False if not done."""
        new = parent.get(key)
        if self._is_unknown(old) or self._is_unknown(new):
            return False
        if new is not None and new != old:
            self._conflict(old_where, new_where)
            return False
        parent[key] = _plain(old)
        return True

    def delete(self, data: dict[str, Any], rule: TranslationRule) -> None:
        *parent_keys, key = rule.translation_path
        for parent, _where in list(self._parents(data, parent_keys, create=False)):
            parent.pop(key, None)

    def resolve(self, data: dict[str, Any], rule: TranslationRule) -> None:
        *parent_keys, key = rule.translation_path
        assert rule.finder is not None
        for parent, where in list(self._parents(data, parent_keys, create=False)):
            value = parent.get(key)
            if value is None:
                continue
            if isinstance(value, list):
                parent[key] = [
                    self._find(rule.finder, item, f"{where}.{key}[{n}]")
                    for n, item in enumerate(value)
                ]
            else:
                parent[key] = self._find(rule.finder, value, f"{where}.{key}")

    def _find(self, finder: Callable[[Any], Any], value: Any, where: str) -> Any:
        try:
            return finder(value)
        except (ConvTasksError, LookupError, ValueError) as exc:
            detail = str(exc).rstrip(".")
            self.problems.append(Problem(where, f"cannot resolve {value!r}: {detail}."))
            return value
