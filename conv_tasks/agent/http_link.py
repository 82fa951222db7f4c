"""The agent's line to the engine over HTTP: the edge (`conv-tasks api serve`), no broker.

A server's host holds one thing: its server's credential. The edge relays two requests to the
public tasks the broker link sends, authenticated by that credential alone (no tenant's
token): whoever holds it may read that server's deployments and signal them, nothing else.

    GET  {url}/agent/v1/servers/{server}/deployments      X-Auth-Token: credential
         -> the answer of conv_tasks.deployment.metadata
    POST {url}/agent/v1/deployments/{deployment}/signal   X-Auth-Token: credential
         {"action": ..., "details": {...}}
         -> the answer of conv_tasks.deployment.signal

A 2xx carries the task's JSON answer as the broker link gets it. A refusal is a 4xx with
Heat's fault body; its status says what kind (401/403 not_authorized, 404 not_found, 409
conflict, other 4xx invalid) and its message comes along. No answer, a 5xx or a body that is
not JSON raise ServerUnreachable: the agent tries again on its next poll. The credential
travels in a header only, never in a URL (which proxies log), and is never logged here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

import httpx

from conv_tasks.agent.link import NOT_AUTHORIZED, Answer, ServerUnreachable

AGENT_PREFIX = "/agent/v1"
# A refusal's kind, by status, where its body does not say.
_KINDS = {401: NOT_AUTHORIZED, 403: NOT_AUTHORIZED, 404: "not_found", 409: "conflict"}


def edge_url(url: str) -> str:
    """`url` checked as an edge's base URL (http or https, with a host); ValueError saying
    what is wrong."""
    parsed = httpx.URL(url)
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    if parsed.query or parsed.fragment:
        raise ValueError(f"{url!r} has a query or a fragment: give the edge's base URL")
    return url.rstrip("/")


class HttpServerLink:
    """The engine through the edge at `url`, each request waited for at most `timeout` s."""

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 30.0,
        client_factory: Callable[[float], httpx.Client] | None = None,
    ) -> None:
        self.url = edge_url(url)
        self.timeout = timeout
        self._client_factory = client_factory or _client
        self._client: httpx.Client | None = None

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = self._client_factory(self.timeout)
        return self._client

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def fetch(self, server: str, credential: str) -> Answer:
        path = f"{AGENT_PREFIX}/servers/{quote(server, safe='')}/deployments"
        return self._call("GET", path, credential)

    def signal(
        self, deployment: str, credential: str, action: str, details: Mapping[str, Any]
    ) -> Answer:
        path = f"{AGENT_PREFIX}/deployments/{quote(deployment, safe='')}/signal"
        return self._call("POST", path, credential, {"action": action, "details": dict(details)})

    def _call(
        self, method: str, path: str, credential: str, body: Mapping[str, Any] | None = None
    ) -> Answer:
        what = f"{method} {path}"
        try:
            response = self.client.request(
                method,
                self.url + path,
                headers={"X-Auth-Token": credential, "Accept": "application/json"},
                json=body,
            )
        except httpx.HTTPError as exc:
            self.close()  # a fresh connection for the next poll
            raise ServerUnreachable(f"{what}: {type(exc).__name__}: {_first_line(exc)}") from None
        if response.status_code >= 500:
            raise ServerUnreachable(f"{what}: the edge answered {response.status_code}")
        try:
            answer = response.json()
        except ValueError:
            raise ServerUnreachable(
                f"{what}: the edge answered {response.status_code} without JSON"
            ) from None
        if response.is_success:
            return Answer.from_result(answer)
        return refusal(response.status_code, answer)


def refusal(status: int, body: Any) -> Answer:
    """The Answer of a 4xx with Heat's fault body (or any JSON)."""
    error = body.get("error") if isinstance(body, Mapping) else None
    message = ""
    if isinstance(error, Mapping):
        message = str(error.get("message") or "")
    if not message and isinstance(body, Mapping):
        message = str(body.get("explanation") or body.get("title") or "")
    kind = _KINDS.get(status, "invalid")
    return Answer(False, error=kind, message=message or f"the edge answered {status}", data={})


def _client(timeout: float) -> httpx.Client:
    # trust_env: a host behind a proxy reaches the edge through it, as curl would.
    return httpx.Client(timeout=timeout, follow_redirects=False)


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [""])[0]
