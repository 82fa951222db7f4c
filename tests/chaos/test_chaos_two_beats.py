"""Two beats side by side: each job runs once per slot, and the jobs fail over (issue 23).

Two `celery beat` processes and a worker, with a watchdog every second and the template
collection and purge every two. The worker's log says which slot of which job ran, under which
lease epoch; every slot of every job must run exactly once, whichever beat sent it:
- while both beats run;
- when the leading beat hangs (SIGSTOP) past its lease, the other takes over, and the first,
  resumed, stands by: it sends nothing under its lost lease;
- when the leading beat is killed (SIGKILL), the other takes the jobs over within two
  intervals, under a newer epoch.
Then a job sent under the killed beat's epoch (a beat that lost the lease while sending) and
one with a bogus epoch (another service's message) are each refused in one line, and the worker
goes on.

A cluster of its own (database, Redis, broker): the session's beat and workers must not take
these jobs, nor these beats the session's lease.
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from celery import Celery
from private_services import PrivateRedis, celery_app, fresh_database, wait_for_workers

from conv_tasks.beat import BeatKeys, slot_of
from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.db import drop_database

EVERY_MS = {
    "conv_tasks.beat.watchdog": 1000,
    "conv_tasks.beat.collect_templates": 2000,
    "conv_tasks.beat.purge": 2000,
}
WATCHDOG = "conv_tasks.beat.watchdog"
BEATS = ("beat-a", "beat-b")
RUN = re.compile(r"(conv_tasks\.beat\.\w+) runs slot (\d+), due \S+ \(beat lease epoch (\d+)\)")


@dataclass(frozen=True)
class Run:
    task: str
    slot: int
    epoch: int


@dataclass
class Fleet:
    processes: CeleryProcesses
    app: Celery
    redis: redis.Redis
    prefix: str
    logs: Path

    def runs(self) -> list[Run]:
        text = (self.logs / "w1.log").read_text(errors="replace")
        return [Run(m[1], int(m[2]), int(m[3])) for m in RUN.finditer(text)]

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def leader(self) -> str:
        """The beat holding the lease, by the process id in the holder's name."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            holder = self.redis.get(BeatKeys(self.prefix).lease)
            if holder is not None:
                pid = int(holder.decode().split(":")[1])
                [name] = [n for n, p in self.processes.procs.items() if p.pid == pid]
                return name
            time.sleep(0.1)
        raise AssertionError("no beat took the lease")

    def wait_for_runs(self, count: int, *, epoch_above: int = 0, timeout: float = 30) -> Run:
        """Wait until the watchdog has run `count` slots under an epoch above `epoch_above`;
        the first of them."""
        deadline = time.monotonic() + timeout
        while True:
            runs = [r for r in self.runs() if r.task == WATCHDOG and r.epoch > epoch_above]
            if len(runs) >= count:
                return runs[0]
            assert time.monotonic() < deadline, (
                f"{len(runs)} watchdog runs above epoch {epoch_above} in {timeout} s; "
                f"worker log:\n{self.log('w1')[-3000:]}"
            )
            time.sleep(0.2)


@pytest.fixture
def fleet(
    database_url: str, broker_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Fleet]:
    redis_server = PrivateRedis()
    redis_server.start()
    own_database = fresh_database(database_url, "beats")
    if broker_url.startswith("redis"):
        broker = redis_server.url(0)
    else:
        broker = request.getfixturevalue("private_rabbitmq_url")
    prefix = f"beats-{uuid.uuid4().hex[:6]}"
    env = {
        "CONV_TASKS_DATABASE_URL": own_database,
        "CONV_TASKS_BROKER_URL": broker,
        "CONV_TASKS_REDIS_URL": redis_server.url(1),
        "CONV_TASKS_RESULT_BACKEND": redis_server.url(2),
        "CONV_TASKS_REDIS_PREFIX": prefix,
        "CONV_TASKS_WATCHDOG_INTERVAL": str(EVERY_MS[WATCHDOG] / 1000),
        "CONV_TASKS_GC_INTERVAL": str(EVERY_MS["conv_tasks.beat.collect_templates"] / 1000),
        "CONV_TASKS_PURGE_INTERVAL": str(EVERY_MS["conv_tasks.beat.purge"] / 1000),
    }
    logs = tmp_path / "logs"
    processes = CeleryProcesses(logs, env=env, suffix=uuid.uuid4().hex[:6])
    app = celery_app(env)
    try:
        processes.start_worker("w1", concurrency=2)
        for name in BEATS:
            processes.start_beat(name)
        wait_for_workers(app, {processes.hostname("w1")})
        yield Fleet(processes, app, redis_server.client(1), prefix, logs)
    finally:
        processes.stop_all(timeout=10)
        app.pool.force_close_all()
        redis_server.stop()
        drop_database(own_database)


def _first_run_after(runs: list[Run], task: str, epoch: int) -> Run:
    return min((r for r in runs if r.task == task and r.epoch > epoch), key=lambda r: r.slot)


def test_two_beats_run_each_job_once_per_slot_and_fail_over(fleet: Fleet) -> None:
    # Both beats run; one leads.
    first = fleet.leader()
    other = next(name for name in BEATS if name != first)
    opening = fleet.wait_for_runs(4)

    # The leader hangs past its lease: the other takes over; resumed, the first stands by.
    fleet.processes.pause(first)
    taken = fleet.wait_for_runs(3, epoch_above=opening.epoch)
    fleet.processes.resume(first)
    assert fleet.leader() == other
    fleet.wait_for_runs(5, epoch_above=opening.epoch)

    # The leader is killed: the first takes the jobs back, under a newer epoch.
    killed_at = int(time.time() * 1000)
    fleet.processes.kill(other)
    back = fleet.wait_for_runs(3, epoch_above=taken.epoch)
    assert fleet.leader() == first

    # A job sent under the killed beat's lease, and one from another service with a bogus
    # epoch: each refused in one line; the worker goes on.
    future = slot_of(int(time.time() * 1000), 1000) + 3_600_000
    fleet.app.send_task(WATCHDOG, kwargs={"epoch": taken.epoch, "slot": future})
    fleet.app.send_task(WATCHDOG, kwargs={"epoch": "bogus", "slot": future})
    # (Celery's own line for each task's result repeats the refusal, after "{'refused': ".)
    stale_line = f"watchdog refused: sent under beat lease epoch {taken.epoch}, and the lease"
    bogus_line = "watchdog refused: its beat lease epoch must be a whole number from 1, got"
    deadline = time.monotonic() + 20
    while not (stale_line in fleet.log("w1") and bogus_line in fleet.log("w1")):
        assert time.monotonic() < deadline, fleet.log("w1")[-3000:]
        time.sleep(0.2)
    fleet.wait_for_runs(2, epoch_above=back.epoch - 1)
    assert fleet.app.control.ping(timeout=2.0)

    runs = fleet.runs()
    worker_log = fleet.log("w1")
    # Exactly once per slot, whichever beat sent it and however often.
    repeated = {slot: n for slot, n in Counter((r.task, r.slot) for r in runs).items() if n > 1}
    assert not repeated, repeated
    for task in EVERY_MS:
        assert any(r.task == task for r in runs), f"{task} never ran"
    # One beat sends, the other stands by: a slot is sent twice only when the lease changes
    # hands (the new leader repeats the current slot, refused as done), not at every slot.
    repeats = worker_log.count("refused: the slot due")
    assert repeats * 3 < len(runs), (repeats, len(runs))
    # No slot ran for the stale or the bogus message.
    assert not [r for r in runs if r.slot == future]
    assert worker_log.count(stale_line) == 1
    assert worker_log.count(bogus_line) == 1
    # Three leaders in turn, each under a newer epoch.
    assert opening.epoch < taken.epoch < back.epoch
    # After the kill, every job ran again within two of its intervals.
    for task, every in EVERY_MS.items():
        after = _first_run_after(runs, task, taken.epoch)
        assert after.slot <= slot_of(killed_at, every) + 2 * every, (task, after, killed_at)
    # The hung beat, resumed, found the lease taken and stood by (until the kill).
    since_lead = fleet.log(first).split("this beat leads", 1)[1]
    assert "another beat holds the lease; this one stands by" in since_lead
