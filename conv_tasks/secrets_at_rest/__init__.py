"""Secrets at rest: sealing the values the database keeps, with keys handed in.

A `Sealer` is built from the keys of CONV_TASKS_ENCRYPTION_KEYS (`parse_keys` checks them)
and seals text into an envelope (`conv-tasks-sealed:1:` and a Fernet token) that the first key
wrote and any of the keys opens; text without the envelope passes through, so rows written
before a key was set keep working beside sealed ones. Without keys it seals nothing.

This folder must never know where a sealed value lives or what it means: it imports nothing
of conv_tasks but the errors, reads no setting and holds no key in a global. conv_tasks.db
decides which columns are sealed and hands its Sealer the text.
"""

from conv_tasks.secrets_at_rest.envelope import ENVELOPE_PREFIX, is_sealed
from conv_tasks.secrets_at_rest.keys import new_key, parse_keys
from conv_tasks.secrets_at_rest.sealer import PLAINTEXT, Sealer

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors",)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.settings",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = ["ENVELOPE_PREFIX", "PLAINTEXT", "Sealer", "is_sealed", "new_key", "parse_keys"]
