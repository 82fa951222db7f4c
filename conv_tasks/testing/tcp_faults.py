"""A TCP proxy that makes a service's connections unreliable: some are closed as they are
accepted, some are cut in the middle, the rest carry the bytes both ways untouched.

For services spoken to over their own protocol (PostgreSQL, Redis), where there is no "429"
to answer: put it in front of the server (the connection's URL names the proxy's `port`) and
turn its faults on for a block (`faulty()`, a TypeCase's `service_faults`). With a
FaultPlan, each new connection is drawn once (throttled: closed as it is accepted, a server
too busy to take it), and each chunk the client sends is drawn (unavailable: the connection
is cut both ways before the chunk is passed on, so the server never sees that request).
A type meets these as a connection refused or dropped, which it may surface as Transient.
It runs an asyncio loop in a process of its own: never beside the type's client in the test
process, which may hold the interpreter while it waits for an answer (libpq's password
encryption asks the server a question and waits, the interpreter held).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

from conv_tasks.testing.fault_plan import SPAWN, Fault, FaultPlan, Weather

CHUNK = 65536


class TcpFaultProxy:
    """A proxy on 127.0.0.1 (a free port) in front of the TCP server at `host`:`port`."""

    def __init__(self, port: int, plan: FaultPlan | None = None, host: str = "127.0.0.1") -> None:
        self.upstream = (host, port)
        self.weather = Weather(plan or FaultPlan())
        self.port = 0
        self._process: Any = None

    def start(self, timeout: float = 30.0) -> TcpFaultProxy:
        """Start its process; the proxy once it listens."""
        ours, theirs = SPAWN.Pipe()
        self._process = SPAWN.Process(
            target=_serve,
            args=(self.upstream, self.weather, theirs),
            name="tcp-fault-proxy",
            daemon=True,
        )
        self._process.start()
        theirs.close()
        if not ours.poll(timeout):
            self.stop()
            raise RuntimeError("TcpFaultProxy did not start listening")
        self.port = int(ours.recv())
        return self

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.join(timeout=10)
            self._process = None

    @contextlib.contextmanager
    def faulty(self) -> Iterator[Weather]:
        """Connections inside the block meet the plan's faults (outside it, none)."""
        with self.weather.turned_on() as weather:
            yield weather

    def faults_dealt(self) -> int:
        return self.weather.faults_dealt()


def _serve(upstream: tuple[str, int], weather: Weather, ready: Connection) -> None:
    """The proxy's process: listen, say on which port, and carry bytes until terminated."""
    asyncio.run(_Carrier(upstream, weather).serve(ready))


class _Carrier:
    """The proxy's work, in its process: each connection carried, or refused, or cut."""

    def __init__(self, upstream: tuple[str, int], weather: Weather) -> None:
        self.upstream = upstream
        self.weather = weather

    async def serve(self, ready: Connection) -> None:
        server = await asyncio.start_server(self._connected, "127.0.0.1", 0)
        ready.send(int(server.sockets[0].getsockname()[1]))
        ready.close()
        async with server:
            await server.serve_forever()

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.weather.draw() == Fault.THROTTLED:
            await _close(writer)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            await _close(writer)
            return
        cut = asyncio.Event()
        await asyncio.gather(
            self._pump(reader, up_writer, cut, drawn=True),
            self._pump(up_reader, writer, cut, drawn=False),
        )

    async def _pump(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        cut: asyncio.Event,
        *,
        drawn: bool,
    ) -> None:
        """Copy `source` to `sink` until either side ends (or the connection is cut: `cut`,
        when a chunk of the client's is drawn unavailable); then close `sink`."""
        try:
            while not cut.is_set():
                reading = asyncio.ensure_future(source.read(CHUNK))
                stopped = asyncio.ensure_future(cut.wait())
                done, _ = await asyncio.wait(
                    {reading, stopped}, return_when=asyncio.FIRST_COMPLETED
                )
                if reading not in done:
                    reading.cancel()
                    break
                stopped.cancel()
                data = reading.result()
                if not data:
                    break
                if drawn and self.weather.draw() == Fault.UNAVAILABLE:
                    cut.set()
                    break
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            cut.set()
            await _close(sink)


async def _close(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, RuntimeError):
        writer.close()
        await writer.wait_closed()
