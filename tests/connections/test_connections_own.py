"""The engine's own connections, for a resource whose type's `connection` is optional and
that names none (ConvTasks::Celery::Task: conv_tasks' own broker and result backend)."""

from __future__ import annotations

import logging
import time
from typing import Any, ClassVar

import pytest
from celery import Celery

from conv_tasks.connections import (
    CELERY,
    HTTP,
    OWN_NAME,
    Connections,
    own_connections,
    parse_connections,
)
from conv_tasks.engine.definition import StackDefinition, connection_problems
from conv_tasks.engine.node.actions import run_step
from conv_tasks.provider_errors import Transient
from conv_tasks.resources import ActionContext, Progress, ResourceType, default_registry
from conv_tasks.sdk import STRING, PropertySchema

BROKER = "redis://:broker%20secret@127.0.0.1:6399/0"
BACKEND = "redis://:backend-secret@127.0.0.1:6399/2"


class _Optional(ResourceType):
    type_name: ClassVar[str] = "Test::OptionalConnection"
    connection_kind: ClassVar[str | None] = CELERY
    properties_schema: ClassVar[dict[str, PropertySchema]] = {
        "connection": PropertySchema(STRING, "optional"),
    }


class _Required(_Optional):
    type_name: ClassVar[str] = "Test::RequiredConnection"
    properties_schema: ClassVar[dict[str, PropertySchema]] = {
        "connection": PropertySchema(STRING, "required", required=True),
    }


def _connections() -> Connections:
    config = parse_connections(
        "default:\n"
        "  jobs: {kind: celery, broker_url: 'redis://127.0.0.1:6399/5'}\n"
        "  api: {kind: http, base_url: 'https://api.example'}\n"
        # A tenant's connection may have the own one's name: they never share a client.
        f"  {OWN_NAME}: {{kind: celery, broker_url: 'redis://127.0.0.1:6399/7'}}\n"
    )
    return Connections(config, own=own_connections(BROKER, BACKEND))


def test_a_type_whose_connection_property_is_optional_does_not_need_one() -> None:
    assert not _Optional.needs_connection()
    assert _Required.needs_connection()
    assert ResourceType.needs_connection()  # no connection property at all: nothing optional


def test_the_own_celery_connection_is_the_settings_broker_and_result_backend() -> None:
    connections = _connections()
    handle = connections.own_handle("tenant-a", CELERY, "task")

    assert handle is not None and handle.own and handle.name == OWN_NAME
    app = handle.client
    assert isinstance(app, Celery)
    assert app.conf.broker_url == BROKER and app.conf.result_backend == BACKEND
    # Its URLs' passwords are masked like any connection's secret, made or not.
    assert set(handle.secrets()) == {"broker%20secret", "broker secret", "backend-secret"}
    assert connections.own_handle("tenant-a", HTTP, "api") is None


def test_on_sentinel_the_own_connection_gets_the_master_and_masks_the_sentinels_password() -> None:
    broker = "sentinel://:master-secret@127.0.0.1:1/0;sentinel://:master-secret@127.0.0.1:2/0"
    backend = "sentinel://:master-secret@127.0.0.1:1/2;sentinel://:master-secret@127.0.0.1:2/2"
    own = own_connections(
        broker, backend, sentinel_master="mymaster", sentinel_password="sentinels-secret"
    )
    handle = Connections(own=own).own_handle("tenant-a", CELERY, "task")
    assert handle is not None
    conf = handle.client.conf
    assert conf.broker_url == broker and conf.result_backend == backend
    for options in (conf.broker_transport_options, conf.result_backend_transport_options):
        assert options["master_name"] == "mymaster"
        assert options["sentinel_kwargs"]["password"] == "sentinels-secret"
    assert set(handle.secrets()) == {"master-secret", "sentinels-secret"}


def test_the_own_connection_and_a_tenants_of_the_same_name_are_two_clients() -> None:
    connections = _connections()
    own = connections.own_handle("tenant-a", CELERY, "task")
    named = connections.handle("tenant-a", OWN_NAME, CELERY, "task")
    assert own is not None and own.client is not named.client
    assert named.client.conf.broker_url == "redis://127.0.0.1:6399/7"
    assert named.secrets() == ()
    # Cached per worker process: asked again, the same client.
    assert connections.own_handle("tenant-b", CELERY, "other") is not None
    assert own.client is connections.own_handle("tenant-b", CELERY, "other").client  # type: ignore[union-attr]


def _definition(connection: str | None) -> StackDefinition:
    properties = {} if connection is None else {"connection": connection}
    registry = default_registry().with_types({_Optional.type_name: _Optional})
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"t": {"type": _Optional.type_name, "properties": properties}},
    }
    return StackDefinition.build(template, {}, registry=registry)


def test_a_template_may_leave_an_optional_connection_out_but_not_name_a_wrong_one() -> None:
    connections = _connections()
    registry = default_registry().with_types({_Optional.type_name: _Optional})

    assert connection_problems(_definition(None), "tenant-a", connections, registry) == []
    assert connection_problems(_definition("jobs"), "tenant-a", connections, registry) == []
    [wrong] = connection_problems(_definition("api"), "tenant-a", connections, registry)
    assert wrong.path == "resources.t.properties.connection"
    assert "a http connection; it needs a celery one" in wrong.message
    [unknown] = connection_problems(_definition("nope"), "tenant-a", connections, registry)
    assert "names connection 'nope', which this tenant does not have" in unknown.message


class _PutOff(ResourceType):
    type_name: ClassVar[str] = "Test::PutOff"

    def create(self, ctx: ActionContext) -> Progress:
        raise Transient(f"the broker at {BROKER} is down")


def test_a_step_put_off_logs_its_reason_with_the_connections_secrets_masked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    handle = _connections().own_handle("tenant-a", CELERY, "r")
    now = time.time()
    ctx = ActionContext(
        stack_id="s",
        resource_name="r",
        action="CREATE",
        idempotency_token="s:1:CREATE",
        properties={},
        old_properties=None,
        physical_id=None,
        data={},
        started_at=now,
        now=now,
        sandbox=None,  # type: ignore[arg-type] - never reached
        connection=handle,
    )
    with caplog.at_level(logging.INFO, logger="conv_tasks.engine.node.actions"):
        step: Any = run_step(_PutOff(), ctx, first=True)

    assert not step.done
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "step put off" in logged and "broker%20secret" not in logged
    assert "broker secret" not in logged
