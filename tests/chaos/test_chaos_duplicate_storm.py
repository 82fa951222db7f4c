"""Duplicate node messages: each costs at most its node's out-degree in extra node runs.

Real worker processes take their messages from a private Redis broker that
the test watches with MONITOR, so it sees every node message published and
what it carries. The test publishes copies of the engine's node messages, as
a broker that repeats messages would deliver them, while the traversal runs.
There is no beat, so no watchdog can make up for a lost trigger: the stack
completes only if every trigger survived. Counted are the fresh node
messages (triggers, re-triggers, wake-ups, lease rechecks; not the polls of
an action under way) beyond one trigger per node and the duplicates
themselves.
"""

from __future__ import annotations

import base64
import heapq
import json
import random
import re
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from private_services import PrivateRedis, celery_app, log_text, wait_for_workers
from sqlalchemy import select

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope
from conv_tasks.tasks.runtime import NODE_TASK

# A node message on the broker, as redis-cli MONITOR prints an LPUSH (its quotes escaped).
_TASK = re.compile(r'\\"task\\": \\"([^\\]+)\\"')
_ID = re.compile(r'\\"id\\": \\"([0-9a-f-]+)\\"')
_BODY = re.compile(r'\\"body\\": \\"([A-Za-z0-9+/=]+)\\"')
_RECEIVED = re.compile(rf"Task {re.escape(NODE_TASK)}\[\S+\] received")


@dataclass(frozen=True)
class Published:
    task_id: str
    payload: dict[str, Any]

    @property
    def node(self) -> str:
        return str(self.payload.get("node"))

    @property
    def fresh(self) -> bool:
        """A trigger, a wake-up or a recheck: not a poll of an action under way, not a retry."""
        return not self.payload.get("poll") and not self.payload.get("attempt")


@dataclass
class BrokerWatch:
    """Every node message LPUSHed to the broker, read from MONITOR as it happens."""

    port: int
    seen: list[Published] = field(default_factory=list)
    last_push: float = field(default_factory=time.monotonic)
    _proc: subprocess.Popen[bytes] | None = None
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._proc = subprocess.Popen(
            ["redis-cli", "-p", str(self.port), "monitor"], stdout=subprocess.PIPE
        )
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for raw in self._proc.stdout:
            line = raw.decode("latin-1")
            if '"LPUSH"' not in line.upper():
                continue
            self.last_push = time.monotonic()
            task, task_id, body = _TASK.search(line), _ID.search(line), _BODY.search(line)
            if task is None or task.group(1) != NODE_TASK or task_id is None or body is None:
                continue
            _args, kwargs, _embed = json.loads(base64.b64decode(body.group(1)))
            self.seen.append(Published(task_id.group(1), kwargs))

    def of_stack(self, stack_id: str) -> list[Published]:
        return [p for p in list(self.seen) if p.payload.get("stack_id") == stack_id]

    def quiet(self, for_secs: float, timeout: float = 30.0) -> None:
        """Wait until no message has been pushed for `for_secs`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() - self.last_push < for_secs:
            assert time.monotonic() < deadline, "node messages kept coming"
            time.sleep(0.1)

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=10)
        if self._thread is not None:
            self._thread.join(timeout=10)


@dataclass
class Cluster:
    processes: CeleryProcesses
    app: Celery
    client: Client
    watch: BrokerWatch

    def finished(self, stack_id: str) -> bool:
        status = str(self.client.get(stack_id, include_deleted=True)["status"])
        return status.endswith(("COMPLETE", "FAILED"))

    def wait(self, stack_id: str, timeout: float = 60.0) -> dict[str, Any]:
        return self.client.wait(stack_id, timeout=timeout, interval=0.2)

    def node_deliveries(self) -> int:
        return sum(len(_RECEIVED.findall(t)) for t in log_text(self.processes.log_dir).values())


@pytest.fixture
def cluster(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    broker = PrivateRedis()
    processes: CeleryProcesses | None = None
    watch: BrokerWatch | None = None
    try:
        broker.start()
        env = {
            "CONV_TASKS_DATABASE_URL": database_url,
            "CONV_TASKS_BROKER_URL": broker.url(0),
            "CONV_TASKS_REDIS_URL": broker.url(1),
            "CONV_TASKS_RESULT_BACKEND": broker.url(2),
            "CONV_TASKS_REDIS_PREFIX": f"storm-{uuid.uuid4().hex[:6]}",
            "CONV_TASKS_LOCK_TTL": "4",
            "CONV_TASKS_POLL_INTERVAL": "0.2",
            "CONV_TASKS_VISIBILITY_TIMEOUT": "60",
        }
        # No beat: nothing but the engine's own triggers can finish a traversal.
        processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
        processes.start_worker("w1")
        processes.start_worker("w2")
        app = celery_app(env)
        wait_for_workers(app, {processes.hostname("w1"), processes.hostname("w2")})
        watch = BrokerWatch(broker.port)
        watch.start()
        client = Client(app, tenant=f"storm-{uuid.uuid4().hex[:6]}", timeout=30)
        yield Cluster(processes, app, client, watch)
    finally:
        if watch is not None:
            watch.stop()
        if processes is not None:
            processes.stop_all()
        broker.stop()


def _template(deps: dict[str, list[str]], waits: dict[str, float]) -> dict[str, Any]:
    resources = {
        name: {
            "type": "OS::Heat::TestResource",
            "properties": {"value": name, "wait_secs": waits[name]},
            **({"depends_on": needs} if needs else {}),
        }
        for name, needs in deps.items()
    }
    return {"heat_template_version": "2018-08-31", "resources": resources}


def _out_degrees(deps: dict[str, list[str]]) -> dict[str, int]:
    """Successors of each update node (the clean-up nodes of a create cost no task)."""
    counted = Counter(dep for needs in deps.values() for dep in needs)
    return {f"update:{name}": counted.get(name, 0) for name in deps}


def _assert_each_created_once(stack_id: str, names: list[str]) -> None:
    with session_scope() as session:
        objects = list(
            session.scalars(select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%")))
        )
    creates = [o for o in objects if o.token.endswith(":CREATE")]
    assert len(creates) == len(names), sorted(o.token for o in objects)
    assert not any(o.deleted for o in creates)


def _extra(watch: BrokerWatch, stack_id: str, nodes: int, duplicates: int) -> int:
    """Fresh node messages beyond one trigger per node and the duplicates themselves."""
    return sum(1 for p in watch.of_stack(stack_id) if p.fresh) - nodes - duplicates


# The storm's graph: a root fanning out to LANES lanes of DEPTH layers of WIDTH nodes, each
# needing the whole layer before it, fanning in to one sink; and one SLOW resource beside
# them, which keeps the traversal (and its SyncPoints) open while duplicates come in after
# the nodes below theirs have finished. 51 resources.
LANES, DEPTH, WIDTH = 2, 12, 2
WAIT, SLOW = 0.25, 7.0
COPIES = 2  # duplicates of the first message of each node...
SPREAD = 3.0  # ...each published within this many seconds of it


def _lanes() -> dict[str, list[str]]:
    deps: dict[str, list[str]] = {"root": []}
    for lane in range(LANES):
        for layer in range(DEPTH):
            before = [f"l{lane}_{layer - 1}_{i}" for i in range(WIDTH)] if layer else ["root"]
            deps.update({f"l{lane}_{layer}_{i}": before for i in range(WIDTH)})
    deps["sink"] = [f"l{lane}_{DEPTH - 1}_{i}" for lane in range(LANES) for i in range(WIDTH)]
    deps["slow"] = []
    return deps


def _storm(
    cluster: Cluster, stack_id: str, nodes: set[str], rng: random.Random, timeout: float
) -> list[str]:
    """Publish COPIES duplicates of the first message of each of the stack's `nodes`, each
    within SPREAD seconds of it, until the stack has finished and the watch has seen every
    node's first message (on a busy machine the watch may read the last ones after the
    stack has finished); return the nodes duplicated, once per duplicate."""
    duplicated: set[str] = set()
    due: list[tuple[float, int, Published]] = []
    sent: list[str] = []
    read = 0
    finished = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = cluster.watch.seen
        for published in seen[read:]:
            if published.payload.get("stack_id") != stack_id or published.node in duplicated:
                continue
            duplicated.add(published.node)
            for _ in range(COPIES):
                when = time.monotonic() + rng.uniform(0, SPREAD)
                heapq.heappush(due, (when, rng.randrange(1 << 30), published))
        read = len(seen)
        while due and due[0][0] <= time.monotonic():
            published = heapq.heappop(due)[2]
            cluster.app.send_task(NODE_TASK, kwargs=published.payload)
            sent.append(published.node)
        finished = finished or cluster.finished(stack_id)
        if finished and not due and nodes <= duplicated:
            return sent
        time.sleep(0.05)
    raise AssertionError(f"stack {stack_id} did not finish within {timeout:.0f}s")


def test_a_storm_of_duplicates_costs_at_most_their_out_degree(cluster: Cluster) -> None:
    deps = _lanes()
    degree = _out_degrees(deps)
    waits = {name: SLOW if name == "slow" else WAIT for name in deps}
    started = time.monotonic()
    stack_id = cluster.client.create("storm", _template(deps, waits))["stack_id"]
    sent = _storm(cluster, stack_id, set(degree), random.Random(8), timeout=60)
    took = time.monotonic() - started
    cluster.watch.quiet(2.5)  # the last duplicates' runs publish what they publish

    final = cluster.client.get(stack_id, include_deleted=True)
    extra = _extra(cluster.watch, stack_id, len(deps), len(sent))
    # What the issue asks (duplicates x the largest out-degree), and what each duplicate may
    # cost by itself (its own node's out-degree), summed over the storm.
    loose = len(sent) * max(degree.values())
    bound = sum(degree[node] for node in sent)
    print(
        f"\nstorm: {len(deps)} nodes, largest out-degree {max(degree.values())}; "
        f"{len(sent)} duplicates; {extra} extra node messages; bound {bound} "
        f"(duplicates x largest out-degree: {loose}); {cluster.node_deliveries()} node "
        f"deliveries in all; stack {final['status']} after {took:.1f}s"
    )
    assert final["status"] == "CREATE_COMPLETE", final
    _assert_each_created_once(stack_id, list(deps))
    assert len(sent) == COPIES * len(deps)
    assert extra <= bound <= loose, f"{extra} extra node messages for {len(sent)} duplicates"


def test_a_duplicate_costs_nothing_downstream_while_its_successors_are_under_way(
    cluster: Cluster,
) -> None:
    fan = 6
    deps = {"root": [], **{f"s{i}": ["root"] for i in range(fan)}}
    waits = {"root": 0.0, **{f"s{i}": 3.0 for i in range(fan)}}
    stack_id = cluster.client.create("fan", _template(deps, waits))["stack_id"]
    # Once every successor of the root polls its action, deliver the root's message again.
    deadline = time.monotonic() + 20
    while True:
        published = cluster.watch.of_stack(stack_id)
        polling = {p.node for p in published if p.payload.get("poll")}
        if polling >= {f"update:s{i}" for i in range(fan)}:
            break
        assert time.monotonic() < deadline, f"successors did not start: {sorted(polling)}"
        time.sleep(0.05)
    [root] = [p for p in published if p.node == "update:root" and p.fresh]
    cluster.app.send_task(NODE_TASK, kwargs=root.payload)

    final = cluster.wait(stack_id, timeout=30)
    cluster.watch.quiet(1.0)
    extra = _extra(cluster.watch, stack_id, len(deps), 1)
    print(f"\none duplicate of a root with {fan} successors under way: {extra} extra messages")
    assert final["status"] == "CREATE_COMPLETE", final
    _assert_each_created_once(stack_id, list(deps))
    assert extra == 0, [p.payload for p in cluster.watch.of_stack(stack_id) if p.fresh]
