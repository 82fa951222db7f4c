"""Redis Sentinel URLs: what `sentinel://h1:p1;sentinel://h2:p2/DB` names (pure, no I/O).

A Sentinel URL lists the sentinels that watch one Redis master; the master's
name is a setting of its own (CONV_TASKS_SENTINEL_MASTER). kombu and Celery
read the database number and the master's password from the *first* URL of
the list only, so `sentinel://a:26379;sentinel://b:26379/2` would silently
mean database 0 to them: `normalised` writes the database and credentials
into every URL of the list, and the settings hand on that form. A password
never appears in a message from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from redis.backoff import NoBackoff
from redis.retry import Retry

SENTINEL_SCHEME = "sentinel"
DEFAULT_SENTINEL_PORT = 26379
MASTER_SETTING = "CONV_TASKS_SENTINEL_MASTER"
PASSWORD_SETTING = "CONV_TASKS_SENTINEL_PASSWORD"
# How long a worker waits on one sentinel before it asks the next (connecting and answering):
# a host that is gone must not hold a node for the TCP timeout of minutes.
SENTINEL_SOCKET_TIMEOUT = 2.0
# How long a command waits for the master's answer before its connection counts as lost (and
# the sentinels are asked again). A master whose host dies closes no connection: without this,
# a worker would wait out TCP's retransmissions (a quarter of an hour) instead of following
# the failover. Far above what any SyncPoint script or publish takes.
MASTER_SOCKET_TIMEOUT = 10.0


def master_socket_options() -> dict[str, Any]:
    """Socket options of the connections to a master found through Sentinel."""
    return {
        "socket_timeout": MASTER_SOCKET_TIMEOUT,
        "socket_connect_timeout": SENTINEL_SOCKET_TIMEOUT,
        "socket_keepalive": True,
    }


@dataclass(frozen=True)
class SentinelUrl:
    """The sentinels of a `sentinel://` URL list, the database and the master's credentials."""

    sentinels: tuple[tuple[str, int], ...]
    db: int = 0
    username: str = ""
    password: str = field(default="", repr=False)

    def url(self) -> str:
        """The list with the database and credentials in every URL of it."""
        auth = ""
        if self.username or self.password:
            auth = f"{quote(self.username, safe='')}:{quote(self.password, safe='')}@"
        return ";".join(
            f"{SENTINEL_SCHEME}://{auth}{_host(host)}:{port}/{self.db}"
            for host, port in self.sentinels
        )

    def addresses(self) -> str:
        """`host:port, host:port`, for messages."""
        return ", ".join(f"{_host(host)}:{port}" for host, port in self.sentinels)


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def is_sentinel(url: str) -> bool:
    """Whether `url` (a whole `;` list) names sentinels rather than one Redis server."""
    return any(part.strip().lower().startswith(f"{SENTINEL_SCHEME}://") for part in url.split(";"))


def _agreed(values: list[str], what: str) -> str:
    given = {value for value in values if value}
    if len(given) > 1:
        raise ValueError(f"its URLs give different {what}s; give it once, or the same in each")
    return given.pop() if given else ""


def parse_sentinel_url(url: str) -> SentinelUrl:
    """The sentinels `url` lists; ValueError saying what is wrong (never showing a password)."""
    sentinels: list[tuple[str, int]] = []
    dbs: list[str] = []
    users: list[str] = []
    passwords: list[str] = []
    for n, raw in enumerate(url.split(";"), start=1):
        part = raw.strip()
        where = f"URL {n} of the list"
        if not part:
            raise ValueError(f"{where} is empty (a stray ';'?)")
        try:
            parts = urlsplit(part)
            port = parts.port
        except ValueError:
            raise ValueError(f"{where} is not a URL (its port must be a number)") from None
        if parts.scheme.lower() != SENTINEL_SCHEME:
            raise ValueError(
                f"{where} has the scheme {parts.scheme or '(none)'!r}: every URL of a sentinel "
                "list must be sentinel://host:port"
            )
        if not parts.hostname:
            raise ValueError(f"{where} names no host (sentinel://host:port)")
        if parts.query or parts.fragment:
            raise ValueError(
                f"{where} has a ?query or #fragment, which a sentinel URL takes none of"
            )
        path = parts.path.strip("/")
        if path and not path.isdigit():
            raise ValueError(f"{where} names the database {path!r}: it must be a number")
        sentinels.append((parts.hostname, port or DEFAULT_SENTINEL_PORT))
        dbs.append(path)
        users.append(unquote(parts.username or ""))
        passwords.append(unquote(parts.password or ""))
    unique = tuple(dict.fromkeys(sentinels))
    return SentinelUrl(
        sentinels=unique,
        db=int(_agreed(dbs, "database") or 0),
        username=_agreed(users, "user name"),
        password=_agreed(passwords, "password"),
    )


def sentinel_kwargs(password: str) -> dict[str, Any]:
    """How redis-py talks to the sentinels themselves (not to the master). No retries: a
    sentinel that does not answer is passed over for the next one of the list at once, not
    asked three more times with backoff (seconds, while the master is being looked for)."""
    found: dict[str, Any] = {
        "socket_timeout": SENTINEL_SOCKET_TIMEOUT,
        "socket_connect_timeout": SENTINEL_SOCKET_TIMEOUT,
        "retry": no_retry(),
    }
    if password:
        found["password"] = password
    return found


def no_retry() -> Retry:
    return Retry(NoBackoff(), 0)


def sentinel_transport_options(url: str, *, master: str, password: str) -> dict[str, Any]:
    """What kombu's Sentinel transport and Celery's Sentinel result backend need beside a
    `sentinel://` URL (master_name, sentinel_kwargs); nothing for any other URL."""
    if not is_sentinel(url):
        return {}
    return {"master_name": master, "sentinel_kwargs": sentinel_kwargs(password)}
