"""Idempotent creates: a create request that carries a key answers once per tenant and key.

A caller that gave up waiting (no worker was up, the broker was slow) sends
its create again with the same `idempotency_key`. Whichever of the two
requests runs first makes the stack; the other finds the key on the stack row
and answers with that stack, `"replayed": true`, instead of a second stack or
a name conflict. The key lives as long as the stack row (retention purges it
with a deleted stack).
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import events as event_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db.session import session_scope
from conv_tasks.statuses import Action
from conv_tasks.errors import Conflict


def replay_create(tenant: str, name: str, key: str) -> dict[str, Any] | None:
    """The answer to a create whose key an earlier create already used, or None if none did."""
    with session_scope() as session:
        stack = stack_repo.find_by_idempotency_key(session, tenant, key)
        if stack is None:
            return None
        if stack.name != name:
            raise Conflict(
                f"The idempotency key {key!r} already created stack {stack.name!r}; "
                f"use a new key to create {name!r}."
            )
        return {
            "stack_id": stack.id,
            "name": stack.name,
            "action": Action.CREATE,
            # Where the stack stands now, not what the first answer said.
            "status": f"{stack.action}_{stack.status}",
            "traversal": stack.current_traversal,
            "event_id": event_repo.first_event_id(session, stack.id),
            "warnings": [],
            "replayed": True,
        }
