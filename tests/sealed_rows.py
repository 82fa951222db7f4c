"""Tests that read rows themselves open the sealed columns with the run's key (tests/conftest.py
sets CONV_TASKS_ENCRYPTION_KEYS; conv_tasks.db.sealed_columns names the columns)."""

from __future__ import annotations

from typing import Any

from conv_tasks.db.sealed_columns import open_column
from conv_tasks.secrets_at_rest import Sealer
from conv_tasks.settings import get_settings

SEALER = Sealer(get_settings().encryption_keys)


def opened(table: str, column: str, value: Any) -> Any:
    """A sealed column's value as it was written."""
    return open_column(SEALER, table, column, value)
