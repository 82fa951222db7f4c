"""Wait conditions: signals to a wait condition handle, from a host with the handle's token or
from the stack's owner. Neither the token nor a signal's data reaches an event or a log."""

from conv_tasks.engine.features.waits.signal import apply_handle_signal, signal_handle

__all__ = ["apply_handle_signal", "signal_handle"]
