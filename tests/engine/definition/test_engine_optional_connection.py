"""A type whose `connection` property is optional needs no connection when a resource gives
none, and gets its name checked when it gives one (ConvTasks::HTTP::Resource is such a type:
without a connection it takes an absolute URL)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.connections import Connections, parse_connections
from conv_tasks.engine.definition import connection_problems
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.resources import ResourceType, build_registry
from conv_tasks.sdk import STRING, PropertySchema

CONNECTIONS = Connections(
    parse_connections(
        """
default:
  rest: {kind: http, base_url: "http://127.0.0.1:9/"}
  ops-db: {kind: postgresql, url: "postgresql://admin@127.0.0.1:9/postgres"}
"""
    )
)


class NeedsOne(ResourceType):
    type_name: ClassVar[str] = "Test::NeedsConnection"
    connection_kind: ClassVar[str | None] = "http"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "connection": PropertySchema(STRING, required=True)
    }


class MayHaveOne(ResourceType):
    type_name: ClassVar[str] = "Test::MayHaveConnection"
    connection_kind: ClassVar[str | None] = "http"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "connection": PropertySchema(STRING)
    }


def _problems(resources: dict[str, Any]) -> list[str]:
    registry = build_registry()
    registry.register(NeedsOne)
    registry.register(MayHaveOne)
    template = {"heat_template_version": "2018-08-31", "resources": resources}
    definition = StackDefinition.build(template, {}, registry)
    found = connection_problems(definition, "acme", CONNECTIONS, registry)
    return [str(p) for p in found]


def test_a_type_needs_a_connection_unless_its_property_is_optional() -> None:
    assert not MayHaveOne.needs_connection()
    assert NeedsOne.needs_connection()


def test_a_missing_optional_connection_is_not_refused() -> None:
    assert _problems({"optional": {"type": "Test::MayHaveConnection"}}) == []


def test_a_given_optional_connection_is_still_checked() -> None:
    unknown = {"type": "Test::MayHaveConnection", "properties": {"connection": "no"}}
    wrong = {"type": "Test::MayHaveConnection", "properties": {"connection": "ops-db"}}
    good = {"type": "Test::MayHaveConnection", "properties": {"connection": "rest"}}
    problems = _problems({"unknown": unknown, "wrong": wrong, "good": good})
    assert len(problems) == 2, problems
    assert problems[0].startswith("resources.unknown.properties.connection: names connection 'no'")
    assert problems[1].startswith("resources.wrong.properties.connection: names connection")
    assert "a postgresql connection; it needs a http one" in problems[1]
