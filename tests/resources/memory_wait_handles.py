"""An in-memory WaitHandleStore for the wait condition unit tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from conv_tasks.waitconditions.signals import WaitSignal, record


@dataclass
class _Handle:
    stack_id: str
    resource_name: str
    credential_hash: str | None
    signals: tuple[WaitSignal, ...] = ()
    deleted: bool = False


@dataclass
class MemoryWaitHandles:
    """Keeps handles in a dict, with the real store's rules."""

    handles: dict[str, _Handle] = field(default_factory=dict)

    def create_handle(
        self, handle_id: str, stack_id: str, resource_name: str, credential_hash: str | None
    ) -> None:
        held = self.handles.get(handle_id)
        signals = held.signals if held is not None else ()
        self.handles[handle_id] = _Handle(stack_id, resource_name, credential_hash, signals)

    def signals(self, handle_id: str, stack_id: str) -> tuple[WaitSignal, ...] | None:
        held = self.handles.get(handle_id)
        if held is None or held.deleted or held.stack_id != stack_id:
            return None
        return held.signals

    def clear(self, handle_id: str) -> None:
        if handle_id in self.handles:
            self.handles[handle_id].signals = ()

    def remove(self, handle_id: str) -> None:
        if handle_id in self.handles:
            self.handles[handle_id].deleted = True

    def signal(self, handle_id: str, signal: WaitSignal) -> None:
        """What the signal task does to the row (tests call it directly)."""
        held = self.handles[handle_id]
        held.signals = record(held.signals, signal)
