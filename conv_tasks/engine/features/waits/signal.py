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

from sqlalchemy.orm import Session

from conv_tasks.db import events as event_repo
from conv_tasks.db import wait_handles as handle_repo
from conv_tasks.db.models import Stack, WaitConditionHandleRow
from conv_tasks.db.session import session_scope
from conv_tasks.deployments.credentials import matches
from conv_tasks.statuses import Action, Status
from conv_tasks.engine.read.views import stack_definition
from conv_tasks.errors import NotAuthorized, NotFound
from conv_tasks.waitconditions.signals import parse_signal, record

REFUSED = "Signal refused: the wait condition handle is unknown or the token does not match it."


def signal_handle(handle_id: str, token: str, details: dict[str, Any]) -> dict[str, Any]:
    """A host's signal: checked against the handle's token."""
    with session_scope() as session:
        row = handle_repo.lock_handle(session, handle_id)
        if row is None or not matches(token, row.credential_hash):
            raise NotAuthorized(REFUSED)
        stack = session.get(Stack, row.stack_id)
        if stack is None or stack.deleted_at is not None:
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
        return apply_handle_signal(session, stack, row, details)


def apply_handle_signal(
    session: Session, stack: Stack, row: WaitConditionHandleRow, details: dict[str, Any]
) -> dict[str, Any]:
    """Record a signal on a locked handle row of `stack`, with its event."""
    held = handle_repo.signals_of(row)
    signal = parse_signal(details, held)
    replaced = any(s.id == signal.id for s in held)
    signals = record(held, signal)
    handle_repo.save_signals(session, row, signals)
    definition = stack_definition(session, stack)
    text = f"Signal: status:{signal.status} reason:{signal.reason}"
    if definition is not None:
        text = definition.reason(row.resource_name, text)
    event_repo.add_events(
        session,
        [
            event_repo.EventRecord(
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
