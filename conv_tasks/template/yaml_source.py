"""Turns template text into Python data, reporting syntax errors by line and column.

It only parses: it must never validate the template's meaning, and never read files.

Before PyYAML builds anything, one pass over the parser's events (libyaml's
parser is a loop, not a recursion, and the pass stops at the first limit
passed) refuses text past the limits: nesting deeper than MAX_TEMPLATE_DEPTH
(PyYAML's composer recurses once per level, in C, and a deep enough document
overflows the process's stack: a SIGSEGV, not an exception), more than
MAX_YAML_ALIASES aliases, more than MAX_TEMPLATE_VALUES values once aliases
are expanded (a "billion laughs" document is a few lines), and more than
MAX_RESOURCES resources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from conv_tasks.errors import Problem, TemplateError
from conv_tasks.limits import (
    MAX_RESOURCES,
    MAX_TEMPLATE_BYTES,
    MAX_TEMPLATE_DEPTH,
    MAX_TEMPLATE_VALUES,
    MAX_YAML_ALIASES,
)

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TemplateLoader(_Base):  # type: ignore[valid-type,misc]
    """The safe loader, except that timestamps stay the strings that were written."""


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    # A date such as heat_template_version: 2018-08-31 must keep its written form;
    # YAML would otherwise turn it into a datetime.date (or fail on 2018-02-30).
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


_TemplateLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)


class TemplateSyntaxError(TemplateError):
    """A YAML syntax error, at `line` and `column` (counted from 1)."""

    def __init__(self, problems: list[Problem], line: int, column: int) -> None:
        super().__init__(problems)
        self.line = line
        self.column = column


class _LimitPassed(Exception):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass
class _Open:
    """A mapping or sequence the scan is inside."""

    anchor: str | None
    values_before: int
    is_mapping: bool
    holds_resources: bool = False
    expecting_key: bool = True
    key: str | None = None


class _Scan:
    """Counts what the parser's events would build, without building it."""

    def __init__(self) -> None:
        self.open: list[_Open] = []
        self.values = 0
        self.aliases = 0
        self.resources = 0
        # Values each anchored node expands to, aliases included.
        self.anchored: dict[str, int] = {}

    def event(self, event: yaml.Event) -> None:
        if isinstance(event, yaml.ScalarEvent):
            self._count(1)
            if event.anchor:
                self.anchored[event.anchor] = 1
            self._done(event.value)
        elif isinstance(event, yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_YAML_ALIASES:
                raise _LimitPassed(
                    "",
                    f"the template has more than {MAX_YAML_ALIASES} aliases (MAX_YAML_ALIASES)",
                )
            self._count(self.anchored.get(event.anchor or "", 1))
            self._done(None)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            if len(self.open) >= MAX_TEMPLATE_DEPTH:
                raise _LimitPassed(
                    "",
                    f"the template is nested more than {MAX_TEMPLATE_DEPTH} levels deep "
                    "(MAX_TEMPLATE_DEPTH)",
                )
            is_mapping = isinstance(event, yaml.MappingStartEvent)
            holds_resources = (
                is_mapping
                and len(self.open) == 1
                and not self.open[0].expecting_key
                and self.open[0].key == "resources"
            )
            self._count(1)
            self.open.append(_Open(event.anchor, self.values - 1, is_mapping, holds_resources))
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            closed = self.open.pop()
            if closed.anchor:
                self.anchored[closed.anchor] = self.values - closed.values_before
            self._done(None)
        elif isinstance(event, yaml.DocumentEndEvent):
            self.open.clear()

    def _count(self, values: int) -> None:
        self.values += values
        if self.values > MAX_TEMPLATE_VALUES:
            raise _LimitPassed(
                "",
                f"the template is too large: more than {MAX_TEMPLATE_VALUES} values once "
                "its YAML aliases are expanded (MAX_TEMPLATE_VALUES)",
            )

    def _done(self, scalar: str | None) -> None:
        """A node ended inside the innermost open collection."""
        if not self.open or not self.open[-1].is_mapping:
            return
        parent = self.open[-1]
        if parent.expecting_key:
            parent.key = scalar
            if parent.holds_resources:
                self.resources += 1
                if self.resources > MAX_RESOURCES:
                    raise _LimitPassed(
                        "resources",
                        f"the template has more than {MAX_RESOURCES} resources (MAX_RESOURCES)",
                    )
        parent.expecting_key = not parent.expecting_key


def _check_limits(source: str | bytes, filename: str) -> None:
    size = len(source) if isinstance(source, bytes) else len(source.encode("utf-8", "replace"))
    if size > MAX_TEMPLATE_BYTES:
        raise TemplateError(
            [
                Problem(
                    "",
                    f"{filename}: the template is {size} bytes; the limit is "
                    f"{MAX_TEMPLATE_BYTES} bytes (MAX_TEMPLATE_BYTES)",
                )
            ]
        )
    scan = _Scan()
    try:
        for event in yaml.parse(source, Loader=_TemplateLoader):
            scan.event(event)
    except _LimitPassed as exc:
        raise TemplateError([Problem(exc.path, f"{filename}: {exc}")]) from None


def parse_yaml(source: str | bytes, *, filename: str = "template") -> Any:
    """The document in source. Raises TemplateError naming the line and column of a syntax error,
    or the limit (conv_tasks.limits) the text passes."""
    try:
        _check_limits(source, filename)
        return yaml.load(source, Loader=_TemplateLoader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        problems = [Problem("", _marked_message(exc, filename))]
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            raise TemplateSyntaxError(problems, mark.line + 1, mark.column + 1) from None
        raise TemplateError(problems) from None
    except yaml.reader.ReaderError as exc:
        message = f"{filename}: {exc.reason} at character {exc.position}"
        raise TemplateError([Problem("", message)]) from None
    except yaml.YAMLError as exc:
        raise TemplateError([Problem("", f"{filename}: {exc}")]) from None
    except RecursionError:
        raise TemplateError(
            [Problem("", f"{filename}: the document is nested too deeply")]
        ) from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise TemplateError([Problem("", f"{filename}: {exc}")]) from None


def _marked_message(exc: yaml.MarkedYAMLError, filename: str) -> str:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "invalid YAML"
    if mark is None:
        return f"{filename}: {problem}"
    # Marks count from zero; editors count from one.
    return f"{filename} line {mark.line + 1}, column {mark.column + 1}: {problem}"


def node_marks(source: str | bytes) -> dict[str, tuple[int, int]]:
    """The (line, column), counted from 1, where each dotted path of the document starts:
    a mapping entry at its key, a list item at the item. Call it only on text that
    parse_yaml accepted (its limits keep the composer's recursion and the walk bounded)."""
    root = yaml.compose(source, Loader=_TemplateLoader)
    marks: dict[str, tuple[int, int]] = {}
    todo: list[tuple[yaml.Node, str]] = [(root, "")] if root is not None else []
    while todo:
        node, path = todo.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    continue
                inner = f"{path}.{key.value}" if path else str(key.value)
                if inner not in marks:
                    marks[inner] = (key.start_mark.line + 1, key.start_mark.column + 1)
                    todo.append((value, inner))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                inner = f"{path}.{i}" if path else str(i)
                marks[inner] = (item.start_mark.line + 1, item.start_mark.column + 1)
                todo.append((item, inner))
    return marks
