"""OS::Heat::TestResource: a resource on the sandbox cloud that fails and waits on demand.

It is what the engine's own tests drive: every action can be made slow
(wait_secs, action_wait_secs) or made to fail (fail: create and update, as in Heat;
fail_on: the actions named, delete included). Heat's own test templates run unchanged:
its properties that poll OpenStack clients or slow attribute reads and constraint checks
(client_name, entity_name, attr_wait_secs, constraint_prop_secs) are accepted and do
nothing here, since there is no client to poll and attributes are stored. Waiting is
done by asking to be polled again until the time is up - never by sleeping -
so a wait can be interrupted, and given a deadline (action_timeout_secs).
The sandbox work of an action happens at its end, after the wait, so a
failed action leaves nothing behind; one whose worker died after the sandbox work, before
the object's id was recorded, left an object that its delete finds by the create's token
(ctx.create_token). `observe` reads the sandbox object (is it there, what value it holds)
for previews and the conformance kit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from conv_tasks.sdk import (
    BOOLEAN,
    CREATE,
    DELETE,
    LIST,
    MAP,
    NUMBER,
    STRING,
    UPDATE,
    ActionContext,
    AttributeSchema,
    Constraint,
    Observed,
    Progress,
    PropertySchema,
    ResourceFailure,
    ResourceType,
    SupportStatus,
)

SANDBOX_KIND = "test"
# Longest pause between polls, so a cancel or a new update is noticed soon.
MAX_POLL_SECS = 1.0
# The longest a TestResource action may wait, or be given to finish, in seconds: a test
# resource that waits longer is a typo, and one that never finishes holds its stack.
MAX_WAIT_SECS = 3600
_SECONDS = (Constraint.range(0, MAX_WAIT_SECS),)


class TestResource(ResourceType):
    """A thing on the sandbox cloud holding a value; slow or failing on demand."""

    __test__ = False  # not a pytest test class, whatever its name

    type_name: ClassVar[str] = "OS::Heat::TestResource"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="5.0.0")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "value": PropertySchema(
            STRING, "The value kept on the sandbox object.", default="", update_allowed=True
        ),
        "update_replace": PropertySchema(
            BOOLEAN,
            "When true, a change of value replaces the resource.",
            default=False,
            update_allowed=True,
        ),
        "update_replace_value": PropertySchema(
            STRING, "A value kept as given; changing it replaces the resource."
        ),
        "fail": PropertySchema(
            BOOLEAN,
            "When true, create and update fail (a delete does not, as in Heat).",
            default=False,
            update_allowed=True,
        ),
        "fail_on": PropertySchema(
            LIST,
            "Fail only these actions.",
            default=[],
            update_allowed=True,
            schema=PropertySchema(
                STRING, constraints=(Constraint.allowed_values("create", "update", "delete"),)
            ),
        ),
        "wait_secs": PropertySchema(
            NUMBER,
            "How long every action takes, in seconds.",
            default=0,
            update_allowed=True,
            constraints=_SECONDS,
        ),
        "action_timeout_secs": PropertySchema(
            NUMBER,
            "How long an action may take when the stack sets no timeout, in seconds.",
            update_allowed=True,
            constraints=(Constraint.range(0.1, MAX_WAIT_SECS),),
        ),
        "action_wait_secs": PropertySchema(
            MAP,
            "How long each action takes, overriding wait_secs.",
            update_allowed=True,
            schema={
                "create": PropertySchema(NUMBER, constraints=_SECONDS),
                "update": PropertySchema(NUMBER, constraints=_SECONDS),
                "delete": PropertySchema(NUMBER, constraints=_SECONDS),
                # Only when given: a stack check is otherwise answered at once.
                "check": PropertySchema(NUMBER, constraints=_SECONDS),
            },
        ),
        # Heat's knobs for its own clients and for slow attributes and constraints: accepted
        # so that Heat's test templates load, with no effect (see the module docstring).
        "client_name": PropertySchema(
            STRING, "Heat polls this client; no effect here.", default="", update_allowed=True
        ),
        "entity_name": PropertySchema(
            STRING, "Heat polls this entity; no effect here.", default="", update_allowed=True
        ),
        "attr_wait_secs": PropertySchema(
            NUMBER,
            "Heat waits before an attribute; no effect here.",
            default=0,
            update_allowed=True,
        ),
        "constraint_prop_secs": PropertySchema(
            NUMBER,
            "Heat waits in a constraint check; no effect here.",
            default=0,
            update_allowed=True,
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "output": AttributeSchema("The value.", type=STRING),
        "physical_id": AttributeSchema("The sandbox object's id.", type=STRING),
    }

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        chosen = properties.get("action_timeout_secs")
        return float(chosen) if chosen else super().action_timeout(properties)

    def interrupt(self, ctx: ActionContext) -> None:
        """Its waits are only polls: stopping one needs nothing, and nothing was made yet."""

    def needs_replacement(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        if new.get("update_replace") and old.get("value") != new.get("value"):
            return True
        return super().needs_replacement(old, new)

    def create(self, ctx: ActionContext) -> Progress:
        return self._step(ctx, CREATE)

    def check_create(self, ctx: ActionContext) -> Progress:
        return self._step(ctx, CREATE)

    def update(self, ctx: ActionContext) -> Progress:
        return self._step(ctx, UPDATE)

    def check_update(self, ctx: ActionContext) -> Progress:
        return self._step(ctx, UPDATE)

    def delete(self, ctx: ActionContext) -> Progress:
        return self._deleting(ctx)

    def check_delete(self, ctx: ActionContext) -> Progress:
        return self._deleting(ctx)

    def _deleting(self, ctx: ActionContext) -> Progress:
        """A delete takes its time (and fails on demand) only if there is an object: one of a
        create that ended without an id is what its token made, if anything (the object's id
        is then recorded, for the polls)."""
        if ctx.physical_id is not None:
            return self._step(ctx, DELETE)
        found = _object_id(ctx)
        if found is None:
            return Progress(done=True)  # its create made nothing: nothing to wait for
        progress = self._step(replace(ctx, physical_id=found), DELETE)
        return progress if progress.done else replace(progress, physical_id=found)

    def check(self, ctx: ActionContext) -> Progress:
        waited = (ctx.properties.get("action_wait_secs") or {}).get("check")
        remaining = ctx.started_at + float(waited or 0) - ctx.now
        if remaining > 0:  # started_at: when the stack's check started
            return Progress(done=False, poll_after=min(remaining, MAX_POLL_SECS))
        if ctx.properties.get("fail"):
            raise self._failure(ctx, "check")
        found = ctx.sandbox.get(ctx.physical_id) if ctx.physical_id is not None else None
        if found is None:
            raise ResourceFailure(
                f"Resource {ctx.resource_name}: sandbox object {ctx.physical_id} does not exist.",
                resource=ctx.resource_name,
                action=ctx.action,
            )
        # It must still hold what the last create or update gave it.
        held = (found.get("properties") or {}).get("value")
        if held != ctx.properties.get("value"):
            raise ResourceFailure(
                f"Resource {ctx.resource_name}: sandbox object {ctx.physical_id} holds "
                "another value than its properties say.",
                resource=ctx.resource_name,
                action=ctx.action,
            )
        return Progress(done=True)

    def observe(self, ctx: ActionContext) -> Observed | None:
        """The sandbox object: whether it is there, and the value it holds."""
        object_id = _object_id(ctx)
        found = ctx.sandbox.get(object_id) if object_id is not None else None
        if found is None:
            return Observed(exists=False)
        return Observed(
            exists=True, properties={"value": (found.get("properties") or {}).get("value")}
        )

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"output": ctx.properties.get("value"), "physical_id": ctx.physical_id}

    def _step(self, ctx: ActionContext, action: str) -> Progress:
        """Wait until the action's time is up, then fail or do the sandbox work."""
        remaining = ctx.started_at + wait_secs(ctx.properties, action) - ctx.now
        if remaining > 0:
            return Progress(done=False, poll_after=min(remaining, MAX_POLL_SECS))
        if fails(ctx.properties, action):
            raise self._failure(ctx, action.lower())
        payload = {"value": ctx.properties.get("value")}
        if action == CREATE:
            object_id = ctx.sandbox.create(ctx.idempotency_token, SANDBOX_KIND, payload)
            return Progress(done=True, physical_id=object_id)
        if action == UPDATE:
            if ctx.physical_id is None:
                raise ResourceFailure(
                    f"Resource {ctx.resource_name} has no sandbox object to update.",
                    resource=ctx.resource_name,
                    action=ctx.action,
                )
            ctx.sandbox.update(ctx.physical_id, payload)
            return Progress(done=True)
        if ctx.physical_id is not None:
            ctx.sandbox.delete(ctx.physical_id)  # False: already gone, which is what we want
        return Progress(done=True)

    def _failure(self, ctx: ActionContext, action: str) -> ResourceFailure:
        return ResourceFailure(
            f"Resource {ctx.resource_name} failed to {action} because it was asked to "
            "(TestResource fail/fail_on).",
            resource=ctx.resource_name,
            action=ctx.action,
        )


def _object_id(ctx: ActionContext) -> str | None:
    """The sandbox object: the physical id's, or, for a create that ended without one, the
    object its token made (if any)."""
    if ctx.physical_id is not None:
        return ctx.physical_id
    return ctx.sandbox.find(ctx.create_token) if ctx.create_token is not None else None


def wait_secs(properties: Mapping[str, Any], action: str) -> float:
    """How long action takes under these properties."""
    per_action = properties.get("action_wait_secs") or {}
    chosen = per_action.get(action.lower())
    if chosen is None:
        chosen = properties.get("wait_secs") or 0
    return float(chosen)


def fails(properties: Mapping[str, Any], action: str) -> bool:
    """Whether action is asked to fail under these properties. `fail` spares a delete, as in
    Heat, so that a stack holding a failed test resource can still be deleted or rolled
    back; `fail_on: [delete]` fails one."""
    named = action.lower() in (properties.get("fail_on") or [])
    return named or (bool(properties.get("fail")) and action != DELETE)
