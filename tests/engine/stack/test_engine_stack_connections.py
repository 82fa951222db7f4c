"""A template is refused when it is loaded if a resource names a connection its tenant does
not have, or one of another kind, naming the resource and the connection; nothing is
written. A name that only a running stack knows is checked when the action runs."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from standins import RecordingDispatcher, StandinDatabase, standin_env, template

import conv_tasks.sdk as sdk
from conv_tasks.connections import Connections, parse_connections
from conv_tasks.engine import ChangeRequest, EngineEnv, NewStackRequest, TenantStacks
from conv_tasks.errors import TemplateError
from conv_tasks.resources import default_registry

CONNECTIONS = """
default:
  shared-api: {kind: http, base_url: "https://shared.example"}
tenants:
  acme:
    billing: {kind: http, base_url: "https://billing.example"}
    ops-db: {kind: postgresql, url: "postgresql://admin@db.example/postgres"}
"""


class Remote(sdk.ResourceType):
    """A thing on an HTTP service, made through the resource's connection."""

    type_name: ClassVar[str] = "Test::Remote"
    connection_kind: ClassVar[str | None] = "http"
    properties_schema: ClassVar[dict[str, sdk.PropertySchema]] = {
        "connection": sdk.connection_property("http"),
    }
    used: ClassVar[list[str]] = []

    def create(self, ctx: sdk.ActionContext) -> sdk.Progress:
        client = ctx.client()
        Remote.used.append(str(client.base_url))
        return sdk.Progress(done=True, physical_id=sdk.token_physical_id(ctx.idempotency_token))


@pytest.fixture
def acme() -> TenantStacks:
    env = standin_env(registry=default_registry().with_types({Remote.type_name: Remote}))
    env.connections = Connections(parse_connections(CONNECTIONS))
    return TenantStacks(env, "acme")


def _remote(connection: Any) -> dict[str, Any]:
    return {"type": Remote.type_name, "properties": {"connection": connection}}


@pytest.mark.parametrize(
    ("connection", "says"),
    [
        ("nope", "names connection 'nope', which this tenant does not have"),
        ("ops-db", "names connection 'ops-db', a postgresql connection; it needs a http one"),
        ({"get_param": "which"}, "names connection 'gone', which this tenant does not have"),
    ],
)
def test_a_create_naming_an_unusable_connection_is_refused_and_writes_nothing(
    acme: TenantStacks, connection: Any, says: str
) -> None:
    tmpl = template({"api": _remote(connection)})
    tmpl["parameters"] = {"which": {"type": "string", "default": "gone"}}
    with pytest.raises(TemplateError) as refused:
        acme.create(NewStackRequest("web", tmpl, {}))
    assert "resources.api.properties.connection" in str(refused.value)
    assert says in str(refused.value)
    db = acme.env.db
    assert isinstance(db, StandinDatabase) and not db.snapshot()["stack"]


def test_a_tenant_s_own_and_every_tenant_s_connections_are_usable(acme: TenantStacks) -> None:
    Remote.used.clear()
    made = acme.create(NewStackRequest("web", template({"a": _remote("billing")}), {}))
    _drain(acme.env)
    update = template({"a": _remote("billing"), "b": _remote("shared-api")})
    acme.update(made.stack_id, ChangeRequest(update, {}))
    _drain(acme.env)
    assert Remote.used == ["https://billing.example", "https://shared.example"]
    other = TenantStacks(acme.env, "other")
    with pytest.raises(TemplateError, match="names connection 'billing'"):
        other.create(NewStackRequest("web", template({"a": _remote("billing")}), {}))


def _drain(env: EngineEnv) -> None:
    assert isinstance(env.dispatcher, RecordingDispatcher)
    env.dispatcher.drain(env)
