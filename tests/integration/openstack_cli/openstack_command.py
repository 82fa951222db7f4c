"""The edge as the tests reach it, and the `openstack` command of one tenant pointed at it."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Edge:
    url: str  # http://127.0.0.1:PORT
    log: Path

    def tenant_url(self, tenant: str) -> str:
        return f"{self.url}/v1/{tenant}"

    def logged(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@dataclass(frozen=True)
class OpenStack:
    """The `openstack` command for one tenant, pointed at the edge without authentication."""

    bin: Path
    endpoint: str
    cwd: Path

    def run(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        command = [
            str(self.bin / "openstack"),
            "--os-auth-type",
            "none",
            "--os-endpoint",
            self.endpoint,
            *args,
        ]
        # Only what the command needs: nothing of the test run's CONV_TASKS_* settings.
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.cwd), "LANG": "C.UTF-8"}
        return subprocess.run(
            command,
            cwd=self.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def ok(self, *args: str, timeout: float = 180) -> str:
        """Run it; its standard output. AssertionError with both outputs if it failed."""
        done = self.run(*args, timeout=timeout)
        assert done.returncode == 0, (
            f"openstack {' '.join(args)} exited {done.returncode}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
        return done.stdout

    def json(self, *args: str, timeout: float = 180) -> Any:
        """Run it with `-f json`; the JSON it printed (after the event lines `--wait` prints
        first)."""
        out = self.ok(*args, "-f", "json", timeout=timeout)
        lines = out.splitlines(keepends=True)
        start = next((i for i, line in enumerate(lines) if line[:1] in ("{", "[")), 0)
        return json.loads("".join(lines[start:]))
