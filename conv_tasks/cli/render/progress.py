"""The live progress view shown while a stack operation runs, and how it ends.

On a terminal, rich keeps a status line (elapsed time, stack status, resource
counts) under the events as they print (screen.py); anywhere
else each event is one plain line and there is no status line. An operation that
succeeded ends with its status and what it did to the resources on stdout; one that
failed (a rollback after it is no success) with one `ERROR:` line on stderr, red on a
terminal, that also says why (outcome.py counts and words both).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from conv_tasks.cli.failures import CliFailure, Exit

if TYPE_CHECKING:
    from conv_tasks.cli.render.screen import LiveLine
    from conv_tasks.client import Client

COLOURS = {"COMPLETE": "green", "FAILED": "red", "IN_PROGRESS": "yellow"}
# The order the progress line names them in.
STATES = ("COMPLETE", "IN_PROGRESS", "FAILED")


def _colour(status: str) -> str:
    for suffix, colour in COLOURS.items():
        if status.endswith(suffix):
            return click.style(status, fg=colour)
    return status


def _state(status: str) -> str:
    for state in STATES:
        if status.endswith(state):
            return state
    return status


def resource_counts(latest: Mapping[str, str]) -> str:
    """'3 resources: 2 complete, 1 in progress' from each resource's latest status."""
    counts: dict[str, int] = {}
    for status in latest.values():
        state = _state(status)
        counts[state] = counts.get(state, 0) + 1
    order = sorted(counts, key=lambda s: (STATES.index(s) if s in STATES else len(STATES), s))
    parts = ", ".join(f"{counts[s]} {s.lower().replace('_', ' ')}" for s in order)
    noun = "resource" if len(latest) == 1 else "resources"
    return f"{len(latest)} {noun}" + (f": {parts}" if parts else "")


class ProgressView:
    """Prints each event as it happens and, on a terminal, a running status line that counts
    resources (each by its latest status), not events. close() takes the line away."""

    def __init__(self, *, live: bool | None = None) -> None:
        self.live = sys.stdout.isatty() if live is None else live
        self.started = time.monotonic()
        self.latest: dict[str, str] = {}
        self.events: list[dict[str, Any]] = []
        self._line: LiveLine | None = None
        if self.live:
            from conv_tasks.cli.render.screen import LiveLine

            self._line = LiveLine()

    def event(self, event: dict[str, Any]) -> None:
        who = event.get("resource_name") or "stack"
        reason = f"  {event['reason']}" if event.get("reason") else ""
        stamp = (event.get("time") or "")[11:19]
        if self._line is not None:
            from conv_tasks.cli.render.screen import status_text

            self._line.print(f"{stamp}  {who:<24} ", status_text(event["status"]), reason)
        else:
            click.echo(f"{stamp}  {who:<24} {_colour(event['status'])}{reason}")
        if event.get("resource_name"):
            self.latest[event["resource_name"]] = event["status"]
        self.events.append(event)

    def summary(self) -> str:
        return resource_counts(self.latest)

    def poll(self, stack: dict[str, Any]) -> None:
        if self._line is None:
            return
        from rich.text import Text

        from conv_tasks.cli.render.screen import status_text

        elapsed = time.monotonic() - self.started
        self._line.show(
            Text.assemble(
                f"[{elapsed:6.1f}s] ", status_text(str(stack["status"])), f"  {self.summary()}"
            )
        )

    def close(self) -> None:
        if self._line is not None:
            self._line.close()


def expected_status(started: Mapping[str, Any]) -> str:
    """The final status that means the requested operation succeeded: its action COMPLETE,
    or, for an operation that ended as it was asked (a cancel without rollback), that."""
    status = str(started["status"])
    if status.endswith(("COMPLETE", "FAILED")):
        return status
    return f"{started['action']}_COMPLETE"


def watch_hint(name: str) -> str:
    return (
        f"follow it with `conv-tasks stack events {name} --follow`, "
        f"or see where it stands with `conv-tasks stack show {name}`"
    )


def interrupted(name: str) -> CliFailure:
    """What Ctrl-C while following stack `name` ends with: the operation goes on."""
    return CliFailure(
        Exit.INTERRUPTED,
        f"interrupted: stack {name} goes on in the background; {watch_hint(name)}.",
    )


def follow(client: Client, started: dict[str, Any], *, timeout: float) -> dict[str, Any]:
    """Show an operation's events live, from its first one, until it ends; then say how it
    ended. The stack as it ended is returned, with `counts`: what each phase of the
    operation (the operation, and a rollback after it) did to the resources.

    Ctrl-C and running out of `timeout` raise CliFailure: the operation goes on in the
    background, and the message says how to watch it."""
    view = ProgressView()
    name = str(started.get("name") or started["stack_id"])
    try:
        final = client.wait(
            started["stack_id"],
            timeout=timeout,
            on_event=view.event,
            on_poll=view.poll,
            after_event=max(0, int(started.get("event_id") or 1) - 1),
        )
    except KeyboardInterrupt:
        raise interrupted(name) from None
    except TimeoutError as exc:  # Client.wait's deadline (not celery's TimeoutError)
        raise CliFailure(
            Exit.WAIT_TIMEOUT, f"{exc}; it goes on in the background: {watch_hint(name)}."
        ) from None
    finally:
        view.close()
    from conv_tasks.cli.render.outcome import failure_line, phases_of, resources_text

    phases = phases_of(view.events, str(started["action"]))
    if final["status"] == expected_status(started):
        click.echo(f"{final['name']}: {_colour(final['status'])}. {resources_text(phases)}")
    else:
        say_failed(failure_line(str(final["name"]), final, phases))
    return {**final, "counts": [phase.to_json() for phase in phases]}


def say_failed(line: str) -> None:
    """`ERROR: line` on stderr: red on a terminal (unless NO_COLOR), plain anywhere else."""
    text = f"ERROR: {line}"
    if sys.stderr.isatty():
        from conv_tasks.cli.render import screen

        screen.error_line(text)
    else:
        click.echo(text, err=True)
