"""apply_conditions: the template a stack really has once its conditions are decided.

Resources whose condition is false are removed, outputs whose condition is false keep
only their description (their value is None, as in Heat), every `if` is replaced by the
branch its condition chooses, and depends_on drops removed resources. A get_resource or
get_attr still naming a removed resource is an error, as in Heat: wrap it in an `if` on
the same condition. Pure: it must never change the template it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from conv_tasks.errors import Problem, TemplateError
from conv_tasks.template.conditions import ConditionSet
from conv_tasks.template.document import join_path
from conv_tasks.template.functions import GetResource, function_call, references
from conv_tasks.template.model import OutputSnippet, ResourceSnippet, Template
from conv_tasks.template.unresolvable import Unresolvable

# What a two-argument `if` (2021-04-16) gives when false: the enclosing item goes.
_OMIT = object()


def apply_conditions(template: Template, parameters: Mapping[str, Any]) -> Template:
    """The template with its conditions applied. Raises TemplateError naming each problem."""
    if not template.conditions and not _has_conditional(template):
        return template  # the common case costs one scan, and no copies
    decide = ConditionSet(template.conditions, parameters)
    problems: list[Problem] = []

    def enabled(condition: Any, path: str) -> bool:
        try:
            return decide.enabled(condition)
        except Unresolvable as exc:
            problems.append(Problem(path, str(exc)))
            return True

    kept = {
        name: snippet
        for name, snippet in template.resources.items()
        if enabled(snippet.condition, join_path(join_path("resources", name), "condition"))
    }
    resources: dict[str, ResourceSnippet] = {}
    for name, snippet in kept.items():
        path = join_path("resources", name)
        resources[name] = replace(
            snippet,
            properties=_choose(snippet.properties, join_path(path, "properties"), enabled),
            metadata=_choose(snippet.metadata, join_path(path, "metadata"), enabled),
            update_policy=_choose(snippet.update_policy, join_path(path, "update_policy"), enabled),
            depends_on=tuple(d for d in snippet.depends_on if d in kept),
            condition=None,
        )
    outputs: dict[str, OutputSnippet] = {}
    for name, output in template.outputs.items():
        path = join_path("outputs", name)
        if enabled(output.condition, join_path(path, "condition")):
            value = _choose(output.value, join_path(path, "value"), enabled)
            outputs[name] = replace(output, value=None if value is _OMIT else value, condition=None)
        else:
            outputs[name] = replace(output, value=None, condition=None)
    removed = set(template.resources) - set(kept)
    for name, snippet in resources.items():
        problems.extend(_removed_references(snippet, name, removed, template))
    for name, output in outputs.items():
        problems.extend(
            _removed_refs_in(output.value, join_path("outputs", name), removed, template)
        )
    if problems:
        raise TemplateError(problems)
    return replace(
        template,
        resources=MappingProxyType(resources),
        outputs=MappingProxyType(outputs),
    )


def _has_conditional(template: Template) -> bool:
    values: list[Any] = [o.value for o in template.outputs.values()]
    for snippet in template.resources.values():
        values.extend((snippet.properties, snippet.metadata, snippet.update_policy))
    return any(_contains_if(v) for v in values)


def _contains_if(value: Any) -> bool:
    todo = [value]
    while todo:
        item = todo.pop()
        call = function_call(item)
        if call is not None:
            if call[0] == "if":
                return True
            todo.append(call[1])
        elif isinstance(item, Mapping):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return False


def _choose(value: Any, path: str, enabled: Any) -> Any:
    """value with each `if` replaced by its chosen branch (_OMIT for a missing one)."""
    call = function_call(value)
    if call is not None and call[0] == "if":
        args = call[1]
        call_path = join_path(path, "if")
        if enabled(args[0], join_path(call_path, 0)):
            return _choose(args[1], join_path(call_path, 1), enabled)
        if len(args) < 3:
            return _OMIT
        return _choose(args[2], join_path(call_path, 2), enabled)
    if isinstance(value, Mapping):
        chosen = {k: _choose(v, join_path(path, k), enabled) for k, v in value.items()}
        return {k: v for k, v in chosen.items() if v is not _OMIT}
    if isinstance(value, list):
        items = [_choose(v, join_path(path, i), enabled) for i, v in enumerate(value)]
        return [v for v in items if v is not _OMIT]
    return value


def _removed_references(
    snippet: ResourceSnippet, name: str, removed: set[str], template: Template
) -> list[Problem]:
    path = join_path("resources", name)
    return [
        *_removed_refs_in(snippet.properties, join_path(path, "properties"), removed, template),
        *_removed_refs_in(snippet.metadata, join_path(path, "metadata"), removed, template),
    ]


def _removed_refs_in(value: Any, path: str, removed: set[str], template: Template) -> list[Problem]:
    if not removed:
        return []
    problems = []
    for ref in references(value):
        target = ref.name if isinstance(ref, GetResource) else ref.resource
        if target in removed:
            condition = template.resources[target].condition
            shown = f"'{condition}'" if isinstance(condition, str) else "its condition"
            problems.append(
                Problem(
                    path,
                    f"refers to resource '{target}', which {shown} leaves out of this stack; "
                    f"wrap the reference in an if on the same condition",
                )
            )
    return problems
