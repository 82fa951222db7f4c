"""Run the Alembic migrations that ship inside the package (`conv-tasks db upgrade`)."""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING

from sqlalchemy import create_engine, text

from conv_tasks.db.session import driver_url
from conv_tasks.settings import get_settings

if TYPE_CHECKING:  # Alembic is imported when a migration runs: it is slow to import
    from alembic.config import Config


def alembic_config(url: str | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(files("conv_tasks.db") / "migrations"))
    target = driver_url(url or get_settings().database_url)
    config.set_main_option(
        "sqlalchemy.url", target.render_as_string(hide_password=False).replace("%", "%%")
    )
    return config


def ensure_database(url: str | None = None) -> bool:
    """Create the database named in `url` if it does not exist. Returns True if it was created."""
    target = driver_url(url or get_settings().database_url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            exists = conn.execute(
                text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": target.database}
            ).scalar()
            if exists:
                return False
            conn.execute(text(f'CREATE DATABASE "{target.database}"'))
            return True
    finally:
        admin.dispose()


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Bring the database schema up to `revision`."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)
