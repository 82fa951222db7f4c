"""What the Client puts on the wire about late requests (a stand-in app, no broker)."""

from __future__ import annotations

from typing import Any

from conv_tasks.client import Client


class _Sent:
    def get(self, timeout: float) -> dict[str, Any]:
        return {"ok": True, "stacks": [], "stack_id": "s"}


class _App:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send_task(self, name: str, **options: Any) -> _Sent:
        self.sent.append((name, options))
        return _Sent()


def test_reads_expire_with_the_client_timeout_and_creates_carry_a_key() -> None:
    app = _App()
    client = Client(app, tenant="t", timeout=7)  # type: ignore[arg-type]
    client.list()
    client.create("web", "heat_template_version: 2018-08-31")
    client.create("web", "heat_template_version: 2018-08-31", idempotency_key="mine")
    (_, read), (_, create), (_, retried) = app.sent
    assert read["expires"] == 7
    assert create["expires"] is None
    assert len(create["kwargs"]["idempotency_key"]) == 32
    assert retried["kwargs"]["idempotency_key"] == "mine"
