"""Where a ConvTasks::HTTP::Resource sends its requests: its collection and item URLs, and
its own headers, checked. Pure.

With a connection, `url` and `item_url` are paths under the connection's base_url: an
absolute URL would take the connection's credentials to another host, so it is refused.
Without one, they are absolute http or https URLs. Any other scheme (file:, ftp:, gopher:)
is refused: when the template is loaded for a value written out, when the action runs for
one computed from another resource.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

SCHEMES = ("http", "https")
# The placeholders of item_url.
URL, ID = "{url}", "{id}"
DEFAULT_ITEM_URL = f"{URL}/{ID}"
# RFC 9110's token: what a header name may be made of.
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# Headers a resource may not set: conv_tasks sends them (the action's token).
ENGINE_HEADERS = frozenset({"idempotency-key"})


def url_problem(value: object, *, connected: bool) -> str | None:
    """Why `value` cannot be a URL of a resource with (connected) or without a connection,
    as a sentence; None if it can."""
    if not isinstance(value, str) or not value.strip():
        return f"must be a URL, got {value!r}"
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in value):
        return "must not hold spaces or control characters"
    parts = urlsplit(value)
    if parts.scheme and parts.scheme.lower() not in SCHEMES:
        return f"scheme {parts.scheme!r} is not allowed: use http or https"
    if connected:
        if parts.scheme or parts.netloc:
            return (
                "must be a path under the connection's base_url: an absolute URL would take "
                "the connection's credentials to another host"
            )
        return None
    if not parts.scheme or not parts.hostname:
        return (
            f"must be an absolute http or https URL, got {value!r} (or name a connection, "
            "whose base_url a path is under)"
        )
    if parts.username is not None or parts.password is not None:
        return "holds credentials: put them in a connection (bearer_token_file or _env)"
    return None


def item_url(template: str, collection: str, object_id: Any) -> str:
    """The URL of the object `object_id`: `template` with {url} the collection's URL (without
    a trailing slash) and {id} the id, escaped as one path segment."""
    return template.replace(URL, collection.rstrip("/")).replace(ID, quote(str(object_id), safe=""))


def item_url_problem(template: object, *, connected: bool) -> str | None:
    """Why `template` cannot be an item_url, as a sentence; None if it can. Its {url} is
    checked where it is `url`; here it stands for a URL that passes."""
    if not isinstance(template, str) or not template.strip():
        return f"must be a URL or a template of one ({DEFAULT_ITEM_URL}), got {template!r}"
    if ID not in template:
        return f"must hold {ID}, where the object's id goes"
    stand_in = "items" if connected else "http://service.example/items"
    return url_problem(item_url(template, stand_in, "1"), connected=connected)


def headers_problem(value: object) -> str | None:
    """Why `value` cannot be a resource's own headers, as a sentence; None if it can."""
    if not isinstance(value, Mapping):
        return f"must map header names to strings, got {type(value).__name__}"
    for name, text in value.items():
        if not isinstance(name, str) or not _HEADER_NAME.fullmatch(name):
            return f"{name!r} is not a header name"
        if name.lower() in ENGINE_HEADERS:
            return f"{name} is sent by conv_tasks itself (the action's token)"
        if not isinstance(text, str) or any(c in text for c in "\r\n\0"):
            return f"header {name} must be a string on one line"
    return None
