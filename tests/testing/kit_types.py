"""Resource types that break one rule each, for proving that the conformance kit catches it.

Each keeps a value on the sandbox cloud as OS::Heat::TestResource does (`value` changes in
place, `name` replaces), written against conv_tasks.sdk only, and then does one thing wrong.
tests/testing/test_testing_kit.py plugs them in through an entry point of a distribution it
writes, so that the cluster's workers find them as they would a package's.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping
from typing import ClassVar

from conv_tasks.sdk import (
    STRING,
    ActionContext,
    Fatal,
    Observed,
    Progress,
    PropertySchema,
    ResourceType,
    Throttled,
    connection_property,
)

log = logging.getLogger(__name__)


class SandboxThing(ResourceType):
    """A value on the sandbox cloud: the well-behaved base of the broken types below."""

    type_name: ClassVar[str] = "Kit::SandboxThing"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "value": PropertySchema(STRING, "The value kept.", default="", update_allowed=True),
        "name": PropertySchema(STRING, "A name; changing it replaces the thing.", default=""),
    }

    def token(self, ctx: ActionContext) -> str:
        return ctx.idempotency_token

    def create(self, ctx: ActionContext) -> Progress:
        made = ctx.sandbox.create(self.token(ctx), "kit", {"value": ctx.properties.get("value")})
        return Progress(done=True, physical_id=made)

    def update(self, ctx: ActionContext) -> Progress:
        assert ctx.physical_id is not None
        ctx.sandbox.update(ctx.physical_id, {"value": ctx.properties.get("value")})
        return Progress(done=True)

    def delete(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is not None:
            ctx.sandbox.delete(ctx.physical_id)
        return Progress(done=True)

    def observe(self, ctx: ActionContext) -> Observed | None:
        found = ctx.sandbox.get(ctx.physical_id) if ctx.physical_id else None
        if found is None:
            return Observed(exists=False)
        return Observed(exists=True, properties={"value": found["properties"].get("value")})


class TokenIgnored(SandboxThing):
    """Makes a new object on every start: the idempotency token is ignored."""

    type_name: ClassVar[str] = "Kit::TokenIgnored"

    def token(self, ctx: ActionContext) -> str:
        return f"{ctx.stack_id}:{uuid.uuid4()}"


class ObserveLies(SandboxThing):
    """Its observe always finds an object, holding another value."""

    type_name: ClassVar[str] = "Kit::ObserveLies"

    def observe(self, ctx: ActionContext) -> Observed | None:
        return Observed(exists=True, properties={"value": "not what was asked"})


class UpdateReplaces(SandboxThing):
    """Says a change of value is made in place, and makes a new object for it."""

    type_name: ClassVar[str] = "Kit::UpdateReplaces"

    def update(self, ctx: ActionContext) -> Progress:
        token = f"{ctx.idempotency_token}:new"
        made = ctx.sandbox.create(token, "kit", {"value": ctx.properties.get("value")})
        return Progress(done=True, physical_id=made)


class ReplaceKeeps(SandboxThing):
    """Its object is the resource's, not the action's: a replacement gets the same one."""

    type_name: ClassVar[str] = "Kit::ReplaceKeeps"

    def token(self, ctx: ActionContext) -> str:
        return f"{ctx.stack_id}:{ctx.resource_name}"


class SlowStep(SandboxThing):
    """Its create takes longer than the step budget it states."""

    type_name: ClassVar[str] = "Kit::SlowStep"
    step_budget: ClassVar[float] = 0.3

    def create(self, ctx: ActionContext) -> Progress:
        time.sleep(0.8)
        return super().create(ctx)


class LongLease(SandboxThing):
    """Well behaved, with a step budget so long that the cluster's leases last five minutes:
    a killed worker's lease would outlast any case's timeout if the kit waited it out."""

    type_name: ClassVar[str] = "Kit::LongLease"
    step_budget: ClassVar[float] = 299.0


class DeleteOnce(SandboxThing):
    """Fails a delete of an object that is already gone."""

    type_name: ClassVar[str] = "Kit::DeleteOnce"

    def delete(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is not None and not ctx.sandbox.delete(ctx.physical_id):
            raise Fatal(f"Resource {ctx.resource_name}: object {ctx.physical_id} is not there.")
        return Progress(done=True)


class InterruptRaises(SandboxThing):
    """A create that takes a while (polled), whose interrupt raises."""

    type_name: ClassVar[str] = "Kit::InterruptRaises"

    def create(self, ctx: ActionContext) -> Progress:
        return self.check_create(ctx)

    def check_create(self, ctx: ActionContext) -> Progress:
        if ctx.now - ctx.started_at < 2:
            return Progress(done=False, poll_after=0.5)
        return super().create(ctx)

    def interrupt(self, ctx: ActionContext) -> None:
        raise RuntimeError("cannot stop")


class DeleteFails(SandboxThing):
    """Its delete always fails: what it made can never be deleted."""

    type_name: ClassVar[str] = "Kit::DeleteFails"

    def delete(self, ctx: ActionContext) -> Progress:
        raise Fatal(f"Resource {ctx.resource_name}: the service will not delete {ctx.physical_id}.")


def _throttled(ctx: ActionContext, doing: str) -> Throttled:
    return Throttled(
        f"Resource {ctx.resource_name}: {doing} answered 429 Too Many Requests",
        retry_after=0.1,
        resource=ctx.resource_name,
    )


class ObserveThrottled(SandboxThing):
    """Raises Throttled from every observe (a service that is always too busy to read, or a
    type that says so when it is not)."""

    type_name: ClassVar[str] = "Kit::ObserveThrottled"

    def observe(self, ctx: ActionContext) -> Observed | None:
        raise _throttled(ctx, "GET")


class StartThrottled(SandboxThing):
    """Raises Throttled from every start of its create: it never begins."""

    type_name: ClassVar[str] = "Kit::StartThrottled"

    def create(self, ctx: ActionContext) -> Progress:
        raise _throttled(ctx, "POST")


# What ThrottledOnce was asked already, in this process.
_ASKED: set[str] = set()


class ThrottledOnce(SandboxThing):
    """Well behaved on a busy service: in each process, the first start of each create (by its
    token) and the first observe of each object are throttled, as the service answered 429;
    the type raises Throttled, as the SDK asks, and the next call goes through."""

    type_name: ClassVar[str] = "Kit::ThrottledOnce"

    def create(self, ctx: ActionContext) -> Progress:
        if _first(f"create {ctx.idempotency_token}"):
            raise _throttled(ctx, "POST")
        return super().create(ctx)

    def observe(self, ctx: ActionContext) -> Observed | None:
        if _first(f"observe {ctx.physical_id}"):
            raise _throttled(ctx, "GET")
        return super().observe(ctx)


def _first(call: str) -> bool:
    first = call not in _ASKED
    _ASKED.add(call)
    return first


class ConnectedThing(SandboxThing):
    """A well-behaved thing that asks its PostgreSQL connection first, in every step."""

    type_name: ClassVar[str] = "Kit::ConnectedThing"
    connection_kind: ClassVar[str | None] = "postgresql"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        **(SandboxThing.properties_schema or {}),
        "connection": connection_property("postgresql"),
    }

    def create(self, ctx: ActionContext) -> Progress:
        ctx.client().execute("SELECT 1")
        return super().create(ctx)

    def observe(self, ctx: ActionContext) -> Observed | None:
        ctx.client().execute("SELECT 1")
        return super().observe(ctx)


class SecretLogger(ConnectedThing):
    """Acts through a PostgreSQL connection, and logs the connection's password."""

    type_name: ClassVar[str] = "Kit::SecretLogger"

    def create(self, ctx: ActionContext) -> Progress:
        progress = super().create(ctx)
        assert ctx.connection is not None
        log.warning("connected with %s", ctx.connection.secrets())
        return progress


class SecretInReason(SecretLogger):
    """Fails its create with a message that holds the connection's password."""

    type_name: ClassVar[str] = "Kit::SecretInReason"

    def create(self, ctx: ActionContext) -> Progress:
        ctx.client().execute("SELECT 1")
        assert ctx.connection is not None
        [password] = ctx.connection.secrets()
        raise Fatal(f"Resource {ctx.resource_name}: the server said no to {password}.")


KIT_TYPES: tuple[type[ResourceType], ...] = (
    SandboxThing,
    TokenIgnored,
    ObserveLies,
    UpdateReplaces,
    ReplaceKeeps,
    SlowStep,
    LongLease,
    DeleteOnce,
    DeleteFails,
    ObserveThrottled,
    StartThrottled,
    ThrottledOnce,
    InterruptRaises,
    ConnectedThing,
    SecretLogger,
    SecretInReason,
)


def entry_points_text() -> str:
    """The entry_points.txt of a distribution that plugs these types in."""
    lines = [f"{cls.type_name} = kit_types:{cls.__name__}" for cls in KIT_TYPES]
    return "[conv_tasks.resource_types]\n" + "\n".join(lines) + "\n"
