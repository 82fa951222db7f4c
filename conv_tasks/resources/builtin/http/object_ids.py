"""The object's id, and what an HTTP resource keeps of it: the id a create chooses from its
token and places in the body (so that a repeated POST makes no second object), the id read
back from the service's answer, and the object a create that ended without a physical id
left behind (found by the id it sent)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from conv_tasks.resources.builtin.http.answers import Answer, decoded, failure
from conv_tasks.resources.builtin.http.documents import (
    MISSING,
    found_at,
    masked,
    placed_at,
    projected,
)
from conv_tasks.resources.builtin.http.target import Target
from conv_tasks.sdk import ActionContext, Fatal, Progress, token_physical_id

log = logging.getLogger(__name__)

# The plugin's data: the object's id as the service gave it, its last JSON answer and status;
# and, between a create POST and the step that settles it, why the service refused it, or
# why its answer could not be used.
ID, RESPONSE, STATUS = "id", "response", "status"
REFUSED, FAILED = "create_refused", "create_failed"
# True when the id came from the body, not from the action's token.
GIVEN = "id_given"


def body_of(ctx: ActionContext) -> dict[str, Any]:
    body = ctx.properties.get("body")
    return dict(body) if isinstance(body, Mapping) else {}


def create_body(ctx: ActionContext, id_path: str) -> tuple[dict[str, Any], Any, bool]:
    """The create body, the id it holds (MISSING: the service chooses), and whether the
    body gave that id (else the resource chose it from its token)."""
    body = body_of(ctx)
    given = found_at(body, id_path)
    if given is not MISSING or ctx.properties.get("choose_id") is False:
        return body, given, given is not MISSING
    chosen = token_physical_id(ctx.idempotency_token)
    placed = placed_at(body, id_path, chosen)
    if placed is None:
        raise Fatal(
            f"Resource {ctx.resource_name}: property id_path {id_path} runs through a value of "
            "body that is not a map, so the id cannot be put there (set choose_id: false, or "
            "give the id in body)."
        )
    return placed, chosen, False


def made(target: Target, answer: Answer, chosen: Any) -> Progress:
    """The create is done: the object's id from the answer (or the one chosen), kept."""
    document = decoded(answer, target.resource)
    found = found_at(document, target.id_path)
    if found is MISSING or found is None or isinstance(found, Mapping | list):
        if chosen is MISSING:
            raise Fatal(
                f"Resource {target.resource}: {answer.heading()} with no id at "
                f"{target.id_path} (property id_path)."
            )
        found = chosen
    elif chosen is not MISSING and str(found) != str(chosen):
        # The service made up its own id: a create repeated after a crash would make a
        # second object. Keep this one; the docs say what a service must do.
        log.warning(
            "resource %s: the service gave id %s, not the id %s it was sent at %s: it cannot "
            "create exactly once",
            target.resource,
            found,
            chosen,
            target.id_path,
        )
    data = {
        ID: found,
        RESPONSE: masked(document, target.secrets),
        STATUS: answer.status,
        REFUSED: None,
        FAILED: None,
        GIVEN: None,
    }
    return Progress(done=True, physical_id=str(found), data=data)


def leftover(ctx: ActionContext, target: Target) -> Any:
    """The id of the object that a create which ended without a physical id made, if it can
    be named: the id the create sent (kept in its data, or chosen again from its token,
    ctx.create_token); an id the body gave only if the object there holds the body (else it
    is somebody else's). None: nothing of it is there, or the service was to choose."""
    body = body_of(ctx)
    if ctx.data.get(ID) is not None:
        sent, given = ctx.data[ID], bool(ctx.data.get(GIVEN))
    elif ctx.create_token is not None:
        sent = found_at(body, target.id_path)
        given = sent is not MISSING
        if not given:
            if ctx.properties.get("choose_id") is False:
                return None  # the service chose: only it knows which object the POST made
            sent = token_physical_id(ctx.create_token)
    else:
        return None
    if not given:
        return sent  # chosen from the create's token: no other resource sends it
    answer = target.send("GET", target.item(sent))
    if answer.status == 404:
        return None
    if not answer.ok:
        raise failure(answer, ctx.resource_name)
    return sent if projected(decoded(answer, ctx.resource_name), body) == body else None


def known_object_id(ctx: ActionContext) -> Any:
    """The object's id: the physical id, or the id a create chose before it failed."""
    if ctx.physical_id is not None:
        return ctx.physical_id
    return ctx.data.get(ID)
