"""Alembic environment: migrates the database given by the caller or the settings."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from conv_tasks.db.models import Base
from conv_tasks.db.session import driver_url
from conv_tasks.settings import get_settings

config = context.config
url = driver_url(config.get_main_option("sqlalchemy.url") or get_settings().database_url)


def run_migrations_offline() -> None:
    context.configure(url=url, target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
