"""How the engine hands a graph node to a worker. Celery implements it in conv_tasks.tasks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class Dispatcher(Protocol):
    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        """Enqueue one graph node task with this JSON payload."""

    def nodes(self, payloads: Sequence[Mapping[str, Any]]) -> None:
        """Enqueue several node tasks at once, in one batch."""
