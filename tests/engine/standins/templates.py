"""Templates for the engine's unit tests: HOT documents of TestResource and Test::Stepped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .stepped import STEPPED

VERSION = "2018-08-31"


def template(resources: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "resources": dict(resources)}


def resource(
    value: Any = "v1", *, after: tuple[str, ...] = (), **properties: Any
) -> dict[str, Any]:
    """An OS::Heat::TestResource holding `value`, created after the resources `after`."""
    return _resource("OS::Heat::TestResource", value, after, properties)


def stepped(
    value: Any = "v1", *, polls: int = 0, after: tuple[str, ...] = (), **properties: Any
) -> dict[str, Any]:
    """A Test::Stepped resource whose actions take `polls` polls."""
    return _resource(STEPPED, value, after, {"polls": polls, **properties})


def _resource(
    type_name: str, value: Any, after: tuple[str, ...], properties: Mapping[str, Any]
) -> dict[str, Any]:
    snippet: dict[str, Any] = {"type": type_name, "properties": {"value": value, **properties}}
    if after:
        snippet["depends_on"] = list(after)
    return snippet
