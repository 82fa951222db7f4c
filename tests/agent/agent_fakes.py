"""Stand-ins for the engine and for hooks, so the agent is tested without any service."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conv_tasks.agent.hooks import HookResult
from conv_tasks.agent.link import Answer, ServerUnreachable
from conv_tasks.agent.metadata import Deployment

SERVER_CREDENTIAL = "server-secret-0d1e"


def deployment_entry(
    ident: str = "dep-1",
    *,
    group: str = "script",
    config: Any = "#!/bin/sh\necho hi\n",
    action: str = "CREATE",
    updated_time: str = "2024-01-01T00:00:00",
    aware: bool | None = True,
    outputs: tuple[str, ...] = (),
    credential: str | None = None,
    inputs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One deployment as `conv_tasks.deployment.metadata` lists it."""
    values: dict[str, Any] = {"deploy_action": action, "deploy_server_id": "srv-1"}
    if aware is not None:
        values["deploy_status_aware"] = aware
    values["deploy_signal_credential"] = credential or f"signal-secret-{ident}"
    values.update(inputs or {})
    return {
        "id": ident,
        "name": f"name-{ident}",
        "group": group,
        "config": config,
        "options": {},
        "action": action,
        "inputs": [
            {"name": k, "type": "String", "value": v, "description": ""} for k, v in values.items()
        ],
        "outputs": [
            {"name": n, "type": "String", "description": "", "error_output": False} for n in outputs
        ],
        "updated_time": updated_time,
    }


@dataclass
class FakeServer:
    """The engine's two tasks, recording every signal; `down` makes it unreachable."""

    deployments: list[dict[str, Any]] = field(default_factory=list)
    credential: str = SERVER_CREDENTIAL
    down: bool = False
    # Signals answered with this refusal, by deploy_status (None: the final signal).
    refuse: dict[str | None, tuple[str, str]] = field(default_factory=dict)
    # Signals answered with this (accepted) answer instead, keyed as `refuse`.
    replies: dict[str | None, dict[str, Any]] = field(default_factory=dict)
    # More credentials, each listing deployments of its own (another stack's).
    others: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # Fail this many signal calls as unreachable, then answer again.
    drop_signals: int = 0
    signals: list[dict[str, Any]] = field(default_factory=list)
    fetches: int = 0

    def fetch(self, server: str, credential: str) -> Answer:
        if self.down:
            raise ServerUnreachable("broker: connection refused")
        self.fetches += 1
        if credential in self.others:
            return Answer(True, data={"ok": True, "deployments": self.others[credential]})
        if credential != self.credential:
            return Answer(False, "not_authorized", "the credential is not this server's")
        return Answer(True, data={"ok": True, "deployments": self.deployments})

    def signal(
        self, deployment: str, credential: str, action: str, details: Mapping[str, Any]
    ) -> Answer:
        if self.down:
            raise ServerUnreachable("broker: connection refused")
        if self.drop_signals:
            self.drop_signals -= 1
            raise ServerUnreachable("result backend: timed out")
        self.signals.append(
            {"deployment": deployment, "credential": credential, "action": action, **details}
        )
        status = details.get("deploy_status")
        which = status if status == "IN_PROGRESS" else None
        refusal = self.refuse.get(which)
        if refusal:
            return Answer(False, *refusal)
        return Answer(True, data={"ok": True, **self.replies.get(which, {})})

    def statuses(self) -> list[tuple[str, str | None]]:
        return [(s["deployment"], s.get("deploy_status")) for s in self.signals]


@dataclass
class FakeHook:
    """A hook that records its runs and returns a fixed result (or raises)."""

    name: str = "script"
    result: HookResult = field(default_factory=lambda: HookResult(0, "out", "", {"x": "1"}))
    raises: Exception | None = None
    runs: list[str] = field(default_factory=list)

    def run(self, deployment: Deployment, workdir: Path) -> HookResult:
        assert workdir.is_dir()
        self.runs.append(deployment.id)
        if self.raises is not None:
            raise self.raises
        return self.result
