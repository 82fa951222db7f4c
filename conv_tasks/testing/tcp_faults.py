"""A TCP proxy that makes a service's connections unreliable: some are closed as they are
accepted, some are cut in the middle, the rest carry the bytes both ways untouched.

For services spoken to over their own protocol (PostgreSQL, Redis), where there is no "429"
to answer: put it in front of the server (the connection's URL names the proxy's `port`) and
turn its faults on for a block (`faulty()`, a TypeCase's `service_faults`). With a
FaultPlan, each new connection is drawn once (throttled: closed as it is accepted, a server
too busy to take it), and each chunk the client sends is drawn (unavailable: the connection
is cut both ways before the chunk is passed on, so the server never sees that request).
A type meets these as a connection refused or dropped, which it may surface as Transient.
It runs an asyncio loop in a thread of the test process.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from conv_tasks.testing.fault_plan import Fault, FaultPlan, Weather

CHUNK = 65536


class TcpFaultProxy:
    """A proxy on 127.0.0.1 (a free port) in front of the TCP server at `host`:`port`."""

    def __init__(self, port: int, plan: FaultPlan | None = None, host: str = "127.0.0.1") -> None:
        self.upstream = (host, port)
        self.weather = Weather(plan or FaultPlan())
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None

    def start(self) -> TcpFaultProxy:
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._connected, "127.0.0.1", 0)
            )
            self.port = int(self._server.sockets[0].getsockname()[1])
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="tcp-fault-proxy", daemon=True)
        self._thread.start()
        if not ready.wait(timeout=10):
            raise RuntimeError("TcpFaultProxy did not start listening")
        return self

    def stop(self) -> None:
        loop, server = self._loop, self._server
        if loop is None:
            return
        if server is not None:
            loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        loop.close()
        self._loop = self._server = self._thread = None

    @contextlib.contextmanager
    def faulty(self) -> Iterator[Weather]:
        """Connections inside the block meet the plan's faults (outside it, none)."""
        with self.weather.turned_on() as weather:
            yield weather

    def faults_dealt(self) -> int:
        return self.weather.faults_dealt()

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
