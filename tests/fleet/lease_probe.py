"""Run inside a fleet host (`python lease_probe.py URL STACK TRAVERSAL TEMPLATE NAME`): try to
take the lease on a resource, as a node delivery does, and print one JSON line: whether the
lease was taken, and this host's clock (time.time()), so that a test sees both what the host
believes the time is and what PostgreSQL decided."""

from __future__ import annotations

import json
import sys
import time
import uuid

from conv_tasks.db.nodes import NodeStore
from conv_tasks.db.session import node_connection


def main(url: str, stack_id: str, traversal: str, template_id: str, name: str) -> None:
    with node_connection(url) as conn:
        store = NodeStore(
            conn,
            stack_id=stack_id,
            traversal=traversal,
            template_id=int(template_id),
            nonce=str(uuid.uuid4()),
        )
        claim = store.claim(name, cleanup=False, in_template=True, ttl=5.0, waiter="probe")
    held = any(v.held for v in claim.versions)
    print(json.dumps({"held": held, "clock": time.time()}))


if __name__ == "__main__":
    main(*sys.argv[1:])
