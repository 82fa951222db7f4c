"""What a named connection is: its kind and that kind's fields, checked. Pure.

A connections file (CONV_TASKS_CONNECTIONS) maps names to connections, for every tenant
(`default:`) or per tenant (`tenants: {tenant: {name: ...}}`, which wins). A connection is
a `kind` plus that kind's fields; its secret is never in the file, only where to read it
(`password_file`/`password_env`, `bearer_token_file`/`bearer_token_env`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from conv_tasks.errors import Problem
from conv_tasks.sdk import CONNECTION_KINDS

POSTGRESQL, HTTP, CELERY = CONNECTION_KINDS
KINDS = CONNECTION_KINDS

_SCHEMES = {
    POSTGRESQL: ("postgresql", "postgres"),
    HTTP: ("http", "https"),
    CELERY: ("redis", "rediss", "amqp", "amqps", "pyamqp"),
}


@dataclass(frozen=True)
class RateLimit:
    """How hard conv_tasks may use the connection, across every worker."""

    per_second: float | None = None  # steps (requests) per second
    in_flight: int | None = None  # actions under way at once


@dataclass(frozen=True)
class SecretSource:
    """Where a connection's secret is read: a file, or an environment variable."""

    file: str | None = None
    env: str | None = None


@dataclass(frozen=True)
class ConnectionSpec:
    """One named connection: its kind, its fields (no secret), where its secret is."""

    name: str
    kind: str
    fields: Mapping[str, Any]
    secret: SecretSource = field(default_factory=SecretSource)
    limit: RateLimit = field(default_factory=RateLimit)


def parse_spec(name: str, raw: object, path: str, problems: list[Problem]) -> ConnectionSpec | None:
    """The connection `raw` describes, or None with its problems noted (under `path`)."""
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "must be a mapping with a `kind`"))
        return None
    kind = raw.get("kind")
    if kind not in KINDS:
        problems.append(Problem(f"{path}.kind", f"must be one of {', '.join(KINDS)}, got {kind!r}"))
        return None
    known = {"kind", "rate_limit", *_FIELDS[kind], *_SECRETS[kind]}
    for key in sorted(set(raw) - known):
        problems.append(Problem(f"{path}.{key}", f"is not a field of a {kind} connection"))
    fields = {key: raw[key] for key in _FIELDS[kind] if key in raw}
    _check_fields(kind, fields, path, problems)
    secret = _secret_source(kind, raw, path, problems)
    limit = _rate_limit(raw.get("rate_limit"), f"{path}.rate_limit", problems)
    return ConnectionSpec(name, kind, fields, secret, limit)


# Each kind's fields (besides kind, rate_limit and where its secret is).
_FIELDS: dict[str, tuple[str, ...]] = {
    POSTGRESQL: ("url",),
    HTTP: ("base_url", "headers", "verify", "timeout"),
    CELERY: ("broker_url", "result_backend"),
}
_SECRETS: dict[str, tuple[str, str]] = {
    POSTGRESQL: ("password_file", "password_env"),
    HTTP: ("bearer_token_file", "bearer_token_env"),
    CELERY: ("password_file", "password_env"),
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    POSTGRESQL: ("url",),
    HTTP: ("base_url",),
    CELERY: ("broker_url",),
}
_URL_FIELDS = {"url", "base_url", "broker_url", "result_backend"}
# Fields of the engine's own celery connection only (config.own_connections), never of a
# connections file's: the Sentinel settings of conv_tasks' own broker and results.
SENTINEL_MASTER_FIELD = "sentinel_master"
SENTINEL_PASSWORD_FIELD = "sentinel_password"


def _check_fields(kind: str, fields: Mapping[str, Any], path: str, problems: list[Problem]) -> None:
    for key in _REQUIRED[kind]:
        if key not in fields:
            problems.append(Problem(f"{path}.{key}", f"is required for a {kind} connection"))
    for key, value in fields.items():
        where = f"{path}.{key}"
        if key in _URL_FIELDS:
            _check_url(kind, key, value, where, problems)
        elif key == "headers":
            ok = isinstance(value, Mapping) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            )
            if not ok:
                problems.append(Problem(where, "must map header names to strings"))
        elif key == "verify" and not isinstance(value, bool | str):
            problems.append(Problem(where, "must be true, false or the path of a CA bundle"))
        elif key == "timeout" and (
            isinstance(value, bool) or not isinstance(value, int | float) or value <= 0
        ):
            problems.append(Problem(where, "must be a number of seconds greater than zero"))


def _check_url(kind: str, key: str, value: object, where: str, problems: list[Problem]) -> None:
    if not isinstance(value, str) or "://" not in value:
        problems.append(Problem(where, f"must be a URL, got {value!r}"))
        return
    parts = urlsplit(value)
    schemes = (*_SCHEMES[kind], "redis", "rediss") if key == "result_backend" else _SCHEMES[kind]
    if parts.scheme not in schemes:
        problems.append(
            Problem(where, f"scheme {parts.scheme!r} is not allowed: use {', '.join(schemes)}")
        )
    if parts.password:
        problems.append(
            Problem(
                where,
                "holds a password: put it in a file or an environment variable and "
                "name it with password_file or password_env",
            )
        )


def _secret_source(
    kind: str, raw: Mapping[str, Any], path: str, problems: list[Problem]
) -> SecretSource:
    file_key, env_key = _SECRETS[kind]
    file, env = raw.get(file_key), raw.get(env_key)
    for key, value in ((file_key, file), (env_key, env)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            problems.append(Problem(f"{path}.{key}", "must be a non-empty string"))
    if file is not None and env is not None:
        problems.append(Problem(path, f"give {file_key} or {env_key}, not both"))
    return SecretSource(
        file if isinstance(file, str) else None, env if isinstance(env, str) else None
    )


def _rate_limit(raw: object, path: str, problems: list[Problem]) -> RateLimit:
    if raw is None:
        return RateLimit()
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "must be a mapping of per_second and in_flight"))
        return RateLimit()
    for key in sorted(set(raw) - {"per_second", "in_flight"}):
        problems.append(Problem(f"{path}.{key}", "is not a rate limit (per_second, in_flight)"))
    per_second, in_flight = raw.get("per_second"), raw.get("in_flight")
    if per_second is not None and (
        isinstance(per_second, bool) or not isinstance(per_second, int | float) or per_second <= 0
    ):
        problems.append(Problem(f"{path}.per_second", "must be a number greater than zero"))
        per_second = None
    if in_flight is not None and (
        isinstance(in_flight, bool) or not isinstance(in_flight, int) or in_flight < 1
    ):
        problems.append(Problem(f"{path}.in_flight", "must be a whole number of at least 1"))
        in_flight = None
    return RateLimit(
        float(per_second) if per_second is not None else None,
        int(in_flight) if in_flight is not None else None,
    )
