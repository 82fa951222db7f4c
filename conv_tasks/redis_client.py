"""The one factory of conv_tasks' own Redis clients, and the start-up check of its sentinels.

Every Redis client conv_tasks opens itself (SyncPoints, heartbeats, connection rate limits,
leases) comes from `redis_client` or, once per URL per process, from `get_redis`: a
`redis://` URL gives a plain client, a `sentinel://` list a client of redis-py's Sentinel
support, which asks the sentinels where the master is and asks again when it fails over
(no failover logic of our own). The broker and the result backend are Celery's and kombu's
clients; conv_tasks.sentinel_urls gives them the same master name.

`check_sentinels` is the only code here that talks to a server on purpose: a worker and beat
run it as they start, so that a wrong master name or sentinels nobody can reach stop the
process with one line naming the setting, instead of leaving it retrying forever.
"""

from __future__ import annotations

import os

import redis
from redis.sentinel import Sentinel

from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.sentinel_urls import (
    MASTER_SETTING,
    PASSWORD_SETTING,
    SENTINEL_SOCKET_TIMEOUT,
    SentinelUrl,
    is_sentinel,
    master_socket_options,
    no_retry,
    parse_sentinel_url,
    sentinel_kwargs,
)
from conv_tasks.settings import Settings, get_settings

# redis-py pings a connection idle this long before using it again.
HEALTH_CHECK_INTERVAL = 30

_clients: dict[tuple[str, str, int], redis.Redis] = {}


def redis_client(
    url: str, *, sentinel_master: str = "", sentinel_password: str = ""
) -> redis.Redis:
    """A new client for `url`: a Redis server, or the master that the sentinels of a
    `sentinel://` list name `sentinel_master`. Connects on first use, not here."""
    if not is_sentinel(url):
        return redis.Redis.from_url(url, health_check_interval=HEALTH_CHECK_INTERVAL)
    if not sentinel_master:
        raise InvalidInput(
            [Problem(MASTER_SETTING, "must name the Redis master the sentinels watch")],
            what="configuration",
        )
    parsed = parse_sentinel_url(url)
    sentinel = Sentinel(list(parsed.sentinels), sentinel_kwargs=sentinel_kwargs(sentinel_password))
    return sentinel.master_for(
        sentinel_master,
        db=parsed.db,
        username=parsed.username or None,
        password=parsed.password or None,
        health_check_interval=HEALTH_CHECK_INTERVAL,
        **master_socket_options(),
    )


def get_redis(url: str | None = None, *, settings: Settings | None = None) -> redis.Redis:
    """The process's client for `url` (default: the SyncPoint Redis, CONV_TASKS_REDIS_URL), with
    the Sentinel settings of `settings` (default: the process's). One per URL and process: a
    forked pool child makes its own."""
    settings = settings or get_settings()
    url = url or settings.redis_url
    key = (url, settings.sentinel_master, os.getpid())
    client = _clients.get(key)
    if client is None:
        client = redis_client(
            url,
            sentinel_master=settings.sentinel_master,
            sentinel_password=settings.sentinel_password,
        )
        _clients[key] = client
    return client


# The settings that may hold a sentinel:// list, in the order a start-up check reports them.
URL_SETTINGS = ("CONV_TASKS_REDIS_URL", "CONV_TASKS_BROKER_URL", "CONV_TASKS_RESULT_BACKEND")


def check_sentinels(settings: Settings) -> None:
    """Ask the sentinels of every sentinel:// setting whether they watch the configured master.
    InvalidInput with one problem, naming the setting to fix, when none of a list's sentinels
    answers, when they refuse CONV_TASKS_SENTINEL_PASSWORD, or when none of them watches a
    master of that name. Sentinels that do not answer while others do are no misconfiguration
    (that is what several are for)."""
    urls = dict(
        zip(
            URL_SETTINGS,
            (settings.redis_url, settings.broker_url, settings.result_backend),
            strict=True,
        )
    )
    checked: set[str] = set()
    for name, url in urls.items():
        if not is_sentinel(url) or url in checked:
            continue
        checked.add(url)
        problem = _sentinel_problem(
            name, parse_sentinel_url(url), settings.sentinel_master, settings.sentinel_password
        )
        if problem is not None:
            raise InvalidInput([problem], what="configuration")


def _sentinel_problem(name: str, parsed: SentinelUrl, master: str, password: str) -> Problem | None:
    known: set[str] = set()
    unreachable: list[str] = []
    answered = False
    for host, port in parsed.sentinels:
        client = redis.Redis(
            host=host,
            port=port,
            password=password or None,
            socket_timeout=SENTINEL_SOCKET_TIMEOUT,
            socket_connect_timeout=SENTINEL_SOCKET_TIMEOUT,
            retry=no_retry(),
        )
        try:
            masters = client.sentinel_masters()
        except redis.exceptions.AuthenticationError:
            return Problem(
                PASSWORD_SETTING,
                f"the sentinel at {host}:{port} ({name}) refuses it"
                if password
                else f"is not set, and the sentinel at {host}:{port} ({name}) asks for a password",
            )
        except redis.exceptions.ResponseError as exc:
            return Problem(
                name, f"{host}:{port} does not answer as a sentinel ({str(exc).splitlines()[0]})"
            )
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
            unreachable.append(f"{host}:{port}")
            continue
        finally:
            client.close()
        answered = True
        known.update(str(found) for found in masters)
        if master in masters:
            return None
    if not answered:
        return Problem(name, f"none of its sentinels answers ({', '.join(unreachable)})")
    watched = ", ".join(repr(found) for found in sorted(known)) or "none"
    return Problem(
        MASTER_SETTING,
        f"no sentinel of {name} ({parsed.addresses()}) watches a master named {master!r}; "
        f"they watch: {watched}",
    )
