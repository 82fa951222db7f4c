"""The Client's reads of a stack, and waiting for its operation to end.

Reads change nothing; the result store drops a read the Client has stopped waiting for
(conv_tasks.client.sending). `wait` polls them until the stack's operation has ended.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Sequence
from typing import Any

from conv_tasks import errors
from conv_tasks.client.sending import Sender, sends
from conv_tasks.requests import OverviewRequest

TERMINAL = ("COMPLETE", "FAILED")


class StackReads(Sender):
    """What a Client reads of a tenant's stacks."""

    def get(self, stack: str, *, include_deleted: bool = False) -> dict[str, Any]:
        result = self.call(
            "conv_tasks.stack.show", stack=stack, include_deleted=include_deleted or None
        )
        return dict(result["stack"])

    def list(
        self,
        *,
        show_nested: bool = False,
        tags: Sequence[str] | None = None,
        tags_any: Sequence[str] | None = None,
        not_tags: Sequence[str] | None = None,
        not_tags_any: Sequence[str] | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """The tenant's stacks; nested stacks too with show_nested. Tag filters as
        heatclient's: having all of `tags`, at least one of `tags_any`, not all of
        `not_tags`, none of `not_tags_any`."""
        filters = {
            "tags": tags,
            "tags_any": tags_any,
            "not_tags": not_tags,
            "not_tags_any": not_tags_any,
        }
        given = {name: list(value) for name, value in filters.items() if value is not None}
        return list(
            self.call("conv_tasks.stack.list", show_nested=show_nested or None, **given)["stacks"]
        )

    def resources(
        self, stack: str, *, all_versions: bool = False, nested_depth: int = 0
    ) -> builtins.list[dict[str, Any]]:
        """The stack's resources; with nested_depth N, its nested stacks' too, N levels
        down (each with stack_name)."""
        return list(
            self.call(
                "conv_tasks.stack.resources",
                stack=stack,
                all_versions=all_versions,
                nested_depth=nested_depth or None,
            )["resources"]
        )

    def events(
        self, stack: str, *, after_id: int = 0, latest: int = 0, nested_depth: int = 0
    ) -> builtins.list[dict[str, Any]]:
        """The stack's events; with nested_depth N, its nested stacks' too, N levels down
        (each with stack_name), in one order by id. With `latest` n, only the newest n of
        those after `after_id` (at most MAX_LATEST_EVENTS), still oldest first."""
        return list(
            self.call(
                "conv_tasks.stack.events",
                stack=stack,
                after_id=after_id,
                latest=latest or None,
                nested_depth=nested_depth or None,
            )["events"]
        )

    def outputs(self, stack: str) -> dict[str, Any]:
        return dict(self.call("conv_tasks.stack.outputs", stack=stack)["outputs"])

    def output(self, stack: str, name: str) -> dict[str, Any]:
        """One output: its value (hidden values masked), description and error if any."""
        outputs = self.outputs(stack)
        if name not in outputs:
            raise errors.NotFound(f"Stack {stack!r} has no output {name!r}.")
        return {"output": name, **outputs[name]}

    def resource(self, stack: str, name: str) -> dict[str, Any]:
        """One resource: properties and attributes (hidden values masked), its versions and
        its latest events."""
        return dict(self.call("conv_tasks.resource.show", stack=stack, resource=name)["resource"])

    def template(self, stack: str) -> dict[str, Any]:
        """The stack's current template as stored (hidden parameters' defaults masked)."""
        return dict(self.call("conv_tasks.stack.template", stack=stack)["template"])

    def environment(self, stack: str) -> dict[str, Any]:
        """The environment the stack's current template was stored with, merged from those
        its requests gave (hidden parameters' values masked)."""
        return dict(self.call("conv_tasks.stack.template", stack=stack)["environment"])

    def history(self, stack: str, limit: int = 20, before: int | None = None) -> dict[str, Any]:
        """One page of the stack's operations, newest first: {"operations": [{"id",
        "traversal", "action", "tenant", "started_at", "ended_at", "duration_secs", "result",
        "reason", "counts", "failures", "watchdog_restarts"}], "next"}; pass `next` as
        `before` for the page after (None: this was the last)."""
        return self.call("conv_tasks.stack.history", stack=stack, limit=limit, before=before)

    overview = sends(
        OverviewRequest,
        """The stacks list: {"attention": [...], "attention_total", "stacks": [...], "next",
        "total"}. Filters: `status` (statuses such as FAILED, or states such as
        CREATE_COMPLETE), `tags` (all of them), `name` (a part of it, any case); pass `next`
        as `marker` for the page after. `all_tenants`: every tenant's stacks.""",
    )

    def wait(
        self,
        stack: str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        on_poll: Callable[[dict[str, Any]], None] | None = None,
        after_event: int = 0,
    ) -> dict[str, Any]:
        """Wait until the stack's operation has finished; returns the stack as shown then.

        `on_event` is called with each event after `after_event` as it appears (the CLI's
        live view; an operation's result carries its first event as `event_id`).
        Pass the stack id to follow a stack through its deletion.
        """
        deadline = time.monotonic() + timeout
        seen = after_event
        while True:
            stack_data = self.get(stack, include_deleted=True)
            if on_event is not None:
                for event in self.events(stack_data["id"], after_id=seen):
                    seen = max(seen, int(event["id"]))
                    on_event(event)
            if on_poll is not None:
                on_poll(stack_data)
            if stack_data["status"].endswith(TERMINAL):
                return stack_data
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"stack {stack} still {stack_data['status']} after {timeout:.0f}s"
                )
            time.sleep(interval)
