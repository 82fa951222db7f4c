"""ConvTasks::HTTP::Resource: one object of a REST service, made with a POST to its
collection, changed with a PUT or PATCH, removed with a DELETE, read back with a GET.

Each step sends one request, within a timeout under the step budget, and never waits for
anything else. Exactly one object per action token, even when a step is repeated after its
worker died between the POST and recording what it answered: the resource chooses its
object's id, derived from the token, and sends it in the create body at `id_path`. A POST
the service refuses (an earlier try made that id already) is followed, on the next step, by
a GET of that id: an object there is the one this action made, and is adopted. Every request
that changes something also carries the token as its Idempotency-Key, for a service that
honours one. The rule a service must follow for this is in docs/types/http-resource.md.

What the service answered is kept (the `response` attribute) with the connection's secret
masked out, in case the service echoes it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.resources.builtin.http.answers import decoded, failure
from conv_tasks.resources.builtin.http.documents import (
    ID_PATH_PATTERN,
    MISSING,
    found_at,
    masked,
    projected,
)
from conv_tasks.resources.builtin.http.locations import (
    DEFAULT_ITEM_URL,
    headers_problem,
    item_url_problem,
    url_problem,
)
from conv_tasks.resources.builtin.http.object_ids import (
    FAILED,
    GIVEN,
    ID,
    REFUSED,
    RESPONSE,
    STATUS,
    body_of,
    create_body,
    known_object_id,
    leftover,
    made,
)
from conv_tasks.resources.builtin.http.target import (
    DEFAULT_TIMEOUT,
    MAX_TIMEOUT,
    property_problem,
    step_target,
)
from conv_tasks.sdk import (
    BOOLEAN,
    MAP,
    NUMBER,
    STRING,
    ActionContext,
    AlreadyExists,
    AttributeSchema,
    Constraint,
    Fatal,
    Observed,
    Problem,
    Progress,
    PropertySchema,
    ResourceType,
    TypeLookup,
)

log = logging.getLogger(__name__)

UPDATE_METHODS = ("PUT", "PATCH")


class HttpResource(ResourceType):
    """An object of a REST service."""

    type_name: ClassVar[str] = "ConvTasks::HTTP::Resource"
    connection_kind: ClassVar[str | None] = "http"
    sdk_versions: ClassVar[str | None] = ">=1.0,<2"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "url": PropertySchema(
            STRING,
            "The collection: create is a POST here. A path under the connection's base_url, "
            "or, without a connection, an absolute http or https URL. A change replaces.",
            required=True,
        ),
        "body": PropertySchema(
            MAP, "The object, as JSON: sent by create and update.", default={}, update_allowed=True
        ),
        "id_path": PropertySchema(
            STRING,
            "Where the object's id is in the create response (and, chosen by the resource, in "
            "the create body): dotted names, a whole number for a list's item.",
            default="id",
            constraints=(
                Constraint.allowed_pattern(ID_PATH_PATTERN, description="must be dotted names"),
            ),
        ),
        "item_url": PropertySchema(
            STRING,
            "The object's URL: {url} is the collection's, {id} the object's id.",
            default=DEFAULT_ITEM_URL,
            update_allowed=True,
        ),
        "update_method": PropertySchema(
            STRING,
            "How an update is sent: PUT (the whole body) or PATCH.",
            default="PUT",
            update_allowed=True,
            constraints=(Constraint.allowed_values(*UPDATE_METHODS),),
        ),
        "headers": PropertySchema(
            MAP,
            "More request headers (name to string), beside the connection's.",
            default={},
            update_allowed=True,
        ),
        "choose_id": PropertySchema(
            BOOLEAN,
            "Whether the resource chooses the object's id (from its action's token) and sends "
            "it at id_path in the create body, unless the body holds one: what makes a "
            "repeated create find its object instead of making a second one.",
            default=True,
            update_allowed=True,
        ),
        "connection": PropertySchema(
            STRING,
            "The http connection to act through (base URL, bearer token, TLS settings, rate "
            "limits), defined outside templates. A change replaces.",
        ),
        "timeout": PropertySchema(
            NUMBER,
            "Seconds one request may take (default: the connection's timeout, at most "
            f"{DEFAULT_TIMEOUT:g}).",
            update_allowed=True,
            constraints=(Constraint.range(0.1, MAX_TIMEOUT),),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        ID: AttributeSchema("The object's id, as the service gave it."),
        RESPONSE: AttributeSchema("The service's last JSON answer (create, update).", type=MAP),
        STATUS: AttributeSchema("The HTTP status of that answer.", type="integer"),
    }

    @classmethod
    def template_problems(cls, values: Any, *, path: str, lookup: TypeLookup) -> list[Problem]:
        if not isinstance(values, Mapping):
            return []
        connected = values.get("connection") is not None
        problems: list[Problem] = []
        url = values.get("url")
        if isinstance(url, str):
            _note(problems, f"{path}.url", url_problem(url, connected=connected))
        template = values.get("item_url")
        if isinstance(template, str):
            _note(problems, f"{path}.item_url", item_url_problem(template, connected=connected))
        headers = values.get("headers")
        if isinstance(headers, Mapping):
            written = {k: v for k, v in headers.items() if not isinstance(v, Mapping | list)}
            _note(problems, f"{path}.headers", headers_problem(written))
        return problems

    # ------------------------------------------------------------------ create
    def create(self, ctx: ActionContext) -> Progress:
        with step_target(ctx) as target:
            body, chosen, given = create_body(ctx, target.id_path)
            answer = target.send("POST", target.collection, body)
            if answer.retryable:
                raise failure(answer, ctx.resource_name)
            if chosen is MISSING:  # the service chooses: a refusal is the answer
                if not answer.ok:
                    raise failure(answer, ctx.resource_name)
                return made(target, answer, chosen)
            if answer.ok:
                try:
                    return made(target, answer, chosen)
                except Fatal as exc:
                    # The object exists but its answer is unusable (not JSON, say): fail on
                    # the next step, its id recorded, so that a delete removes the object.
                    data = {ID: chosen, FAILED: masked(str(exc), target.secrets)}
                    return Progress(False, physical_id=str(chosen), data=data, poll_after=0.05)
            # An earlier try of this very create may have made the object (its worker died
            # before the answer was recorded): the next step looks for it.
            refused = masked(str(failure(answer, ctx.resource_name)), target.secrets)
            data = {ID: chosen, REFUSED: refused, GIVEN: given}
            return Progress(done=False, data=data, poll_after=0.05)

    def check_create(self, ctx: ActionContext) -> Progress:
        failed, refused = ctx.data.get(FAILED), ctx.data.get(REFUSED)
        if failed is not None:
            raise Fatal(str(failed))
        if refused is None:
            return Progress(done=True)
        chosen = ctx.data.get(ID)
        with step_target(ctx) as target:
            answer = target.send("GET", target.item(chosen))
            if answer.retryable:
                raise failure(answer, ctx.resource_name)
            if not answer.ok:
                raise Fatal(str(refused))
            if ctx.data.get(GIVEN):
                # An id from the body may name an object someone else made: adopt it only if
                # it holds what this create would have made.
                body = body_of(ctx)
                if projected(decoded(answer, ctx.resource_name), body) != body:
                    raise AlreadyExists(
                        f"Resource {ctx.resource_name}: {answer.request()} finds an object "
                        f"with the id {chosen!r} its body gives, which differs from its body: "
                        "it is not this resource's."
                    )
            return made(target, answer, chosen)

    # ------------------------------------------------------------------ update
    def update(self, ctx: ActionContext) -> Progress:
        object_id = known_object_id(ctx)
        if object_id is None:
            raise Fatal(f"Resource {ctx.resource_name}: it has no object to update.")
        method = str(ctx.properties.get("update_method") or "PUT")
        with step_target(ctx) as target:
            answer = target.send(method, target.item(object_id), body_of(ctx))
            if not answer.ok:
                raise failure(answer, ctx.resource_name)
            document = decoded(answer, ctx.resource_name)
            data: dict[str, Any] = {STATUS: answer.status}
            if document is not None:
                data[RESPONSE] = masked(document, target.secrets)
            return Progress(done=True, data=data)

    # ------------------------------------------------------------------ delete
    def delete(self, ctx: ActionContext) -> Progress:
        """DELETE the object. One whose create ended before its id was recorded is the one
        the create sent its id for (kept in the data, or made again from ctx.create_token);
        an id the body gave is deleted only if the object there holds that body (as a
        create adopts it), and an id the service was to choose cannot be found."""
        if ctx.physical_id is None and property_problem(ctx) is not None:
            return Progress(done=True)  # its create could send nothing with these properties
        with step_target(ctx) as target:
            object_id = ctx.physical_id
            if object_id is None:
                object_id = leftover(ctx, target)
                if object_id is None:
                    return Progress(done=True)  # its create made nothing we can name
            answer = target.send("DELETE", target.item(object_id))
        if answer.ok:
            return Progress(done=True)
        raise failure(answer, ctx.resource_name)  # a 404 is NotFound: gone, as wanted

    # ----------------------------------------------------------------- observe
    def observe(self, ctx: ActionContext) -> Observed | None:
        """The object as a GET finds it: gone on a 404, else the fields of its JSON that the
        template's body sets (a service adds its own: an id, timestamps), and its answer as
        the attributes read it."""
        if ctx.physical_id is None and property_problem(ctx) is not None:
            return Observed(exists=False)  # its create could send nothing
        with step_target(ctx) as target:
            object_id = ctx.physical_id
            if object_id is None:  # what a create that ended without an id left, if anything
                object_id = leftover(ctx, target)
                if object_id is None:
                    return Observed(exists=False)
            answer = target.send("GET", target.item(object_id))
            if answer.status == 404:
                return Observed(exists=False)
            if not answer.ok:
                raise failure(answer, ctx.resource_name)
            document = decoded(answer, ctx.resource_name)
            real = projected(document, body_of(ctx))
            found = found_at(document, target.id_path)
            given = object_id if found is MISSING or isinstance(found, Mapping | list) else found
            # What a create would have kept: a resource that adopts the object (external_id)
            # reads its attributes from it.
            data = {ID: given, RESPONSE: masked(document, target.secrets), STATUS: answer.status}
            return Observed(
                exists=True, properties={"body": masked(real, target.secrets)}, data=data
            )


def _note(problems: list[Problem], path: str, problem: str | None) -> None:
    if problem is not None:
        problems.append(Problem(path, problem))
