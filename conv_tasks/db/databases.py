"""Making and dropping whole databases on conv_tasks' PostgreSQL server, by URL: a run of the
conformance kit, or a test, gets a database of its own (conv_tasks.testing), and drops it.
Never used by the engine."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from conv_tasks.db.session import driver_url


def recreate_database(server_url: str, *, suffix: str) -> str:
    """An empty database named after `server_url`'s with `_SUFFIX` appended (one of that name
    is dropped first, its sessions ended); its URL, password included."""
    target = driver_url(server_url)
    target = target.set(database=f"{target.database}_{suffix}")
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()
    return target.render_as_string(hide_password=False)


def drop_database(url: str) -> None:
    """Drop the database `url` names (its sessions are ended first)."""
    target = driver_url(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
    admin.dispose()
