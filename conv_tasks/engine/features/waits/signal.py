"""Signals to wait condition handles: from hosts with the handle's token, and from the tenant.

A host's signal (conv_tasks.wait_condition.signal) names the handle and
carries its token, checked against the stored hash; the tenant's
(conv_tasks.resource.signal to a handle resource) is authenticated by its
tenant instead. Either way the signal is recorded on the handle (Heat's
rules: conv_tasks.waitconditions.signals) with a SIGNAL event, and the wait
condition's next poll sees it. A refused signal changes nothing. Neither
the token nor the signal's data ever reaches an event or a log line.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import EventRecord, HandleRow, StackRow, Transaction, signals_of
from conv_tasks.deployments import matches
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.read import stack_definition
from conv_tasks.errors import NotAuthorized, NotFound
from conv_tasks.statuses import Action, Status
from conv_tasks.waitconditions import parse_signal, record

REFUSED = "Signal refused: the wait condition handle is unknown or the token does not match it."


def signal_handle(
    env: EngineEnv, handle_id: str, token: str, details: dict[str, Any]
) -> dict[str, Any]:
    """A host's signal: checked against the handle's token."""
    with env.db.transaction() as tx:
        row = tx.handles.lock(handle_id)
        if row is None or not matches(token, row.credential_hash):
            raise NotAuthorized(REFUSED)
        stack = tx.stacks.get_any(row.stack_id)
        if stack is None or stack.deleted:
            raise NotFound(
                f"Signal refused: the stack of wait condition handle {row.resource_name} "
                "was deleted."
            )
        if row.deleted_at is not None:
            raise NotFound(
                f"Signal refused: wait condition handle {row.resource_name} of stack "
                f"{stack.name!r} was deleted (an update replaced or removed it); signal the "
                "handle the stack has now, with its token."
            )
        return apply_handle_signal(env, tx, stack, row, details)


def apply_handle_signal(
    env: EngineEnv, tx: Transaction, stack: StackRow, row: HandleRow, details: dict[str, Any]
) -> dict[str, Any]:
    """Record a signal on a handle row of `stack` this transaction locked, with its event."""
    held = signals_of(row)
    signal = parse_signal(details, held)
    replaced = any(s.id == signal.id for s in held)
    signals = record(held, signal)
    tx.handles.save_signals(row.id, signals)
    definition = stack_definition(env, tx, stack)
    text = f"Signal: status:{signal.status} reason:{signal.reason}"
    if definition is not None:
        text = definition.reason(row.resource_name, text)
    tx.events.add(
        [
            EventRecord(
                stack.id,
                Action.SIGNAL,
                Status.COMPLETE,
                text,
                resource_name=row.resource_name,
                physical_id=row.id,
            )
        ],
    )
    return {
        "stack_id": stack.id,
        "resource": row.resource_name,
        "handle": row.id,
        "id": signal.id,
        "status": signal.status.value,
        "replaced": replaced,
        "signals": len(signals),
        "message": text,
    }
