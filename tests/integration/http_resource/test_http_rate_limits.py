"""A connection's rate limits hold ConvTasks::HTTP::Resource's requests across every worker:
json-server (its middleware) counts the requests it serves at once, and never times them."""

from __future__ import annotations

import pytest
from http_support import (
    BROKER_NOTE,
    IN_FLIGHT,
    HttpCluster,
    http_resource,
    stack_of,
)

pytestmark = pytest.mark.broker("redis", reason=BROKER_NOTE)

COUNT = 8
# Each request is held this long by the server, so that requests sent at once overlap there.
DELAY_MS = 400


def _most_at_once(cluster: HttpCluster, connection: str, collection: str) -> int:
    """Create a stack of COUNT resources through `connection`; the most requests the server
    served at once meanwhile."""
    cluster.server.reset()
    cluster.server.control(delay_ms=DELAY_MS)
    client = cluster.client()
    resources = {
        f"r{i}": http_resource(collection, {"name": f"{collection}-{i}"}, connection=connection)
        for i in range(COUNT)
    }
    stack_id = client.create(collection, stack_of(resources))["stack_id"]
    final = client.wait(stack_id, timeout=120, interval=0.3)
    assert final["status"] == "CREATE_COMPLETE", final
    made = sorted(o["name"] for o in cluster.server.objects(collection))
    assert made == sorted(f"{collection}-{i}" for i in range(COUNT))
    return int(cluster.server.seen()["max_in_flight"])


def test_in_flight_caps_the_requests_the_server_sees_at_once(cluster: HttpCluster) -> None:
    # The same stack without a limit shows that the workers do send more at once.
    assert _most_at_once(cluster, "rest", "unlimited") > IN_FLIGHT
    assert _most_at_once(cluster, "rest-limited", "limited") <= IN_FLIGHT


def test_a_stack_paced_by_per_second_completes(cluster: HttpCluster) -> None:
    client = cluster.client()
    resources = {
        f"p{i}": http_resource("paced", {"name": f"paced-{i}"}, connection="rest-paced")
        for i in range(COUNT)
    }
    stack_id = client.create("paced", stack_of(resources))["stack_id"]
    assert client.wait(stack_id, timeout=120, interval=0.3)["status"] == "CREATE_COMPLETE"
    assert len(cluster.server.objects("paced")) == COUNT
    posts = [r for r in cluster.server.seen()["requests"] if r["method"] == "POST"]
    assert len(posts) == COUNT
