"""The environment and files a stack operation builds its definition with.

A create uses the environments and files of the request. An update that keeps the
stack's parameters (existing_parameters, or no new template) also keeps its environment
and files, with the request's environments merged on top and its files added (Heat's
PATCH update); any other update replaces them with the request's (Heat's PUT update),
so an update that sends a new template without environments runs with none.

It must never touch the database: callers hand it the stored row's values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from conv_tasks.requests import EnvironmentSources
from conv_tasks.template import (
    EMPTY,
    Environment,
    check_files,
    merge_environments,
    stored_environment,
)


@dataclass(frozen=True)
class StackInputs:
    environment: Environment = EMPTY
    files: Mapping[str, str] = field(default_factory=dict)

    def stored(self) -> tuple[dict[str, Any], dict[str, str]]:
        """(environment, files) as raw_template stores them."""
        return self.environment.to_dict(), dict(self.files)


def request_inputs(
    environment: EnvironmentSources | None, files: Mapping[str, Any] | None
) -> StackInputs:
    """The request's environments merged in order, and its files checked against the limits."""
    return StackInputs(merge_environments(environment or ()), check_files(files or {}))


def update_inputs(
    stored_env: Mapping[str, Any] | None,
    stored_files: Mapping[str, str] | None,
    environment: EnvironmentSources | None,
    files: Mapping[str, Any] | None,
    *,
    keep: bool,
) -> StackInputs:
    """What an update runs with: the stored ones patched (keep) or the request's alone."""
    given = request_inputs(environment, files)
    if not keep:
        return given
    merged = stored_environment(stored_env).merged(given.environment)
    return StackInputs(merged, check_files({**(stored_files or {}), **given.files}))


def without_retired_parameters(
    inputs: StackInputs,
    values: Mapping[str, Any],
    *,
    declared: frozenset[str],
    given_values: Mapping[str, Any],
    given_environment: Mapping[str, Any],
) -> tuple[StackInputs, dict[str, Any]]:
    """An update keeping the stack's parameters with a new template: the kept values (and
    kept environment `parameters`) of parameters the new template no longer declares are
    dropped, as Heat's PATCH update drops them. What this request gives is kept, so a
    misspelt parameter is still refused by name."""
    kept_values = {
        name: value for name, value in values.items() if name in declared or name in given_values
    }
    env_values = {
        name: value
        for name, value in inputs.environment.parameters.items()
        if name in declared or name in given_environment
    }
    environment = dataclasses.replace(inputs.environment, parameters=MappingProxyType(env_values))
    return StackInputs(environment, inputs.files), kept_values
