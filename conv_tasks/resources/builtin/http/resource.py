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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from conv_tasks.resources.builtin.http.answers import Answer, decoded, failure
from conv_tasks.resources.builtin.http.documents import (
    ID_PATH_PATTERN,
    MISSING,
    found_at,
    masked,
    placed_at,
    projected,
)
from conv_tasks.resources.builtin.http.exchange import send
from conv_tasks.resources.builtin.http.locations import (
    DEFAULT_ITEM_URL,
    headers_problem,
    item_url,
    item_url_problem,
    url_problem,
)
from conv_tasks.sdk import (
    BOOLEAN,
    DEFAULT_STEP_BUDGET,
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
    token_physical_id,
)

log = logging.getLogger(__name__)

# Seconds a request may take when neither the resource nor its connection says: under the
# step budget, with room for the step's own work.
DEFAULT_TIMEOUT = 4.0
MAX_TIMEOUT = DEFAULT_STEP_BUDGET - 0.5
UPDATE_METHODS = ("PUT", "PATCH")

# The plugin's data: the object's id as the service gave it, its last JSON answer and status;
# and, between a create POST and the step that settles it, why the service refused it, or
# why its answer could not be used.
ID, RESPONSE, STATUS = "id", "response", "status"
REFUSED, FAILED = "create_refused", "create_failed"
# True when the id came from the body, not from the action's token.
GIVEN = "id_given"


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
        with _target(ctx) as target:
            body, chosen, given = _create_body(ctx, target.id_path)
            answer = target.send("POST", target.collection, body)
            if answer.retryable:
                raise failure(answer, ctx.resource_name)
            if chosen is MISSING:  # the service chooses: a refusal is the answer
                if not answer.ok:
                    raise failure(answer, ctx.resource_name)
                return _made(target, answer, chosen)
            if answer.ok:
                try:
                    return _made(target, answer, chosen)
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
        with _target(ctx) as target:
            answer = target.send("GET", target.item(chosen))
            if answer.retryable:
                raise failure(answer, ctx.resource_name)
            if not answer.ok:
                raise Fatal(str(refused))
            if ctx.data.get(GIVEN):
                # An id from the body may name an object someone else made: adopt it only if
                # it holds what this create would have made.
                body = _body(ctx)
                if projected(decoded(answer, ctx.resource_name), body) != body:
                    raise AlreadyExists(
                        f"Resource {ctx.resource_name}: {answer.request()} finds an object "
                        f"with the id {chosen!r} its body gives, which differs from its body: "
                        "it is not this resource's."
                    )
            return _made(target, answer, chosen)

    # ------------------------------------------------------------------ update
    def update(self, ctx: ActionContext) -> Progress:
        object_id = _object_id(ctx)
        if object_id is None:
            raise Fatal(f"Resource {ctx.resource_name}: it has no object to update.")
        method = str(ctx.properties.get("update_method") or "PUT")
        with _target(ctx) as target:
            answer = target.send(method, target.item(object_id), _body(ctx))
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
        if ctx.physical_id is None and _property_problem(ctx) is not None:
            return Progress(done=True)  # its create could send nothing with these properties
        with _target(ctx) as target:
            object_id = ctx.physical_id
            if object_id is None:
                object_id = _leftover(ctx, target)
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
        if ctx.physical_id is None and _property_problem(ctx) is not None:
            return Observed(exists=False)  # its create could send nothing
        with _target(ctx) as target:
            object_id = ctx.physical_id
            if object_id is None:  # what a create that ended without an id left, if anything
                object_id = _leftover(ctx, target)
                if object_id is None:
                    return Observed(exists=False)
            answer = target.send("GET", target.item(object_id))
            if answer.status == 404:
                return Observed(exists=False)
            if not answer.ok:
                raise failure(answer, ctx.resource_name)
            document = decoded(answer, ctx.resource_name)
            real = projected(document, _body(ctx))
            found = found_at(document, target.id_path)
            given = object_id if found is MISSING or isinstance(found, Mapping | list) else found
            # What a create would have kept: a resource that adopts the object (external_id)
            # reads its attributes from it.
            data = {ID: given, RESPONSE: masked(document, target.secrets), STATUS: answer.status}
            return Observed(
                exists=True, properties={"body": masked(real, target.secrets)}, data=data
            )


@dataclass(frozen=True)
class _Target:
    """Where and how one step of one resource sends its request."""

    resource: str
    client: httpx.Client
    collection: str
    item_template: str
    id_path: str
    headers: Mapping[str, str]
    token: str
    timeout: float
    connected: bool
    secrets: tuple[str, ...]

    def item(self, object_id: Any) -> str:
        url = item_url(self.item_template, self.collection, object_id)
        _checked(self.resource, "item_url", url_problem(url, connected=self.connected))
        return url

    def send(self, method: str, url: str, body: Any = None) -> Answer:
        headers = dict(self.headers)
        if method != "GET":
            headers["Idempotency-Key"] = self.token
        return send(
            self.client,
            method,
            url,
            resource=self.resource,
            headers=headers,
            timeout=self.timeout,
            body=body,
        )


@contextmanager
def _target(ctx: ActionContext) -> Iterator[_Target]:
    """The step's target: its URLs and headers checked (Fatal, naming the property), and the
    client: the connection's, or one of its own for this step only."""
    props, name = ctx.properties, ctx.resource_name
    connected = ctx.connection is not None
    problem = _property_problem(ctx)
    if problem is not None:
        _checked(name, *problem)
    collection = props.get("url")
    template = props.get("item_url") or DEFAULT_ITEM_URL
    headers = props.get("headers") or {}
    own: httpx.Client | None = None
    if ctx.connection is not None:
        client = ctx.client()
        secrets = ctx.connection.secrets()
    else:
        # Nothing from the worker's environment (a proxy, ~/.netrc credentials) goes to a
        # URL a template chose.
        client = own = httpx.Client(follow_redirects=False, trust_env=False)
        secrets = ()
    try:
        yield _Target(
            resource=name,
            client=client,
            collection=str(collection),
            item_template=str(template),
            id_path=str(props.get("id_path") or "id"),
            headers=headers,
            token=ctx.idempotency_token,
            timeout=_timeout(props.get("timeout"), client),
            connected=connected,
            secrets=secrets,
        )
    finally:
        if own is not None:
            own.close()


def _property_problem(ctx: ActionContext) -> tuple[str, str] | None:
    """(property, what is wrong with it) of the first property no request can be sent with;
    None if there is none."""
    props = ctx.properties
    connected = ctx.connection is not None
    problems = (
        ("url", url_problem(props.get("url"), connected=connected)),
        (
            "item_url",
            item_url_problem(props.get("item_url") or DEFAULT_ITEM_URL, connected=connected),
        ),
        ("headers", headers_problem(props.get("headers") or {})),
    )
    return next(((prop, problem) for prop, problem in problems if problem is not None), None)


def _checked(resource: str, prop: str, problem: str | None) -> None:
    if problem is not None:
        raise Fatal(f"Resource {resource}: property {prop} {problem}.")


def _note(problems: list[Problem], path: str, problem: str | None) -> None:
    if problem is not None:
        problems.append(Problem(path, problem))


def _timeout(given: Any, client: httpx.Client) -> float:
    if given is not None:
        return float(given)
    connection_timeout = client.timeout.read
    if connection_timeout is None:
        return DEFAULT_TIMEOUT
    return min(DEFAULT_TIMEOUT, float(connection_timeout))


def _body(ctx: ActionContext) -> dict[str, Any]:
    body = ctx.properties.get("body")
    return dict(body) if isinstance(body, Mapping) else {}


def _create_body(ctx: ActionContext, id_path: str) -> tuple[dict[str, Any], Any, bool]:
    """The create body, the id it holds (MISSING: the service chooses), and whether the
    body gave that id (else the resource chose it from its token)."""
    body = _body(ctx)
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


def _made(target: _Target, answer: Answer, chosen: Any) -> Progress:
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


def _leftover(ctx: ActionContext, target: _Target) -> Any:
    """The id of the object that a create which ended without a physical id made, if it can
    be named: the id the create sent (kept in its data, or chosen again from its token,
    ctx.create_token); an id the body gave only if the object there holds the body (else it
    is somebody else's). None: nothing of it is there, or the service was to choose."""
    body = _body(ctx)
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


def _object_id(ctx: ActionContext) -> Any:
    """The object's id: the physical id, or the id a create chose before it failed."""
    if ctx.physical_id is not None:
        return ctx.physical_id
    return ctx.data.get(ID)
