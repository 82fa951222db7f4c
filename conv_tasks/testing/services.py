"""The services a conformance run stands on, and private ones a test starts for itself.

`TestServices.from_env` reads where the cluster's PostgreSQL, Redis and broker are (the
CONV_TASKS_TEST_* variables, defaulting to the local servers): the one place the kit reads
the environment. `PrivatePostgres` and `PrivateRedis` are throwaway servers on free ports in a
temporary directory, for what a type acts on (a database of its own) or for a broker no
other worker listens on; they stop exactly the processes they started. PostgreSQL refuses to
run as root, so when we are root its programs run as the `postgres` user. A missing program
fails with a sentence saying how to get it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from celery import Celery
from sqlalchemy import create_engine, text

from conv_tasks.broker import connection_conf
from conv_tasks.db import driver_url, upgrade
from conv_tasks.settings import Settings

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_test"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/13"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
DEFAULT_RESULT_BACKEND = "redis://127.0.0.1:6379/12"


@dataclass(frozen=True)
class TestServices:
    """Where a conformance cluster keeps its state: a PostgreSQL server (the cluster makes a
    database of its own there, named after `database_url`'s), a Redis, a broker and a result
    backend. The cluster's keys carry a prefix of their own."""

    __test__ = False  # not a pytest test class, whatever its name

    database_url: str
    broker_url: str
    redis_url: str
    result_backend: str
    # Where PostgreSQL's server programs (initdb, pg_ctl) are, for PrivatePostgres.
    pg_bin: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TestServices:
        """From CONV_TASKS_TEST_DATABASE_URL, CONV_TASKS_TEST_BROKER_URL,
        CONV_TASKS_TEST_REDIS_URL, CONV_TASKS_TEST_RESULT_BACKEND and CONV_TASKS_TEST_PG_BIN
        in `env` (this process's environment by default), the local servers where unset."""
        env = os.environ if env is None else env
        return cls(
            database_url=env.get("CONV_TASKS_TEST_DATABASE_URL") or DEFAULT_DATABASE_URL,
            broker_url=env.get("CONV_TASKS_TEST_BROKER_URL") or DEFAULT_BROKER_URL,
            redis_url=env.get("CONV_TASKS_TEST_REDIS_URL") or DEFAULT_REDIS_URL,
            result_backend=env.get("CONV_TASKS_TEST_RESULT_BACKEND") or DEFAULT_RESULT_BACKEND,
            pg_bin=env.get("CONV_TASKS_TEST_PG_BIN") or "",
        )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on at `host` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def postgres_bin_dir(pg_bin: str = "") -> Path:
    """Where PostgreSQL's initdb and pg_ctl should be: `pg_bin` (CONV_TASKS_TEST_PG_BIN) if
    given, else the newest /usr/lib/postgresql/*/bin that has them, else the directory of the
    initdb on PATH (else /usr/lib/postgresql/15/bin, which postgres_programs refuses)."""
    if pg_bin:
        return Path(pg_bin)
    installed = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_major_version, reverse=True)
    on_path = shutil.which("initdb")
    candidates = [*installed, *([str(Path(on_path).parent)] if on_path else [])]
    for candidate in candidates:
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    return Path("/usr/lib/postgresql/15/bin")


def postgres_programs(pg_bin: str = "") -> Path:
    """postgres_bin_dir, if initdb and pg_ctl are there; RuntimeError saying how to get them."""
    found = postgres_bin_dir(pg_bin)
    if (found / "initdb").exists() and (found / "pg_ctl").exists():
        return found
    raise RuntimeError(
        f"PostgreSQL's server programs (initdb, pg_ctl) were not found in {found}"
        ": install them (Debian: `apt-get install postgresql`), or set CONV_TASKS_TEST_PG_BIN "
        "to the directory that holds them."
    )


def _major_version(bin_dir: str) -> int:
    name = Path(bin_dir).parent.name
    return int(name) if name.isdigit() else 0


class PrivatePostgres:
    """A throwaway PostgreSQL cluster (no fsync) on a free port. Without a `password` anyone on
    127.0.0.1 gets in (trust); with one, every connection must give it (scram-sha-256), and
    `password_file` holds it for a connection's `password_file`.

    `host` is the one address it listens on (a link a test made, for hosts in network
    namespaces); `clients` (a network such as 10.233.7.0/24) may then connect too, with the
    same authentication as 127.0.0.1.

    `settings` are server settings given at start after the defaults (which they override:
    `{"synchronous_commit": "on"}`). `standby_of` makes a streaming standby of a running
    cluster, `promote` makes a standby the primary, and `crash` SIGKILLs the server and every
    backend at once, as a lost host would stop: for failover tests."""

    def __init__(
        self,
        database: str = "conv_tasks",
        *,
        password: str | None = None,
        pg_bin: str = "",
        host: str = "127.0.0.1",
        clients: str = "",
        settings: Mapping[str, str] | None = None,
    ) -> None:
        self.host = host
        self.settings = dict(settings or {})
        self.clients = clients
        self.port = free_port(host)
        self.database = database
        self.password = password
        self.bin = postgres_programs(pg_bin or TestServices.from_env().pg_bin)
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.password_file = self.root / "password"
        self._as_postgres: list[str] = []
        self._owner: tuple[int, int] | None = None
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            self._owner = (account.pw_uid, account.pw_gid)
            os.chown(self.root, *self._owner)
            self._as_postgres = ["runuser", "-u", "postgres", "--"]

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of `database`, password included (for the test's own use)."""
        secret = f":{self.password}" if self.password else ""
        return f"postgresql+psycopg://postgres{secret}@{self.host}:{self.port}/{self.database}"

    def libpq_url(self, database: str = "postgres") -> str:
        """A libpq URL without the password: what a postgresql connection's `url` holds."""
        return f"postgresql://postgres@{self.host}:{self.port}/{database}"

    def connection(self, database: str = "postgres", **fields: Any) -> dict[str, Any]:
        """A `postgresql` connection to `database` as the superuser, for connections_file
        (its password read from `password_file`); `fields` adds others (`rate_limit`)."""
        found: dict[str, Any] = {"kind": "postgresql", "url": self.libpq_url(database)}
        if self.password is not None:
            found["password_file"] = str(self.password_file)
        return {**found, **fields}

    def connect(self, database: str = "postgres") -> Any:
        """A psycopg connection (autocommit) as the superuser."""
        import psycopg

        return psycopg.connect(
            host=self.host,
            port=self.port,
            user="postgres",
            dbname=database,
            password=self.password,
            autocommit=True,
        )

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*self._as_postgres, *args], check=True, capture_output=True, cwd=self.root, timeout=60
        )

    def init(self) -> None:
        """Make the cluster's files (initdb), with the password, if any."""
        auth = ["-A", "trust"]
        if self.password is not None:
            self.password_file.write_text(self.password, encoding="utf-8")
            self.password_file.chmod(0o600)
            if self._owner is not None:
                os.chown(self.password_file, *self._owner)
            auth = ["-A", "scram-sha-256", f"--pwfile={self.password_file}"]
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), *auth, "-U", "postgres",
            "--no-sync", "--no-instructions",
        )  # fmt: skip
        if self.clients:
            method = "trust" if self.password is None else "scram-sha-256"
            with open(self.data / "pg_hba.conf", "a", encoding="utf-8") as hba:
                hba.write(f"host all all {self.clients} {method}\n")

    def start(self) -> None:
        """Start the server; returns once it takes connections."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses={self.host} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        for name, value in self.settings.items():
            options += f" -c {name}={value}"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options,
            "-w", "-t", "30", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """Stop the server; `fast` ends every session at once, as a restart does."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    @classmethod
    def standby_of(
        cls, primary: PrivatePostgres, *, settings: Mapping[str, str] | None = None
    ) -> PrivatePostgres:
        """A streaming standby of the running `primary` (pg_basebackup -R), not yet started;
        asynchronous unless the primary lists it in synchronous_standby_names."""
        standby = cls(
            primary.database,
            password=primary.password,
            pg_bin=str(primary.bin),
            host=primary.host,
            clients=primary.clients,
            settings={**primary.settings, **(settings or {})},
        )
        standby._run(
            str(standby.bin / "pg_basebackup"), "-D", str(standby.data), "-h", primary.host,
            "-p", str(primary.port), "-U", "postgres", "-R", "-X", "stream", "-c", "fast",
            "--no-sync",
        )  # fmt: skip
        return standby

    def promote(self) -> None:
        """Make this standby the primary; returns once it takes writes."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t", "30", "promote")

    def crash(self) -> None:
        """SIGKILL the postmaster and every process it started, at once: nothing is flushed
        or handed over, and no client gets an orderly goodbye."""
        pid_file = self.data / "postmaster.pid"
        postmaster = int(pid_file.read_text(encoding="utf-8").split()[0])
        found = subprocess.run(
            ["pgrep", "-P", str(postmaster)], capture_output=True, text=True, check=False
        )
        children = [int(pid) for pid in found.stdout.split()]
        for pid in [postmaster, *children]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        pid_file.unlink(missing_ok=True)

    def create_database(self) -> None:
        """Create the database named at construction."""
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{self.database}"')

    def destroy(self) -> None:
        """Stop the server at once and remove its files."""
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class PrivateRedis:
    """A redis-server of our own, keeping nothing on disk, on a free port of `host` (asking
    for `password`, when one is given)."""

    def __init__(
        self, password: str = "", *, host: str = "127.0.0.1", args: Sequence[str] = ()
    ) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError(
                "redis-server is not installed: install it (Debian: `apt-get install "
                "redis-server`)."
            )
        self.host = host
        self.port = free_port(host)
        self.password = password
        # More redis-server options (`--replicaof HOST PORT`).
        self.args = tuple(args)
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        """The redis:// URL of database `db`, password included."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}{self.host}:{self.port}/{db}"

    def start(self) -> None:
        """Start the server; returns once it answers a ping."""
        with open(self.root / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(
                [
                    "redis-server", "--port", str(self.port), "--bind", self.host,
                    "--save", "", "--appendonly", "no", "--dir", str(self.root),
                    *(["--requirepass", self.password] if self.password else []),
                    # Listening on one address only (a link a test made): protected mode would
                    # refuse the other end of that link, for want of a password.
                    *(["--protected-mode", "no"] if self.host != "127.0.0.1" else []),
                    *self.args,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        client = self.client()
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def client(self, db: int = 0) -> redis.Redis:
        """A redis-py client of database `db`."""
        return redis.Redis(host=self.host, port=self.port, db=db, password=self.password or None)

    def connection(self, db: int = 0, **fields: Any) -> dict[str, Any]:
        """A `celery` connection whose broker is database `db` and results `db + 1`, for
        connections_file; `fields` adds others."""
        found = {"kind": "celery", "broker_url": self.url(db), "result_backend": self.url(db + 1)}
        return {**found, **fields}

    def kill(self) -> None:
        """SIGKILL the server, as a host that dies: it writes nothing more, says goodbye to
        no one. Its directory stays (stop removes it)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and remove its files."""
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)


def _port_with_dist_port(host: str) -> int:
    """A free port of `host` whose Erlang distribution port (it plus 20000, on 127.0.0.1) is
    free too: on this machine RabbitMQ 3.10 refused a RABBITMQ_DIST_PORT of its own ("could not
    bind to distribution port"), and takes its default, the node's port plus 20000."""
    for _ in range(100):
        port = random.randint(10000, 45000)
        try:
            for address, tried in ((host, port), ("127.0.0.1", port + 20000)):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                    sock.bind((address, tried))
        except OSError:
            continue
        return port
    raise RuntimeError(f"no free port pair (N, N+20000) found on {host} for RabbitMQ")


class PrivateRabbitMQ:
    """A RabbitMQ node of our own, listening on `host` only, on a free port: its node name
    (fleet-RANDOM@localhost), Erlang distribution port, configuration, data and logs are its
    own (a temporary directory); the system's node, its config and its plugins are never
    read or touched. It shares epmd and the Erlang cookie (the `rabbitmq` user's) with the
    system node, as any second node on a machine does. `guest` may log in from 127.0.0.1
    only, so the node creates a user of its own (`user`, a random password) on its first
    boot. It runs as the `rabbitmq` user when we are root (Debian's scripts want that)."""

    def __init__(self, *, host: str = "127.0.0.1") -> None:
        self.server = shutil.which("rabbitmq-server", path=f"/usr/lib/rabbitmq/bin:{os.defpath}")
        if self.server is None:
            raise RuntimeError(
                "rabbitmq-server is not installed: install it (Debian: `apt-get install "
                "rabbitmq-server`)."
            )
        self.bin = Path(self.server).parent
        self.host = host
        self.port = _port_with_dist_port(host)
        self.node = f"fleet-{uuid.uuid4().hex[:10]}@localhost"
        self.user = "conv_tasks"
        self.password = uuid.uuid4().hex
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-rabbitmq-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self._as_rabbitmq: list[str] = []
        self._home = str(Path.home())
        if os.geteuid() == 0:
            account = pwd.getpwnam("rabbitmq")
            self._home = account.pw_dir
            os.chown(self.root, account.pw_uid, account.pw_gid)
            self._as_rabbitmq = ["runuser", "-u", "rabbitmq", "--"]
        (self.root / "rabbitmq.conf").write_text(
            f"listeners.tcp.1 = {host}:{self.port}\n"
            f"default_user = {self.user}\n"
            f"default_pass = {self.password}\n"
            "loopback_users = none\n",
            encoding="utf-8",
        )
        (self.root / "enabled_plugins").write_text("[].\n", encoding="utf-8")
        (self.root / "rabbitmq-env.conf").write_text("", encoding="utf-8")
        for made in ("rabbitmq.conf", "enabled_plugins", "rabbitmq-env.conf"):
            if os.geteuid() == 0:
                shutil.chown(self.root / made, "rabbitmq", "rabbitmq")

    def url(self, vhost: str = "") -> str:
        """The amqp:// URL of virtual host `vhost`, as the node's own user."""
        return f"amqp://{self.user}:{self.password}@{self.host}:{self.port}/{vhost}"

    @property
    def env(self) -> dict[str, str]:
        """The environment of the node's programs: every path in our directory."""
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": self._home,
            "LANG": "C.UTF-8",
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_IP_ADDRESS": self.host,
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_CONF_ENV_FILE": str(self.root / "rabbitmq-env.conf"),
            "RABBITMQ_CONFIG_FILE": str(self.root / "rabbitmq.conf"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.root / "enabled_plugins"),
            "RABBITMQ_MNESIA_BASE": str(self.root / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.root / "log"),
            "RABBITMQ_PID_FILE": str(self.root / "node.pid"),
            # epmd and the distribution port on loopback only, as the system node's.
            "ERL_EPMD_ADDRESS": "127.0.0.1",
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
        }

    def ctl(self, *args: str, timeout: float = 60) -> str:
        """Run `rabbitmqctl -n NODE ARGS`; its output."""
        done = subprocess.run(
            [*self._as_rabbitmq, str(self.bin / "rabbitmqctl"), "-n", self.node, *args],
            env=self.env, capture_output=True, text=True, timeout=timeout, cwd=self.root,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"rabbitmqctl {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, timeout: float = 90) -> None:
        """Start the node; returns once it is up (RuntimeError with its log if it is not
        within `timeout` seconds)."""
        with open(self.root / "server.log", "ab") as log:
            self.proc = subprocess.Popen(
                [*self._as_rabbitmq, str(self.server)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=self.root,
                start_new_session=True,
            )  # fmt: skip
        # `await_startup` fails at once while the node has not yet registered with epmd:
        # asked again until it answers, the node exits, or `timeout` passes.
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.ctl("await_startup", "--timeout", str(int(timeout)), timeout=timeout + 30)
                return
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                if self.proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.5)
                    continue
                log_text = (self.root / "server.log").read_text(errors="replace")[-1500:]
                self.stop()
                raise RuntimeError(
                    f"RabbitMQ node {self.node} did not start ({exc}): {log_text}"
                ) from None

    def stop(self) -> None:
        """Stop the node (`rabbitmqctl stop`), kill what is left of it, remove its files."""
        if self.proc is not None:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.ctl("stop", timeout=30)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
            self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)


def fresh_database(server_url: str, suffix: str) -> str:
    """A migrated database of its own, named after `server_url`'s with `_SUFFIX` appended: no
    other test's beat (its watchdog, its purge) watches the stacks made there."""
    target = driver_url(server_url)
    target = target.set(database=f"{target.database}_{suffix}")
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()
    url = target.render_as_string(hide_password=False)
    upgrade(url)
    return url


def drop_database(url: str) -> None:
    """Drop the database `url` names (its sessions are ended first)."""
    target = driver_url(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
    admin.dispose()


def celery_app(env: Mapping[str, str], name: str = "conv_tasks_client") -> Celery:
    """A Celery app of the test process that talks to the broker and results in `env`."""
    app = Celery(name)
    app.config_from_object("celeryconfig")
    # The broker, results and queues of `env`'s workers, whose queues may be of another type
    # than this process's.
    app.conf.update(connection_conf(Settings.from_env(env)))
    return app


def wait_for_workers(app: Celery, hostnames: set[str], timeout: float = 60.0) -> None:
    """Wait until every named worker answers a ping on `app`'s broker. Each ping goes on a
    connection of its own: a pooled one may be one to a broker that restarted or failed over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with app.connection_for_write() as conn:
                replies: list[dict[str, Any]] = app.control.ping(timeout=1.0, connection=conn) or []
        except (redis.exceptions.ConnectionError, OSError):
            time.sleep(0.3)
            continue
        up = {next(iter(reply)).split("@")[0] for reply in replies}
        if hostnames <= up:
            return
        time.sleep(0.3)
    raise RuntimeError(f"workers {sorted(hostnames)} did not answer within {timeout:.0f}s")
