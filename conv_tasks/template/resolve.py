"""Resolves a resource's definition, and the template's outputs, against real data.

Pure: it reads the template, parameter values and other resources' data, and must never
change any of them or do I/O.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import Problem, TemplateError
from conv_tasks.template.document import join_path
from conv_tasks.template.evaluate import Evaluator
from conv_tasks.template.model import ResolvedResource, ResourceData, Template


def definition_hash(
    type_name: str, properties: Any, metadata: Any, update_policy: Any = None
) -> str:
    """sha256 of the canonical JSON of what a resource should be (not how it is deleted).
    An update_policy counts only when given, so that hashes stored before it existed hold."""
    definition = {"type": type_name, "properties": properties, "metadata": metadata}
    if update_policy:
        definition["update_policy"] = update_policy
    canonical = json.dumps(
        definition,
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def resolve_resource(
    template: Template,
    name: str,
    parameters: Mapping[str, Any],
    inputs: Mapping[str, ResourceData],
) -> ResolvedResource:
    """The resource with every function evaluated. Raises TemplateError naming each failure."""
    snippet = template.resources.get(name)
    if snippet is None:
        raise TemplateError([Problem("resources", f"resource '{name}' is not in the template")])
    path = join_path("resources", name)
    evaluator = _evaluator(template, parameters, inputs)
    properties = evaluator.evaluate(snippet.properties, join_path(path, "properties"))
    metadata = evaluator.evaluate(snippet.metadata, join_path(path, "metadata"))
    update_policy = evaluator.evaluate(snippet.update_policy, join_path(path, "update_policy"))
    external_id = _external_id(evaluator, snippet.external_id, join_path(path, "external_id"))
    if evaluator.problems:
        raise TemplateError(evaluator.problems)
    # Parameter values and attributes are put in by reference; the result must not share them.
    properties = copy.deepcopy(properties)
    metadata = copy.deepcopy(metadata)
    update_policy = copy.deepcopy(update_policy)
    try:
        digest = definition_hash(snippet.type, properties, metadata, update_policy)
    except (TypeError, ValueError, RecursionError) as exc:
        # Only data handed in by other resources can do this (say, a mapping with
        # both integer and string keys); the template itself is plain JSON.
        problem = Problem(path, f"the resolved definition cannot be written as JSON: {exc}")
        raise TemplateError([problem]) from None
    return ResolvedResource(
        name=name,
        type=snippet.type,
        properties=properties,
        metadata=metadata,
        deletion_policy=snippet.deletion_policy,
        definition_hash=digest,
        update_policy=update_policy,
        external_id=external_id,
    )


def _external_id(evaluator: Evaluator, written: Any, path: str) -> str | None:
    """The id of the object to adopt, evaluated (a parameter may give it): a non-empty
    string, else a problem at `path`."""
    if written is None:
        return None
    value = evaluator.evaluate(written, path)
    if evaluator.problems:
        return None
    if isinstance(value, str) and value:
        return value
    evaluator.problems.append(Problem(path, "must give a non-empty string (the id to adopt)"))
    return None


def resolve_outputs(
    template: Template,
    parameters: Mapping[str, Any],
    inputs: Mapping[str, ResourceData],
) -> dict[str, dict[str, Any]]:
    """name -> {"value", "description"}, plus "error" (and value None) if it cannot be resolved."""
    result: dict[str, dict[str, Any]] = {}
    for name, output in template.outputs.items():
        evaluator = _evaluator(template, parameters, inputs)
        value = evaluator.evaluate(output.value, join_path(join_path("outputs", name), "value"))
        if evaluator.problems:
            result[name] = {
                "value": None,
                "description": output.description,
                "error": "; ".join(str(p) for p in evaluator.problems),
            }
        else:
            result[name] = {"value": copy.deepcopy(value), "description": output.description}
    return result


def _evaluator(
    template: Template, parameters: Mapping[str, Any], inputs: Mapping[str, ResourceData]
) -> Evaluator:
    return Evaluator(parameters, inputs, version=template.version, conditions=template.conditions)
