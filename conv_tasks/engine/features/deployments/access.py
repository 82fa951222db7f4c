"""How servers get their deployments: credentials for the owner to hand out, metadata for agents.

The stack's owner asks for a server's credential (conv_tasks keeps only its
hash, so it is shown once) and gives it to the agent on that server. The
agent reads, with it, the deployments whose action waits for that server,
each with the signal credential its signals must carry.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import published_action
from conv_tasks.deployments import (
    credential_hash,
    matches,
    metadata_entry,
    new_credential,
    signal_credential,
)
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.errors import Conflict, NotAuthorized, PayloadError, Problem
from conv_tasks.limits import MAX_NAME_CHARS

METADATA_REFUSED = "Metadata refused: no credential issued for this server matches."


def check_server(server: str) -> str:
    if len(server) > MAX_NAME_CHARS:
        raise PayloadError(
            [Problem("server", f"holds more than MAX_NAME_CHARS ({MAX_NAME_CHARS}) characters")]
        )
    return server


def deployment_metadata(env: EngineEnv, server: str, credential: str) -> dict[str, Any]:
    """The deployments waiting for `server`, in the stacks whose credential for it this is."""
    check_server(server)
    with env.db.transaction() as tx:
        issued = tx.deployments.credential_hashes(server)
        stack_ids = [stack_id for stack_id, digest in issued if matches(credential, digest)]
        if not stack_ids:
            raise NotAuthorized(METADATA_REFUSED)
        entries: list[dict[str, Any]] = []
        hashes: dict[str, str] = {}
        for row in tx.deployments.pending_for_server(server, stack_ids):
            secret = signal_credential(credential, row.id, row.action_token)
            hashes[row.id] = credential_hash(secret)
            entries.append(metadata_entry(published_action(row), secret))
        tx.deployments.set_signal_hashes(hashes)
    return {"server": server, "deployments": entries}


def server_credential(
    env: EngineEnv, tenant: str, stack_ref: str, server: str, *, rotate: bool
) -> dict[str, Any]:
    """A new credential for `server` in the tenant's stack. Refused if one was issued before,
    unless `rotate`: then the old one stops working."""
    check_server(server)
    credential = new_credential()
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, stack_ref)
        issued = tx.deployments.issue_credential(
            tenant, stack.id, server, credential_hash(credential), rotate=rotate
        )
        if not issued:
            raise Conflict(
                f"A credential for server {server!r} of stack {stack.name!r} was issued "
                "before, and conv_tasks keeps only its hash, so it cannot be shown again. "
                "Rotate it (rotate=true, `--rotate`) to get a new one; the old one then "
                "stops working."
            )
    return {
        "stack_id": stack.id,
        "server": server,
        "credential": credential,
        "rotated": rotate,
    }
