"""A service's URL as conv_tasks may show it: the password masked, the query left out.

Every message that names the broker, the result store, PostgreSQL or the
SyncPoint Redis (the CLI's one-line failures, a worker's "unavailable"
answer, a log line) shows the URL through here, never as configured.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from kombu.utils.url import maybe_sanitize_url


def masked(url: str) -> str:
    """`url` with its password as `**` (`redis://:**@host:6379/0`) and no query string,
    which may hold a password too (`?password=...`). Sentinel's `;`-separated lists are masked
    one URL at a time; what cannot be parsed shows only its scheme."""
    shown = []
    for one in url.split(";"):
        try:
            shown.append(str(maybe_sanitize_url(one)))
        except ValueError:
            shown.append(f"{one.split('://', 1)[0]}://(unparsable URL)")
    return ";".join(shown)


def scrubbed(text: str, url: str) -> str:
    """`text` (an error's message) with the password of `url` masked wherever it appears."""
    for one in url.split(";"):
        try:
            password = urlsplit(one).password
        except ValueError:
            continue
        for secret in {password, unquote(password or "")}:
            if secret:
                text = text.replace(secret, "**")
    return text
