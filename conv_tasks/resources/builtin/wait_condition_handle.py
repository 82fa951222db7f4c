"""OS::Heat::WaitConditionHandle: where hosts outside the stack signal that they are ready.

A handle's attributes say how to signal it (docs/features/wait-conditions.md). Where the
engine knows the HTTP edge's public URL (CONV_TASKS_API_PUBLIC_URL), they are Heat's:

- `token`: the handle's credential, 256 random bits made when the handle is
  created. Signals must carry it; the handle's row keeps only its hash.
- `endpoint`: the URL a host POSTs its signal to,
  `{edge}/signal/v1/wait_condition_handles/{handle id}`.
- `curl_cli`: Heat's command prefix, `curl -i -X POST -H 'X-Auth-Token: TOKEN'
  -H 'Content-Type: application/json' -H 'Accept: application/json' ENDPOINT`, to which
  a template adds `--data-binary '{"status": "SUCCESS"}'`.
- `signal`: JSON text of the endpoint and the token.

Without an edge URL, a host signals over the broker: `endpoint` is the handle's id,
`curl_cli` is `conv-tasks wait-condition signal ID --token TOKEN` (which takes the same
`--data-binary`), and `signal` names the task with its `handle` and `token` arguments.

token, curl_cli and signal carry the credential: they are secret_attributes,
so whatever reads them is masked in show output, outputs and events. With
signal_transport NO_SIGNAL the handle has no credential and these are all
null (as in Heat); only its stack's tenant can signal it then
(conv_tasks.resource.signal). This module never logs the token.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import quote

from conv_tasks.sdk import (
    STRING,
    ActionContext,
    AttributeSchema,
    Constraint,
    Progress,
    PropertySchema,
    ResourceFailure,
    ResourceType,
    SupportStatus,
    WaitHandleStore,
    credential_hash,
    engine_service,
    new_credential,
    token_physical_id,
)

SIGNAL_TASK = "conv_tasks.wait_condition.signal"
TOKEN_SIGNAL = "TOKEN_SIGNAL"
NO_SIGNAL = "NO_SIGNAL"
HEAT_ONLY_TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "ZAQAR_SIGNAL")
# Where the handle's plugin data keeps its token, so that its attributes can be given again
# on a later traversal (Heat keeps it in the resource's data the same way).
_TOKEN_KEY = "token"

_TRANSPORTS = Constraint.allowed_values(
    TOKEN_SIGNAL,
    NO_SIGNAL,
    description=(
        f"Heat's transports {', '.join(HEAT_ONLY_TRANSPORTS)} are not implemented by "
        f"conv_tasks; {TOKEN_SIGNAL} signals with the handle's token through the "
        f"{SIGNAL_TASK} task"
    ),
)


def wait_handle_store(ctx: ActionContext) -> WaitHandleStore:
    """The store the engine handed the action, or a failure saying none was."""
    return engine_service(ctx, ctx.wait_handles, "wait condition store")


class WaitConditionHandleResource(ResourceType):
    """Receives the signals of a WaitCondition, authenticated by the handle's token."""

    keeps_wait_signals: ClassVar[bool] = True

    type_name: ClassVar[str] = "OS::Heat::WaitConditionHandle"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.2")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "signal_transport": PropertySchema(
            STRING,
            f"How hosts signal: {TOKEN_SIGNAL}, the {SIGNAL_TASK} task with the handle's "
            f"token; {NO_SIGNAL}: no token, only the stack's tenant signals.",
            default=TOKEN_SIGNAL,
            constraints=(_TRANSPORTS,),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "token": AttributeSchema("The credential a signal must carry (secret).", type=STRING),
        "endpoint": AttributeSchema(
            "The URL a signal is POSTed to (on the HTTP edge); without an edge URL, the "
            f"handle's id: the `handle` argument of {SIGNAL_TASK}.",
            type=STRING,
        ),
        "curl_cli": AttributeSchema(
            "The command prefix that signals the handle (carries the token); add "
            '--data-binary \'{"status": "SUCCESS"}\' or FAILURE.',
            type=STRING,
        ),
        "signal": AttributeSchema(
            "JSON text of the endpoint and the token; without an edge URL, of the "
            f"{SIGNAL_TASK} task and its handle and token arguments.",
            type=STRING,
        ),
    }
    secret_attributes: ClassVar[frozenset[str]] = frozenset({"token", "curl_cli", "signal"})

    def create(self, ctx: ActionContext) -> Progress:
        """Make the token and have the engine record it (under the node's lease) before the
        handle takes its hash in check_create: two runs of this step racing each other (a
        lease that ran out) can then never leave the handle with the hash of a token that
        the resource does not hold."""
        handle_id = ctx.physical_id or token_physical_id(ctx.idempotency_token)
        token = ctx.data.get(_TOKEN_KEY)
        if not isinstance(token, str) and self._uses_token(ctx):
            token = new_credential()
        return Progress(
            done=False, physical_id=handle_id, data={_TOKEN_KEY: token}, poll_after=0.05
        )

    def check_create(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is None:
            raise ResourceFailure(
                f"Resource {ctx.resource_name}: the handle was never made",
                resource=ctx.resource_name,
                action=ctx.action,
            )
        token = ctx.data.get(_TOKEN_KEY)
        hashed = credential_hash(token) if isinstance(token, str) else None
        store = wait_handle_store(ctx)
        store.create_handle(ctx.physical_id, ctx.stack_id, ctx.resource_name, hashed)
        return Progress(done=True)

    @staticmethod
    def _uses_token(ctx: ActionContext) -> bool:
        return ctx.properties.get("signal_transport", TOKEN_SIGNAL) == TOKEN_SIGNAL

    def delete(self, ctx: ActionContext) -> Progress:
        handle_id = ctx.physical_id
        if handle_id is None and ctx.create_token is not None:
            # Its create records the id before it makes the handle; but a create that ended
            # even before that made it under its token's id, if at all.
            handle_id = token_physical_id(ctx.create_token)
        if handle_id is not None:
            wait_handle_store(ctx).remove(handle_id)
        return Progress(done=True)

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        token = ctx.data.get(_TOKEN_KEY)
        handle_id = ctx.physical_id
        if not isinstance(token, str) or handle_id is None:
            return {"token": None, "endpoint": None, "curl_cli": None, "signal": None}
        if ctx.edge_url:
            endpoint = signal_url(ctx.edge_url, handle_id)
            return {
                "token": token,
                "endpoint": endpoint,
                "curl_cli": curl_command(endpoint, token),
                "signal": json.dumps({"endpoint": endpoint, "token": token}),
            }
        return {
            "token": token,
            "endpoint": handle_id,
            "curl_cli": signal_command(handle_id, token),
            "signal": json.dumps({"task": SIGNAL_TASK, "handle": handle_id, "token": token}),
        }


# Where the edge takes a handle's signals (conv_tasks.api), under its public URL.
SIGNAL_PATH = "/signal/v1/wait_condition_handles/"


def signal_url(edge_url: str, handle_id: str) -> str:
    return f"{edge_url.rstrip('/')}{SIGNAL_PATH}{quote(handle_id, safe='')}"


def curl_command(endpoint: str, token: str) -> str:
    """Heat's command prefix: a POST of the signal to the edge, with the handle's token."""
    return (
        f"curl -i -X POST -H {shlex.quote('X-Auth-Token: ' + token)} "
        "-H 'Content-Type: application/json' -H 'Accept: application/json' "
        f"{shlex.quote(endpoint)}"
    )


def signal_command(handle_id: str, token: str) -> str:
    """The command prefix a host runs to signal the handle over the broker."""
    return f"conv-tasks wait-condition signal {shlex.quote(handle_id)} --token {shlex.quote(token)}"
