"""The live progress view shown while a stack operation runs."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from conv_tasks.client import Client

COLOURS = {"COMPLETE": "green", "FAILED": "red", "IN_PROGRESS": "yellow"}


def _colour(status: str) -> str:
    for suffix, colour in COLOURS.items():
        if status.endswith(suffix):
            return click.style(status, fg=colour)
    return status


class ProgressView:
    """Prints each event as it happens and, on a terminal, a running status line."""

    def __init__(self, *, live: bool | None = None) -> None:
        self.live = sys.stdout.isatty() if live is None else live
        self.started = time.monotonic()
        self.counts: dict[str, int] = {}

    def event(self, event: dict[str, Any]) -> None:
        self._clear()
        who = event.get("resource_name") or "stack"
        reason = f"  {event['reason']}" if event.get("reason") else ""
        stamp = (event.get("time") or "")[11:19]
        click.echo(f"{stamp}  {who:<24} {_colour(event['status'])}{reason}")
        status = event["status"].rsplit("_", 1)[-1]
        if event.get("resource_name"):
            self.counts[status] = self.counts.get(status, 0) + 1

    def poll(self, stack: dict[str, Any]) -> None:
        if not self.live:
            return
        elapsed = time.monotonic() - self.started
        summary = ", ".join(f"{n} {s.lower()}" for s, n in sorted(self.counts.items()))
        click.echo(f"\r[{elapsed:6.1f}s] {stack['status']}  {summary}", nl=False)

    def _clear(self) -> None:
        if self.live:
            click.echo("\r\033[K", nl=False)


def follow(client: Client, started: dict[str, Any], *, timeout: float) -> dict[str, Any]:
    """Show an operation's events live, from its first one, until it ends."""
    view = ProgressView()
    final = client.wait(
        started["stack_id"],
        timeout=timeout,
        on_event=view.event,
        on_poll=view.poll,
        after_event=max(0, int(started.get("event_id") or 1) - 1),
    )
    view._clear()
    click.echo(
        f"{final['name']}: {_colour(final['status'])}"
        + (f" ({final['status_reason']})" if final.get("status_reason") else "")
    )
    return final
