"""A stand-in for the agent on a server, driven by hand from the deployment tests.

It does what the real agent (`conv-tasks agent`) does over the broker, one
call at a time: read the server's deployments with its credential, and
signal one with the deployment's own signal credential. Calls go through
`send_task`, as from a host that does not import conv_tasks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from conv_tasks.broker.options import TASK_QUEUE
from conv_tasks.tasks.app import app


def send(task: str, **kwargs: Any) -> dict[str, Any]:
    sent = app.send_task(task, kwargs=kwargs, queue=TASK_QUEUE)
    result = sent.get(timeout=30)
    sent.forget()  # metadata holds signal credentials: not left in the result backend
    assert isinstance(result, dict)
    return result


def inputs_of(deployment: Mapping[str, Any]) -> dict[str, Any]:
    return {item["name"]: item["value"] for item in deployment["inputs"]}


class FakeAgent:
    """One server's agent."""

    def __init__(self, server: str, credential: str) -> None:
        self.server = server
        self.credential = credential

    def metadata(self, *, credential: str | None = None) -> dict[str, Any]:
        return send(
            "conv_tasks.deployment.metadata",
            server=self.server,
            credential=self.credential if credential is None else credential,
        )

    def wait_for(
        self,
        name: str,
        action: str = "CREATE",
        *,
        where: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """Poll until deployment `name` waits for `action` on this server."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.metadata()
            assert result["ok"], result
            for deployment in result["deployments"]:
                wanted = deployment["name"] == name and deployment["action"] == action
                if wanted and (where is None or where(deployment)):
                    return dict(deployment)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} {action} never reached server {self.server}")
            time.sleep(0.2)

    def signal(
        self,
        deployment: Mapping[str, Any],
        details: Mapping[str, Any],
        *,
        action: str | None = None,
        credential: str | None = None,
    ) -> dict[str, Any]:
        secret = inputs_of(deployment)["deploy_signal_credential"]
        return send(
            "conv_tasks.deployment.signal",
            deployment=deployment["id"],
            credential=secret if credential is None else credential,
            action=deployment["action"] if action is None else action,
            details=dict(details),
        )
