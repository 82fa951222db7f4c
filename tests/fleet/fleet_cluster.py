"""The fleet of the fleet tests: its hosts' Celery processes and what a scenario reads and
asserts (tests/fleet/conftest.py builds it; docs/development/testing.md says what each
scenario proves)."""

from __future__ import annotations

import base64
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis
from celery import Celery
from netns import Fleet, Host
from sqlalchemy import select

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.models import Event, Resource, SandboxObject, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.testing import PrivatePostgres, PrivateRabbitMQ, PrivateRedis

LOCK_TTL = 5.0
VISIBILITY_TIMEOUT = 12.0
# The AMQP heartbeat the workers ask RabbitMQ for (CONV_TASKS_BROKER_HEARTBEAT): RabbitMQ
# closes the connection of a worker it has heard nothing from for about two of these, and
# hands the messages it held to the others, well within a partition's cut.
HEARTBEAT = 4
HOSTS = ("h1", "h2", "h3")


def polling_template(width: int, wait: float, value: str = "v") -> dict[str, Any]:
    """`width` TestResources whose create and update each take `wait` s (polled, never
    blocking a worker), and `last`, which depends on them all."""
    resources: dict[str, Any] = {
        f"r{i}": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": f"{value}{i}",
                "action_wait_secs": {"create": wait, "update": wait},
            },
        }
        for i in range(width)
    }
    resources["last"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": value},
        "depends_on": sorted(resources),
    }
    return {"heat_template_version": "2018-08-31", "resources": resources}


def resource_names(width: int) -> set[str]:
    return {*(f"r{i}" for i in range(width)), "last"}


class HostProcesses(CeleryProcesses):
    """Celery processes that run inside one host's namespace, `clock` (a faketime offset
    such as "+30s") ahead when given."""

    def __init__(
        self, host: Host, log_dir: Path, *, env: Mapping[str, str], suffix: str, clock: str = ""
    ) -> None:
        skew = {"FAKETIME_DONT_FAKE_MONOTONIC": "1"} if clock else {}
        super().__init__(log_dir, env={**env, **skew}, suffix=suffix)
        self.host = host
        self.clock = clock

    def command(self, args: list[str]) -> list[str]:
        inner = super().command(args)
        if self.clock:
            inner = ["faketime", "-f", self.clock, *inner]
        return self.host.command(inner)


@dataclass
class FleetCluster:
    fleet: Fleet
    hosts: dict[str, Host]
    workers: dict[str, HostProcesses]
    app: Celery
    client: Client
    database_url: str
    broker: PrivateRedis | PrivateRabbitMQ
    syncpoints: PrivateRedis
    postgres: PrivatePostgres
    log_dir: Path
    suffix: str
    broker_kind: str = "redis"
    # How often the watchdog resumed a stack after kombu lost a message (wait_done).
    resumed: dict[str, int] = field(default_factory=dict)

    def python(self, host: str, *args: str, env: Mapping[str, str] | None = None) -> str:
        """Run `python ARGS` on `host`, on its clock, with its workers' environment (and
        `env` over it); its output."""
        procs = self.workers[host]
        command = [sys.executable, *args]
        if procs.clock:
            command = ["faketime", "-f", procs.clock, *command]
        done = subprocess.run(
            procs.host.command(command),
            env={**procs.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def node(self, host: str) -> str:
        """The Celery node name of the worker on `host`, as a ping answers it."""
        return self.workers[host].hostname(host)

    def answers_ping(self, host: str, timeout: float = 60.0) -> bool:
        """Whether the worker of `host` answers a ping within `timeout` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            replies = self.app.control.ping(timeout=1.0) or []
            if any(next(iter(r)).split("@")[0] == self.node(host) for r in replies):
                return True
            time.sleep(0.5)
        return False

    def scheduled_polls(self, host: str) -> dict[str, str]:
        """The node polls the worker of `host` holds until their countdown: their task ids,
        with their resources (Celery shows the payload as a shortened repr, the resource's
        name first)."""
        destination = [f"{self.node(host)}@{socket.gethostname()}"]
        answer = self.app.control.inspect(destination, timeout=1.0).scheduled() or {}
        found = {}
        for entries in answer.values():
            for entry in entries:
                request = entry.get("request", {})
                shown = str(request.get("kwargs") or "")
                name = re.search(r"'resource': '([^']+)'", shown)
                if name and "'poll': " in shown:
                    found[request["id"]] = name.group(1)
        return found

    def outcomes(self, host: str) -> dict[str, str]:
        """What each node task the worker of `host` ran did, by task id (its log at DEBUG:
        a pool process logs the node's outcome, then the task's end)."""
        last: dict[str, str] = {}
        found: dict[str, str] = {}
        log = (self.log_dir / host / f"{host}.log").read_text(encoding="utf-8", errors="replace")
        for line in log.splitlines():
            process = re.search(r"/(ForkPoolWorker-\d+)\]", line)
            if process is None:
                continue
            outcome = re.search(r"node \S+ of traversal \S+: (\S+)$", line)
            if outcome:
                last[process.group(1)] = outcome.group(1)
            ended = re.search(
                r"Task conv_tasks\.node\.converge\[([0-9a-f-]+)\] (succeeded|raised)", line
            )
            if ended and process.group(1) in last:
                found[ended.group(1)] = last.pop(process.group(1))
        return found

    def nodes_run(self, host: str) -> int:
        """How many node tasks the worker of `host` has run since it started."""
        destination = [f"{self.node(host)}@{socket.gethostname()}"]
        answer = self.app.control.inspect(destination, timeout=2.0).stats() or {}
        return sum(
            stats.get("total", {}).get("conv_tasks.node.converge", 0) for stats in answer.values()
        )

    def heartbeat_connections(self, host: str) -> int:
        """How many connections RabbitMQ holds from `host` that send heartbeats (a worker's
        consuming ones: CONV_TASKS_BROKER_HEARTBEAT)."""
        assert isinstance(self.broker, PrivateRabbitMQ)
        listed = self.broker.ctl("list_connections", "peer_host", "timeout", "--silent")
        rows = [line.split("\t") for line in listed.splitlines() if "\t" in line]
        address = self.hosts[host].address
        return sum(1 for peer, timeout in rows if peer == address and float(timeout) > 0)

    def polling(self, host: str) -> set[str]:
        """The resources whose last node delivery on `host` left their action under way, to be
        polled (the worker of `host` logs at DEBUG)."""
        last: dict[str, str] = {}
        log = (self.log_dir / host / f"{host}.log").read_text(encoding="utf-8", errors="replace")
        for found in re.finditer(r"node update:(\S+) of traversal \S+: (\S+)$", log, re.M):
            last[found.group(1)] = found.group(2)
        return {name for name, outcome in last.items() if outcome == "polling"}

    def wait_for_polls(self, host: str, timeout: float = 30.0) -> dict[str, str]:
        """The polls `host` holds (task id: resource), once it holds some. On RabbitMQ (quorum
        queues) a poll waits out its countdown in the broker, not in a worker: there, once
        `host` has left some actions under way, the polls it holds right then (usually none;
        the worker of `host` must log at DEBUG)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            held = self.scheduled_polls(host)
            if held or (self.broker_kind == "rabbitmq" and self.polling(host)):
                return held
            time.sleep(0.3)
        raise AssertionError(f"{host} never held a poll ({self.log_dir})")

    def status(self, stack_id: str) -> tuple[str, str]:
        with session_scope(self.database_url) as session:
            row = session.get(Stack, stack_id)
            assert row is not None
            return row.action, row.status

    def wait_done(
        self, stack_id: str, timeout: float, *, lost_message: bool = False
    ) -> tuple[str, str]:
        """The stack's action and status once it is no longer IN_PROGRESS; fails if it still
        is after `timeout` s (a stack IN_PROGRESS forever).

        `lost_message`: a scenario that cuts a host off a Redis broker may lose a message in
        kombu's BRPOP (docs/development/testing.md, "A message can vanish into the cut").
        If the stack is still in progress after `timeout`, the loss is checked (no live
        lease on any unfinished resource, and no message in the broker naming one), the
        watchdog runs once as a beat would, and the wait starts over; `resumed` counts it.
        """
        found = self.wait_settled(stack_id, timeout)
        if found[1] == "IN_PROGRESS" and lost_message and self.broker_kind == "redis":
            stalled = self.unfinished(stack_id)
            assert stalled and not any(live for _, _, live in stalled.values()), stalled
            assert not self.broker_messages_naming(set(stalled)), stalled
            report = self.run_watchdog("h2", stall_after=VISIBILITY_TIMEOUT + 25)
            print(f"fleet: a message lost in BRPOP's reply; watchdog {report}: {stalled}")
            assert report["restarted"] == [stack_id], (report, stalled)
            self.resumed[stack_id] = self.resumed.get(stack_id, 0) + 1
            found = self.wait_settled(stack_id, timeout)
        assert found[1] != "IN_PROGRESS", f"stack {stack_id} still {found} ({self.log_dir})"
        return found

    def wait_settled(self, stack_id: str, timeout: float) -> tuple[str, str]:
        """The stack's action and status once it is no longer IN_PROGRESS, or as it is after
        `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.status(stack_id)
            if found[1] != "IN_PROGRESS" or time.monotonic() >= deadline:
                return found
            time.sleep(0.3)

    def run_watchdog(self, host: str, stall_after: float) -> dict[str, Any]:
        """One run of the watchdog on `host` (as a beat's job runs it), judging a traversal
        stalled after `stall_after` s without progress."""
        out = self.python(
            host,
            "-c",
            "import json; from conv_tasks.tasks.beat import unfenced_watchdog; "
            "print(json.dumps(unfenced_watchdog()))",
            env={"CONV_TASKS_STALL_AFTER": str(stall_after)},
        )
        found: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return found

    def unfinished(self, stack_id: str) -> dict[str, tuple[str, str, bool]]:
        """The resources not COMPLETE: their action, status and whether a lease on them is
        still live."""
        now = datetime.now(UTC)
        return {
            r.name: (r.action, r.status, bool(r.lock_expires_at and r.lock_expires_at > now))
            for r in self.resources(stack_id)
            if r.status != "COMPLETE"
        }

    def broker_messages_naming(self, names: set[str]) -> set[str]:
        """Which of the resources `names` a message in the Redis broker names (waiting in a
        queue, or handed to a worker and not yet acknowledged)."""
        assert isinstance(self.broker, PrivateRedis)
        client = redis.Redis.from_url(self.broker.url(0))
        try:
            raw: list[bytes | str] = list(client.hvals("unacked"))
            for key in client.scan_iter(count=1000):
                if client.type(key) == b"list":
                    raw.extend(client.lrange(key, 0, -1))
        finally:
            client.close()
        found: set[str] = set()
        for item in raw:
            message = json.loads(item)
            # The unacknowledged hash keeps [message, exchange, routing key].
            envelope = message[0] if isinstance(message, list) else message
            body = base64.b64decode(envelope.get("body", "")).decode("utf-8", "replace")
            found |= {n for n in names if f'"resource": "{n}"' in body}
        return found

    def events(self, stack_id: str) -> list[tuple[str | None, str, str, str]]:
        with session_scope(self.database_url) as session:
            rows = session.scalars(
                select(Event).where(Event.stack_id == stack_id).order_by(Event.id)
            )
            return [(e.resource_name, e.action, e.status, e.reason or "") for e in rows]

    def resources(self, stack_id: str) -> list[Resource]:
        with session_scope(self.database_url) as session:
            rows = list(session.scalars(select(Resource).where(Resource.stack_id == stack_id)))
            session.expunge_all()
            return rows

    def objects(self, stack_id: str) -> list[SandboxObject]:
        """The sandbox objects (the real objects of OS::Heat::TestResource) of the stack."""
        with session_scope(self.database_url) as session:
            rows = list(
                session.scalars(
                    select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%"))
                )
            )
            session.expunge_all()
            return rows

    def assert_converged(self, stack_id: str, width: int, value: str) -> None:
        """Each resource of polling_template(width, _, value) has one head version, COMPLETE,
        holding no lease, whose physical id is the one live sandbox object made for it,
        holding the template's value; no other object was ever made, and the watchdog
        resumed the stack only where wait_done ran it after a lost message."""
        heads = {r.name: r for r in self.resources(stack_id) if r.replaced_by is None}
        assert set(heads) == resource_names(width), sorted(heads)
        by_id = {o.id: o for o in self.objects(stack_id)}
        for name, head in heads.items():
            wanted = value if name == "last" else f"{value}{name[1:]}"
            found = by_id.get(head.physical_id or "")
            assert found is not None and found.properties["value"] == wanted, (name, found)
        for head in heads.values():
            assert head.status == "COMPLETE", (head.name, head.action, head.status)
            assert head.lock_nonce is None, (head.name, "still leased")
        live = [o for o in self.objects(stack_id) if not o.deleted]
        assert sorted(o.id for o in live) == sorted(h.physical_id for h in heads.values()), (
            "live objects are not exactly the heads' physical resources"
        )
        # One object per resource was ever made: a create called again (a late call from a
        # delivery whose lease ran out while it was cut off or stalled, or a takeover
        # resuming it) carries the same idempotency token and finds the same object.
        made = self.objects(stack_id)
        assert len(made) == len(heads), ("more objects than resources", made)
        for again in (o for o in made if o.create_calls > 1):
            print(f"fleet: object {again.token} was asked for {again.create_calls} times")
        watchdog = [e for e in self.events(stack_id) if "watchdog" in e[3]]
        assert len(watchdog) == self.resumed.get(stack_id, 0), watchdog

    def assert_all_answer(self) -> None:
        """Every worker host still answers a ping (none was left stuck)."""
        silent = [h for h in self.workers if not self.answers_ping(h)]
        assert silent == [], f"workers that no longer answer a ping: {silent} ({self.log_dir})"
