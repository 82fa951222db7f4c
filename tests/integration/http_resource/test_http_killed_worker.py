"""A worker killed in the middle of a ConvTasks::HTTP::Resource create leaves exactly one
object on the server (DESIGN invariant 1, with a REST server that ignores Idempotency-Key),
and none once the stack is deleted instead of resumed (issue 31).

json-server stores the POST at once but holds its answer; while the worker waits for it,
its whole process group is SIGKILLed, so the create's outcome is never recorded. Another
worker takes the action over when its lease runs out and runs the create again, with the
same token: its POST, with the same chosen id, is refused as a duplicate, and the GET that
follows adopts the object the dead worker made. Deleted instead, the resource has no
physical id (the POST's answer never came back), and its delete removes the object its
create's token chose the id of.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from http_support import BROKER_NOTE, http_cluster, http_resource, stack_of

pytestmark = pytest.mark.broker("redis", reason=BROKER_NOTE)


def test_a_worker_killed_between_the_post_and_its_answer_leaves_one_object(
    database_url: str, tmp_path: Path
) -> None:
    with http_cluster(
        database_url, tmp_path, name="httpkill", workers={"a": 1}, beat=True, lock_ttl=4
    ) as cluster:
        server, processes = cluster.server, cluster.processes
        server.control(hold_posts=1, hold_ms=120_000)
        client = cluster.client()
        template = stack_of({"web": http_resource("killed", {"name": "once"})})
        stack_id = client.create("killed", template)["stack_id"]
        deadline = time.monotonic() + 60
        while not server.objects("killed"):  # stored, its answer held
            assert time.monotonic() < deadline, "the create's POST never reached json-server"
            time.sleep(0.05)
        assert server.seen()["held"] == 1
        processes.kill("a")
        processes.start_worker("b", concurrency=1)
        final = client.wait(stack_id, timeout=120, interval=0.3)
        assert final["status"] == "CREATE_COMPLETE", final
        [made] = server.objects("killed")
        assert made["name"] == "once"
        assert client.resource(stack_id, "web")["physical_id"] == made["id"]
        requests = [r for r in server.seen()["requests"] if r["idempotency_key"]]
        posts = [r for r in requests if r["method"] == "POST"]
        assert len(posts) == 2 and len({r["idempotency_key"] for r in posts}) == 1
        client.delete(stack_id)
        assert client.wait(stack_id, timeout=60, interval=0.3)["status"] == "DELETE_COMPLETE"
        assert server.objects("killed") == []


def test_a_stack_deleted_after_its_worker_died_mid_create_leaves_no_object(
    database_url: str, tmp_path: Path
) -> None:
    with http_cluster(
        database_url, tmp_path, name="httpleft", workers={"a": 1}, beat=True, lock_ttl=4
    ) as cluster:
        server, processes = cluster.server, cluster.processes
        server.control(hold_posts=1, hold_ms=120_000)
        client = cluster.client()
        template = stack_of({"web": http_resource("killed", {"name": "once"})})
        stack_id = client.create("left", template)["stack_id"]
        deadline = time.monotonic() + 60
        while not server.objects("killed"):  # stored, its answer held
            assert time.monotonic() < deadline, "the create's POST never reached json-server"
            time.sleep(0.05)
        [made] = server.objects("killed")
        processes.kill("a")
        processes.start_worker("b", concurrency=1)
        # Recorded as begun before the POST, with no id: the answer never came back.
        [resource] = client.resources(stack_id)
        assert (resource["status"], resource["physical_id"]) == ("CREATE_IN_PROGRESS", None)
        client.delete(stack_id)
        final = client.wait(stack_id, timeout=120, interval=0.3)
        assert final["status"] == "DELETE_COMPLETE", final
        assert server.objects("killed") == []
        deletes = [r for r in server.seen()["requests"] if r["method"] == "DELETE"]
        assert [r["idempotency_key"].rsplit(":", 1)[1] for r in deletes] == ["DELETE"]
        assert [r["path"].rsplit("/", 1)[1] for r in deletes] == [str(made["id"])]
