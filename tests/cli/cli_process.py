"""Running the real `conv-tasks` executable in a child process, as a user's shell would."""

from __future__ import annotations

import fcntl
import json
import os
import struct
import subprocess
import sys
import termios
import uuid
from pathlib import Path
from typing import Any

CONV_TASKS = str(Path(sys.executable).with_name("conv-tasks"))


def tenant() -> str:
    return f"cli-{uuid.uuid4().hex[:8]}"


def cli_env(tenant_name: str, **extra: str) -> dict[str, str]:
    """The test run's environment (tests/conftest.py set it), for one tenant."""
    return {**os.environ, "CONV_TASKS_TENANT": tenant_name, "PYTHONUNBUFFERED": "1", **extra}


def run(
    tenant_name: str, *args: str, timeout: float = 120, **extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CONV_TASKS, *args],
        env=cli_env(tenant_name, **extra),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def on_terminal(
    tenant_name: str, *args: str, columns: int = 100, stderr_too: bool = False, **extra: str
) -> tuple[int, str]:
    """Run conv-tasks with stdout (and with stderr_too, stderr) on a pseudo-terminal
    `columns` wide, as a person's shell would; (exit code, what the terminal showed)."""
    main, child = os.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in cli_env(tenant_name, **extra).items() if k not in ("COLUMNS", "LINES")}
    try:
        done = subprocess.Popen(
            [CONV_TASKS, *args],
            env={**env, "TERM": "xterm"},
            stdin=subprocess.DEVNULL,
            stdout=child,
            stderr=child if stderr_too else subprocess.PIPE,
        )
        os.close(child)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        done.wait(timeout=120)
        return done.returncode, b"".join(chunks).decode()
    finally:
        os.close(main)


def write_template(path: Path, resources: dict[str, Any], **extra: Any) -> str:
    document = {"heat_template_version": "2018-08-31", "resources": resources, **extra}
    path.write_text(json.dumps(document))
    return str(path)


def test_resource(value: str = "", **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


test_resource.__test__ = False  # type: ignore[attr-defined]
