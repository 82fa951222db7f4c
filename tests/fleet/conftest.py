"""A fleet of three worker hosts (network namespaces) and the services they reach over links.

`make_fleet()` builds, for one test: a bridge on a private 10.233.N.0/24 network, a private
PostgreSQL and two private Redis servers listening on the bridge's address only, and three
hosts (`h1`, `h2`, `h3`), each a network namespace running a real `celery worker` (prefork,
two children) through `ip netns exec`. One Redis is the broker (database 0) and the result
backend (1), the other the SyncPoint store, so that a host can lose its broker alone; with
`broker_kind="rabbitmq"` the broker is a private RabbitMQ node on the bridge's address instead
(quorum queues, results in the SyncPoint Redis). A partitioned worker's messages come back to
the others after the visibility timeout on Redis, and once RabbitMQ has missed the worker's
AMQP heartbeats (`HEARTBEAT` s, CONV_TASKS_BROKER_HEARTBEAT) on RabbitMQ
(see docs/development/testing.md).

No beat runs, and the watchdog interval and stall time are an hour: every scenario must end
by the workers' own doing, never by the watchdog resuming a stalled traversal. The lease
lives `LOCK_TTL` seconds. Teardown (on failure too) kills every process of every host,
deletes the namespaces and the bridge, and stops the services.

Skipped, with the reason, only where namespaces cannot be made (not root, no `ip`/`nft`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from fleet_cluster import (
    HEARTBEAT,
    HOSTS,
    LOCK_TTL,
    VISIBILITY_TIMEOUT,
    FleetCluster,
    HostProcesses,
)
from netns import Fleet, Host, missing

from conv_tasks.client import Client
from conv_tasks.db.migrate import upgrade
from conv_tasks.testing import (
    PrivatePostgres,
    PrivateRabbitMQ,
    PrivateRedis,
    celery_app,
    wait_for_workers,
)

_WHY_NOT = missing()


@pytest.fixture
def make_fleet(tmp_path: Path) -> Iterator[Callable[..., FleetCluster]]:
    """Build the fleet of one test; `clocks` gives a host's faketime offset ("+30s"), the
    workers of the hosts in `debug` log at DEBUG (each node's outcome); `broker_kind` is
    "redis" or "rabbitmq"."""
    if _WHY_NOT is not None:
        pytest.skip(_WHY_NOT)
    built: list[FleetCluster] = []
    cleanup: list[Callable[[], None]] = []

    def make(
        clocks: Mapping[str, str] | None = None,
        debug: tuple[str, ...] = (),
        broker_kind: str = "redis",
    ) -> FleetCluster:
        fleet = Fleet()
        cleanup.append(fleet.destroy)
        network = str(fleet.network)
        postgres = PrivatePostgres("conv_tasks_fleet", host=fleet.gateway, clients=network)
        cleanup.append(postgres.destroy)
        postgres.init()
        postgres.start()
        postgres.create_database()
        upgrade(postgres.url)
        syncpoints = PrivateRedis(host=fleet.gateway)
        cleanup.append(syncpoints.stop)
        syncpoints.start()
        if broker_kind == "rabbitmq":
            # Quorum queues (the default queue type); results in the SyncPoint Redis.
            rabbitmq = PrivateRabbitMQ(host=fleet.gateway)
            cleanup.append(rabbitmq.stop)
            rabbitmq.start()
            broker: PrivateRedis | PrivateRabbitMQ = rabbitmq
            broker_url, result_backend = rabbitmq.url(), syncpoints.url(1)
        else:
            redis_broker = PrivateRedis(host=fleet.gateway)
            cleanup.append(redis_broker.stop)
            redis_broker.start()
            broker = redis_broker
            broker_url, result_backend = redis_broker.url(0), redis_broker.url(1)
        suffix = uuid.uuid4().hex[:6]
        env = {
            "CONV_TASKS_DATABASE_URL": postgres.url,
            "CONV_TASKS_BROKER_URL": broker_url,
            "CONV_TASKS_RESULT_BACKEND": result_backend,
            "CONV_TASKS_REDIS_URL": syncpoints.url(0),
            "CONV_TASKS_REDIS_PREFIX": f"fleet-{suffix}",
            "CONV_TASKS_LOCK_TTL": str(LOCK_TTL),
            "CONV_TASKS_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
            "CONV_TASKS_POLL_INTERVAL": "0.5",
            "CONV_TASKS_BROKER_HEARTBEAT": str(HEARTBEAT),
            # No beat runs; were one to, its watchdog would wait an hour: a scenario that
            # completes does so without it.
            "CONV_TASKS_WATCHDOG_INTERVAL": "3600",
            "CONV_TASKS_STALL_AFTER": "3600",
        }
        hosts: dict[str, Host] = {}
        workers: dict[str, HostProcesses] = {}
        for name in HOSTS:
            host = fleet.add_host(name)
            hosts[name] = host
            procs = HostProcesses(
                host, tmp_path / "logs" / name, env=env, suffix=suffix,
                clock=(clocks or {}).get(name, ""),
            )  # fmt: skip
            workers[name] = procs
            cleanup.append(procs.stop_all)
            procs.start_worker(name, concurrency=2, loglevel="DEBUG" if name in debug else "INFO")
        app = celery_app(env, name=f"fleet_client_{suffix}")
        # The test's own client (in the root namespace, never cut) once found its idle
        # result connection closed ("Broken pipe") after a scenario; Celery's documented
        # retry of a result backend's connection errors lets it reconnect instead.
        app.conf.update(result_backend_always_retry=True, result_backend_max_retries=3)
        cleanup.append(app.pool.force_close_all)
        wait_for_workers(app, {w.hostname(n) for n, w in workers.items()}, timeout=90)
        cluster = FleetCluster(
            fleet, hosts, workers, app, Client(app, tenant="fleet", timeout=30),
            postgres.url, broker, syncpoints, postgres, tmp_path / "logs", suffix, broker_kind,
        )  # fmt: skip
        built.append(cluster)
        return cluster

    try:
        yield make
    finally:
        for cluster in built:
            for host in cluster.hosts.values():
                host.heal()
        # Last made, first undone: workers stop (they may still need the services), then
        # the hosts go, then the services.
        for undo in reversed(cleanup):
            try:
                undo()
            except Exception as exc:  # teardown goes on: the rest must still be undone
                print(f"fleet teardown: {undo} failed: {exc}")
