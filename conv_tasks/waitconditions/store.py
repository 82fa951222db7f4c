"""What the wait condition resource types need from storage.

A plugin never opens a connection: it is handed an implementation of this
(conv_tasks.db.wait_handles.PostgresWaitHandles in a worker, a dict in unit
tests) in its ActionContext. Only a credential's hash is ever handed to it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from conv_tasks.waitconditions.signals import WaitSignal


@runtime_checkable
class WaitHandleStore(Protocol):
    def create_handle(
        self, handle_id: str, stack_id: str, resource_name: str, credential_hash: str | None
    ) -> None:
        """Make the handle (none of its signals yet); made again (a step repeated), it keeps
        its signals and takes the new hash."""
        ...

    def signals(self, handle_id: str, stack_id: str) -> tuple[WaitSignal, ...] | None:
        """The signals the handle holds, in the order they first arrived; None if the stack
        has no such handle (never made, or deleted)."""
        ...

    def clear(self, handle_id: str) -> None:
        """Forget the handle's signals (its wait condition was deleted)."""
        ...

    def remove(self, handle_id: str) -> None:
        """The handle was deleted: signals to it are refused from now on."""
        ...
