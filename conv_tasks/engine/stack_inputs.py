"""The environment and files a stack operation builds its definition with.

A create uses the environments and files of the request. An update that keeps the
stack's parameters (existing_parameters, or no new template) also keeps its environment
and files, with the request's environments merged on top and its files added (Heat's
PATCH update); any other update replaces them with the request's (Heat's PUT update),
so an update that sends a new template without environments runs with none.

It must never touch the database: callers hand it the stored row's values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.template.environment import (
    EMPTY,
    Environment,
    check_files,
    merge_environments,
    stored_environment,
)

EnvironmentSources = Sequence[str | Mapping[str, Any]]


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
