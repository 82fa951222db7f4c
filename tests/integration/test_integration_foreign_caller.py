"""The task API page's example for a service that does not import conv_tasks, run exactly as
written.

The code block after `<!-- foreign-caller-example -->` in docs/task-api.md runs in a
fresh virtualenv holding only `celery[redis]` at the pinned version (no
conv_tasks, none of its other dependencies) against the session's real
workers; what it prints must match the JSON block after
`<!-- foreign-caller-output -->` but for the ids. The page and the test cannot drift.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "task-api.md"
# Values that differ on every run: compared by type only.
VARYING = frozenset({"stack_id", "traversal", "event_id"})


def _block(marker: str, language: str) -> str:
    text = PAGE.read_text()
    found = re.search(
        rf"<!-- {re.escape(marker)} -->\n```{language}\n(.*?)\n```", text, flags=re.DOTALL
    )
    assert found, f"docs/task-api.md has no ```{language} block after <!-- {marker} -->"
    return found.group(1)


def _json_values(text: str) -> list[Any]:
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def _celery_pin() -> str:
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line.startswith("celery=="):
            return line.strip()
    raise AssertionError("requirements.txt pins no celery")


def _clean_env(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **extra}


@pytest.fixture(scope="session")
def foreign_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with celery[redis] only: what the page's install line gives a service."""
    venv = tmp_path_factory.mktemp("foreign") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    name, version = _celery_pin().split("==")
    install = [str(python), "-m", "pip", "install", "--quiet", f"{name}[redis]=={version}"]
    subprocess.run(install, check=True, capture_output=True)
    # Run from the virtualenv's folder with no PYTHONPATH: the checkout is not importable.
    missing = subprocess.run(
        [str(python), "-c", "import conv_tasks"], capture_output=True, cwd=venv, env=_clean_env()
    )
    assert missing.returncode != 0, "the foreign caller's virtualenv can import conv_tasks"
    return python


def _same_shape(got: Any, shown: Any, path: str = "") -> None:
    if isinstance(shown, dict):
        assert isinstance(got, dict) and set(got) == set(shown), (path, got, shown)
        for key, value in shown.items():
            if key in VARYING:
                assert type(got[key]) is type(value), (f"{path}.{key}", got[key], value)
            else:
                _same_shape(got[key], value, f"{path}.{key}")
    elif isinstance(shown, list):
        assert isinstance(got, list) and len(got) == len(shown), (path, got, shown)
        for i, (a, b) in enumerate(zip(got, shown, strict=True)):
            _same_shape(a, b, f"{path}[{i}]")
    else:
        assert got == shown, (path, got, shown)


def test_the_task_api_example_runs_without_conv_tasks(workers: Any, foreign_python: Path) -> None:
    assert 'pip install "celery[redis]==' + _celery_pin().split("==")[1] + '"' in (
        PAGE.read_text()
    ), "docs/task-api.md's install line does not pin requirements.txt's celery"
    env = _clean_env(
        CONV_TASKS_BROKER_URL=os.environ["CONV_TASKS_BROKER_URL"],
        CONV_TASKS_RESULT_BACKEND=os.environ["CONV_TASKS_RESULT_BACKEND"],
        CONV_TASKS_TENANT=f"foreign-{uuid.uuid4().hex[:8]}",
        # The run's queue type on RabbitMQ (make test-rabbitmq RABBITMQ_QUEUE_TYPE=classic).
        **{
            name: os.environ[name]
            for name in ("CONV_TASKS_RABBITMQ_QUEUE_TYPE",)
            if os.environ.get(name)
        },
    )
    ran = subprocess.run(
        [str(foreign_python), "-c", _block("foreign-caller-example", "python")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=foreign_python.parent,
    )
    assert ran.returncode == 0, ran.stderr
    printed = [json.loads(line) for line in ran.stdout.splitlines() if line.strip()]
    shown = _json_values(_block("foreign-caller-output", "json"))
    assert len(printed) == len(shown), ran.stdout
    for got, expected in zip(printed, shown, strict=True):
        _same_shape(got, expected)
