"""What the fuzz tests share: a worker under watch, raw messages, row counts, refusal checks.

A FuzzCluster is one `celery worker` (two pool children) taking messages from
a broker of its own and writing to a database of its own (tests/fuzz/
conftest.py starts them), so that everything it watches — the worker's log,
its memory, the rows in the database — moves only with what a fuzz test sent.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from celery import Celery
from celery.result import AsyncResult
from kombu import Exchange
from sqlalchemy import Engine, text

from conv_tasks.broker.options import TASK_QUEUE
from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.limits import MAX_PROBLEM_CHARS

WORKER = "fz"
# How long one hostile message may take to be answered. Every refusal comes well within it;
# the catastrophic allowed_pattern of the issue never answered at all before its fix.
ANSWER_TIMEOUT = 30.0
# The worker's memory: the peak resident set size (VmHWM in /proc) of its main process and of
# its two pool children, added up, so that a spike while one message was handled counts even
# after it was freed. Measured on the 2-core CI machine: ~230 MB when it starts (each process
# ~75 MB of Python, Celery, SQLAlchemy, PyYAML), ~520 MB at the end of the suite, most of the
# growth while the 4 MB payload of 100,000 resources is decoded (in the main process, then in
# a pool child) and refused. The bound leaves ~180 MB over that: the 300 MB gzip bomb
# decompressed whole reached ~840 MB.
MAX_WORKER_RSS_MB = 700
# Tables whose rows a refused request must not change (conv_tasks/db/models.py).
TABLES = ("raw_template", "stack", "resource", "event", "sandbox_object", "stack_operation")
# The public tasks (conv_tasks/tasks/stack.py); the reads change no row even when they succeed.
READ_TASKS = (
    "conv_tasks.stack.show",
    "conv_tasks.stack.list",
    "conv_tasks.stack.resources",
    "conv_tasks.stack.events",
    "conv_tasks.stack.outputs",
)
WRITE_TASKS = (
    "conv_tasks.stack.create",
    "conv_tasks.stack.apply",
    "conv_tasks.stack.update",
    "conv_tasks.stack.delete",
    "conv_tasks.stack.rollback",
    "conv_tasks.stack.cancel_update",
    "conv_tasks.resource.signal",
    "conv_tasks.stack.check",
    "conv_tasks.stack.suspend",
    "conv_tasks.stack.resume",
    "conv_tasks.resource.mark_unhealthy",
)
# A refusal's error code, by who refused: the payload checks, the template and parameter
# checks, or the engine (no such stack or resource, a stack in the wrong state).
REFUSAL_CODES = frozenset(
    {
        "invalid_input",
        "invalid_payload",
        "invalid_template",
        "invalid_parameters",
        "dependency_cycle",
        "not_found",
        "not_supported",
        "conflict",
    }
)


def shorten(value: object, limit: int = 300) -> str:
    """A repr fit for an assertion message, however large the value."""
    try:
        shown = repr(value)
    except RecursionError:
        shown = f"<{type(value).__name__} nested too deep to show>"
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(shown)} chars)"


def problems_of(result: object) -> list[dict[str, str]]:
    """The problems of a well-formed JSON refusal; fails if `result` is not one."""
    assert isinstance(result, dict), f"not a JSON object: {shorten(result)}"
    assert result.get("ok") is False, f"not refused: {shorten(result)}"
    assert result.get("error") in REFUSAL_CODES, f"unknown error code: {shorten(result)}"
    assert isinstance(result.get("message"), str) and result["message"], shorten(result)
    problems = result.get("problems", [])
    assert isinstance(problems, list), shorten(result)
    for problem in problems:
        assert isinstance(problem, dict), shorten(result)
        assert isinstance(problem.get("path"), str), shorten(result)
        assert isinstance(problem.get("message"), str) and problem["message"], shorten(result)
        assert len(problem["path"]) <= MAX_PROBLEM_CHARS, shorten(result)
        assert len(problem["message"]) <= MAX_PROBLEM_CHARS, shorten(result)
    # A refusal never carries a huge input back to its sender.
    assert len(json.dumps(result)) < 64 * 1024, shorten(result)
    return problems


def names_field(problems: Iterable[Mapping[str, str]], field: str) -> bool:
    """Whether a problem's path is the field or inside it (`field.key`, `field[3]`)."""
    return any(
        p["path"] == field or p["path"].startswith((f"{field}.", f"{field}[")) for p in problems
    )


def peak_rss_of_tree(root: int) -> int:
    """The peak resident set size (VmHWM), in bytes, of a process and all its descendants,
    added up (from /proc): a spike while one message was handled counts, even once freed."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            data = stat.read_text()
        except OSError:
            continue  # the process ended while we looked
        # The command name is in parentheses and may hold spaces: the fields after it count.
        after = data[data.rindex(")") + 2 :].split()
        parents[int(stat.parent.name)] = int(after[1])
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, ppid in parents.items() if ppid in tree} - tree
        tree |= more
        grew = bool(more)
    total = 0
    for pid in tree:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                total += int(line.split()[1]) * 1024
    return total


@dataclass
class FuzzCluster:
    """One worker, its broker, its database, and what a test checks of them."""

    processes: CeleryProcesses
    app: Celery
    engine: Engine
    broken: bool = False
    _log_mark: int = field(default=0)

    # ------------------------------------------------------------ the worker
    @property
    def nodename(self) -> str:
        return f"{self.processes.hostname(WORKER)}@{socket.gethostname()}"

    @property
    def log_path(self) -> Path:
        return self.processes.log_dir / f"{WORKER}.log"

    def start(self, timeout: float = 60.0) -> None:
        self.processes.start_worker(WORKER)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.answers_ping(timeout=1.0):
                return
            time.sleep(0.3)
        raise RuntimeError(f"worker {self.nodename} did not start; log: {self.log_path}")

    def answers_ping(self, timeout: float = 5.0) -> bool:
        replies = self.app.control.ping(destination=[self.nodename], timeout=timeout) or []
        return any(self.nodename in reply for reply in replies)

    def restart_if_down(self) -> None:
        """A worker an earlier test stopped is replaced, on an emptied broker (the message that
        stopped it would stop the new one), so that each test fails on its own."""
        assert not self.broken, "the fuzz worker could not be restarted after an earlier test"
        if WORKER in self.processes.procs and self.answers_ping(timeout=3.0):
            return
        if WORKER in self.processes.procs:
            self.processes.kill(WORKER)
        redis.Redis.from_url(self.app.conf.broker_url).flushdb()  # the private broker's
        self.broken = True
        self.start()
        self.broken = False

    def peak_rss(self) -> int:
        proc = self.processes.procs.get(WORKER)
        return peak_rss_of_tree(proc.pid) if proc is not None else 0

    # ------------------------------------------------------------- its log
    def mark_log(self) -> None:
        """Tracebacks are looked for in what the worker writes after this."""
        self._log_mark = self.log_path.stat().st_size if self.log_path.exists() else 0

    def log_since_mark(self) -> str:
        with open(self.log_path, "rb") as log:
            log.seek(self._log_mark)
            return log.read().decode("utf-8", errors="replace")

    def assert_healthy(self, what: str = "") -> None:
        """The worker answers a ping, wrote no traceback, and is within its memory bound."""
        assert self.answers_ping(), f"worker {self.nodename} does not answer a ping {what}"
        # A pool child logs a task's failure just after storing its result: give it a moment.
        time.sleep(0.2)
        logged = self.log_since_mark()
        assert "Traceback" not in logged, f"traceback in the worker log {what}:\n{logged[-4000:]}"
        for bad in ("RecursionError", "Unrecoverable error", "Process 'ForkPoolWorker", "SIGSEGV"):
            assert bad not in logged, f"{bad!r} in the worker log {what}:\n{logged[-4000:]}"
        used = self.peak_rss()
        assert used < MAX_WORKER_RSS_MB * 2**20, (
            f"the worker's peak memory, {used / 2**20:.0f} MB, is past its bound of "
            f"{MAX_WORKER_RSS_MB} MB {what}"
        )

    # -------------------------------------------------------- sending things
    def send(self, task: str, kwargs: Any = None, **options: Any) -> AsyncResult:
        return self.app.send_task(task, kwargs=kwargs, **options)

    def answer(self, result: AsyncResult, timeout: float = ANSWER_TIMEOUT) -> Any:
        """The JSON result of a sent task; fails if the task raised instead of answering."""
        value = result.get(timeout=timeout, propagate=False)
        assert result.state == "SUCCESS", f"task {result.id} ended {result.state}: {value!r}"
        return value

    def call(self, task: str, kwargs: Any = None, timeout: float = ANSWER_TIMEOUT) -> Any:
        return self.answer(self.send(task, kwargs), timeout=timeout)

    def publish(
        self,
        body: bytes | str,
        headers: Mapping[str, Any],
        *,
        content_type: str = "application/json",
        content_encoding: str = "utf-8",
        **properties: Any,
    ) -> None:
        """One message on conv_tasks' queue exactly as given, as a foreign client could send it."""
        exchange = Exchange(TASK_QUEUE, type="direct", durable=True)
        with self.app.connection_for_write() as conn:
            conn.Producer().publish(
                body,
                exchange=exchange,
                routing_key=TASK_QUEUE,
                headers=dict(headers),
                content_type=content_type,
                content_encoding=content_encoding,
                **properties,
            )

    # --------------------------------------------------------------- rows
    def row_counts(self) -> dict[str, int]:
        with self.engine.connect() as conn:
            return {
                table: int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
                for table in TABLES
            }

    def wait_settled(self, timeout: float = 60.0) -> None:
        """Wait until no stack operation is under way (a test's creates have finished)."""
        deadline = time.monotonic() + timeout
        query = text("SELECT count(*) FROM stack WHERE status = 'IN_PROGRESS'")
        while True:
            with self.engine.connect() as conn:
                busy = int(conn.execute(query).scalar_one())
            if not busy:
                return
            assert time.monotonic() < deadline, f"{busy} stacks still IN_PROGRESS"
            time.sleep(0.2)
