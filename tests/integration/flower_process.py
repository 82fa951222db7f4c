"""Real Flower for tests: a process on a free port of 127.0.0.1, and its pages over HTTP.

Flower is started the way operators start it (`celery -A conv_tasks.tasks.app
flower`, or `make flower` itself), in a session of its own, so that stopping it
takes every process it started. What the tests read is what an operator sees:
the Broker page's queue table and the task list's rows.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "chaos"))

from private_services import free_port

ROOT = Path(__file__).resolve().parents[2]
APP = "conv_tasks.tasks.app"
T = TypeVar("T")


def celery_flower(port: int, *options: str) -> list[str]:
    """`celery -A conv_tasks.tasks.app flower` on 127.0.0.1:port."""
    return [
        sys.executable, "-m", "celery", "-A", APP, "flower",
        f"--port={port}", "--address=127.0.0.1", *options,
    ]  # fmt: skip


def make_flower(port: int) -> list[str]:
    """`make flower` as a developer runs it, with this interpreter's virtualenv and no setup."""
    venv = Path(sys.executable).parent.parent
    return ["make", "-s", "-o", "setup", "flower", f"VENV={venv}", f"FLOWER_PORT={port}"]


class FlowerProcess:
    """One Flower process, its log, and GET requests to it."""

    def __init__(self, command: Callable[[int], list[str]], env: Mapping[str, str], log: Path):
        self.port = free_port()
        # Flower reads FLOWER_* variables itself: none of the caller's reach it.
        clean = {k: v for k, v in env.items() if not k.startswith("FLOWER_")}
        self.log = log
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                command(self.port),
                env=clean,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def get(self, path: str, **query: Any) -> str:
        url = f"http://127.0.0.1:{self.port}{path}"
        if query:
            url += "?" + urlencode(query)
        with urllib.request.urlopen(url, timeout=10) as response:
            return str(response.read().decode())

    def wait_up(self, timeout: float = 60.0) -> None:
        def answers() -> bool:
            with contextlib.suppress(OSError, urllib.error.URLError):
                return self.get("/healthcheck") == "OK"
            return False

        self.until(answers, "answers on /healthcheck", timeout)

    def until(self, probe: Callable[[], T], what: str, timeout: float = 60.0) -> T:
        """The first true answer of `probe`, asked until `timeout`; fail naming `what` and
        Flower's log when it never comes, or at once when Flower exited."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"Flower exited ({self.proc.returncode}):\n{self.log_text()}")
            answer = probe()
            if answer:
                return answer
            if time.monotonic() > deadline:
                raise AssertionError(f"Flower never {what}; its log:\n{self.log_text()}")
            time.sleep(0.5)

    def live_workers(self) -> list[dict[str, Any]]:
        """Workers Flower has heard from over task events (their heartbeats)."""
        workers = json.loads(self.get("/workers", json=1))["data"]
        return [w for w in workers if w.get("status")]

    def tasks(self, search: str = "") -> list[dict[str, Any]]:
        """The task list's rows as the page's table asks for them, newest first."""
        answer = self.get(
            "/tasks/datatable",
            draw=1,
            start=0,
            length=1000,
            **{
                "search[value]": search,
                "order[0][column]": 0,
                "order[0][dir]": "desc",
                "columns[0][data]": "received",
            },
        )
        rows: list[dict[str, Any]] = json.loads(answer)["data"]
        return rows

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


@contextlib.contextmanager
def running_flower(
    command: Callable[[int], list[str]], env: Mapping[str, str], log: Path
) -> Iterator[FlowerProcess]:
    flower = FlowerProcess(command, env, log)
    try:
        flower.wait_up()
        yield flower
    finally:
        flower.stop()


class _TableRows(HTMLParser):
    """The text of each row of one table, by the table's id."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.inside = False
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and dict(attrs).get("id") == self.table_id:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag == "td":
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif tag == "td" and self.cell is not None and self.rows:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


BROKER_COLUMNS = ("messages", "unacked", "ready", "consumers", "idle_since")


def broker_queues(page: str) -> dict[str, dict[str, str]]:
    """The Broker page's queue table: each queue's cells by column, as displayed."""
    parser = _TableRows("queue-table")
    parser.feed(page)
    return {
        row[0]: dict(zip(BROKER_COLUMNS, row[1:], strict=True))
        for row in parser.rows
        if len(row) == 1 + len(BROKER_COLUMNS)
    }


def column_names(page: str) -> list[str]:
    """The task list's columns, in order, from the /tasks page's table header."""
    return re.findall(r'<th data-column="([^"]+)"', page)
