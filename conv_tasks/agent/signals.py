"""What the agent's signals say (pure): seed 002's signal details.

A final signal carries each output by name, `deploy_stdout`,
`deploy_stderr` and `deploy_status_code`, and `deploy_status` (COMPLETE or
FAILED) with `deploy_status_reason`. An agent in legacy mode speaks as an
agent from before seed 002: no IN_PROGRESS signal and no `deploy_status`, so
the engine decides by the status code alone.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from conv_tasks import limits
from conv_tasks.agent.hooks import HookResult

# Only the end of a long stdout or stderr is sent: that is where a failure shows.
STREAM_TAIL_CHARS = 64 * 1024
# A final signal this large (as JSON) would be refused; the run fails with a note instead.
MAX_SIGNAL_BYTES = limits.MAX_PAYLOAD_BYTES // 2
# The status code of a failure the agent reports itself (nothing ran, or not to the end).
AGENT_FAILURE_CODE = 1

INTERRUPTED_REASON = "the agent was interrupted while running this deployment; it was not run again"


class DeployStatus(StrEnum):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


def _tail(text: str, limit: int = STREAM_TAIL_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit} characters cut ...]\n" + text[-limit:]


def _reason(text: str) -> str:
    return (
        text
        if len(text) <= limits.MAX_REASON_CHARS
        else text[: limits.MAX_REASON_CHARS - 3] + "..."
    )


def in_progress(server: str, hook: str) -> dict[str, Any]:
    return {
        "deploy_status": str(DeployStatus.IN_PROGRESS),
        "deploy_status_reason": f"run by the agent on server {server} (hook {hook})",
    }


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def outcome(result: HookResult, hook: str, *, legacy: bool = False) -> dict[str, Any]:
    """The final signal of a run that the hook ran (or could not)."""
    stderr = result.stderr
    if result.failure is not None:
        stderr = f"{stderr}\n{result.failure}" if stderr else result.failure
    details: dict[str, Any] = dict(result.outputs)
    details.update(
        deploy_stdout=_tail(result.stdout),
        deploy_stderr=_tail(stderr),
        # A failure of the hook's own with a zero code would read as success to an old engine.
        deploy_status_code=result.status_code or (AGENT_FAILURE_CODE if result.failure else 0),
    )
    if legacy:
        return details
    if result.succeeded:
        details["deploy_status"] = str(DeployStatus.COMPLETE)
        details["deploy_status_reason"] = f"{hook} completed with status code 0"
    else:
        why = result.failure or f"{hook} exited with status {result.status_code}"
        last = _last_line(result.stderr) if result.failure is None else ""
        details["deploy_status"] = str(DeployStatus.FAILED)
        details["deploy_status_reason"] = _reason(f"{why}: {last}" if last else why)
    return details


def failure(reason: str, *, legacy: bool = False) -> dict[str, Any]:
    """The final signal of a run the agent fails itself: nothing ran, or not to the end."""
    details: dict[str, Any] = {
        "deploy_stdout": "",
        "deploy_stderr": reason,
        "deploy_status_code": AGENT_FAILURE_CODE,
    }
    if not legacy:
        details["deploy_status"] = str(DeployStatus.FAILED)
        details["deploy_status_reason"] = _reason(reason)
    return details


def bounded(details: dict[str, Any], *, legacy: bool = False) -> dict[str, Any]:
    """The details, or a failure saying they were too large to send."""
    size = len(json.dumps(details, separators=(",", ":")).encode())
    if size <= MAX_SIGNAL_BYTES:
        return details
    return failure(
        f"the deployment's outputs and logs came to {size} bytes, more than a signal may "
        f"carry ({MAX_SIGNAL_BYTES}); they were not sent",
        legacy=legacy,
    )
