"""Signals from servers to their deployments (seed 002), and from the stack's owner.

A server's signal names the deployment and the action it ran, and carries
the signal credential of the run it was given (conv_tasks.deployments.
credentials); the owner's (conv_tasks.resource.signal) is authenticated by
its tenant instead and applies to the current run. A signal is applied to
the deployment row only while its run waits: IN_PROGRESS records that the
server has started (once, with an event for the user), COMPLETE or FAILED
ends the run, and the resource's next poll sees it. Anything else (a
repeat, a signal of a run that ended, the current one or the one before) is
answered as a duplicate and changes nothing. A refused signal changes
nothing either.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from conv_tasks.db import DeploymentRow, EventRecord, StackRow, Transaction, config_of
from conv_tasks.deployments import (
    DeployAction,
    DeployStatus,
    SignalVerdict,
    interpret_signal,
    matches,
)
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.read import stack_definition
from conv_tasks.errors import NotAuthorized, PayloadError, Problem
from conv_tasks.statuses import Action

REFUSED = "Signal refused: the deployment is unknown or the credential does not match it."


def signal_deployment(
    env: EngineEnv, deployment_id: str, credential: str, action: str, details: dict[str, Any]
) -> dict[str, Any]:
    """A server's signal: checked against the deployment's signal credential."""
    action = check_action(action)
    with env.db.transaction() as tx:
        row = tx.deployments.lock(deployment_id)
        if row is None:
            raise NotAuthorized(REFUSED)
        current = matches(credential, row.signal_hash)
        if not current and not matches(credential, row.previous_signal_hash):
            raise NotAuthorized(REFUSED)
        stack = tx.stacks.get_any(row.stack_id)
        if stack is None or stack.deleted:
            raise NotAuthorized(REFUSED)
        if not current:
            return _earlier_run(stack, row, action, details)
        return apply_signal(env, tx, stack, row, action, details)


def _earlier_run(
    stack: StackRow, row: DeploymentRow, action: str, details: dict[str, Any]
) -> dict[str, Any]:
    """The answer to a signal of the run before the current one: it ended, nothing changes."""
    interpret_signal(details)  # malformed details are refused all the same
    ended = row.previous_status or DeployStatus.FAILED.value
    return {
        "deployment": row.id,
        "stack_id": stack.id,
        "resource": row.resource_name,
        "duplicate": True,
        "ended": True,
        "deploy_status": ended,
        "message": (
            f"Signal ignored: it is for an earlier run of the {action} action of deployment "
            f"{row.name}, which ended {ended}; the deployment has moved on to a new "
            f"{row.action} ({row.status})."
        ),
    }


def apply_signal(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    row: DeploymentRow,
    action: str,
    details: dict[str, Any],
) -> dict[str, Any]:
    """Apply a signal for `action` to a deployment row of `stack` this transaction locked."""
    verdict = interpret_signal(details, config_of(row).outputs)
    answer = {"deployment": row.id, "stack_id": stack.id, "resource": row.resource_name}
    ignored = _ignored(row, action, verdict)
    if ignored is not None:
        ended = row.status != DeployStatus.IN_PROGRESS or action != row.action
        return {
            **answer,
            "duplicate": True,
            "ended": ended,
            "deploy_status": row.status,
            "message": ignored,
        }
    definition = stack_definition(env, tx, stack)

    def shown(text: str) -> str:
        return definition.reason(row.resource_name, text) if definition is not None else text

    started = verdict.status == DeployStatus.IN_PROGRESS
    if started:
        text = "the server has started the deployment"
        text = f"{text}: {verdict.reason}" if verdict.reason else text
    elif verdict.status == DeployStatus.COMPLETE:
        text = f"the server has completed the deployment's {row.action}"
    else:
        text = f"the server reports the deployment's {row.action} failed: {verdict.reason}"
    outcome = None if started else (verdict.status.value, verdict.reason, verdict.outputs)
    tx.deployments.record_signal(row.id, now=datetime.now(UTC), started=started, ended=outcome)
    message = shown(text)
    tx.events.add(
        [
            EventRecord(
                stack.id,
                Action.SIGNAL,
                verdict.status.value,
                message,
                resource_name=row.resource_name,
                physical_id=row.id,
            )
        ],
    )
    return {
        **answer,
        "duplicate": False,
        "ended": not started,
        "deploy_status": verdict.status.value,
        "message": message,
    }


def _ignored(row: DeploymentRow, action: str, verdict: SignalVerdict) -> str | None:
    """Why this signal changes nothing, or None if it applies."""
    if action != row.action:
        return (
            f"Signal ignored: it is for the {action} action of deployment {row.name}, whose "
            f"current action is {row.action} ({row.status})."
        )
    if row.status != DeployStatus.IN_PROGRESS:
        return (
            f"Signal ignored: the {row.action} action of deployment {row.name} already ended "
            f"{row.status}."
        )
    if verdict.status == DeployStatus.IN_PROGRESS and row.started_at is not None:
        return (
            f"Signal ignored: the server's start of the {row.action} action of deployment "
            f"{row.name} was already recorded."
        )
    return None


def check_action(action: object) -> str:
    """The action a server's signal names, or PayloadError."""
    names = [a.value for a in DeployAction]
    if action not in names:
        raise PayloadError(
            [Problem("action", f"must be one of {', '.join(names)}, got {action!r}")]
        )
    return str(action)
