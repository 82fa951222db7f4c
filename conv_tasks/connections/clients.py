"""Ready clients for each kind of connection, made with the secret read where the spec says.

A secret is read when a client is made, never earlier, and never written anywhere: a file
or environment variable that cannot be read fails with a sentence naming the connection
and where it looked, not what it found.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from conv_tasks.connections.specs import (
    CELERY,
    HTTP,
    POSTGRESQL,
    SENTINEL_MASTER_FIELD,
    SENTINEL_PASSWORD_FIELD,
    ConnectionSpec,
)
from conv_tasks.provider_errors import Fatal

# Seconds to wait for a connection to a service before the step counts it as a transient fault.
CONNECT_TIMEOUT = 5.0


def read_secret(spec: ConnectionSpec, environ: Mapping[str, str]) -> str | None:
    """The connection's secret, or None if it has none."""
    source = spec.secret
    if source.file is not None:
        try:
            with open(source.file, encoding="utf-8") as handle:
                return handle.read().rstrip("\r\n")
        except OSError as exc:
            raise Fatal(
                f"connection {spec.name!r}: its secret file {source.file} cannot be read "
                f"({exc.strerror})"
            ) from None
    if source.env is not None:
        value = environ.get(source.env)
        if value is None:
            raise Fatal(
                f"connection {spec.name!r}: the environment variable {source.env} that should "
                "hold its secret is not set"
            )
        return value
    return None


def url_passwords(spec: ConnectionSpec) -> tuple[str, ...]:
    """Passwords written in the connection's URLs. A connections file refuses them (specs.py),
    but the engine's own connection comes from the settings, whose URLs may hold one: it is
    masked like any secret."""
    found: list[str] = []
    sentinels = spec.fields.get(SENTINEL_PASSWORD_FIELD)
    if isinstance(sentinels, str) and sentinels:
        found.append(sentinels)
    for value in spec.fields.values():
        if isinstance(value, str) and "://" in value:
            try:
                password = urlsplit(value).password
            except ValueError:
                continue
            if password:  # as written (percent-encoded) and as the server gets it
                found.extend(dict.fromkeys((password, unquote(password))))
    return tuple(found)


def with_password(url: str, password: str | None) -> str:
    """`url` with `password` in its authority (for clients that take it only there)."""
    if not password:
        return url
    parts = urlsplit(url)
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{host}"
    return urlunsplit(parts._replace(netloc=netloc))


def _postgresql(spec: ConnectionSpec, secret: str | None) -> Any:
    import psycopg

    return psycopg.connect(
        str(spec.fields["url"]),
        password=secret,
        autocommit=True,
        connect_timeout=int(CONNECT_TIMEOUT),
    )


def _http(spec: ConnectionSpec, secret: str | None) -> Any:
    import httpx

    headers = dict(spec.fields.get("headers") or {})
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    return httpx.Client(
        base_url=str(spec.fields["base_url"]),
        headers=headers,
        verify=spec.fields.get("verify", True),
        timeout=httpx.Timeout(float(spec.fields.get("timeout") or 10.0), connect=CONNECT_TIMEOUT),
        follow_redirects=False,
    )


def _celery(spec: ConnectionSpec, secret: str | None) -> Any:
    from celery import Celery

    from conv_tasks.broker.options import broker_options
    from conv_tasks.sentinel_urls import sentinel_transport_options

    broker = with_password(str(spec.fields["broker_url"]), secret)
    backend = spec.fields.get("result_backend")
    app = Celery(f"conv_tasks_connection_{spec.name}")
    master = str(spec.fields.get(SENTINEL_MASTER_FIELD) or "")
    sentinels = str(spec.fields.get(SENTINEL_PASSWORD_FIELD) or "")
    options = broker_options(
        broker, visibility_timeout=3600.0, sentinel_master=master, sentinel_password=sentinels
    )
    app.conf.update(
        broker_url=broker,
        # One connection attempt per step: kombu would otherwise try again for as long as its
        # connect timeout, sleeping 2 s then 4 s, past a step's budget; the engine asks again.
        broker_transport_options={**options.transport_options, "max_retries": 0},
        result_backend=with_password(str(backend), secret) if backend else None,
        result_backend_transport_options=sentinel_transport_options(
            str(backend or ""), master=master, password=sentinels
        ),
        broker_connection_timeout=CONNECT_TIMEOUT,
        broker_connection_retry_on_startup=False,
        # A step reads a task's state from the result backend: it must not wait for long
        # (Celery's own default waits two minutes for a Redis answer).
        redis_socket_connect_timeout=CONNECT_TIMEOUT,
        redis_socket_timeout=CONNECT_TIMEOUT,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
    )
    return app


CLIENT_MAKERS: dict[str, Callable[[ConnectionSpec, str | None], Any]] = {
    POSTGRESQL: _postgresql,
    HTTP: _http,
    CELERY: _celery,
}


def client_alive(kind: str, client: Any) -> bool:
    """Whether a cached client can still be used (a PostgreSQL connection that broke cannot)."""
    if kind == POSTGRESQL:
        return not (client.closed or client.broken)
    return True


def close_client(kind: str, client: Any) -> None:
    """Let go of a client's connections (each kind's client has a close())."""
    client.close()
