"""An idle keep-alive connection outlasts a polling client's pause.

python-heatclient's `--wait` polls events every 5 s on one connection. uvicorn's own keep-alive
is 5 s, so the server closed that connection just as the client sent its next poll, and
`openstack stack delete --wait` failed with "connection reset by peer" (a CI run did)."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

HEATCLIENT_POLL_SECONDS = 5


def _request(sock: socket.socket, host: str, path: str) -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(65536)
        if not chunk:
            break
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
         if line.lower().startswith(b"content-length:")),
        0,
    )  # fmt: skip
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head


def test_an_idle_connection_is_still_open_after_a_heatclient_poll_pause(edge_url: str) -> None:
    where = urlsplit(edge_url)
    host = f"{where.hostname}:{where.port}"
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        first = _request(sock, host, "/healthcheck")
        assert first.startswith(b"HTTP/1.1 200"), first
        time.sleep(HEATCLIENT_POLL_SECONDS + 1.5)
        second = _request(sock, host, "/healthcheck")
        assert second.startswith(b"HTTP/1.1 200"), (
            "the edge closed an idle connection within a polling client's pause"
        )
