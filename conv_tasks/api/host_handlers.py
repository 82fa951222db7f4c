"""The handlers of the addresses hosts call with a credential of their own instead of a
tenant's token: a wait condition handle's signal (Heat's curl_cli), and the reference
agent's reads and reports. The credential travels in X-Auth-Token and is never logged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conv_tasks.api.call import AnswerFault, Call, Reply
from conv_tasks.api.json_body import check_content_type, parse_object
from conv_tasks.edge import ApiFault, bad_request


def _host_credential(call: Call, whose: str) -> str:
    token = (call.auth_token or "").strip()
    if not token:
        raise ApiFault(401, "HTTPUnauthorized", f"This address needs {whose} in X-Auth-Token.")
    return token


async def _as_host(call: Call, work: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    answer = await call.gateway.as_host(work)
    if not answer.get("ok"):
        raise AnswerFault(answer)
    return answer


async def handle_signal(call: Call) -> Reply:
    """A host signals a wait condition handle with its token (Heat's curl_cli)."""
    token = _host_credential(call, "the handle's token")
    check_content_type(call.content_type, call.body)
    details = parse_object(call.body, required=False)
    handle = call.param("handle")
    answer = await _as_host(call, lambda c: c.signal_wait_condition(handle, token, details))
    return Reply(200, answer)


async def agent_metadata(call: Call) -> Reply:
    """The reference agent reads its server's deployments with the server's credential."""
    credential = _host_credential(call, "the server's credential")
    server = call.param("server")
    return Reply(200, await _as_host(call, lambda c: c.deployment_metadata(server, credential)))


async def agent_signal(call: Call) -> Reply:
    """The reference agent reports on a deployment with the server's credential."""
    credential = _host_credential(call, "the server's credential")
    body = call.object_body()
    unknown = sorted(set(body) - {"action", "details"})
    if unknown:
        raise bad_request(f"unknown fields: {', '.join(unknown)}", unknown[0])
    action, details = body.get("action"), body.get("details", {})
    if not isinstance(action, str) or not isinstance(details, dict):
        raise bad_request("action must be a string and details an object", "action")
    deployment = call.param("deployment")
    answer = await _as_host(
        call, lambda c: c.signal_deployment(deployment, credential, action, details)
    )
    return Reply(200, answer)
