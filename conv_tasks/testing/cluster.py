"""A private conv_tasks for a test session: its own database, real workers, an env of its own.

The cluster makes a fresh, migrated database on the PostgreSQL the services name, keeps its
Redis keys under a prefix of its own, and runs real `celery worker` processes
(conv_tasks.celery_processes) whose environment names all of these and a CONV_TASKS_CONNECTIONS
file the cluster writes from the case. The workers find the types installed in this Python
(built in, or plugged in through the `conv_tasks.resource_types` entry point), as any
deployment would. Workers are started when a case first needs them, and started again only
when a case needs other connections or environment. The engine can also run in the test
process on the same services (`engine_env`), which the kit's deterministic checks use.
Workers and that engine follow a sandbox fault plan file of the cluster's own
(CONV_TASKS_SANDBOX_FAULTS), which `sandbox_faults` writes while a case's checks want the
sandbox to misbehave.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from celery import Celery

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.connections import parse_connections
from conv_tasks.db import drop_database
from conv_tasks.engine import Dispatcher, EngineEnv, build_env
from conv_tasks.errors import ConvTasksError
from conv_tasks.resources import ENTRY_POINT_GROUP, Registry, ResourceType, build_registry
from conv_tasks.settings import Settings
from conv_tasks.tasks import CeleryDispatcher
from conv_tasks.testing.case import CheckedStack, TypeCase
from conv_tasks.testing.fault_plan import FaultPlan
from conv_tasks.testing.report import CheckFailed
from conv_tasks.testing.services import (
    TestServices,
    celery_app,
    fresh_database,
    wait_for_workers,
)

# How long one request to the cluster's workers may take (a preview, a show).
REQUEST_TIMEOUT = 30.0
# The actions whose end may wait for an outside actor (a delete never does).
ACTED_ON = ("CREATE", "UPDATE")


class Cluster:
    """A private conv_tasks on the given services, with workers started on demand."""

    def __init__(self, services: TestServices, workdir: Path) -> None:
        self.run_id = uuid.uuid4().hex[:8]
        self.workdir = workdir
        self.database_url = fresh_database(services.database_url, f"kit_{self.run_id}")
        # Absent but while `sandbox_faults` holds it: the sandbox behaves.
        self.sandbox_faults_file = workdir / "sandbox-faults.json"
        self.base_env = {
            "CONV_TASKS_DATABASE_URL": self.database_url,
            "CONV_TASKS_BROKER_URL": services.broker_url,
            "CONV_TASKS_REDIS_URL": services.redis_url,
            "CONV_TASKS_RESULT_BACKEND": services.result_backend,
            "CONV_TASKS_REDIS_PREFIX": f"kit-{self.run_id}",
            "CONV_TASKS_POLL_INTERVAL": "0.2",
            "CONV_TASKS_CONNECTIONS": "",
            "CONV_TASKS_SANDBOX_FAULTS": str(self.sandbox_faults_file),
        }
        self.env: dict[str, str] = dict(self.base_env)
        self.app: Celery = celery_app(self.env, name=f"conv_tasks_kit_{self.run_id}")
        self.processes: CeleryProcesses | None = None
        self._config: tuple[str, tuple[tuple[str, str], ...], float] | None = None
        self._generation = 0
        self._acted: set[tuple[str, str]] = set()

    # ------------------------------------------------------------ workers

    def configure(self, case: TypeCase, *, lock_ttl: float) -> None:
        """Workers that read the case's connections and environment, with leases of
        `lock_ttl` seconds; started (again) only if the running ones read something else.
        ValueError naming every problem of the case's connections file."""
        config = (case.connections, tuple(sorted(case.environ.items())), lock_ttl)
        if config == self._config and self.processes is not None:
            return
        if case.connections.strip():
            try:
                parse_connections(case.connections, source="the case's connections")
            except ConvTasksError as exc:
                raise ValueError(f"{case.type_name}: {exc}") from None
        self.stop_workers()
        self._generation += 1
        connections = self.workdir / f"connections-{self._generation}.yaml"
        connections.write_text(case.connections, encoding="utf-8")
        self.env = {
            **self.base_env,
            **case.environ,
            "CONV_TASKS_CONNECTIONS": str(connections) if case.connections.strip() else "",
            "CONV_TASKS_LOCK_TTL": f"{lock_ttl:g}",
        }
        self.env.update(self._outliving(lock_ttl))
        self.processes = CeleryProcesses(
            self.workdir / f"logs-{self._generation}",
            env=self.env,
            suffix=f"kit{self.run_id}g{self._generation}",
        )
        self.processes.start_worker("worker", concurrency=2)
        wait_for_workers(self.app, {self.processes.hostname("worker")})
        self._config = config

    def _outliving(self, lock_ttl: float) -> dict[str, str]:
        """The stall time and the visibility timeout raised past twice the lease where the
        environment's are not longer than it: a worker refuses to start with timings that fight
        (conv_tasks.tasks.timing_checks), and a type with a long step budget gets long leases."""
        settings = self.settings()
        floor = 2 * lock_ttl
        raised: dict[str, str] = {}
        if settings.stall_after <= lock_ttl:
            raised["CONV_TASKS_STALL_AFTER"] = f"{floor:g}"
        if settings.visibility_timeout <= lock_ttl:
            raised["CONV_TASKS_VISIBILITY_TIMEOUT"] = f"{floor:g}"
        return raised

    def stop_workers(self) -> None:
        if self.processes is not None:
            self.processes.stop_all(timeout=10)
            self.processes = None
            self._config = None

    def close(self) -> None:
        """Stop the workers and drop the cluster's database."""
        self.stop_workers()
        self.app.pool.force_close_all()
        with contextlib.suppress(Exception):
            drop_database(self.database_url)

    def log_marks(self) -> dict[Path, int]:
        """Where each worker log ends now (for `logs`)."""
        return {path: path.stat().st_size for path in self.workdir.glob("logs-*/*.log")}

    def logs(self, since: Mapping[Path, int] | None = None) -> str:
        """What the workers logged (after the marks `since`, when given)."""
        texts = []
        for path in sorted(self.workdir.glob("logs-*/*.log")):
            with open(path, "rb") as log:
                log.seek((since or {}).get(path, 0))
                texts.append(log.read().decode("utf-8", errors="replace"))
        return "\n".join(texts)

    # ------------------------------------------------------------ talking to it

    def client(self, tenant: str) -> Client:
        return Client(self.app, tenant=tenant, timeout=REQUEST_TIMEOUT)

    def dispatcher(self) -> Dispatcher:
        """Sends node tasks to the cluster's workers."""
        return CeleryDispatcher(self.app)

    def registry(self) -> Registry:
        """The types the workers have: built in, and those installed packages plug in."""
        return build_registry(entry_points(group=ENTRY_POINT_GROUP))

    def type_of(self, case: TypeCase) -> type[ResourceType]:
        """The case's type as the workers find it; LookupError saying how to plug it in."""
        try:
            return self.registry().get(case.type_name)
        except ConvTasksError:
            raise LookupError(
                f"{case.type_name}: no such resource type here. Install the package that has "
                f"it, with an entry point `{case.type_name} = module:Class` in the group "
                f"{ENTRY_POINT_GROUP} (pip install -e . in the package)."
            ) from None

    def settings(self) -> Settings:
        """The settings the workers run with (their environment over this process's)."""
        return Settings.from_env({**os.environ, **self.env})

    def engine_env(self, dispatcher: Dispatcher, *, registry: Registry) -> EngineEnv:
        """The engine on the cluster's services, in this process, sending nodes to `dispatcher`."""
        return build_env(self.settings(), dispatcher, registry=registry)

    def act(self, case: TypeCase, client: Client, stack_id: str, action: str) -> bool:
        """Call the case's outside actor for `action` (a create or an update) on the stack; True
        once it has acted (or there is none). A conv_tasks error from it means "not yet"."""
        if case.act is None or action not in ACTED_ON or (stack_id, action) in self._acted:
            return True
        stack = CheckedStack(client, stack_id, case.tenant, action, self.database_url)
        try:
            done = bool(case.act(stack))
        except ConvTasksError:
            return False
        if done:
            self._acted.add((stack_id, action))
        return done

    def wait(self, case: TypeCase, client: Client, stack_id: str, action: str) -> dict[str, Any]:
        """Wait until the stack's operation has ended, acting meanwhile; the stack then.
        CheckFailed if the case's timeout passes first."""

        def poll(_stack: Mapping[str, Any]) -> None:
            self.act(case, client, stack_id, action)

        try:
            return client.wait(stack_id, timeout=case.timeout, interval=0.2, on_poll=poll)
        except TimeoutError as exc:
            raise CheckFailed(action.lower(), str(exc)) from None

    @contextlib.contextmanager
    def sandbox_faults(self, plan: FaultPlan) -> Iterator[FaultPlan]:
        """The sandbox (of the workers and of the engine in this process) follows `plan` inside
        the block: some of its calls raise Throttled or Transient."""
        written = self.sandbox_faults_file.with_suffix(".tmp")
        written.write_text(plan.to_json(), encoding="utf-8")
        written.replace(self.sandbox_faults_file)  # whole, never half-written
        try:
            yield plan
        finally:
            self.sandbox_faults_file.unlink(missing_ok=True)

    def forget_acts(self, stack_id: str) -> None:
        """The stack's next actions need the actor again (a new update, a repeated create)."""
        self._acted = {key for key in self._acted if key[0] != stack_id}

    def count_objects(self, case: TypeCase, client: Client, stack_id: str) -> int | None:
        if case.count_objects is None:
            return None
        stack = CheckedStack(client, stack_id, case.tenant, "COUNT", self.database_url)
        return int(case.count_objects(stack))
