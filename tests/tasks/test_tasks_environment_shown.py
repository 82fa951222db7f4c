"""What monitors see of a request's environments and files: neither the values nor the texts."""

from __future__ import annotations

from typing import Any

from conv_tasks.client import Client
from conv_tasks.tasks.request import shown_kwargs

SECRET = "env-SECRET-value"
FILE_TEXT = "file-SECRET-text"
KWARGS: dict[str, Any] = {
    "tenant": "acme",
    "name": "web",
    "template": {"heat_template_version": "2018-08-31"},
    "environment": [{"parameters": {"password": SECRET}}, f"parameters: {{p: {SECRET}}}"],
    "files": {"motd.txt": FILE_TEXT},
}


def test_the_worker_shows_file_names_only() -> None:
    shown = shown_kwargs(KWARGS)
    assert SECRET not in shown and FILE_TEXT not in shown
    assert "motd.txt" in shown and "'name': 'web'" in shown


class _Sent:
    def get(self, timeout: float) -> dict[str, Any]:
        return {"ok": True, "stack_id": "x"}


class _App:
    """Stands in for the Celery app: records what Client.call would send."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_task(self, name: str, **options: Any) -> _Sent:
        self.sent.append({"name": name, **options})
        return _Sent()


def test_the_client_writes_no_values_into_kwargsrepr() -> None:
    app = _App()
    client = Client(app, tenant="acme")  # type: ignore[arg-type]
    client.create(
        "web",
        KWARGS["template"],
        environment=KWARGS["environment"],
        files=KWARGS["files"],
    )
    [sent] = app.sent
    assert sent["kwargs"]["environment"] == KWARGS["environment"]  # the values travel...
    assert sent["kwargs"]["files"] == KWARGS["files"]
    shown = sent["kwargsrepr"]  # ...but are not shown
    assert SECRET not in shown and FILE_TEXT not in shown
    assert "motd.txt" in shown


def test_the_client_leaves_out_what_was_not_given() -> None:
    app = _App()
    Client(app, tenant="acme").update("web")  # type: ignore[arg-type]
    [sent] = app.sent
    assert "environment" not in sent["kwargs"] and "files" not in sent["kwargs"]
