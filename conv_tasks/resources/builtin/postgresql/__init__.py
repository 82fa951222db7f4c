"""PostgreSQL databases and roles as resources: the provisioning every SaaS does per tenant.

Both types act through a connection of kind `postgresql` (its client is an autocommit
psycopg connection, conv_tasks.connections). Each object they make carries a mark naming
the action that made it (ownership.py), so a step run again adopts its own object and
refuses anybody else's. This folder never pastes a value into SQL text (statements.py
composes with psycopg.sql), never sends a password to the server (only its verifier), never
puts a password or a statement in a message, and never drops an object it did not make.
"""

from conv_tasks.resources.builtin.postgresql.database import PostgreSQLDatabase
from conv_tasks.resources.builtin.postgresql.role import PostgreSQLRole

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.sdk",)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "httpx",
    "redis",
    "sqlalchemy",
)

__all__ = ["PostgreSQLDatabase", "PostgreSQLRole"]
