"""Signals sent to a resource by the stack's owner (seed 002: deployments report their progress).

A signal to a software deployment is applied to its current action as a
server's signal would be (features/deployments), the tenant
standing in for the deployment's credential. A signal to a wait condition
handle is recorded on it as a host's would be (features/waits:
details are {status, reason, data, id}; the type says which resources are handles:
keeps_wait_signals). Any other resource records it
as an event: its details may carry `deploy_status` (IN_PROGRESS, COMPLETE or
FAILED) and `deploy_status_reason`, and are kept with the resource version
for its plugin to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.db import EventRecord
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.features.deployments import apply_signal
from conv_tasks.engine.features.waits import apply_handle_signal
from conv_tasks.engine.read import redactor_for, stack_definition
from conv_tasks.errors import NotFound, PayloadError, Problem
from conv_tasks.limits import MAX_REASON_CHARS
from conv_tasks.resources import type_lookup
from conv_tasks.statuses import Action, Status

DEPLOY_STATUSES = tuple(str(s) for s in Status)


def signal_resource(
    env: EngineEnv, tenant: str, stack_ref: str, resource_name: str, details: Mapping[str, Any]
) -> dict[str, Any]:
    status = details.get("deploy_status", str(Status.COMPLETE))
    if status not in DEPLOY_STATUSES:
        raise PayloadError(
            [
                Problem(
                    "details.deploy_status",
                    f"must be one of {list(DEPLOY_STATUSES)}, got {status!r}",
                )
            ]
        )
    reason = details.get("deploy_status_reason", "")
    if not isinstance(reason, str):
        raise PayloadError([Problem("details.deploy_status_reason", "must be a string")])
    if len(reason) > MAX_REASON_CHARS:
        raise PayloadError(
            [
                Problem(
                    "details.deploy_status_reason",
                    f"is {len(reason)} characters long; the limit is {MAX_REASON_CHARS} "
                    "(MAX_REASON_CHARS)",
                )
            ]
        )
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, stack_ref)
        head = tx.resources.head(stack.id, resource_name)
        if head is None:
            raise NotFound(f"Stack {stack.name!r} has no resource {resource_name!r}.")
        plugin_type = type_lookup(env.registry)(head.type)
        if plugin_type is not None and plugin_type.keeps_wait_signals:
            handle = tx.handles.lock_of_resource(stack.id, head.physical_id)
            if handle is None:
                raise NotFound(
                    f"Wait condition handle {resource_name!r} of stack {stack.name!r} has not "
                    "been created yet (or failed to be); there is nothing to signal."
                )
            return apply_handle_signal(env, tx, stack, handle, dict(details))
        deployment = tx.deployments.lock_of_resource(stack.id, resource_name, head.physical_id)
        if deployment is not None:
            return apply_signal(env, tx, stack, deployment, deployment.action, dict(details))
        redact = redactor_for(stack_definition(env, tx, stack))
        text = redact(reason or f"Signal received: deployment {status.lower()}")
        signals = list(head.plugin_data.get("signals", []))[-19:]
        signals.append({"deploy_status": status, "deploy_status_reason": redact(reason)})
        tx.resources.compare_and_swap(
            head.id, head.atomic_key, plugin_data={**head.plugin_data, "signals": signals}
        )
        tx.events.add(
            [
                EventRecord(
                    stack.id,
                    Action.SIGNAL,
                    status,
                    text,
                    resource_name=resource_name,
                    physical_id=head.physical_id,
                )
            ],
        )
    return {
        "stack_id": stack.id,
        "resource": resource_name,
        "deploy_status": status,
        "message": text,
    }
