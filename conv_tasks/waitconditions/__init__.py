"""Wait condition handles (OS::Heat::WaitConditionHandle): what a signal to a handle means.

Pure logic only: a signal parsed and checked (signals), how a handle keeps the signals it
holds (record), and the protocol of the store that keeps them (WaitHandleStore, which
conv_tasks.db implements). What a wait condition decides from its handle's signals is the
type's own (conv_tasks.resources.builtin.wait_condition).
"""

from conv_tasks.waitconditions.signals import (
    SignalStatus,
    WaitSignal,
    data_text,
    parse_signal,
    record,
)
from conv_tasks.waitconditions.store import WaitHandleStore

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors", "conv_tasks.limits")
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = [
    "SignalStatus",
    "WaitHandleStore",
    "WaitSignal",
    "data_text",
    "parse_signal",
    "record",
]
