"""The connections of this engine: which a tenant may use, ready clients cached per worker
process, and their rate limits.

A resource type declares the kind of connection it needs (`ResourceType.connection_kind`);
a template names one in the resource's `connection` property. The engine checks the name
when it loads the template, and hands each step of an action a ConnectionHandle whose
`client` is made on first use and kept for the process (a broken one is made again).

A type whose `connection` property is optional acts, when a resource names none, through
the engine's own connection of its kind, if it has one (`own`: for celery, conv_tasks' own
broker and result backend, from the settings).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.connections.clients import (
    CLIENT_MAKERS,
    client_alive,
    close_client,
    read_secret,
    url_passwords,
)
from conv_tasks.connections.config import EMPTY, ConnectionsConfig
from conv_tasks.connections.limits import FLIGHT_RETRY, RateLimiter
from conv_tasks.connections.specs import ConnectionSpec
from conv_tasks.provider_errors import Fatal


@dataclass
class _Made:
    kind: str
    client: Any
    secrets: tuple[str, ...]


@dataclass
class ConnectionHandle:
    """One resource's connection, as one step of its action uses it."""

    name: str
    kind: str
    tenant: str
    spec: ConnectionSpec | None  # None: the name is not a connection of this kind (`problem`)
    service: Connections = field(repr=False)
    resource: str = ""
    problem: str | None = None
    # The engine's own connection of this kind (the resource named none), shared by tenants.
    own: bool = False

    @property
    def client(self) -> Any:
        """The ready client (a psycopg connection, an httpx.Client, a Celery app); Fatal,
        naming the resource and the connection, if there is none."""
        if self.spec is None:
            raise Fatal(
                f"Resource {self.resource}: property connection {self.problem}.",
                resource=self.resource,
            )
        return self.service.made(self._owner, self.spec).client

    def secrets(self) -> tuple[str, ...]:
        """The secret values to mask in anything shown about this connection."""
        return () if self.spec is None else self.service.secrets_of(self._owner, self.spec)

    @property
    def _owner(self) -> str | None:
        """Whose client this is: the tenant's, or (None) the engine's own."""
        return None if self.own else self.tenant

    @property
    def scope(self) -> str:
        return f"{self.tenant}:{self.name}"

    def admit(self, token: str, *, starting: bool) -> float:
        """Seconds the action `token` must wait before this step (0: go now)."""
        limiter = self.service.limiter
        if limiter is None or self.spec is None:
            return 0.0
        limit = self.spec.limit
        if limit.in_flight is not None and not limiter.hold(self.scope, token, limit.in_flight):
            return FLIGHT_RETRY
        if limit.per_second is not None:
            return limiter.take_step(self.scope, limit.per_second)
        return 0.0

    def release(self, token: str) -> None:
        """The action `token` ended: free its slot in flight."""
        limiter = self.service.limiter
        if limiter is not None and self.spec is not None and self.spec.limit.in_flight is not None:
            limiter.let_go(self.scope, token)


class Connections:
    """The named connections of the connections file, for every tenant."""

    def __init__(
        self,
        config: ConnectionsConfig = EMPTY,
        *,
        environ: Mapping[str, str] | None = None,
        limiter: RateLimiter | None = None,
        own: Mapping[str, ConnectionSpec] | None = None,
    ) -> None:
        self.config = config
        self.limiter = limiter
        # kind -> the engine's own connection of that kind (config.own_connections).
        self.own = dict(own or {})
        self._environ = dict(environ or {})
        self._made: dict[tuple[int, str | None, str], _Made] = {}

    def problem(self, tenant: str | None, name: object, kind: str) -> str | None:
        """Why `name` is not a connection of `kind` the tenant has, as a sentence; None if it is."""
        if not isinstance(name, str) or not name:
            return f"must name a {kind} connection, got {name!r}"
        spec = self.config.lookup(tenant, name)
        if spec is None:
            known = self.config.names(tenant)
            listed = f" (it has: {', '.join(known)})" if known else " (it has none)"
            return f"names connection {name!r}, which this tenant does not have{listed}"
        if spec.kind != kind:
            return f"names connection {name!r}, a {spec.kind} connection; it needs a {kind} one"
        return None

    def handle(self, tenant: str, name: object, kind: str, resource: str) -> ConnectionHandle:
        """The connection `name` of `kind` for the tenant's resource. If there is none, the
        handle says why, and using its client fails the action with that reason."""
        problem = self.problem(tenant, name, kind)
        spec = None if problem is not None else self.config.lookup(tenant, str(name))
        return ConnectionHandle(str(name), kind, tenant, spec, self, resource, problem)

    def own_handle(self, tenant: str, kind: str, resource: str) -> ConnectionHandle | None:
        """The engine's own connection of `kind`, for a resource that names none (None: the
        engine has none of that kind)."""
        spec = self.own.get(kind)
        if spec is None:
            return None
        return ConnectionHandle(spec.name, kind, tenant, spec, self, resource, own=True)

    def _key(self, owner: str | None, spec: ConnectionSpec) -> tuple[int, str | None, str]:
        # Per process: a client made before a fork is never shared with the child. The
        # engine's own (owner None) never shares a client with a tenant's of the same name.
        return (os.getpid(), owner, spec.name)

    def made(self, owner: str | None, spec: ConnectionSpec) -> _Made:
        """The ready client of `spec` for the tenant `owner` (None: the engine's own)."""
        key = self._key(owner, spec)
        held = self._made.get(key)
        if held is not None and client_alive(spec.kind, held.client):
            return held
        secret = read_secret(spec, self._environ)
        secrets = tuple(s for s in (secret, *url_passwords(spec)) if s)
        held = _Made(spec.kind, CLIENT_MAKERS[spec.kind](spec, secret), secrets)
        self._made[key] = held
        return held

    def secrets_of(self, owner: str | None, spec: ConnectionSpec) -> tuple[str, ...]:
        held = self._made.get(self._key(owner, spec))
        return held.secrets if held is not None else url_passwords(spec)

    def close(self) -> None:
        """Close every client this process made."""
        for (pid, _tenant, _name), held in list(self._made.items()):
            if pid == os.getpid():
                close_client(held.kind, held.client)
        self._made.clear()
