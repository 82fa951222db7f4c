"""An HTTP proxy that makes a REST service busy: some requests get 429 with Retry-After, some
503, the rest go through to the service untouched.

Put it in front of the service a type acts on (its connection's `base_url` is the proxy's
`url`), and turn its faults on for a block (`faulty()`, a TypeCase's `service_faults`).
What it answers is drawn from a FaultPlan, seeded, in the order the requests come. A request
it refuses never reaches the service: a 429 or a 503 from it means the service did nothing,
as a real service's front door would. It runs in a process of its own (http.server, a
thread per connection): never beside the type's client in the test process, which may hold
the interpreter while it waits for an answer. It keeps every connection alive as HTTP/1.1
asks, and forwards each request on a connection of its own to the service. A request's body
is read by its Content-Length (which every client sends with a JSON body); a chunked one is
not supported.
"""

from __future__ import annotations

import contextlib
import http.client
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from typing import Any
from urllib.parse import urlsplit

from conv_tasks.testing.fault_plan import SPAWN, Fault, FaultPlan, Weather

# Headers of one hop (and those the proxy sets itself: host, length): never copied across.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
# How long the proxy waits for the service's answer.
UPSTREAM_TIMEOUT = 30.0


class HttpFaultProxy:
    """A proxy on 127.0.0.1 (a free port) in front of the HTTP service at `upstream`."""

    def __init__(self, upstream: str, plan: FaultPlan | None = None) -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"HttpFaultProxy: upstream must be an http:// URL, not {upstream!r}")
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or 80
        self.weather = Weather(plan or FaultPlan())
        self.port = 0
        self._process: Any = None

    @property
    def url(self) -> str:
        """The proxy's base URL (for a connection's base_url)."""
        if self._process is None:
            raise RuntimeError("HttpFaultProxy: start() it first")
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> HttpFaultProxy:
        """Start its process; the proxy once it listens."""
        ours, theirs = SPAWN.Pipe()
        self._process = SPAWN.Process(
            target=_serve,
            args=(self.upstream_host, self.upstream_port, self.weather, theirs),
            name="http-fault-proxy",
            daemon=True,
        )
        self._process.start()
        theirs.close()
        if not ours.poll(timeout):
            self.stop()
            raise RuntimeError("HttpFaultProxy did not start listening")
        self.port = int(ours.recv())
        return self

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.join(timeout=10)
            self._process = None

    @contextlib.contextmanager
    def faulty(self) -> Iterator[Weather]:
        """Requests inside the block meet the plan's faults (outside it, none)."""
        with self.weather.turned_on() as weather:
            yield weather

    def faults_dealt(self) -> int:
        return self.weather.faults_dealt()


def _serve(host: str, port: int, weather: Weather, ready: Connection) -> None:
    """The proxy's process: listen, say on which port, and forward until terminated."""
    upstream = _Upstream(host, port, weather)
    handler = type("Handler", (_Forwarder,), {"proxy": upstream})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    ready.send(server.server_address[1])
    ready.close()
    server.serve_forever()


class _Upstream:
    """What the forwarder needs of the proxy, in the proxy's process."""

    def __init__(self, host: str, port: int, weather: Weather) -> None:
        self.upstream_host = host
        self.upstream_port = port
        self.weather = weather


class _Forwarder(BaseHTTPRequestHandler):
    proxy: _Upstream
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._handle()

    def do_HEAD(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a test's output is not the place for every request."""

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        fault = self.proxy.weather.draw()
        if fault == Fault.THROTTLED:
            after = self.proxy.weather.plan.retry_after
            self._answer(429, "too many requests (the fault proxy's plan)", after)
            return
        if fault == Fault.UNAVAILABLE:
            self._answer(503, "unavailable for a moment (the fault proxy's plan)")
            return
        self._forward(body)

    def _answer(self, status: int, message: str, retry_after: float | None = None) -> None:
        body = json.dumps({"message": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if retry_after is not None:
            # Whole seconds, as HTTP's Retry-After takes them, never 0 for a wait asked for.
            self.send_header("Retry-After", str(max(1, round(retry_after)) if retry_after else 0))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _forward(self, body: bytes) -> None:
        proxy = self.proxy
        upstream = http.client.HTTPConnection(
            proxy.upstream_host, proxy.upstream_port, timeout=UPSTREAM_TIMEOUT
        )
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            if body or self.command in ("POST", "PUT", "PATCH"):
                headers["Content-Length"] = str(len(body))
            upstream.request(self.command, self.path, body=body or None, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
        except OSError as exc:
            self._answer(502, f"the fault proxy could not reach the service: {exc}")
            return
        finally:
            upstream.close()
        self.send_response(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() not in HOP_BY_HOP:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
