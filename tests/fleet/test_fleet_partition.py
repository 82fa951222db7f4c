"""A worker host cut off from the network mid-create, and hosts that lose only their broker or
only their database.

The partition: host h1 holds leases, with its resources' actions mid-poll (their polls wait
in h1's worker until their countdown), when every packet of its link starts being dropped. It
stays cut past the lease's lifetime and the broker's visibility timeout, so that h2 and h3
take its resources over (Redis hands them the copies of h1's unacknowledged polls). It is
healed while they still poll those actions, and h1 runs the polls it held: their claims
and writes are refused (fenced by the lease nonce in PostgreSQL, each delivery holding the
lease under a nonce of its own). The stack ends CREATE_COMPLETE with one sandbox object per
resource, each created once, and h1 answers a ping. On RabbitMQ it does so without the
watchdog (no beat runs). On Redis too, unless kombu's transport lost a message handed to h1 as
the cut began (FleetCluster.wait_done): then the watchdog must find the traversal stalled,
and resume it.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from fleet_cluster import (
    LOCK_TTL,
    VISIBILITY_TIMEOUT,
    FleetCluster,
    polling_template,
)

WIDTH = 6
# Long enough that h2 and h3 still poll h1's actions when h1 comes back (the cut lasts past
# the lease and the visibility timeout, plus kombu's 10 s cycle of restoring messages).
CREATE_SECS = 75.0
CUT_SECS = LOCK_TTL + VISIBILITY_TIMEOUT + 12.0
# What a delivery that does not hold the lease does (conv_tasks.engine.node.Outcome): waits
# for the holder, tries again later, or finds the wait over.
REFUSED = {"waiting", "retry", "woken-already"}
# Each scenario runs on a Redis broker and on a RabbitMQ one (quorum queues).
BROKERS = pytest.mark.parametrize("broker_kind", ["redis", "rabbitmq"])


def _snapshot(cluster: FleetCluster, stack_id: str) -> tuple[Any, ...]:
    rows = sorted((r.id, r.atomic_key, r.lock_nonce) for r in cluster.resources(stack_id))
    return (cluster.events(stack_id), rows)


@BROKERS
def test_a_partitioned_host_is_taken_over_and_its_late_writes_are_refused(
    make_fleet: Any, broker_kind: str
) -> None:
    cluster: FleetCluster = make_fleet(debug=("h1",), broker_kind=broker_kind)
    stack_id = cluster.client.create("partition", polling_template(WIDTH, CREATE_SECS))["stack_id"]
    polls = cluster.wait_for_polls("h1")
    # On Redis h1 holds its polls until their countdown; on RabbitMQ they wait in the broker,
    # and h1's resources are those whose action it left under way.
    held = set(polls.values()) if broker_kind == "redis" else cluster.polling("h1")
    leases = {r.name: r.lock_nonce for r in cluster.resources(stack_id) if r.name in held}
    assert all(leases.values()), leases  # h1's resources are leased, their actions under way
    if broker_kind == "rabbitmq":
        assert cluster.heartbeat_connections("h1") > 0  # h1 consumes, asking for heartbeats
    cluster.hosts["h1"].cut()
    time.sleep(CUT_SECS)
    if broker_kind == "rabbitmq":
        # RabbitMQ gave up on h1's consuming connection (missed heartbeats), and so handed
        # back whatever h1 held; h1's other connections send no heartbeats and stay.
        assert cluster.heartbeat_connections("h1") == 0
    # The others carry h1's actions on: each is leased again, under another nonce.
    rows = {r.name: r for r in cluster.resources(stack_id)}
    taken = {name: rows[name].lock_nonce for name in held}
    assert all(taken.values()) and not set(taken.values()) & set(leases.values()), (leases, taken)
    assert cluster.status(stack_id) == ("CREATE", "IN_PROGRESS")  # still mid-poll: h1 is late
    cluster.hosts["h1"].heal()
    # h1 comes back with the polls it held and runs them, late: each is refused the lease
    # (it waits for the holder, or finds it ended) and writes nothing.
    late: dict[str, str] = {}
    deadline = time.monotonic() + 60
    while set(late) != set(polls) and time.monotonic() < deadline:
        time.sleep(0.5)
        late = {t: o for t, o in cluster.outcomes("h1").items() if t in polls}
    assert set(late) == set(polls), (polls, late)
    assert set(late.values()) <= REFUSED, late
    # On Redis, the watchdog resumes the stack if kombu lost a message as the cut began.
    action, status = cluster.wait_done(stack_id, timeout=CREATE_SECS + 60, lost_message=True)
    assert (action, status) == ("CREATE", "COMPLETE"), cluster.events(stack_id)
    before = _snapshot(cluster, stack_id)
    time.sleep(LOCK_TTL)
    assert _snapshot(cluster, stack_id) == before  # nothing late was written once it was over
    cluster.assert_converged(stack_id, WIDTH, "v")
    cluster.assert_all_answer()


@BROKERS
def test_hosts_that_lose_only_their_broker_or_only_postgresql_recover(
    make_fleet: Any, broker_kind: str
) -> None:
    """h2 loses the broker's port only (Redis's or RabbitMQ's), h3 PostgreSQL's only, both
    while they have actions under way, for longer than a lease and the visibility timeout.
    Healed, both answer a ping and take work again, and the stack ends correct."""
    cluster: FleetCluster = make_fleet(debug=("h2", "h3"), broker_kind=broker_kind)
    stack_id = cluster.client.create("ports", polling_template(WIDTH, 20.0))["stack_id"]
    cluster.wait_for_polls("h2")
    cluster.hosts["h2"].cut((cluster.broker.port,))
    cluster.wait_for_polls("h3")
    cluster.hosts["h3"].cut((cluster.postgres.port,))
    time.sleep(CUT_SECS)
    cluster.hosts["h2"].heal()
    cluster.hosts["h3"].heal()
    assert cluster.wait_done(stack_id, timeout=90, lost_message=True) == ("CREATE", "COMPLETE")
    cluster.assert_converged(stack_id, WIDTH, "v")
    cluster.assert_all_answer()
    # Both take work again: an update on them alone (h1 stopped).
    cluster.workers["h1"].kill("h1")
    before = {host: cluster.nodes_run(host) for host in ("h2", "h3")}
    cluster.client.update(stack_id, polling_template(WIDTH, 1.0, value="w"))
    assert cluster.wait_done(stack_id, timeout=90) == ("UPDATE", "COMPLETE")
    cluster.assert_converged(stack_id, WIDTH, "w")
    after = {host: cluster.nodes_run(host) for host in ("h2", "h3")}
    assert all(after[host] > before[host] for host in before), (before, after)
