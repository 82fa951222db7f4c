"""PrivatePostgres: a throwaway PostgreSQL cluster on a free port in a temporary directory,
for what a type acts on (a database of its own) or a failover test (a standby, a promotion,
a crash). PostgreSQL refuses to run as root, so when we are root its programs run as the
`postgres` user; missing programs fail with a sentence saying how to get them. It stops
exactly the processes it started.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conv_tasks.testing.services import TestServices, free_port


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
