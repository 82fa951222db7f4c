"""`make demo`: a stack through create, update, a failing update that rolls back, and delete;
then a software deployment that the reference agent runs (seed 002), through the HTTP edge
with nothing but its server's credential (no broker settings).

Starts what it needs on this machine (database and migrations, two worker
processes and beat, the edge, and an agent for the deployment's server), prints the
progress of every operation live, shows the resources after each step, and
stops its processes at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.cli.render import follow, table
from conv_tasks.client import Client
from conv_tasks.db import ensure_database, upgrade
from conv_tasks.errors import ENCRYPTION_KEYS_SETTING
from conv_tasks.secrets_at_rest import new_key
from conv_tasks.settings import get_settings


def _tr(value: Any, **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


def _template(resources: dict[str, Any]) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "description": "conv_tasks demo stack",
        "parameters": {"password": {"type": "string", "hidden": True, "default": "hunter2"}},
        "resources": resources,
        "outputs": {
            "web_url": {
                "value": {
                    "str_replace": {
                        "template": "http://HOST/",
                        "params": {"HOST": {"get_attr": ["web", "output"]}},
                    }
                }
            }
        },
    }


CREATE = _template(
    {
        "network": _tr("net-10.0.0.0/24", wait_secs=0.5),
        "database": {**_tr("db-v1", update_replace=True, wait_secs=0.5), "depends_on": ["network"]},
        "cache": {**_tr("cache-v1"), "depends_on": ["network"]},
        "web": _tr(
            {"list_join": ["-", ["web", {"get_attr": ["database", "output"]}]]}, wait_secs=0.5
        ),
    }
)
UPDATE = _template(
    {
        "network": _tr("net-10.0.0.0/24", wait_secs=0.5),
        "database": {**_tr("db-v2", update_replace=True, wait_secs=0.5), "depends_on": ["network"]},
        "web": _tr({"list_join": ["-", ["web2", {"get_attr": ["database", "output"]}]]}),
        "queue": {**_tr("queue-v1"), "depends_on": ["network"]},
    }
)
FAILING = _template(
    {
        "network": _tr("net-10.0.0.0/24"),
        "database": {**_tr("db-v2", update_replace=True), "depends_on": ["network"]},
        "web": _tr("web-broken", fail_on=["update"]),
        "queue": {**_tr("queue-v2"), "depends_on": ["web"]},
    }
)


# The deployment's config: a script the agent on the server runs, inputs as environment
# variables, an output written to $heat_outputs_path.NAME.
INSTALL_SCRIPT = """#!/bin/sh
echo "installing $site on $deploy_server_id"
sleep 2
printf 'http://%s.example/' "$site" > "$heat_outputs_path.url"
echo "done"
"""


def deployment_template() -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "description": "conv_tasks demo: a script run on a server by the agent there",
        "parameters": {"server": {"type": "string"}},
        "resources": {
            "install": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {
                    "group": "script",
                    "inputs": [{"name": "site"}],
                    "outputs": [{"name": "url"}],
                    "config": INSTALL_SCRIPT,
                },
            },
            "deploy": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "install"},
                    "server": {"get_param": "server"},
                    "input_values": {"site": "shop"},
                },
            },
            "frontend": _tr({"get_attr": ["deploy", "url"]}),
        },
        "outputs": {
            "url": {"value": {"get_attr": ["deploy", "url"]}},
        },
    }


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_edge(env: dict[str, str], log_dir: Path) -> Iterator[str]:
    """`conv-tasks api serve` on a free loopback port (noauth: the demo's only caller is this
    machine); yields its URL once it answers."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_dir.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-c", "from conv_tasks.cli.main import main; main()",
        "api", "serve", "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with open(log_dir / "edge.log", "ab") as out:
        proc = subprocess.Popen(
            command,
            env={**os.environ, **env, "CONV_TASKS_API_AUTH": "noauth"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise click.ClickException(f"the edge exited; see {log_dir / 'edge.log'}")
            try:
                with urllib.request.urlopen(f"{url}/healthcheck", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise click.ClickException(f"the edge never answered; see {log_dir / 'edge.log'}")
            time.sleep(0.2)
        yield url
    finally:
        _stop(proc)


@contextlib.contextmanager
def running_agent(server: str, credential: str, edge_url: str, workdir: Path) -> Iterator[Path]:
    """`conv-tasks agent --url EDGE` for `server`, as on a host: its environment holds no
    conv_tasks setting, no broker and no result backend; yields its log file."""
    workdir.mkdir(parents=True, exist_ok=True)
    credential_file = workdir / "credential"
    credential_file.touch(mode=0o600)
    credential_file.write_text(credential + "\n")
    log = workdir / "agent.log"
    command = [
        sys.executable, "-c", "from conv_tasks.cli.main import main; main()",
        "agent", "--url", edge_url, "--server", server,
        "--credential-file", str(credential_file),
        "--state-dir", str(workdir / "state"), "--interval", "0.5",
    ]  # fmt: skip
    host_env = {k: v for k, v in os.environ.items() if not k.startswith("CONV_TASKS_")}
    with open(log, "ab") as out:
        proc = subprocess.Popen(command, env=host_env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield log
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _deployment(client: Client, run: str, log_dir: Path, keys: dict[str, str]) -> None:
    name, server = "demo-deploy", f"demo-server-{run}"
    click.secho(f"\n== software deployment: a script run on server {server}", bold=True)
    started = client.create(name, deployment_template(), {"server": server})
    # The stack's owner gets the server's credential and hands it to the agent on the server.
    credential = client.deployment_credential(name, server)["credential"]
    with running_edge(keys, log_dir / "edge") as edge_url:
        click.echo(
            f"credential for {server} issued; starting its agent (`conv-tasks agent --url "
            f"{edge_url}`: the HTTP edge, no broker settings)"
        )
        with running_agent(server, credential, edge_url, log_dir / "agent") as agent_log:
            _run_deployment(client, name, started, agent_log)
    _step(client, "delete the deployment's stack", name, client.delete(name))


def _run_deployment(client: Client, name: str, started: dict[str, Any], agent_log: Path) -> None:
    _step(
        client,
        "the agent signals IN_PROGRESS, runs the script, signals COMPLETE",
        name,
        started,
    )
    shown = client.deployment(name, "deploy")
    click.echo(f"deployment deploy: {shown.get('status')}, the script's stdout:")
    for line in str(shown.get("deploy_stdout") or "").splitlines():
        click.echo(f"  {line}")
    click.echo("agent log:")
    for line in agent_log.read_text().splitlines():
        click.echo(f"  {line}")


def _step(client: Client, title: str, stack: str, started: dict[str, Any]) -> None:
    click.secho(f"\n== {title}", bold=True)
    final = follow(client, started, timeout=300)
    if not final["status"].startswith("DELETE"):
        table(client.resources(stack), ["name", "type", "version", "physical_id", "status"])
        outputs = client.outputs(stack)
        if outputs:
            click.echo("outputs: " + ", ".join(f"{k}={v.get('value')}" for k, v in outputs.items()))


def demo_keys(key_file: Path) -> dict[str, str]:
    """The demo's workers seal secrets at rest: with the configured keys, else with the demo's
    own key, made once and kept in `key_file` (readable by its owner only) so that the next
    demo reads what this one left in the database."""
    if get_settings().encryption_keys:
        return {}
    if not key_file.exists():
        key_file.touch(mode=0o600)
        key_file.write_text(new_key() + "\n")
    return {ENCRYPTION_KEYS_SETTING: key_file.read_text().strip()}


def main() -> None:
    click.echo("preparing the database ...")
    ensure_database()
    upgrade()
    run = uuid.uuid4().hex[:6]
    keys = demo_keys(Path(tempfile.gettempdir()) / "conv-tasks-demo.key")
    procs = CeleryProcesses(
        Path(tempfile.gettempdir()) / f"conv-tasks-demo-{run}", env=keys, suffix=run
    )
    procs.start_worker("demo1")
    procs.start_worker("demo2")
    procs.start_beat()
    try:
        procs.wait_ready()
        click.echo(f"two workers and beat are up (logs in {procs.log_dir})")
        client = Client(tenant=f"demo-{run}")
        name = "demo"
        _step(client, "create", name, client.create(name, CREATE))
        _step(
            client,
            "update: web changed in place, database replaced, cache removed, queue added",
            name,
            client.update(name, UPDATE),
        )
        _step(client, "update that fails (web) and rolls back", name, client.update(name, FAILING))
        _step(client, "delete", name, client.delete(name))
        _deployment(client, run, procs.log_dir, keys)
        click.secho("\ndemo finished", bold=True)
    finally:
        procs.stop_all()


if __name__ == "__main__":
    main()
