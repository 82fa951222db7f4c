"""A worker host whose clock runs 30 s ahead (libfaketime, FAKETIME="+30s" on its workers).

Lease expiry is decided by PostgreSQL's now(), in the claim statement: no worker's clock
enters it. The fast host is refused a lease another host took a moment ago, as the others
are, and gets it once the lease has run out by the database's clock. A stack created and
updated on the three hosts, polls hopping between them, ends correct with each object made
once.

What the fast clock does change (docs/development/testing.md): Celery turns a countdown into
an ETA with the sender's clock, so a poll the fast host sends waits 30 s more on another
host; and kombu's Redis transport judges the visibility timeout of the messages other
workers hold with the fast host's clock, so it hands them out again early (duplicate
deliveries, which the lease fences).
"""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fleet_cluster import HOSTS, FleetCluster, polling_template

from conv_tasks.db.models import Resource, Stack
from conv_tasks.db.nodes import NodeStore
from conv_tasks.db.session import node_connection, session_scope
from conv_tasks.db.templates import Templates

SKEW = "+30s"
WIDTH = 6
PROBE = str(Path(__file__).with_name("lease_probe.py"))
HELD_FOR = 15.0  # the probed lease: long enough for both probes to start Python and ask


def _leased_resource(url: str) -> list[str]:
    """A stack with one resource, leased a moment ago for HELD_FOR s by a node of this
    process (the machine's clock): the probe's arguments."""
    stack_id, traversal = str(uuid.uuid4()), str(uuid.uuid4())
    with session_scope(url) as session:
        template = Templates(session).add({"heat_template_version": "2018-08-31"}, {})
        session.add(
            Stack(
                id=stack_id, name="leased", tenant="t", action="CREATE", status="IN_PROGRESS",
                raw_template_id=template.id, current_traversal=traversal,
            )
        )  # fmt: skip
        session.flush()
        session.add(Resource(stack_id=stack_id, name="r", version=0, type="OS::Heat::None"))
        template_id = template.id
    with node_connection(url) as conn:
        holder = NodeStore(
            conn, stack_id=stack_id, traversal=traversal, template_id=template_id,
            nonce=str(uuid.uuid4()),
        )  # fmt: skip
        claim = holder.claim("r", cleanup=False, in_template=True, ttl=HELD_FOR, waiter="x")
        assert claim.versions[0].held
    return [url, stack_id, traversal, str(template_id), "r"]


def test_a_host_ahead_by_30s_never_takes_a_live_lease(make_fleet: Any) -> None:
    cluster: FleetCluster = make_fleet(clocks={"h1": SKEW})
    probe = _leased_resource(cluster.database_url)
    leased_at = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        asked = pool.map(lambda host: json.loads(cluster.python(host, PROBE, *probe)), HOSTS[:2])
        fast, on_time = asked
    assert time.monotonic() - leased_at < HELD_FOR  # both asked while the lease lived
    # The fast host believes it is 30 s later: by its clock the lease ran out 15 s ago.
    assert fast["clock"] - on_time["clock"] > HELD_FOR, (fast, on_time)
    assert not fast["held"] and not on_time["held"]
    time.sleep(max(0.0, leased_at + HELD_FOR + 1 - time.monotonic()))  # by PostgreSQL's clock
    assert json.loads(cluster.python("h1", PROBE, *probe))["held"]


def test_a_stack_on_a_fleet_with_a_fast_host_ends_correct(make_fleet: Any) -> None:
    cluster: FleetCluster = make_fleet(clocks={"h1": SKEW})
    stack_id = cluster.client.create("skew", polling_template(WIDTH, 8.0))["stack_id"]
    assert cluster.wait_done(stack_id, timeout=150) == ("CREATE", "COMPLETE")
    cluster.assert_converged(stack_id, WIDTH, "v")
    cluster.client.update(stack_id, polling_template(WIDTH, 8.0, value="w"))
    assert cluster.wait_done(stack_id, timeout=150) == ("UPDATE", "COMPLETE")
    cluster.assert_converged(stack_id, WIDTH, "w")
    cluster.assert_all_answer()
