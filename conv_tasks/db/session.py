"""Engines, sessions and node connections for the database named by the settings.

Two engines per database URL per process. Sessions (stack operations, reads)
run ordinary transactions on a pool that pings a connection before lending
it. Graph nodes use the other: autocommit, no ping, one connection per node
delivery, so that each repository statement of a node is exactly one round
trip; a connection that dropped fails that statement, and the node is
retried. Celery's prefork pool forks after import, so engines are created
lazily and disposed in a child that inherited them (see `reset_after_fork`).

The driver is psycopg 3, whatever driver a URL names: it prepares a
statement on the server once a connection has run it a few times, and node
connections ask PostgreSQL for generic plans, so that a node's statements
are planned once per connection rather than on every execution (planning
was most of their cost).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, unquote, urlsplit

from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from conv_tasks.settings import get_settings

_engines: dict[tuple[str, int, bool], Engine] = {}
_factories: dict[Engine, sessionmaker[Session]] = {}
_statement_count = 0


def statement_count() -> int:
    """How many SQL statements this process has sent (for benchmarks)."""
    return _statement_count


def count_statement(*_args: object, **_kwargs: object) -> None:
    """Count one statement sent (an engine event, or a node statement run on the driver's
    connection, which SQLAlchemy does not see)."""
    global _statement_count
    _statement_count += 1


# URL schemes that name PostgreSQL, with or without a driver; all are served by psycopg 3.
_POSTGRES_SCHEMES = frozenset(
    {"postgres", "postgresql", "postgresql+psycopg2", "postgresql+psycopg"}
)
DRIVER = "postgresql+psycopg"


def database_url(url: str | URL) -> URL:
    """`url` parsed. A primary and its standbys may be named in either of libpq's multi-host
    forms: `postgresql://user@host1:5432,host2:5433/db?target_session_attrs=read-write`, or
    `postgresql://user@/db?host=host1,host2&port=5432,5433&target_session_attrs=read-write`
    (also `?host=host1:5432&host=host2:5433`). The first becomes the third, which SQLAlchemy
    reads; libpq tries the hosts in order and keeps the one `target_session_attrs` asks for."""
    if isinstance(url, URL):
        return url
    scheme, sep, rest = url.partition("://")
    netloc = rest.split("/", 1)[0].split("?", 1)[0]
    userinfo, at, hosts = netloc.rpartition("@")
    if not sep or "," not in hosts:
        return make_url(url)
    parts = urlsplit(url)
    listed = tuple(host.strip() for host in hosts.split(","))
    if not all(listed):
        raise ValueError(f"the database URL lists an empty host in {hosts!r}")
    query: dict[str, str | tuple[str, ...]] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in ("host", "port", "hostaddr"):
            raise ValueError(
                f"the database URL names its hosts twice: in {hosts!r} and in its {name!r} "
                "query parameter; name them in one of the two"
            )
        query[name] = value
    query["host"] = listed
    user, _, password = userinfo.partition(":") if at else ("", "", "")
    return URL.create(
        scheme,
        username=unquote(user) or None,
        password=unquote(password) or None,
        database=unquote(parts.path.lstrip("/")) or None,
        query=query,
    )


def driver_url(url: str | URL) -> URL:
    """`url` with conv_tasks' driver; any other database is refused by name."""
    parsed = database_url(url)
    if parsed.drivername not in _POSTGRES_SCHEMES:
        raise ValueError(
            f"database URL scheme {parsed.drivername!r} is not PostgreSQL "
            f"(expected postgresql://, postgresql+psycopg:// or postgresql+psycopg2://)"
        )
    return parsed.set(drivername=DRIVER)


def _engine(url: str | None, autocommit: bool) -> Engine:
    url = url or get_settings().database_url
    key = (url, os.getpid(), autocommit)
    engine = _engines.get(key)
    if engine is None:
        if autocommit:
            engine = create_engine(
                driver_url(url),
                isolation_level="AUTOCOMMIT",
                pool_pre_ping=False,
                pool_reset_on_return=None,
                pool_size=2,
                max_overflow=8,
                connect_args={"options": "-c plan_cache_mode=force_generic_plan"},
            )
        else:
            engine = create_engine(
                driver_url(url), pool_pre_ping=True, pool_size=5, max_overflow=10
            )
        event.listen(engine, "before_cursor_execute", count_statement)
        _engines[key] = engine
    return engine


def get_engine(url: str | None = None) -> Engine:
    """The transactional engine for `url` (default: the configured database)."""
    return _engine(url, autocommit=False)


def dispose_engines() -> None:
    """Close every pooled connection of this process (after its sessions were terminated)."""
    for engine in list(_engines.values()):
        engine.dispose()


def reset_after_fork() -> None:
    """Forget engines inherited from a parent process without closing its connections."""
    for key, engine in list(_engines.items()):
        if key[1] != os.getpid():
            engine.dispose(close=False)
            del _engines[key]
            _factories.pop(engine, None)


@contextmanager
def session_scope(url: str | None = None) -> Iterator[Session]:
    """A session whose transaction commits on success and rolls back on error."""
    engine = get_engine(url)
    factory = _factories.get(engine)
    if factory is None:
        factory = _factories[engine] = sessionmaker(bind=engine, expire_on_commit=False)
    session = factory()
    try:
        with session.begin():
            yield session
    finally:
        session.close()


@contextmanager
def node_connection(url: str | None = None) -> Iterator[Connection]:
    """One autocommit connection for one node delivery: every statement commits by itself."""
    with _engine(url, autocommit=True).connect() as conn:
        yield conn
