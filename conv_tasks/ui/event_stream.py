"""A stack's events, live (/ui/stacks/<id>/events/stream): server-sent events.

The stream asks conv_tasks.stack.events for the events after the last one it sent, every
half second, in the edge's bounded thread pool, and sends each as an SSE message whose `id:`
is the event's id and whose data is its row of the timeline (HTML). A browser that
reconnects sends the last id it saw (Last-Event-ID) and the stream resumes after it. A
comment goes out when nothing else has for a while, so that proxies keep the connection.

It ends, with an `end` message the page closes its EventSource on, once the stack is
deleted (or purged); it ends quietly when the client goes away (Starlette cancels it) or
after a lifetime, when the browser reconnects and resumes. At most `max_streams` are open
at once: past that a stream is refused with 429, and the page works on without live events.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
from starlette.background import BackgroundTask
from starlette.responses import Response, StreamingResponse

from conv_tasks.edge import ApiFault
from conv_tasks.limits import MAX_ID
from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.errors import UiError, bad_request, not_found
from conv_tasks.ui.rendering import render
from conv_tasks.ui.responses import SECURITY_HEADERS
from conv_tasks.ui.routes import stack_path

# Between two looks at whether the stack was deleted, when no event came: polls.
_DELETED_CHECK_EVERY = 4


class StreamSlots:
    """How many streams are open, at most `most` (the event loop's only: no lock needed)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.open = 0

    def take(self) -> Slot | None:
        if self.open >= self.most:
            return None
        self.open += 1
        return Slot(self)


class Slot:
    """One open stream's place, given back once however many times it is released: by the
    stream when it ends, and by the response when it is done, which covers a client gone
    before the stream started."""

    def __init__(self, slots: StreamSlots) -> None:
        self._slots: StreamSlots | None = slots

    def release(self) -> None:
        if self._slots is not None:
            self._slots.open -= 1
            self._slots = None


def message(event_id: int | None, name: str, data: str) -> str:
    """One SSE message; `data` on as many `data:` lines as it has lines."""
    lines = [f"id: {event_id}"] if event_id is not None else []
    lines.append(f"event: {name}")
    lines.extend(f"data: {line}" for line in data.replace("\r", "").split("\n"))
    return "\n".join(lines) + "\n\n"


def _resume_from(ui: UiRequest) -> int:
    """The id after which to send: the larger of ?after= and Last-Event-ID."""
    after = ui.query.number("after", default=0, low=0, high=MAX_ID)
    header = (ui.request.headers.get("last-event-id") or "").strip()
    if header:
        if not header.isdigit() or len(header) > 19 or int(header) > MAX_ID:
            raise bad_request("The Last-Event-ID header must be an event id (a whole number).")
        after = max(after, int(header))
    return after


def _is_deleted(stack: Mapping[str, Any]) -> bool:
    return bool(stack.get("deleted_at")) or stack.get("status") == "DELETE_COMPLETE"


async def events_stream(ui: UiRequest, slots: StreamSlots) -> Response:
    assert ui.viewer is not None
    tenant = ui.viewer.stack_tenant()
    ref = ui.param("stack")
    after = _resume_from(ui)
    # Before any stream starts: a stack that is not there (or another tenant's) is a 404 page.
    stack = (await ui.task("conv_tasks.stack.show", stack=ref, include_deleted=True))["stack"]
    if ref not in (stack.get("id"), stack.get("name")):
        raise not_found(f"The stack {ref[:255]!r} was not found.")
    slot = slots.take()
    if slot is None:
        raise UiError(
            429,
            f"The web view already follows {slots.most} stacks' events live "
            "(CONV_TASKS_UI_MAX_STREAMS): reload the page later.",
            {"Retry-After": "10"},
        )
    stack_id = str(stack["id"])
    return StreamingResponse(
        _follow(ui, slot, tenant, stack_id, str(stack.get("name", "")), after),
        media_type="text/event-stream",
        headers={
            **SECURITY_HEADERS,
            "Cache-Control": "no-store",
            # Proxies (nginx) must pass each message on as it comes, not buffer them.
            "X-Accel-Buffering": "no",
        },
        background=BackgroundTask(slot.release),
    )


async def _follow(
    ui: UiRequest, slot: Slot, tenant: str, stack_id: str, stack_name: str, after: int
) -> AsyncIterator[str]:
    config = ui.config
    try:
        yield f": events of stack {stack_id}\nretry: 2000\n\n"
        started = last_sent = time.monotonic()
        polls = 0
        while time.monotonic() - started < config.stream_lifetime:
            try:
                answer = await ui.gateway.call(
                    tenant, "conv_tasks.stack.events", stack=stack_id, after_id=after
                )
            except ApiFault:
                return  # no worker answered: the browser reconnects and resumes
            if not answer.get("ok"):
                if answer.get("error") == "not_found":  # purged
                    yield message(None, "end", "The stack is gone.")
                return
            events = list(answer.get("events") or [])
            for event in events:
                after = max(after, int(event["id"]))
                yield message(int(event["id"]), "event", _row(ui, stack_id, stack_name, event))
            if events:
                last_sent = time.monotonic()
            polls += 1
            if events or polls % _DELETED_CHECK_EVERY == 0:
                ended = await _ended(ui, tenant, stack_id)
                if ended:
                    # The events written before the stack was marked deleted are all in now.
                    final = await ui.gateway.call(
                        tenant, "conv_tasks.stack.events", stack=stack_id, after_id=after
                    )
                    for event in final.get("events") or [] if final.get("ok") else []:
                        yield message(
                            int(event["id"]), "event", _row(ui, stack_id, stack_name, event)
                        )
                    yield message(None, "end", "The stack was deleted.")
                    return
            if time.monotonic() - last_sent >= config.heartbeat:
                yield ": keep-alive\n\n"
                last_sent = time.monotonic()
            await anyio.sleep(config.poll_interval)
    finally:
        slot.release()


async def _ended(ui: UiRequest, tenant: str, stack_id: str) -> bool:
    try:
        answer = await ui.gateway.call(
            tenant, "conv_tasks.stack.show", stack=stack_id, include_deleted=True
        )
    except ApiFault:
        return False
    if not answer.get("ok"):
        return answer.get("error") == "not_found"
    return _is_deleted(answer["stack"])


def _row(ui: UiRequest, stack_id: str, stack_name: str, event: Mapping[str, Any]) -> str:
    return render(
        "_event_row.html",
        event=event,
        stack_name=stack_name,
        resource_link=_resource_link(ui, stack_id),
    )


def _resource_link(ui: UiRequest, stack_id: str) -> Any:
    def link(name: str) -> str:
        return ui.link(stack_path(stack_id, "resources", name))

    return link
