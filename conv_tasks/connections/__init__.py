"""Connections: credentials by reference, for the resource types that act on real services.

A connection is defined outside templates, in the YAML file CONV_TASKS_CONNECTIONS names
(config.py), as a kind (postgresql, http, celery) and that kind's fields, its secret read
from a file or an environment variable (specs.py). Templates only name it. The engine
checks the name when it loads a template, and hands actions a ready client cached per
worker process (service.py), within the connection's rate limits held in Redis
(limits.py). A resource whose type's `connection` is optional may name none: it then acts
through the engine's own connection of that kind (own_connections: conv_tasks' own
broker). A connection's secret never reaches a template, an event, a log, a task event or
an output. This folder never imports the engine.
"""

from conv_tasks.connections.clients import read_secret
from conv_tasks.connections.config import (
    EMPTY,
    OWN_NAME,
    ConnectionsConfig,
    load_connections,
    own_connections,
    parse_connections,
)
from conv_tasks.connections.limits import RateLimiter
from conv_tasks.connections.service import ConnectionHandle, Connections
from conv_tasks.connections.specs import CELERY, HTTP, KINDS, POSTGRESQL, ConnectionSpec, RateLimit

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.broker",
    "conv_tasks.errors",
    "conv_tasks.provider_errors",
    "conv_tasks.sdk",
    "conv_tasks.sentinel_urls",
)
MUST_NOT_IMPORT = ("conv_tasks.db", "conv_tasks.engine", "conv_tasks.tasks", "sqlalchemy")

__all__ = [
    "CELERY",
    "EMPTY",
    "HTTP",
    "KINDS",
    "OWN_NAME",
    "POSTGRESQL",
    "ConnectionHandle",
    "ConnectionSpec",
    "Connections",
    "ConnectionsConfig",
    "RateLimit",
    "RateLimiter",
    "load_connections",
    "own_connections",
    "parse_connections",
    "read_secret",
]
