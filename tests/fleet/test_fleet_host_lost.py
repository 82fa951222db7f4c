"""A worker host lost mid-update: every process of h2 is killed at once (SIGKILL), while its
resources' updates are mid-poll. h1 and h3 finish the update: the messages h2 held come back
after the broker's visibility timeout and the leases it held expire; the stack ends
UPDATE_COMPLETE holding the update's values, each object made once, without the watchdog.
The host then comes back and its worker answers a ping again.
"""

from __future__ import annotations

from typing import Any

import pytest
from fleet_cluster import FleetCluster, polling_template

WIDTH = 6


@pytest.mark.parametrize("broker_kind", ["redis", "rabbitmq"])
def test_the_rest_of_the_fleet_finishes_an_update_whose_host_died(
    make_fleet: Any, broker_kind: str
) -> None:
    cluster: FleetCluster = make_fleet(debug=("h2",), broker_kind=broker_kind)
    stack_id = cluster.client.create("lost", polling_template(WIDTH, 1.0))["stack_id"]
    assert cluster.wait_done(stack_id, timeout=60) == ("CREATE", "COMPLETE")
    cluster.client.update(stack_id, polling_template(WIDTH, 15.0, value="w"))
    cluster.wait_for_polls("h2")
    assert cluster.hosts["h2"].kill_all() >= 3  # the worker and its two pool processes
    assert cluster.wait_done(stack_id, timeout=120) == ("UPDATE", "COMPLETE")
    cluster.assert_converged(stack_id, WIDTH, "w")
    cluster.workers["h2"].start_worker("h2", concurrency=2)
    cluster.assert_all_answer()
