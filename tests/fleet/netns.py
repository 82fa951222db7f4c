"""Hosts made of Linux network namespaces, for the fleet tests (make test-fleet).

A `Fleet` is a bridge in the root namespace holding the first address of a private
10.233.N.0/24 network (N is one no interface of this machine uses yet), and `Host`s: each
a network namespace of its own, joined to the bridge by a veth pair, with the next
addresses. The services the hosts use (PostgreSQL, Redis) listen on the bridge's address
only, so a host reaches them over its link, and a link can be cut: `Host.cut()` drops every
packet on the host's interface with nftables, inside its namespace (as a partition does: no
error, no reset, just silence), or only the packets of some ports (a host that lost only its
broker, or only its database); `Host.heal()` lets them through again. Addresses exist only
on links made here; `Fleet.destroy()` kills every process of every host and deletes the
namespaces and the bridge, whatever happened before.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import random
import shutil
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field


def missing() -> str | None:
    """Why no fleet can be built here, or None when one can."""
    if os.geteuid() != 0:
        return "the fleet tests build network namespaces, which needs root"
    for program in ("ip", "nft"):
        if shutil.which(program) is None:
            return f"`{program}` is not installed (scripts/ensure-fleet-tools.sh installs it)"
    probe = f"ctprobe{uuid.uuid4().hex[:6]}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` fails here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _run(*args: str, stdin: str | None = None) -> str:
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def _free_network() -> ipaddress.IPv4Network:
    """A 10.233.N.0/24 that no address of this machine is in (other runs may hold some)."""
    used = _run("ip", "-4", "-o", "addr", "show")
    taken = {
        ipaddress.ip_interface(word).network
        for line in used.splitlines()
        for word in line.split()
        if word.count(".") == 3 and "/" in word
    }
    choices = list(range(1, 255))
    random.shuffle(choices)
    for n in choices:
        network = ipaddress.ip_network(f"10.233.{n}.0/24")
        if not any(network.overlaps(t) for t in taken):
            return network
    raise RuntimeError("every 10.233.N.0/24 network is in use on this machine")


@dataclass
class Host:
    """A worker host: a network namespace with one link to the fleet's bridge."""

    name: str
    namespace: str
    address: str
    link: str  # the veth end in the root namespace, on the bridge
    cut_ports: tuple[int, ...] | None = field(default=None, init=False)

    def command(self, args: list[str]) -> list[str]:
        """`args` run inside this host."""
        return ["ip", "netns", "exec", self.namespace, *args]

    def run(self, *args: str, stdin: str | None = None) -> str:
        return _run(*self.command(list(args)), stdin=stdin)

    def cut(self, ports: tuple[int, ...] = ()) -> None:
        """Drop, silently, every packet on the host's link, or only those to and from
        `ports` (of the services on the bridge's address)."""
        if ports:
            listed = ", ".join(str(p) for p in ports)
            out, inbound = f"tcp dport {{ {listed} }} drop", f"tcp sport {{ {listed} }} drop"
        else:
            out = inbound = "drop"
        self.run(
            "nft",
            "-f",
            "-",
            stdin=(
                "table inet fleet {\n"
                "  chain out { type filter hook output priority 0; policy accept;\n"
                f'    oifname "eth0" {out}\n  }}\n'
                "  chain in { type filter hook input priority 0; policy accept;\n"
                f'    iifname "eth0" {inbound}\n  }}\n'
                "}\n"
            ),
        )
        self.cut_ports = ports

    def heal(self) -> None:
        """Let every packet through again."""
        if self.cut_ports is not None:
            self.run("nft", "delete", "table", "inet", "fleet")
            self.cut_ports = None

    def pids(self) -> list[int]:
        """Every process running in this host's namespace."""
        found = subprocess.run(
            ["ip", "netns", "pids", self.namespace], capture_output=True, text=True
        )
        return [int(word) for word in found.stdout.split() if word.isdigit()]

    def kill_all(self) -> int:
        """SIGKILL every process of the host at once, as a host that dies; how many there were."""
        pids = self.pids()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.1)
        return len(pids)


class Fleet:
    """A bridge, its private network, and the hosts on it."""

    def __init__(self) -> None:
        self.tag = uuid.uuid4().hex[:4]
        self.network = _free_network()
        addresses = self.network.hosts()
        self.gateway = str(next(addresses))  # where the services listen
        self._addresses = addresses
        self.bridge = f"ctf{self.tag}br"
        self.hosts: list[Host] = []
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        _run("ip", "addr", "add", f"{self.gateway}/{self.network.prefixlen}", "dev", self.bridge)
        _run("ip", "link", "set", self.bridge, "up")

    def add_host(self, name: str) -> Host:
        namespace = f"ctf{self.tag}-{name}"
        host = Host(name, namespace, str(next(self._addresses)), f"ctf{self.tag}{name}")
        _run("ip", "netns", "add", namespace)
        self.hosts.append(host)
        _run("ip", "link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns",
             namespace)  # fmt: skip
        _run("ip", "link", "set", host.link, "master", self.bridge)
        _run("ip", "link", "set", host.link, "up")
        host.run("ip", "addr", "add", f"{host.address}/{self.network.prefixlen}", "dev", "eth0")
        host.run("ip", "link", "set", "eth0", "up")
        host.run("ip", "link", "set", "lo", "up")
        return host

    def destroy(self) -> None:
        """Kill every process of every host, delete the namespaces and the bridge."""
        for host in self.hosts:
            with contextlib.suppress(Exception):
                host.kill_all()
            subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True)
        self.hosts.clear()
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
