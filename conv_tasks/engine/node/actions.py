"""Running one resource action (create, update, delete, check) through its plugin, step by step.

A step either finishes the action or asks to be polled again later: the
node task then re-enqueues itself with a countdown. No step ever sleeps in
a worker. Every step runs under the node's lease on the resource version.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from conv_tasks.db import ResourceVersion
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.errors import ConvTasksError, ResourceFailure
from conv_tasks.faults import TRANSIENT_FAULTS
from conv_tasks.resources import ActionContext, Progress, ResourceType
from conv_tasks.statuses import Action
from conv_tasks.template.member_view import MEMBER_VIEW

log = logging.getLogger(__name__)


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
    env: EngineEnv,
    stack_id: str,
    version: ResourceVersion,
    action: Action,
    *,
    properties: Mapping[str, Any],
    old_properties: Mapping[str, Any] | None = None,
    facade: Mapping[str, Any] | None = None,
) -> ActionContext:
    """What one step of `action` on `version` may use. The idempotency token names the
    version and the action, so a step started again after a crash makes nothing twice.
    `facade`: the resource's definition for a child stack (first steps of create, update)."""
    now = time.time()
    started = version.action_started_at.timestamp() if version.action_started_at else now
    return ActionContext(
        stack_id=stack_id,
        resource_name=version.name,
        action=str(action),
        idempotency_token=f"{stack_id}:{version.id}:{action}",
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


def run_step(
    plugin: ResourceType,
    ctx: ActionContext,
    *,
    first: bool,
    wanted_attributes: frozenset[str] = frozenset(),
) -> StepResult:
    """Start (first=True) or poll the action; on completion gather attributes and reference."""
    starters = {
        Action.CREATE: plugin.create,
        Action.UPDATE: plugin.update,
        Action.DELETE: plugin.delete,
        Action.CHECK: plugin.check,
    }
    checkers = {
        Action.CREATE: plugin.check_create,
        Action.UPDATE: plugin.check_update,
        Action.DELETE: plugin.check_delete,
        Action.CHECK: plugin.check,
    }
    try:
        progress: Progress = (starters if first else checkers)[Action(ctx.action)](ctx)
        merged = {**ctx.data, **dict(progress.data)}
        physical_id = progress.physical_id or ctx.physical_id
        if not progress.done:
            return StepResult(False, None, physical_id, merged, max(0.05, progress.poll_after))
        if ctx.action == Action.DELETE:
            return StepResult(True, None, physical_id, merged)
        final = replace(ctx, physical_id=physical_id, data=merged, now=time.time())
        attributes = dict(plugin.attributes(final)) if wanted_attributes else {}
        picked = pick_attributes(plugin, attributes, wanted_attributes)
        return StepResult(
            True, None, physical_id, merged, attributes=picked, reference=plugin.reference(final)
        )
    except TRANSIENT_FAULTS:
        # Our own database or Redis went away under the plugin (the sandbox, a deployment's
        # row): not the resource's failure. The node retries the step, which the action's
        # idempotency token makes safe to repeat.
        raise
    except ResourceFailure as exc:
        return StepResult(True, str(exc) or f"{ctx.action} failed")
    except ConvTasksError as exc:
        return StepResult(True, str(exc))
    except Exception as exc:
        log.exception("resource %s: %s raised", ctx.resource_name, ctx.action)
        return StepResult(True, f"{ctx.action} raised {type(exc).__name__}: {exc}")
