"""Engines and sessions for the database named by the settings.

One engine per database URL per process. Celery's prefork pool forks after
import, so the engine is created lazily and disposed in a child that
inherited it (see `reset_after_fork`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from conv_tasks.settings import get_settings

_engines: dict[tuple[str, int], Engine] = {}
_factories: dict[Engine, sessionmaker[Session]] = {}
_statement_count = 0


def statement_count() -> int:
    """How many SQL statements this process has sent (for benchmarks)."""
    return _statement_count


def _count_statement(*_args: object, **_kwargs: object) -> None:
    global _statement_count
    _statement_count += 1


def get_engine(url: str | None = None) -> Engine:
    """The engine for `url` (default: the configured database), made once per process."""
    url = url or get_settings().database_url
    key = (url, os.getpid())
    engine = _engines.get(key)
    if engine is None:
        engine = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)
        event.listen(engine, "before_cursor_execute", _count_statement)
        _engines[key] = engine
    return engine


def reset_after_fork() -> None:
    """Forget engines inherited from a parent process without closing its connections."""
    for (url, pid), engine in list(_engines.items()):
        if pid != os.getpid():
            engine.dispose(close=False)
            del _engines[(url, pid)]
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
