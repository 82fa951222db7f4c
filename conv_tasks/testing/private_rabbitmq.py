"""PrivateRabbitMQ: a RabbitMQ node of our own, on a free port, with its own name,
configuration, data and logs; the system's node is never read or touched. It stops exactly
the processes it started; a missing rabbitmq-server fails with a sentence saying how to get
it.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path


def _port_with_dist_port(host: str) -> int:
    """A free port of `host` whose Erlang distribution port (it plus 20000, on 127.0.0.1) is
    free too: on this machine RabbitMQ 3.10 refused a RABBITMQ_DIST_PORT of its own ("could not
    bind to distribution port"), and takes its default, the node's port plus 20000."""
    for _ in range(100):
        port = random.randint(10000, 45000)
        try:
            for address, tried in ((host, port), ("127.0.0.1", port + 20000)):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                    sock.bind((address, tried))
        except OSError:
            continue
        return port
    raise RuntimeError(f"no free port pair (N, N+20000) found on {host} for RabbitMQ")


class PrivateRabbitMQ:
    """A RabbitMQ node of our own, listening on `host` only, on a free port: its node name
    (fleet-RANDOM@localhost), Erlang distribution port, configuration, data and logs are its
    own (a temporary directory); the system's node, its config and its plugins are never
    read or touched. It shares epmd and the Erlang cookie (the `rabbitmq` user's) with the
    system node, as any second node on a machine does. `guest` may log in from 127.0.0.1
    only, so the node creates a user of its own (`user`, a random password) on its first
    boot. It runs as the `rabbitmq` user when we are root (Debian's scripts want that)."""

    def __init__(self, *, host: str = "127.0.0.1") -> None:
        self.server = shutil.which("rabbitmq-server", path=f"/usr/lib/rabbitmq/bin:{os.defpath}")
        if self.server is None:
            raise RuntimeError(
                "rabbitmq-server is not installed: install it (Debian: `apt-get install "
                "rabbitmq-server`)."
            )
        self.bin = Path(self.server).parent
        self.host = host
        self.port = _port_with_dist_port(host)
        self.node = f"fleet-{uuid.uuid4().hex[:10]}@localhost"
        self.user = "conv_tasks"
        self.password = uuid.uuid4().hex
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-rabbitmq-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self._as_rabbitmq: list[str] = []
        self._home = str(Path.home())
        if os.geteuid() == 0:
            account = pwd.getpwnam("rabbitmq")
            self._home = account.pw_dir
            os.chown(self.root, account.pw_uid, account.pw_gid)
            self._as_rabbitmq = ["runuser", "-u", "rabbitmq", "--"]
        (self.root / "rabbitmq.conf").write_text(
            f"listeners.tcp.1 = {host}:{self.port}\n"
            f"default_user = {self.user}\n"
            f"default_pass = {self.password}\n"
            "loopback_users = none\n",
            encoding="utf-8",
        )
        (self.root / "enabled_plugins").write_text("[].\n", encoding="utf-8")
        (self.root / "rabbitmq-env.conf").write_text("", encoding="utf-8")
        for made in ("rabbitmq.conf", "enabled_plugins", "rabbitmq-env.conf"):
            if os.geteuid() == 0:
                shutil.chown(self.root / made, "rabbitmq", "rabbitmq")

    def url(self, vhost: str = "") -> str:
        """The amqp:// URL of virtual host `vhost`, as the node's own user."""
        return f"amqp://{self.user}:{self.password}@{self.host}:{self.port}/{vhost}"

    @property
    def env(self) -> dict[str, str]:
        """The environment of the node's programs: every path in our directory."""
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": self._home,
            "LANG": "C.UTF-8",
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_IP_ADDRESS": self.host,
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_CONF_ENV_FILE": str(self.root / "rabbitmq-env.conf"),
            "RABBITMQ_CONFIG_FILE": str(self.root / "rabbitmq.conf"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.root / "enabled_plugins"),
            "RABBITMQ_MNESIA_BASE": str(self.root / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.root / "log"),
            "RABBITMQ_PID_FILE": str(self.root / "node.pid"),
            # epmd and the distribution port on loopback only, as the system node's.
            "ERL_EPMD_ADDRESS": "127.0.0.1",
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
        }

    def ctl(self, *args: str, timeout: float = 60) -> str:
        """Run `rabbitmqctl -n NODE ARGS`; its output."""
        done = subprocess.run(
            [*self._as_rabbitmq, str(self.bin / "rabbitmqctl"), "-n", self.node, *args],
            env=self.env, capture_output=True, text=True, timeout=timeout, cwd=self.root,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"rabbitmqctl {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, timeout: float = 90) -> None:
        """Start the node; returns once it is up (RuntimeError with its log if it is not
        within `timeout` seconds)."""
        with open(self.root / "server.log", "ab") as log:
            self.proc = subprocess.Popen(
                [*self._as_rabbitmq, str(self.server)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=self.root,
                start_new_session=True,
            )  # fmt: skip
        # `await_startup` fails at once while the node has not yet registered with epmd:
        # asked again until it answers, the node exits, or `timeout` passes.
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.ctl("await_startup", "--timeout", str(int(timeout)), timeout=timeout + 30)
                return
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                if self.proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.5)
                    continue
                log_text = (self.root / "server.log").read_text(errors="replace")[-1500:]
                self.stop()
                raise RuntimeError(
                    f"RabbitMQ node {self.node} did not start ({exc}): {log_text}"
                ) from None

    def stop(self) -> None:
        """Stop the node (`rabbitmqctl stop`), kill what is left of it, remove its files."""
        if self.proc is not None:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.ctl("stop", timeout=30)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
            self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)
