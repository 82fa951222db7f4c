"""A private PostgreSQL server that asks for a password, for the tests of the PostgreSQL
resource types (ConvTasks::PostgreSQL::Database and ::Role), and a cluster of conv_tasks
workers whose connections file names it.

The server is never the shared one: it is started on a free port in a temporary directory
(tests/chaos/private_services.py), trusts only its own Unix socket (where the tests'
fixtures set it up) and asks for a SCRAM password on TCP, where the workers connect, so the
password read from the connection's secret file is really needed. It logs every DDL
statement, so a test can prove no password was ever sent.
"""

from __future__ import annotations

import contextlib
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from celery import Celery
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent / "chaos"))

from private_services import (
    PG_BIN,
    PrivatePostgres,
    PrivateRedis,
    celery_app,
    fresh_database,
    wait_for_workers,
)

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client

# The connection names the workers' connections file defines.
ADMIN = "tenant-db"  # the server's superuser, with its password from a file
WEAK = "weak-db"  # a role that may log in and do nothing else
APPLICATION = "conv_tasks_pg_types"  # the application_name of the workers' sessions


def require_server_binaries() -> None:
    """Fail (never skip) with what to install when the PostgreSQL server is missing."""
    if not (PG_BIN / "initdb").exists():
        pytest.fail(
            f"the PostgreSQL server binaries are not in {PG_BIN} (initdb, pg_ctl): install "
            "them (apt-get install postgresql-15) or name their folder in "
            "CONV_TASKS_TEST_PG_BIN"
        )


class PasswordPostgres(PrivatePostgres):
    """A private cluster whose `postgres` superuser needs `password` over TCP."""

    def __init__(self, password: str) -> None:
        super().__init__("postgres")
        self.password = password

    def init(self) -> None:
        require_server_binaries()
        self._run(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres",
            "--auth-local=trust", "--auth-host=scram-sha-256",
            "--no-sync", "--no-instructions",
        )  # fmt: skip

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c log_statement=ddl -c password_encryption=scram-sha-256"
        )
        self._run(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options,
            "-w", "-t", "30", "start",
        )  # fmt: skip

    def local(self) -> psycopg.Connection[Any]:
        """A superuser session over the Unix socket (trusted: no password)."""
        return psycopg.connect(
            host=str(self.root), port=self.port, user="postgres", dbname="postgres",
            autocommit=True,
        )  # fmt: skip

    def set_passwords(self) -> None:
        """Give `postgres` its password, and make the powerless role `weak` (same password)."""
        with self.local() as conn:
            verifier = conn.pgconn.encrypt_password(
                self.password.encode(), b"postgres", b"scram-sha-256"
            ).decode()
            conn.execute(sql.SQL("ALTER ROLE postgres PASSWORD {}").format(verifier))
            weak = conn.pgconn.encrypt_password(
                self.password.encode(), b"weak", b"scram-sha-256"
            ).decode()
            conn.execute(sql.SQL("CREATE ROLE weak LOGIN PASSWORD {}").format(weak))

    def tcp_url(self, user: str = "postgres", database: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def can_log_in(self, user: str, password: str, database: str = "postgres") -> bool:
        """Whether `user` logs in over TCP (SCRAM) with `password`."""
        try:
            psycopg.connect(self.tcp_url(user, database), password=password).close()
        except psycopg.OperationalError:
            return False
        return True

    def databases(self) -> dict[str, tuple[str, str, str | None]]:
        """Every database but the cluster's own: name -> (owner, encoding, comment)."""
        with self.local() as conn:
            rows = conn.execute(
                "SELECT datname, pg_get_userbyid(datdba), pg_encoding_to_char(encoding), "
                "shobj_description(oid, 'pg_database') FROM pg_database "
                "WHERE datname NOT IN ('postgres', 'template0', 'template1')"
            ).fetchall()
        return {name: (owner, encoding, comment) for name, owner, encoding, comment in rows}

    def database_oid(self, name: str) -> int | None:
        with self.local() as conn:
            row = conn.execute("SELECT oid FROM pg_database WHERE datname = %s", (name,)).fetchone()
        return int(row[0]) if row else None

    def roles(self) -> dict[str, tuple[bool, list[str], str | None]]:
        """Every role made after the cluster's own: name -> (login, member of, comment)."""
        with self.local() as conn:
            rows = conn.execute(
                "SELECT r.rolname, r.rolcanlogin, ARRAY(SELECT g.rolname FROM pg_auth_members m "
                "JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid ORDER BY 1), "
                "shobj_description(r.oid, 'pg_authid') FROM pg_roles r "
                "WHERE r.rolname NOT LIKE 'pg\\_%' AND r.rolname NOT IN ('postgres', 'weak')"
            ).fetchall()
        return {name: (login, list(groups), comment) for name, login, groups, comment in rows}

    def server_log(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def password_postgres() -> Iterator[PasswordPostgres]:
    server = PasswordPostgres(f"admin-{uuid.uuid4().hex}")
    server.init()
    try:
        server.start()
        server.set_passwords()
        yield server
    finally:
        server.destroy()


def connections_file(server: PasswordPostgres, folder: Path) -> Path:
    """The connections file of the workers: ADMIN and WEAK, their password in a file."""
    folder.mkdir(parents=True, exist_ok=True)
    secret = folder / "pg-password"
    secret.write_text(server.password + "\n", encoding="utf-8")
    secret.chmod(0o600)
    path = folder / "connections.yaml"
    query = f"?application_name={APPLICATION}"
    path.write_text(
        "default:\n"
        f"  {ADMIN}:\n"
        "    kind: postgresql\n"
        f"    url: {server.tcp_url()}{query}\n"
        f"    password_file: {secret}\n"
        f"  {WEAK}:\n"
        "    kind: postgresql\n"
        f"    url: {server.tcp_url('weak')}{query}\n"
        f"    password_file: {secret}\n",
        encoding="utf-8",
    )
    return path


@dataclass
class TypesCluster:
    """Private conv_tasks workers (own engine database, Redis and broker) acting on `server`."""

    server: PasswordPostgres
    processes: CeleryProcesses
    app: Celery
    client: Client
    database_url: str
    log_dir: Path

    def start_worker(self, name: str, concurrency: int = 2) -> None:
        self.processes.start_worker(name, concurrency=concurrency)
        wait_for_workers(self.app, {self.processes.hostname(name)})

    def worker_logs(self) -> str:
        return "\n".join(
            path.read_text(encoding="utf-8", errors="replace")
            for path in sorted(self.log_dir.glob("*.log"))
        )

    def wait_status(self, stack_id: str, timeout: float = 90.0) -> dict[str, Any]:
        """The stack once its operation has ended (not *_IN_PROGRESS)."""
        return self.client.wait(stack_id, timeout=timeout, interval=0.3)


@contextlib.contextmanager
def types_cluster(
    database_url: str,
    broker_url: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    *,
    lock_ttl: float = 4.0,
    workers: int = 1,
) -> Iterator[TypesCluster]:
    redis_server = PrivateRedis()
    redis_server.start()
    try:
        with password_postgres() as server:
            own_database = fresh_database(database_url, "pgtypes")
            if broker_url.startswith("redis"):
                broker = redis_server.url(0)
            else:
                broker = request.getfixturevalue("private_rabbitmq_url")
            env = {
                "CONV_TASKS_DATABASE_URL": own_database,
                "CONV_TASKS_BROKER_URL": broker,
                "CONV_TASKS_REDIS_URL": redis_server.url(1),
                "CONV_TASKS_RESULT_BACKEND": redis_server.url(2),
                "CONV_TASKS_REDIS_PREFIX": f"pgtypes-{uuid.uuid4().hex[:6]}",
                "CONV_TASKS_LOCK_TTL": str(lock_ttl),
                "CONV_TASKS_STALL_AFTER": "8",
                "CONV_TASKS_WATCHDOG_INTERVAL": "1",
                "CONV_TASKS_CONNECTIONS": str(connections_file(server, tmp_path / "secrets")),
            }
            log_dir = tmp_path / "logs"
            processes = CeleryProcesses(log_dir, env=env, suffix=uuid.uuid4().hex[:6])
            app = celery_app(env)
            client = Client(app, tenant="acme", timeout=30)
            cluster = TypesCluster(server, processes, app, client, own_database, log_dir)
            try:
                for n in range(workers):
                    cluster.start_worker(f"w{n}")
                processes.start_beat()
                yield cluster
            finally:
                processes.stop_all(timeout=10)
                app.pool.force_close_all()
    finally:
        redis_server.stop()


def wait_until(check: Any, what: str, timeout: float = 60.0) -> Any:
    """Poll `check()` until it returns something true; fail naming `what` if it never does."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.1)
