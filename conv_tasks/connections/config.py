"""The connections file: which named connections every tenant has, and each tenant's own.

```yaml
default:                     # every tenant's
  ops-db: {kind: postgresql, url: "postgresql://admin@db.internal:5432/postgres",
           password_file: /run/secrets/ops-db, rate_limit: {in_flight: 4}}
tenants:
  acme:                      # acme's own: win over default's of the same name
    billing-api: {kind: http, base_url: "https://billing.acme.example/v1",
                  bearer_token_env: ACME_BILLING_TOKEN}
```

Parsing is pure: a file that does not parse, or any connection that is wrong, refuses the
whole file with every problem named by its path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import yaml

from conv_tasks.connections.specs import (
    CELERY,
    SENTINEL_MASTER_FIELD,
    SENTINEL_PASSWORD_FIELD,
    ConnectionSpec,
    parse_spec,
)
from conv_tasks.errors import InvalidInput, Problem


@dataclass(frozen=True)
class ConnectionsConfig:
    default: Mapping[str, ConnectionSpec] = field(default_factory=dict)
    tenants: Mapping[str, Mapping[str, ConnectionSpec]] = field(default_factory=dict)

    def lookup(self, tenant: str | None, name: str) -> ConnectionSpec | None:
        """The connection `name` as `tenant` has it: its own, else every tenant's."""
        own = self.tenants.get(tenant or "", {})
        return own.get(name) or self.default.get(name)

    def names(self, tenant: str | None) -> list[str]:
        return sorted({*self.default, *self.tenants.get(tenant or "", {})})


EMPTY = ConnectionsConfig()

# What the engine's own connections are called in messages.
OWN_NAME = "conv_tasks"


def own_connections(
    broker_url: str, result_backend: str, *, sentinel_master: str = "", sentinel_password: str = ""
) -> dict[str, ConnectionSpec]:
    """The engine's own connections, by kind, for resources that name none: for celery,
    conv_tasks' own broker and result backend (CONV_TASKS_BROKER_URL,
    CONV_TASKS_RESULT_BACKEND), and, for sentinel:// lists, the master's name and the
    sentinels' password (CONV_TASKS_SENTINEL_*). Their URLs may hold passwords: those, and
    the sentinels' password, are masked as secrets."""
    fields = {"broker_url": broker_url}
    if result_backend:
        fields["result_backend"] = result_backend
    if sentinel_master:
        fields[SENTINEL_MASTER_FIELD] = sentinel_master
    if sentinel_password:
        fields[SENTINEL_PASSWORD_FIELD] = sentinel_password
    return {CELERY: ConnectionSpec(OWN_NAME, CELERY, fields)}


def parse_connections(text: str, *, source: str = "connections file") -> ConnectionsConfig:
    """The connections `text` (YAML) defines; InvalidInput naming every problem."""
    try:
        raw = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{source} is not YAML: {exc}", what="connections") from None
    problems: list[Problem] = []
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise InvalidInput("the connections file must be a mapping", what="connections")
    for key in sorted(set(raw) - {"default", "tenants"}):
        problems.append(Problem(str(key), "is not a section (default, tenants)"))
    default = _section(raw.get("default"), "default", problems)
    tenants: dict[str, dict[str, ConnectionSpec]] = {}
    given = raw.get("tenants") or {}
    if not isinstance(given, Mapping):
        problems.append(Problem("tenants", "must map tenants to their connections"))
        given = {}
    for tenant, section in given.items():
        tenants[str(tenant)] = _section(section, f"tenants.{tenant}", problems)
    if problems:
        raise InvalidInput(problems, what=source)
    return ConnectionsConfig(default, tenants)


def _section(raw: object, path: str, problems: list[Problem]) -> dict[str, ConnectionSpec]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "must map connection names to connections"))
        return {}
    found: dict[str, ConnectionSpec] = {}
    for name, body in raw.items():
        spec = parse_spec(str(name), body, f"{path}.{name}", problems)
        if spec is not None:
            found[str(name)] = spec
    return found


def load_connections(path: str) -> ConnectionsConfig:
    """The connections in the file at `path` (EMPTY for no path)."""
    if not path:
        return EMPTY
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise InvalidInput(
            f"CONV_TASKS_CONNECTIONS: cannot read {path}: {exc.strerror}", what="configuration"
        ) from None
    return parse_connections(text, source=path)
