"""request_problems: what a stack request is refused for beyond its own resources' schemas.

The one place `template validate`, stack create, update and preview all go through for the
errors Heat refuses when a stack is created and a traversal would otherwise meet half way:
calls whose arguments are known and whose evaluation fails (template.known_calls), and the
problems of the child stacks' templates, to any depth (nested_checks). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.engine.definition.nested_checks import nested_problems
from conv_tasks.errors import Problem
from conv_tasks.resources import Registry
from conv_tasks.template import Environment, Template, known_call_problems


def request_problems(
    template: Template,
    values: Mapping[str, Any],
    registry: Registry,
    environment: Environment,
    files: Mapping[str, str],
) -> list[Problem]:
    """Every such problem of `template` (its types mapped through `environment`, registry
    holding its provider templates) with the parameter values known now (`values`: hidden
    ones are never read)."""
    problems = known_call_problems(template, values, template.hidden_parameters())
    problems.extend(nested_problems(template, registry, environment, files))
    return problems
