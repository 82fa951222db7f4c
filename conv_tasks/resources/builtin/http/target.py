"""Where and how one step of an HTTP resource sends its request: its URLs and headers checked
(a Fatal naming the property), the client (the connection's, or one of the step's own that
trusts nothing of the worker's environment), the timeout under the step budget, and the
action's token as the Idempotency-Key of every request that changes something."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from conv_tasks.resources.builtin.http.answers import Answer
from conv_tasks.resources.builtin.http.exchange import send
from conv_tasks.resources.builtin.http.locations import (
    DEFAULT_ITEM_URL,
    headers_problem,
    item_url,
    item_url_problem,
    url_problem,
)
from conv_tasks.sdk import DEFAULT_STEP_BUDGET, ActionContext, Fatal

# Seconds a request may take when neither the resource nor its connection says: under the
# step budget, with room for the step's own work.
DEFAULT_TIMEOUT = 4.0
MAX_TIMEOUT = DEFAULT_STEP_BUDGET - 0.5


@dataclass(frozen=True)
class Target:
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
        checked(self.resource, "item_url", url_problem(url, connected=self.connected))
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
def step_target(ctx: ActionContext) -> Iterator[Target]:
    """The step's target: its URLs and headers checked (Fatal, naming the property), and the
    client: the connection's, or one of its own for this step only."""
    props, name = ctx.properties, ctx.resource_name
    connected = ctx.connection is not None
    problem = property_problem(ctx)
    if problem is not None:
        checked(name, *problem)
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
        yield Target(
            resource=name,
            client=client,
            collection=str(collection),
            item_template=str(template),
            id_path=str(props.get("id_path") or "id"),
            headers=headers,
            token=ctx.idempotency_token,
            timeout=request_timeout(props.get("timeout"), client),
            connected=connected,
            secrets=secrets,
        )
    finally:
        if own is not None:
            own.close()


def property_problem(ctx: ActionContext) -> tuple[str, str] | None:
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


def checked(resource: str, prop: str, problem: str | None) -> None:
    if problem is not None:
        raise Fatal(f"Resource {resource}: property {prop} {problem}.")


def request_timeout(given: Any, client: httpx.Client) -> float:
    if given is not None:
        return float(given)
    connection_timeout = client.timeout.read
    if connection_timeout is None:
        return DEFAULT_TIMEOUT
    return min(DEFAULT_TIMEOUT, float(connection_timeout))
