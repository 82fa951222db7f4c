"""The `openstack` command against the HTTP edge, as a user of Heat would drive it.

python-openstackclient and python-heatclient come from the registry, pinned in
requirements.txt beside this file, into a virtualenv of their own (`make test` builds it
once; see `openstack_venv`): the project's own environment never gets them. The edge
(`conv-tasks api serve`) runs in a child process on a free loopback port, without
authentication (`noauth`: the tenant is the URL's), in front of the session's workers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openstack_command import Edge, OpenStack

from conv_tasks.testing.services import free_port

HERE = Path(__file__).resolve().parent
CONV_TASKS = str(Path(sys.executable).with_name("conv-tasks"))


@pytest.fixture(scope="session")
def openstack_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv of the tests' own with the pinned `openstack` command; its bin folder.

    `make test` builds it once, beside the project's (.venv-openstack, again only when
    requirements.txt changes), and names its bin folder in CONV_TASKS_TEST_OPENSTACK_BIN: a
    run then spends no minute installing it. Without that, the session makes its own."""
    prebuilt = os.environ.get("CONV_TASKS_TEST_OPENSTACK_BIN", "")
    if prebuilt and (Path(prebuilt) / "openstack").exists():
        return Path(prebuilt)
    venv = tmp_path_factory.mktemp("openstack-cli") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-input"]
    done = subprocess.run(
        [*pip, "-r", str(HERE / "requirements.txt")], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"pip could not install the openstack client:\n{done.stderr}"
    return venv / "bin"


@pytest.fixture(scope="session")
def edge(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Edge]:
    """`conv-tasks api serve` in a child process, in front of the session's workers."""
    port = free_port()
    log = tmp_path_factory.mktemp("edge") / "edge.log"
    env = {**os.environ, "CONV_TASKS_API_AUTH": "noauth", "PYTHONUNBUFFERED": "1"}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [CONV_TASKS, "api", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    served = Edge(f"http://127.0.0.1:{port}", log)
    try:
        _wait_answering(served, process)
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _wait_answering(edge: Edge, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the edge exited with {process.returncode}:\n{edge.logged()}")
        try:
            if httpx.get(f"{edge.tenant_url('probe')}/stacks", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the edge did not answer within {timeout:.0f} s:\n{edge.logged()}")


@pytest.fixture
def openstack(openstack_venv: Path, edge: Edge, tmp_path: Path) -> OpenStack:
    """The `openstack` command of a fresh tenant, run in a folder of the test's own."""
    tenant = f"osc-{uuid.uuid4().hex[:8]}"
    return OpenStack(openstack_venv, edge.tenant_url(tenant), tmp_path)
