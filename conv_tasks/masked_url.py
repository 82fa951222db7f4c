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
            shown.append(_masked_by_hand(one))
    return ";".join(shown)


def _masked_by_hand(url: str) -> str:
    """A URL the URL parsers refuse, such as libpq's multi-host form
    (`postgresql://user:pw@host1:5432,host2:5433/db`): its password masked and its query
    left out, by its parts; only its scheme if it has no `scheme://`."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return f"{scheme}://(unparsable URL)"
    rest = rest.split("?", 1)[0].split("#", 1)[0]
    netloc, slash, path = rest.partition("/")
    userinfo, at, hosts = netloc.rpartition("@")
    if at:
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:**@{hosts}" if colon else f"{user}@{hosts}"
    return f"{scheme}://{netloc}{slash}{path}"


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
