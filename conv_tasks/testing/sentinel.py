"""A private Redis Sentinel deployment: a primary, its replicas and the sentinels watching them.

For tests of a Redis failover that must never touch a shared Redis: every server is a
PrivateRedis of its own (nothing on disk, free ports, a temporary directory), the sentinels
`redis-server --sentinel` processes with a generated config, and short failure detection
(`down-after-milliseconds`, `failover-timeout`) so that a failover takes a few seconds.
`stop` ends exactly the processes started here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from redis.sentinel import Sentinel

from conv_tasks.testing.private_redis import PrivateRedis
from conv_tasks.testing.services import free_port

DEFAULT_MASTER = "conv-tasks-test"


class PrivateSentinelGroup:
    """A primary, `replicas` replicas and `sentinels` sentinels (quorum: a majority) watching
    it as `master`. With `sentinel_password`, the sentinels ask for it (the Redis servers ask
    for none)."""

    def __init__(
        self,
        master: str = DEFAULT_MASTER,
        *,
        replicas: int = 1,
        sentinels: int = 3,
        down_after_ms: int = 1000,
        failover_timeout_ms: int = 4000,
        sentinel_password: str = "",
    ) -> None:
        self.master = master
        self.sentinel_password = sentinel_password
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms
        self.primary = PrivateRedis()
        self.replicas = [
            PrivateRedis(args=["--replicaof", "127.0.0.1", str(self.primary.port)])
            for _ in range(replicas)
        ]
        self.sentinel_ports = [free_port() for _ in range(sentinels)]
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-sentinel-"))
        self.sentinel_procs: list[subprocess.Popen[bytes]] = []

    # ------------------------------------------------------------ addresses

    def url(self, db: int = 0) -> str:
        """The `sentinel://h:p;sentinel://h:p/DB` list of every sentinel, for a setting."""
        hosts = [f"sentinel://127.0.0.1:{port}" for port in self.sentinel_ports]
        return ";".join(hosts) + f"/{db}"

    @property
    def servers(self) -> list[PrivateRedis]:
        return [self.primary, *self.replicas]

    def sentinel_client(self, index: int = 0) -> redis.Redis:
        return redis.Redis(
            port=self.sentinel_ports[index],
            password=self.sentinel_password or None,
            socket_timeout=2.0,
            socket_connect_timeout=2.0,
        )

    def master_port(self) -> int | None:
        """The port of the master as the first sentinel that answers names it."""
        for index in range(len(self.sentinel_ports)):
            client = self.sentinel_client(index)
            try:
                found = client.sentinel_get_master_addr_by_name(self.master)
            except redis.exceptions.RedisError:
                continue
            finally:
                client.close()
            if isinstance(found, tuple | list):
                return int(found[1])
        return None

    def server_on(self, port: int) -> PrivateRedis:
        return next(server for server in self.servers if server.port == port)

    # ------------------------------------------------------------ life

    def start(self, timeout: float = 60.0) -> None:
        """Start the primary, its replicas (in sync with it) and the sentinels (each knowing
        every replica and every other sentinel, so that a failover can happen)."""
        self.primary.start()
        for replica in self.replicas:
            replica.start()
        deadline = time.monotonic() + timeout
        for replica in self.replicas:
            self._until(deadline, lambda r=replica: _replication(r)["master_link_status"] == "up")
        for n, port in enumerate(self.sentinel_ports):
            config = self.root / f"sentinel-{n}.conf"
            config.write_text(self._config(port), encoding="utf-8")
            with open(self.root / f"sentinel-{n}.log", "ab") as log:
                self.sentinel_procs.append(
                    subprocess.Popen(
                        ["redis-server", str(config), "--sentinel"],
                        stdout=log,
                        stderr=subprocess.STDOUT,
                    )
                )
        for index in range(len(self.sentinel_ports)):
            self._until(deadline, lambda i=index: self._sentinel_ready(i))

    def _config(self, port: int) -> str:
        lines = [
            f"port {port}",
            "bind 127.0.0.1",
            f"dir {self.root}",
            f"sentinel monitor {self.master} 127.0.0.1 {self.primary.port} "
            f"{len(self.sentinel_ports) // 2 + 1}",
            f"sentinel down-after-milliseconds {self.master} {self.down_after_ms}",
            f"sentinel failover-timeout {self.master} {self.failover_timeout_ms}",
            f"sentinel parallel-syncs {self.master} 1",
        ]
        if self.sentinel_password:
            lines += [
                f"requirepass {self.sentinel_password}",
                f"sentinel sentinel-pass {self.sentinel_password}",
            ]
        return "\n".join(lines) + "\n"

    def _sentinel_ready(self, index: int) -> bool:
        client = self.sentinel_client(index)
        try:
            state = client.sentinel_master(self.master)
        except redis.exceptions.RedisError:
            return False
        finally:
            client.close()
        if not isinstance(state, dict):
            return False
        return bool(
            int(state.get("num-other-sentinels", 0)) >= len(self.sentinel_ports) - 1
            and int(state.get("num-slaves", 0)) >= len(self.replicas)
        )

    @staticmethod
    def _until(deadline: float, ready: Any) -> None:
        while not ready():
            if time.monotonic() > deadline:
                raise RuntimeError("the private Sentinel group did not come up in time")
            time.sleep(0.1)

    def freeze_replicas(self) -> int:
        """Stop every replica (SIGSTOP) and close its link from the master's side: nothing the
        master is written from now on reaches a replica, as when replication lags and the
        master dies (a stopped replica could not reconnect and catch up; one that was merely
        slow would still read what its kernel had received). The master's replication offset
        at the cut."""
        for replica in self.replicas:
            assert replica.proc is not None
            os.kill(replica.proc.pid, signal.SIGSTOP)
        client = self.primary.client()
        try:
            client.client_kill_filter(_type="replica")
            return replication_offset(self.primary)
        finally:
            client.close()

    def thaw_replicas(self) -> None:
        """Let the replicas frozen by `freeze_replicas` run again (SIGCONT)."""
        for replica in self.replicas:
            if replica.proc is not None:
                os.kill(replica.proc.pid, signal.SIGCONT)

    def kill_master(self) -> PrivateRedis:
        """SIGKILL the current master; which server it was."""
        port = self.master_port()
        assert port is not None, "no sentinel names a master"
        server = self.server_on(port)
        server.kill()
        return server

    def wait_for_failover(self, old_port: int, timeout: float = 60.0) -> PrivateRedis:
        """Wait until the failover away from `old_port` is over: every sentinel names the same
        new master, redis-py's Sentinel finds it (it passes over a master a sentinel still
        sees down), and it acts as a master."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            port = self._agreed_master_port()
            if port is not None and port != old_port:
                server = self.server_on(port)
                with contextlib.suppress(redis.exceptions.RedisError):
                    if _replication(server)["role"] == "master" and self._discovered() == port:
                        return server
            time.sleep(0.1)
        raise RuntimeError(f"no failover away from port {old_port} within {timeout:.0f}s")

    def _agreed_master_port(self) -> int | None:
        ports = set()
        for index in range(len(self.sentinel_ports)):
            client = self.sentinel_client(index)
            try:
                found = client.sentinel_get_master_addr_by_name(self.master)
            except redis.exceptions.RedisError:
                return None
            finally:
                client.close()
            if not isinstance(found, tuple | list):
                return None
            ports.add(int(found[1]))
        return ports.pop() if len(ports) == 1 else None

    def _discovered(self) -> int | None:
        sentinel = Sentinel(
            [("127.0.0.1", port) for port in self.sentinel_ports],
            sentinel_kwargs={"password": self.sentinel_password or None, "socket_timeout": 2.0},
        )
        try:
            return int(sentinel.discover_master(self.master)[1])
        except redis.exceptions.RedisError:
            return None
        finally:
            for client in sentinel.sentinels:
                client.close()

    def logs(self) -> str:
        """What the sentinels logged (their view of the failover)."""
        return "\n".join(
            path.read_text(encoding="utf-8", errors="replace")
            for path in sorted(self.root.glob("sentinel-*.log"))
        )

    def stop(self) -> None:
        self.thaw_replicas()
        for proc in self.sentinel_procs:
            proc.kill()
            proc.wait(timeout=10)
        self.sentinel_procs = []
        for server in self.servers:
            server.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def _replication(server: PrivateRedis) -> dict[str, Any]:
    client = server.client()
    try:
        info: dict[str, Any] = client.info("replication")
    finally:
        client.close()
    return info


def replication_offset(server: PrivateRedis) -> int:
    """How far `server`'s replication stream has got (`master_repl_offset`)."""
    return int(_replication(server)["master_repl_offset"])
