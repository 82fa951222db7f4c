"""Turns template text into Python data, reporting syntax errors by line and column.

It only parses: it must never validate the template's meaning, and never read files.
"""

from __future__ import annotations

from typing import Any

import yaml

from conv_tasks.errors import Problem, TemplateError

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TemplateLoader(_Base):  # type: ignore[valid-type,misc]
    """The safe loader, except that timestamps stay the strings that were written."""


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    # A date such as heat_template_version: 2018-08-31 must keep its written form;
    # YAML would otherwise turn it into a datetime.date (or fail on 2018-02-30).
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


_TemplateLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)


def parse_yaml(source: str | bytes, *, filename: str = "template") -> Any:
    """The document in source. Raises TemplateError naming the line and column of a syntax error."""
    try:
        return yaml.load(source, Loader=_TemplateLoader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        raise TemplateError([Problem("", _marked_message(exc, filename))]) from None
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
