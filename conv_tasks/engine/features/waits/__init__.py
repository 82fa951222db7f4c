"""Wait conditions: signals to a wait condition handle, from a host with the handle's token or
from the stack's owner. Neither the token nor a signal's data reaches an event or a log."""

from conv_tasks.engine.features.waits.signal import apply_handle_signal, signal_handle

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.deployments",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.read",
    "conv_tasks.errors",
    "conv_tasks.statuses",
    "conv_tasks.waitconditions",
)
MUST_NOT_IMPORT = (
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.features.deployments",
    "conv_tasks.engine.features.nested",
    "conv_tasks.engine.node",
    "conv_tasks.engine.upkeep",
)

__all__ = ["apply_handle_signal", "signal_handle"]
