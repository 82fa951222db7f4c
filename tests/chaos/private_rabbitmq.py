"""A RabbitMQ node of our own, with the management API, for tests that read what it reports.

The shared RabbitMQ of a test machine may run without the management plugin
(Flower's Broker page needs it: it reads queue depths from the HTTP API, not
over AMQP), and a test must not enable plugins on a server others use. This
starts a node beside it: its own node name, AMQP, distribution and HTTP ports
(free ones, on 127.0.0.1), data directory and Erlang cookie, with the plugin
enabled, one user and one virtual host. It registers with the machine's epmd;
when none runs, Erlang starts one, which outlives the node (as it would for
any Erlang program). Started from RabbitMQ's own scripts, not the
/usr/sbin wrapper, which would switch to the `rabbitmq` account.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from base64 import b64encode
from pathlib import Path

from private_services import free_port

RABBITMQ_BIN = Path(os.environ.get("CONV_TASKS_TEST_RABBITMQ_BIN", "/usr/lib/rabbitmq/bin"))
RABBITMQ_LIB = RABBITMQ_BIN.parent / "lib"


def missing() -> str | None:
    """Why no private node can start here, or None when one can."""
    if not (RABBITMQ_BIN / "rabbitmq-server").exists():
        return f"no rabbitmq-server in {RABBITMQ_BIN} (CONV_TASKS_TEST_RABBITMQ_BIN names another)"
    if not list(RABBITMQ_LIB.glob("*/plugins/rabbitmq_management-*")):
        return f"RabbitMQ's management plugin is not installed under {RABBITMQ_LIB}"
    return None


class PrivateRabbitMQ:
    """A throwaway RabbitMQ node: user and virtual host `conv_tasks`, a random password."""

    user = "conv_tasks"
    vhost = "conv_tasks"

    def __init__(self) -> None:
        self.amqp_port = free_port()
        self.dist_port = free_port()
        self.http_port = free_port()
        self.password = secrets.token_hex(12)
        self.node = f"conv-tasks-{uuid.uuid4().hex[:8]}@localhost"
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-rabbitmq-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"amqp://{self.user}:{self.password}@127.0.0.1:{self.amqp_port}/{self.vhost}"

    @property
    def api_url(self) -> str:
        """The management API's root, without credentials (Flower takes the broker URL's)."""
        return f"http://127.0.0.1:{self.http_port}/api/"

    def start(self, timeout: float = 90.0) -> None:
        config = self.root / "rabbitmq.conf"
        config.write_text(
            f"listeners.tcp.local = 127.0.0.1:{self.amqp_port}\n"
            f"management.tcp.ip = 127.0.0.1\n"
            f"management.tcp.port = {self.http_port}\n"
            f"default_user = {self.user}\n"
            f"default_pass = {self.password}\n"
            f"default_vhost = {self.vhost}\n"
        )
        plugins = self.root / "enabled_plugins"
        plugins.write_text("[rabbitmq_management].\n")
        # The machine's rabbitmq-env.conf names the shared node: ours is read instead.
        env_file = self.root / "rabbitmq-env.conf"
        env_file.write_text("ERL_EPMD_ADDRESS=127.0.0.1\n")
        (self.root / "home").mkdir()
        env = {
            **os.environ,
            "HOME": str(self.root / "home"),  # the node's own Erlang cookie
            "RABBITMQ_CONF_ENV_FILE": str(env_file),
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_PORT": str(self.amqp_port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_CONFIG_FILE": str(config),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(self.root / "advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(plugins),
            "RABBITMQ_MNESIA_BASE": str(self.root / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.root / "log"),
            "RABBITMQ_PID_FILE": str(self.root / "rabbitmq.pid"),
            "ERL_EPMD_ADDRESS": "127.0.0.1",
        }
        with open(self.root / "server.log", "ab") as log:
            self.proc = subprocess.Popen(
                [str(RABBITMQ_BIN / "rabbitmq-server")],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=self.root,
            )
        deadline = time.monotonic() + timeout
        while not (self._amqp_answers() and self._api_answers()):
            if self.proc.poll() is not None:
                raise RuntimeError(f"RabbitMQ node {self.node} exited; see {self.root}/log")
            if time.monotonic() > deadline:
                raise RuntimeError(f"RabbitMQ node {self.node} did not start within {timeout}s")
            time.sleep(0.3)

    def _amqp_answers(self) -> bool:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", self.amqp_port), timeout=1),
        ):
            return True
        return False

    def _api_answers(self) -> bool:
        request = urllib.request.Request(self.api_url + "overview")
        token = b64encode(f"{self.user}:{self.password}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                return bool(response.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def stop(self) -> None:
        """Stop the node (SIGTERM is Erlang's orderly stop) and remove everything it wrote."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)
