"""Local `celery worker` and `celery beat` processes, for the demo, the benchmark and tests.

Each process runs in its own session, so that stopping or killing it
(SIGKILL, as a crashed host would die) takes its pool children with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

APP = "conv_tasks.tasks.app"


class CeleryProcesses:
    """Starts, watches and stops named Celery processes that share one environment."""

    def __init__(
        self, log_dir: Path, *, env: Mapping[str, str] | None = None, suffix: str = ""
    ) -> None:
        self.log_dir = log_dir
        self.env = {**os.environ, **(env or {})}
        self.suffix = suffix
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        running = self.procs.get(name)
        if running is not None and running.poll() is None:
            # Starting a name that runs already keeps the one process: a second would be
            # forgotten here, never stopped, and go on taking tasks after its owner is gone.
            return running
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_dir / f"{name}.log", "ab") as log:
            proc = subprocess.Popen(
                self.command(args),
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs[name] = proc
        return proc

    def command(self, args: list[str]) -> list[str]:
        """The command line that runs `celery ARGS` on this package's app."""
        return [sys.executable, "-m", "celery", "-A", APP, *args]

    def hostname(self, name: str) -> str:
        return f"{name}-{self.suffix}" if self.suffix else name

    def start_worker(
        self, name: str, *, concurrency: int = 2, pool: str = "prefork", loglevel: str = "INFO"
    ) -> subprocess.Popen[bytes]:
        return self._spawn(
            name,
            [
                "worker",
                "--loglevel", loglevel,
                "--concurrency", str(concurrency),
                "--pool", pool,
                "--hostname", f"{self.hostname(name)}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
        )  # fmt: skip

    def start_beat(self, name: str = "beat") -> subprocess.Popen[bytes]:
        """A beat; any number may run (conv_tasks.beat): they keep no schedule file."""
        return self._spawn(name, ["beat", "--loglevel", "INFO"])

    def kill(self, name: str) -> None:
        """SIGKILL a process and its pool children at once."""
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def pause(self, name: str) -> None:
        """SIGSTOP a process and its pool children: a host that hangs, holding its leases and
        connections, and may come back."""
        os.killpg(self.procs[name].pid, signal.SIGSTOP)

    def resume(self, name: str) -> None:
        """SIGCONT a process paused with `pause`."""
        os.killpg(self.procs[name].pid, signal.SIGCONT)

    def stop_all(self, timeout: float = 20.0) -> None:
        """SIGTERM everything (workers finish their tasks), SIGKILL what does not stop."""
        for proc in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGCONT)  # a paused process could not stop
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
        self.procs.clear()

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until every worker started here answers a ping over the broker."""
        from conv_tasks.tasks import tasks_app as app

        wanted = {self.hostname(n) for n, p in self.procs.items() if not n.startswith("beat")}
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            replies = app.control.ping(timeout=1.0) or []
            up = {next(iter(reply)).split("@")[0] for reply in replies}
            if wanted <= up:
                return
            time.sleep(0.5)
        raise RuntimeError(f"workers {sorted(wanted)} did not start; logs in {self.log_dir}")
