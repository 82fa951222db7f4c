"""PostgreSQL fails over mid-create: the primary is lost, its standby promoted (issue 30).

Two private clusters on loopback ports, a primary and a streaming standby made with
`pg_basebackup -R`; two real workers and a beat reach them through a multi-host
CONV_TASKS_DATABASE_URL with `target_session_attrs=read-write`, so that every connection
finds whichever one takes writes. A private Redis holds the broker and the SyncPoints, and
stays up throughout: Redis remembers what PostgreSQL may have lost.

- Asynchronous standby (the default). It is stopped part-way through a 200-resource create,
  so it falls behind; the primary is then SIGKILLed with everything it wrote since, and the
  standby started and promoted. PostgreSQL has lost writes that the SyncPoints say were made.
  The engine must notice (at the latest when the stack's own SyncPoint completes) and resume
  from what PostgreSQL holds: the stack ends CREATE_COMPLETE with one object per resource,
  and says why it resumed.
- Synchronous standby. Nothing acknowledged is lost: the stack completes as if PostgreSQL had
  restarted, with no resume of any kind.

The objects are the sandbox's (OS::Heat::TestResource), kept in the same database, so an
object made on the lost primary is lost with it and made again, with the same token.
The watchdog's stall time is far beyond the test: it never resumes anything here.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.migrate import upgrade
from conv_tasks.db.session import dispose_engines
from conv_tasks.testing import PrivatePostgres, PrivateRedis, celery_app, wait_for_workers

RESOURCES = 200
WAIT = 0.3  # each create takes this long (one poll)
STANDBY_STOPPED_AT = 80  # objects made when the asynchronous standby stops (40%)
PRIMARY_LOST_AT = 110  # objects made when the primary is killed
PROMOTED_AFTER = 2.0  # seconds between losing the primary and promoting the standby
LOST_WRITES = "PostgreSQL lost writes"


@dataclass
class Pair:
    primary: PrivatePostgres
    standby: PrivatePostgres
    processes: CeleryProcesses
    client: Client


def _template() -> dict[str, Any]:
    resources = {
        f"r{i:03d}": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": f"v{i}", "wait_secs": WAIT},
        }
        for i in range(RESOURCES)
    }
    return {"heat_template_version": "2018-08-31", "resources": resources}


@pytest.fixture
def make_pair(tmp_path: Path) -> Iterator[Callable[[bool], Pair]]:
    made: list[Callable[[], None]] = []

    def make(synchronous: bool) -> Pair:
        primary = PrivatePostgres(settings={"synchronous_commit": "on"} if synchronous else None)
        made.append(primary.destroy)
        primary.init()
        primary.start()
        primary.create_database()
        upgrade(primary.url)
        standby = PrivatePostgres.standby_of(primary)
        made.append(standby.destroy)
        standby.start()
        if synchronous:
            _make_synchronous(primary)
        redis = PrivateRedis()
        made.append(redis.stop)
        redis.start()
        # libpq's own multi-host form, which SQLAlchemy's URL parser does not read.
        url = (
            f"postgresql+psycopg://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
            f"/{primary.database}?target_session_attrs=read-write"
        )
        suffix = uuid.uuid4().hex[:6]
        env = {
            "CONV_TASKS_DATABASE_URL": url,
            "CONV_TASKS_BROKER_URL": redis.url(0),
            "CONV_TASKS_RESULT_BACKEND": redis.url(1),
            "CONV_TASKS_REDIS_URL": redis.url(2),
            "CONV_TASKS_REDIS_PREFIX": f"failover-{suffix}",
            "CONV_TASKS_LOCK_TTL": "4",
            "CONV_TASKS_POLL_INTERVAL": "0.3",
            "CONV_TASKS_WATCHDOG_INTERVAL": "1",
            "CONV_TASKS_STALL_AFTER": "600",
            "CONV_TASKS_VISIBILITY_TIMEOUT": "60",
        }
        processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=suffix)
        made.append(processes.stop_all)
        processes.start_worker("w1")
        processes.start_worker("w2")
        processes.start_beat()
        app = celery_app(env, name=f"failover_{suffix}")
        app.conf.update(result_backend_always_retry=True, result_backend_max_retries=3)
        made.append(app.pool.force_close_all)
        wait_for_workers(app, {processes.hostname("w1"), processes.hostname("w2")}, timeout=90)
        client = Client(app, tenant=f"failover-{suffix}", timeout=30)
        return Pair(primary, standby, processes, client)

    try:
        yield make
    finally:
        for undo in reversed(made):
            undo()
        dispose_engines()


def _make_synchronous(primary: PrivatePostgres) -> None:
    """Every commit on `primary` waits for its standby from here (which is streaming)."""
    with primary.connect() as conn:
        conn.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
        conn.execute("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            row = conn.execute("SELECT sync_state FROM pg_stat_replication").fetchone()
            if row is not None and row[0] == "sync":
                return
            time.sleep(0.1)
    raise AssertionError("the standby never became synchronous")


def _objects(server: PrivatePostgres, stack_id: str) -> int:
    with server.connect(server.database) as conn:
        row = conn.execute(
            "SELECT count(*) FROM sandbox_object WHERE token LIKE %s", (f"{stack_id}:%",)
        ).fetchone()
    return int(row[0]) if row else 0


def _wait_for_objects(server: PrivatePostgres, stack_id: str, count: int) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        made = _objects(server, stack_id)
        if made >= count:
            return made
        time.sleep(0.05)
    raise AssertionError(f"only {_objects(server, stack_id)} objects after 120 s")


def _truth(server: PrivatePostgres, stack_id: str) -> dict[str, Any]:
    """What the surviving database holds of the stack: resources, objects, events."""
    with server.connect(server.database) as conn:
        resources = conn.execute(
            "SELECT name, action, status, physical_id FROM resource WHERE stack_id = %s",
            (stack_id,),
        ).fetchall()
        objects = conn.execute(
            "SELECT id, token, deleted FROM sandbox_object WHERE token LIKE %s",
            (f"{stack_id}:%",),
        ).fetchall()
        events = conn.execute(
            "SELECT reason FROM event WHERE stack_id = %s AND resource_name IS NULL ORDER BY id",
            (stack_id,),
        ).fetchall()
    return {
        "resources": {name: (action, status, pid) for name, action, status, pid in resources},
        "objects": [(oid, token, deleted) for oid, token, deleted in objects],
        "stack_events": [reason for (reason,) in events],
    }


def _assert_one_object_each(truth: dict[str, Any]) -> None:
    resources = truth["resources"]
    assert len(resources) == RESOURCES
    not_created = {
        name: f"{action}_{status}"
        for name, (action, status, _) in resources.items()
        if (action, status) != ("CREATE", "COMPLETE")
    }
    assert not not_created, f"{len(not_created)} resources not CREATE_COMPLETE: {not_created}"
    creates = [o for o in truth["objects"] if o[1].endswith(":CREATE")]
    tokens = [token for _, token, _ in creates]
    assert len(tokens) == len(set(tokens)) == RESOURCES, (len(tokens), len(set(tokens)))
    assert not any(deleted for _, _, deleted in creates)
    held = {pid for _, _, pid in resources.values()}
    assert held == {oid for oid, _, _ in creates}, "a resource holds no object, or a wrong one"


def test_asynchronous_standby_behind_resumes_from_what_postgresql_kept(
    make_pair: Callable[[bool], Pair],
) -> None:
    pair = make_pair(False)
    stack_id = pair.client.create("failover-async", _template())["stack_id"]
    _wait_for_objects(pair.primary, stack_id, STANDBY_STOPPED_AT)
    pair.standby.stop("fast")  # it falls behind from here
    made = _wait_for_objects(pair.primary, stack_id, PRIMARY_LOST_AT)
    pair.primary.crash()
    lost_at = time.monotonic()
    pair.standby.start()
    time.sleep(max(0.0, PROMOTED_AFTER - (time.monotonic() - lost_at)))
    kept = _objects(pair.standby, stack_id)
    pair.standby.promote()
    assert kept < made, f"the standby kept all {made} objects: the scenario lost nothing"

    final = pair.client.wait(stack_id, timeout=240, interval=0.5)
    truth = _truth(pair.standby, stack_id)
    print(
        f"\nobjects: {made}+ on the primary when lost, {kept} on the standby; "
        f"stack {final['status']}; stack events: {truth['stack_events']}"
    )
    assert final["status"] == "CREATE_COMPLETE", final
    _assert_one_object_each(truth)
    resumed = [r for r in truth["stack_events"] if r.startswith(LOST_WRITES)]
    assert resumed, f"no event says the traversal resumed: {truth['stack_events']}"
    assert not [r for r in truth["stack_events"] if "by the watchdog" in r]


def test_synchronous_standby_loses_nothing_and_needs_no_resume(
    make_pair: Callable[[bool], Pair],
) -> None:
    pair = make_pair(True)
    stack_id = pair.client.create("failover-sync", _template())["stack_id"]
    made = _wait_for_objects(pair.primary, stack_id, PRIMARY_LOST_AT)
    pair.primary.crash()
    time.sleep(PROMOTED_AFTER)
    pair.standby.promote()

    final = pair.client.wait(stack_id, timeout=240, interval=0.5)
    truth = _truth(pair.standby, stack_id)
    print(f"\nobjects: {made}+ when the primary was lost; stack {final['status']}")
    assert final["status"] == "CREATE_COMPLETE", final
    _assert_one_object_each(truth)
    resumes = [r for r in truth["stack_events"] if LOST_WRITES in r or "watchdog" in r]
    assert not resumes, resumes
