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

__all__ = [
    "SignalStatus",
    "WaitHandleStore",
    "WaitSignal",
    "data_text",
    "parse_signal",
    "record",
]
