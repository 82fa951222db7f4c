"""Idempotent creates: a create request that carries a key answers once per tenant and key.

A caller that gave up waiting (no worker was up, the broker was slow) sends
its create again with the same `idempotency_key`. Whichever of the two
requests runs first makes the stack; the other finds the key on the stack row
and answers with that stack, `"replayed": true`, instead of a second stack or
a name conflict. The key lives as long as the stack row (retention purges it
with a deleted stack).
"""

from __future__ import annotations

from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.results import OperationResult
from conv_tasks.errors import Conflict
from conv_tasks.statuses import Action


def replay_create(env: EngineEnv, tenant: str, name: str, key: str) -> OperationResult | None:
    """The answer to a create whose key an earlier create already used, or None if none did."""
    with env.db.transaction() as tx:
        stack = tx.stacks.by_idempotency_key(tenant, key)
        if stack is None:
            return None
        if stack.name != name:
            raise Conflict(
                f"The idempotency key {key!r} already created stack {stack.name!r}; "
                f"use a new key to create {name!r}."
            )
        return OperationResult(
            stack_id=stack.id,
            name=stack.name,
            action=Action.CREATE,
            # Where the stack stands now, not what the first answer said.
            state=stack.state,
            event_id=tx.events.first_id(stack.id),
            traversal=stack.current_traversal,
            warnings=(),
            replayed=True,
        )
