"""Counting TCP proxies: how often workers talk to PostgreSQL and Redis, and what they say.

One listening port per category of upstream (PostgreSQL, broker Redis,
SyncPoint Redis, result-backend Redis), all served by one asyncio loop in a
background thread. Workers are pointed at these ports; the benchmark's own
connections are not, so its polling is never counted.

A round trip is a *turn*: the client side of a connection sends after the
server side last sent (or sends first on a new connection). A pipeline of
commands written at once is therefore one turn, and a server push (pub/sub)
is none. Bytes are forwarded unchanged and as soon as they arrive.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmarks.wire import Command, PgMessageReader, RespCommandReader

# Redis commands that open a transaction block say nothing about what the turn is for.
_NOT_A_LEAD = frozenset({"MULTI"})


@dataclass
class Tally:
    """What the clients of one category did. Mutated only on the proxies' event loop."""

    connections: int = 0
    turns: int = 0
    bytes_up: int = 0
    bytes_down: int = 0
    commands: Counter[str] = field(default_factory=Counter)
    # The first command of each turn (Redis), or the kind of the first message (PostgreSQL).
    turns_by_lead: Counter[str] = field(default_factory=Counter)
    # Redis: commands carrying the proxy's marker (a node task's name in an LPUSH).
    marked: Counter[str] = field(default_factory=Counter)
    # PostgreSQL: transactions as the client delimits them (BEGIN..COMMIT, or one
    # statement outside a block, simple or an extended-protocol Execute, which the server
    # runs as its own transaction).
    transactions: int = 0

    def copy(self) -> Tally:
        return Tally(
            self.connections,
            self.turns,
            self.bytes_up,
            self.bytes_down,
            Counter(self.commands),
            Counter(self.turns_by_lead),
            Counter(self.marked),
            self.transactions,
        )

    def minus(self, earlier: Tally) -> Tally:
        def sub(a: Counter[str], b: Counter[str]) -> Counter[str]:
            return Counter({k: a[k] - b[k] for k in a if a[k] != b[k]})

        return Tally(
            self.connections - earlier.connections,
            self.turns - earlier.turns,
            self.bytes_up - earlier.bytes_up,
            self.bytes_down - earlier.bytes_down,
            sub(self.commands, earlier.commands),
            sub(self.turns_by_lead, earlier.turns_by_lead),
            sub(self.marked, earlier.marked),
            self.transactions - earlier.transactions,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "connections": self.connections,
            "turns": self.turns,
            "bytes_up": self.bytes_up,
            "bytes_down": self.bytes_down,
            "commands": dict(self.commands.most_common()),
            "turns_by_lead": dict(self.turns_by_lead.most_common()),
            "marked": dict(self.marked),
            "transactions": self.transactions,
        }


class Conversation:
    """One proxied connection: turns and commands, credited to its category's tally."""

    def __init__(self, tally: Tally, reader: RespCommandReader | PgMessageReader) -> None:
        self.tally = tally
        self.reader = reader
        self.server_spoke_last = True  # a new connection's first send is a turn
        self.lead_pending = False
        self.in_block = False
        self.is_pg = isinstance(reader, PgMessageReader)

    def from_client(self, data: bytes) -> None:
        tally = self.tally
        tally.bytes_up += len(data)
        if self.server_spoke_last:
            tally.turns += 1
            self.server_spoke_last = False
            self.lead_pending = True
        for command in self.reader.feed(data):
            self._count(command)

    def from_server(self, data: bytes) -> None:
        self.tally.bytes_down += len(data)
        self.server_spoke_last = True
        if self.lead_pending:  # the turn's first command was never complete: unreadable
            self.tally.turns_by_lead["?"] += 1
            self.lead_pending = False

    def _count(self, command: Command) -> None:
        tally = self.tally
        tally.commands[command.name] += 1
        if command.marked:
            tally.marked[command.name] += 1
        if self.lead_pending and command.name not in _NOT_A_LEAD:
            tally.turns_by_lead[command.name] += 1
            self.lead_pending = False
        if self.is_pg:
            if command.name == "begin":
                self.in_block = True
                tally.transactions += 1
            elif command.name in ("commit", "rollback"):
                self.in_block = False
            elif command.name in ("statement", "execute") and not self.in_block:
                tally.transactions += 1


async def _pump(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter, seen: Callable[[bytes], None]
) -> None:
    try:
        while data := await source.read(1 << 16):
            seen(data)  # before forwarding: the answer cannot overtake the count
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        sink.close()


class CountingProxies:
    """Counting proxies on 127.0.0.1, one port per category, in one background thread."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="counting-proxies", daemon=True
        )
        self._thread.start()
        self._tallies: dict[str, Tally] = {}
        self._servers: list[asyncio.Server] = []

    def add(self, category: str, host: str, port: int, *, pg: bool, marker: bytes = b"") -> int:
        """Listen for `category`, forwarding to host:port; returns the listening port."""
        tally = self._tallies.setdefault(category, Tally())

        async def serve(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
            try:
                server_r, server_w = await asyncio.open_connection(host, port)
            except OSError:
                client_w.close()
                return
            tally.connections += 1
            talk = Conversation(tally, PgMessageReader() if pg else RespCommandReader(marker))
            await asyncio.gather(
                _pump(client_r, server_w, talk.from_client),
                _pump(server_r, client_w, talk.from_server),
            )

        async def start() -> int:
            server = await asyncio.start_server(serve, "127.0.0.1", 0)
            self._servers.append(server)
            return int(server.sockets[0].getsockname()[1])

        return asyncio.run_coroutine_threadsafe(start(), self._loop).result(timeout=10)

    def snapshot(self) -> dict[str, Tally]:
        """A consistent copy of every category's counts, taken on the proxies' loop."""

        async def copy() -> dict[str, Tally]:
            return {name: tally.copy() for name, tally in self._tallies.items()}

        return asyncio.run_coroutine_threadsafe(copy(), self._loop).result(timeout=10)

    def close(self) -> None:
        async def stop() -> None:
            for server in self._servers:
                server.close()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


def difference(after: dict[str, Tally], before: dict[str, Tally]) -> dict[str, Tally]:
    return {name: tally.minus(before.get(name, Tally())) for name, tally in after.items()}
