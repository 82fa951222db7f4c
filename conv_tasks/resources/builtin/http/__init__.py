"""ConvTasks::HTTP::Resource: the plugin (resource.py) and its parts: its URLs and headers
checked (locations), the JSON it sends and reads back (documents), what a status means
(answers), and the one request a step sends (exchange, the only module here that does I/O).

The plugin drives these through the connection's httpx.Client; nothing here knows the
engine, a stack or a connection's secret.
"""

from __future__ import annotations

from conv_tasks.resources.builtin.http.answers import (
    MAX_RESPONSE_BYTES,
    Answer,
    decoded,
    failure,
    retry_after_seconds,
    service_message,
)
from conv_tasks.resources.builtin.http.documents import (
    ID_PATH_PATTERN,
    MISSING,
    found_at,
    masked,
    placed_at,
    projected,
)
from conv_tasks.resources.builtin.http.exchange import send
from conv_tasks.resources.builtin.http.locations import (
    DEFAULT_ITEM_URL,
    headers_problem,
    item_url,
    item_url_problem,
    url_problem,
)
from conv_tasks.resources.builtin.http.resource import HttpResource

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.sdk",)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = [
    "DEFAULT_ITEM_URL",
    "ID_PATH_PATTERN",
    "MAX_RESPONSE_BYTES",
    "MISSING",
    "Answer",
    "HttpResource",
    "decoded",
    "failure",
    "found_at",
    "headers_problem",
    "item_url",
    "item_url_problem",
    "masked",
    "placed_at",
    "projected",
    "retry_after_seconds",
    "send",
    "service_message",
    "url_problem",
]
