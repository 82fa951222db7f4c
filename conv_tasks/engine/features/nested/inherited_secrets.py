"""Hidden values a child stack inherits from its parent, so that they stay masked in it.

A nested resource hands its child resolved values (a group's member properties, an
OS::Heat::Stack's parameters) that may come from the parent's hidden parameters. The child
knows nothing of them: its redactor masks only its own hidden parameters. The child is
therefore given the parent's hidden values as hidden parameters of its own, which its
template declares and nothing reads; everything shown of the child (template and resource
show, events, outputs, failure reasons) then masks them, and so do its own children.
Pure: it rewrites a template and parameters; it never stores anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conv_tasks.errors import ConvTasksError
from conv_tasks.template import load_template

# Parameters named so cannot clash with a user's: HOT parameter names never need this.
PREFIX = "conv_tasks_inherited_hidden_"


def with_inherited_secrets(
    template: Mapping[str, Any] | str,
    parameters: Mapping[str, Any],
    secrets: Sequence[Any],
    *,
    files: Mapping[str, str] | None = None,
) -> tuple[Mapping[str, Any] | str, dict[str, Any]]:
    """template and parameters with one hidden parameter per secret. A template that does not
    load (with the files its get_file calls read) is returned as it is: the child's create or
    update reports what is wrong with it. The template returned keeps its get_file calls."""
    texts = sorted({_text(s) for s in secrets if s is not None and _text(s) != ""})
    if not texts:
        return template, dict(parameters)
    try:
        raw = dict(load_template(template, files=files).raw)
    except ConvTasksError:
        return template, dict(parameters)
    declared = dict(raw.get("parameters") or {})
    values = {k: v for k, v in parameters.items() if not k.startswith(PREFIX)}
    declared = {k: v for k, v in declared.items() if not str(k).startswith(PREFIX)}
    for n, text in enumerate(texts):
        name = f"{PREFIX}{n}"
        declared[name] = {"type": "string", "hidden": True, "default": ""}
        values[name] = text
    raw["parameters"] = declared
    return raw, values


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)
