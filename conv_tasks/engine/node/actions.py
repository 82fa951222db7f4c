"""Running one resource action (create, update, delete, check, suspend, resume) through its
plugin, step by step.

A step either finishes the action or asks to be polled again later: the
node task then re-enqueues itself with a countdown. No step ever sleeps in
a worker. Every step runs under the node's lease on the resource version.
"""

from __future__ import annotations

import logging
import random
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from conv_tasks.connections import ConnectionHandle
from conv_tasks.db import ResourceVersion
from conv_tasks.engine.definition import MASK
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.node.adopt import adopt, adopts
from conv_tasks.engine.node.delivery import NodeRun
from conv_tasks.engine.node.leftovers import action_token, create_token
from conv_tasks.errors import ConvTasksError, ResourceFailure
from conv_tasks.faults import TRANSIENT_FAULTS
from conv_tasks.provider_errors import NotFound, ProviderError, Throttled, Transient
from conv_tasks.resources import ActionContext, Progress, ResourceType
from conv_tasks.statuses import Action
from conv_tasks.template import MEMBER_VIEW

log = logging.getLogger(__name__)
_random = random.Random()


@dataclass(frozen=True)
class StepResult:
    done: bool
    failed: str | None = None
    physical_id: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    poll_after: float = 1.0
    attributes: Mapping[str, Any] = field(default_factory=dict)
    reference: str | None = None


def action_context(
    run: NodeRun,
    version: ResourceVersion,
    action: Action,
    plugin: ResourceType,
    *,
    properties: Mapping[str, Any],
    old_properties: Mapping[str, Any] | None = None,
    facade: Mapping[str, Any] | None = None,
) -> ActionContext:
    """What one step of `action` on `version` may use. The idempotency token names the
    version and the action, so a step started again after a crash makes nothing twice.
    `facade`: the resource's definition for a child stack (first steps of create, update).
    A type that acts through a connection gets the one its `connection` property names (or,
    where that is optional and names none, the engine's own of its kind)."""
    return _context(
        run.env,
        run.task.stack_id,
        run.tenant,
        version,
        action,
        plugin,
        properties=properties,
        old_properties=old_properties,
        facade=facade,
        now=run.now().timestamp(),
    )


def observing_context(
    env: EngineEnv, stack_id: str, tenant: str, version: ResourceVersion, plugin: ResourceType
) -> ActionContext:
    """The context in which a type's `observe` reads the real object of `version` (outside a
    node: a preview)."""
    return version_context(env, stack_id, tenant, version, plugin, Action.CHECK)


def leftover_context(
    env: EngineEnv, stack_id: str, tenant: str, version: ResourceVersion, plugin: ResourceType
) -> ActionContext:
    """The context in which a type's `observe` looks for what the create of `version` made
    (the conformance kit, once the version's stack was deleted): by its physical id, or,
    without one, by its create's token (ActionContext.create_token)."""
    ctx = version_context(env, stack_id, tenant, version, plugin, Action.CHECK)
    if version.physical_id is not None:
        return ctx
    return replace(ctx, create_token=create_token(stack_id, version))


def version_context(
    env: EngineEnv,
    stack_id: str,
    tenant: str,
    version: ResourceVersion,
    plugin: ResourceType,
    action: Action,
) -> ActionContext:
    """The context of `action` on `version` outside a node (a preview's observe, the
    conformance kit's repeated delete): the token, connection and stores a node would give
    (and, to a delete of a version without a physical id, its create's token)."""
    return _context(env, stack_id, tenant, version, action, plugin, properties=version.properties)


def _context(
    env: EngineEnv,
    stack_id: str,
    tenant: str,
    version: ResourceVersion,
    action: Action,
    plugin: ResourceType,
    *,
    properties: Mapping[str, Any],
    old_properties: Mapping[str, Any] | None = None,
    facade: Mapping[str, Any] | None = None,
    now: float | None = None,
) -> ActionContext:
    # `now`: a node's is the database's time (NodeRun.now), as its action's start and deadline
    # are; outside a node, this host's.
    kind = plugin.connection_kind
    named = properties.get("connection")
    connection: ConnectionHandle | None = None
    if kind is not None and named is None and not plugin.needs_connection():
        connection = env.connections.own_handle(tenant, kind, version.name)
    elif kind is not None:
        connection = env.connections.handle(tenant, named, kind, version.name)
    now = time.time() if now is None else now
    started = version.action_started_at.timestamp() if version.action_started_at else now
    return ActionContext(
        stack_id=stack_id,
        resource_name=version.name,
        action=str(action),
        idempotency_token=action_token(stack_id, version.id, action),
        properties=properties,
        old_properties=old_properties,
        physical_id=version.physical_id,
        data=dict(version.plugin_data),
        started_at=started,
        now=now,
        sandbox=env.sandbox,
        deployments=env.deployments,
        children=env.children,
        deadline=version.action_deadline.timestamp() if version.action_deadline else None,
        wait_handles=env.wait_handles,
        facade=facade,
        tenant=tenant,
        connection=connection,
        edge_url=env.settings.api_public_url or None,
        # A delete of a version without a physical id finds what its create made by this.
        create_token=(
            create_token(stack_id, version)
            if action == Action.DELETE and version.physical_id is None
            else None
        ),
    )


def pick_attributes(
    plugin: ResourceType, attributes: Mapping[str, Any], wanted: frozenset[str]
) -> dict[str, Any]:
    """The attributes a resource hands on: those wanted (as its type picks them), and a
    group's member view whole (get_attr's path is applied per member when it is read)."""
    picked = plugin.picked_attributes(attributes, wanted)
    if MEMBER_VIEW in attributes:
        picked[MEMBER_VIEW] = attributes[MEMBER_VIEW]
    return picked


# Plugin data the engine keeps for an action under way, beside the plugin's own.
RETRY = "__conv_tasks_retry__"  # {"start": the start is still to run, "attempts": n}
# Backoff after a transient fault or a throttle: from the first wait, doubled each attempt up
# to the last, each jittered down by up to a half, so that no wait is ever longer than the
# last (the guide promises "0.5 s doubling to 30 s"; a jitter upwards once made it 45 s).
BACKOFF_FIRST = 0.5
BACKOFF_LAST = 30.0


def backoff(attempts: int, at_least: float | None = None, *, rng: random.Random = _random) -> float:
    """Seconds to wait before attempt `attempts` + 1: a jittered, growing wait between half
    and all of BACKOFF_FIRST doubled `attempts` - 1 times, at most BACKOFF_LAST, and never
    under `at_least` (the service's own Retry-After, which may be longer)."""
    base = min(BACKOFF_LAST, BACKOFF_FIRST * 2 ** max(0, attempts - 1))
    wait = base * (1.0 - 0.5 * rng.random())
    return max(wait, at_least or 0.0)


def run_step(
    plugin: ResourceType,
    ctx: ActionContext,
    *,
    first: bool,
    wanted_attributes: frozenset[str] = frozenset(),
) -> StepResult:
    """Start (first=True) or poll the action; on completion gather attributes and reference.

    A start that a transient fault or a rate limit put off is started on the next step (the
    engine's RETRY entry in the plugin data says so). The connection's secrets, and the
    values of the type's secret properties, are masked in what a failure says."""
    retry = dict(ctx.data.get(RETRY) or {})
    starting = first or bool(retry.get("start"))
    plain = ctx if RETRY not in ctx.data else replace(ctx, data=_without_retry(ctx.data))
    token = ctx.idempotency_token
    if ctx.connection is not None and _limited(ctx):
        waited = ctx.connection.admit(token, starting=starting)
        if waited > 0:
            return _later(plain, starting, retry, waited, counted=False)
    began = time.monotonic()
    try:
        step = _step(plugin, plain, starting, wanted_attributes)
    except Transient as exc:
        said = _masked(str(exc), _secrets_of(plugin, ctx))
        log.info("resource %s: %s step put off: %s", ctx.resource_name, ctx.action, said)
        retry_after = exc.retry_after if isinstance(exc, Throttled) else None
        wait = backoff(int(retry.get("attempts", 0)) + 1, retry_after)
        return _later(plain, starting, retry, wait)
    finally:
        took = time.monotonic() - began
        if took > plugin.step_budget:
            log.warning(
                "resource %s: a %s step of %s took %.1f s, over its step budget of %.1f s",
                ctx.resource_name,
                ctx.action,
                type(plugin).type_name,
                took,
                plugin.step_budget,
            )
    if step.done and ctx.connection is not None:
        ctx.connection.release(token)
    if step.failed is not None:
        step = replace(step, failed=_masked(step.failed, _secrets_of(plugin, ctx)))
    return step


def masked(plugin: ResourceType, ctx: ActionContext, text: str) -> str:
    """`text` (a type's error, said outside a step: a preview's observe) without the
    connection's secrets or the secret properties' values."""
    return _masked(text, _secrets_of(plugin, ctx))


def _secrets_of(plugin: ResourceType, ctx: ActionContext) -> tuple[str, ...]:
    """What a failure of the step must not say: the connection's secrets, and the values of
    the type's secret properties as the action received them (one computed from another
    resource's attribute is known only here)."""
    secrets = list(ctx.connection.secrets()) if ctx.connection is not None else []
    for properties in (ctx.properties, ctx.old_properties or {}):
        for name in plugin.secret_properties:
            value = properties.get(name)
            if value is not None and not isinstance(value, bool) and str(value):
                secrets.append(str(value))
    # Longest first, so that a secret holding another is masked whole.
    return tuple(sorted(set(secrets), key=len, reverse=True))


def _step(
    plugin: ResourceType, ctx: ActionContext, starting: bool, wanted: frozenset[str]
) -> StepResult:
    begun = time.monotonic()
    starters = {
        Action.CREATE: plugin.create,
        Action.UPDATE: plugin.update,
        Action.DELETE: plugin.delete,
        Action.CHECK: plugin.check,
        Action.SUSPEND: plugin.suspend,
        Action.RESUME: plugin.resume,
    }
    checkers = {
        Action.CREATE: plugin.check_create,
        Action.UPDATE: plugin.check_update,
        Action.DELETE: plugin.check_delete,
        Action.CHECK: plugin.check,
        Action.SUSPEND: plugin.check_suspend,
        Action.RESUME: plugin.check_resume,
    }
    if adopts(ctx):
        # A resource with an external_id: its object exists, the type's create never runs.
        starters[Action.CREATE] = checkers[Action.CREATE] = partial(adopt, plugin)
    try:
        progress: Progress = (starters if starting else checkers)[Action(ctx.action)](ctx)
        merged = {**ctx.data, **dict(progress.data)}
        physical_id = progress.physical_id or ctx.physical_id
        if not progress.done:
            return StepResult(False, None, physical_id, merged, max(0.05, progress.poll_after))
        if ctx.action == Action.DELETE:
            return StepResult(True, None, physical_id, merged)
        # The same clock as ctx.now (the database's, in a node), moved on by the step's time.
        later = ctx.now + (time.monotonic() - begun)
        final = replace(ctx, physical_id=physical_id, data=merged, now=later)
        attributes = dict(plugin.attributes(final)) if wanted else {}
        picked = pick_attributes(plugin, attributes, wanted)
        return StepResult(
            True, None, physical_id, merged, attributes=picked, reference=plugin.reference(final)
        )
    except TRANSIENT_FAULTS:
        # Our own database or Redis went away under the plugin (the sandbox, a deployment's
        # row): not the resource's failure. The node retries the step, which the action's
        # idempotency token makes safe to repeat.
        raise
    except Transient:
        raise
    except NotFound as exc:
        if ctx.action == Action.DELETE:
            return StepResult(True, None, ctx.physical_id, dict(ctx.data))  # gone: deleted
        return StepResult(True, _one_line(str(exc)) or f"{ctx.action} failed: not found")
    except ProviderError as exc:
        # What a service answered, as the SDK's errors carry it: one line.
        return StepResult(True, _one_line(str(exc)) or f"{ctx.action} failed")
    except ResourceFailure as exc:
        # The engine's own types word their reasons themselves (a deployment's stderr tail).
        return StepResult(True, str(exc) or f"{ctx.action} failed")
    except ConvTasksError as exc:
        return StepResult(True, str(exc))
    except Exception as exc:
        # The traceback's frames (code, no values) go to the worker's log; its message only
        # masked, for a driver's error may quote a URL with its password.
        said = _masked(str(exc), _secrets_of(plugin, ctx))
        log.error(
            "resource %s: %s raised %s: %s\n%s",
            ctx.resource_name,
            ctx.action,
            type(exc).__name__,
            said,
            "".join(traceback.format_tb(exc.__traceback__)).rstrip(),
        )
        return StepResult(True, _one_line(f"{ctx.action} raised {type(exc).__name__}: {exc}"))


def _later(
    ctx: ActionContext,
    starting: bool,
    retry: Mapping[str, Any],
    wait: float,
    *,
    counted: bool = True,
) -> StepResult:
    """The step did not run (a fault, a limit): come back in `wait` seconds, starting the
    action then if it has not started."""
    attempts = int(retry.get("attempts", 0)) + (1 if counted else 0)
    data = {**ctx.data, RETRY: {"start": starting, "attempts": attempts}}
    return StepResult(False, None, ctx.physical_id, data, max(0.05, wait))


def _without_retry(data: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != RETRY}


def _limited(ctx: ActionContext) -> bool:
    """Rate limits hold the actions that change things and their polls, not a check's read."""
    return ctx.action != Action.CHECK


def _one_line(text: str) -> str:
    """A failure's reason as one line (the first of a message that has several)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def _masked(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return text
