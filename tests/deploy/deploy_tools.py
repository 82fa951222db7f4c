"""Running Debian's docker-compose on deploy/ files, in an environment of nothing but PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
# The environment compose runs in: nothing of the caller's (FLOWER_* above all).
CLEAN_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp"}


def docker_compose() -> str:
    """The docker-compose command; a missing one fails the test (it must never pass unchecked)."""
    tool = shutil.which("docker-compose")
    if tool is None:
        pytest.fail(
            "docker-compose is not installed, so deploy/compose.yaml cannot be checked: run "
            "scripts/ensure-docker-compose.sh (as root; `make test` and CI do) or "
            "`apt-get install docker-compose`"
        )
    return tool


def compose_config(
    path: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`docker-compose -f path config ...`, in CLEAN_ENV plus `env`."""
    return subprocess.run(
        [docker_compose(), "-f", str(path), "config", *extra],
        capture_output=True,
        text=True,
        env={**CLEAN_ENV, **(env or {})},
        timeout=60,
    )
