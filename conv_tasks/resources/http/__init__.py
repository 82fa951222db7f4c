"""ConvTasks::HTTP::Resource, the parts that are not the plugin: its URLs and headers checked
(locations), the JSON it sends and reads back (documents), what a status means (answers),
and the one request a step sends (exchange, the only module here that does I/O).

The plugin (conv_tasks.resources.builtin.http_resource) drives these; nothing here knows
the engine, a stack or a connection's secret.
"""

from __future__ import annotations

from conv_tasks.resources.http.answers import (
    MAX_RESPONSE_BYTES,
    Answer,
    decoded,
    failure,
    retry_after_seconds,
    service_message,
)
from conv_tasks.resources.http.documents import (
    ID_PATH_PATTERN,
    MISSING,
    found_at,
    masked,
    placed_at,
    projected,
)
from conv_tasks.resources.http.exchange import send
from conv_tasks.resources.http.locations import (
    DEFAULT_ITEM_URL,
    headers_problem,
    item_url,
    item_url_problem,
    url_problem,
)

__all__ = [
    "DEFAULT_ITEM_URL",
    "ID_PATH_PATTERN",
    "MAX_RESPONSE_BYTES",
    "MISSING",
    "Answer",
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
