"""What a server's signal means (seed 002), decided from its details alone.

The details are a JSON object: a value for each of the config's outputs,
`deploy_stdout`, `deploy_stderr`, `deploy_status_code`, and, from an agent
that knows about progress, `deploy_status` (IN_PROGRESS, COMPLETE or
FAILED) with `deploy_status_reason`.

- IN_PROGRESS: the server has started; the deployment keeps waiting.
- COMPLETE, or no deploy_status at all (an agent older than seed 002): the
  deployment is done, with its outputs...
- ...unless the status code is not zero, or an output declared with
  `error_output: true` is set: then, as with FAILED, it fails, with
  deploy_status_reason, or else what went wrong and the tail of stderr.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.deployments.records import ConfigOutput, DeployStatus
from conv_tasks.errors import PayloadError, Problem
from conv_tasks.limits import MAX_REASON_CHARS

STDOUT = "deploy_stdout"
STDERR = "deploy_stderr"
STATUS_CODE = "deploy_status_code"
STATUS = "deploy_status"
STATUS_REASON = "deploy_status_reason"
# The values every deployment has, whatever its config declares.
STANDARD_OUTPUTS = (STDOUT, STDERR, STATUS_CODE)

# How much of stdout and stderr is kept (the end: where the errors are), in characters.
MAX_LOG_CHARS = 64 * 1024
# How much of stderr a failure's reason quotes, in lines and in characters.
REASON_TAIL_LINES = 10
REASON_TAIL_CHARS = 1000


@dataclass(frozen=True)
class SignalVerdict:
    """What a signal does to the deployment's current action."""

    status: DeployStatus
    reason: str = ""
    # The declared outputs that were given, and deploy_stdout/stderr/status_code.
    outputs: Mapping[str, Any] = field(default_factory=dict)


def tail(text: str, *, lines: int = REASON_TAIL_LINES, chars: int = REASON_TAIL_CHARS) -> str:
    """The end of `text`: at most `lines` lines and `chars` characters."""
    kept = "\n".join(text.rstrip().splitlines()[-lines:])
    return kept if len(kept) <= chars else "..." + kept[-(chars - 3) :]


def interpret_signal(
    details: Mapping[str, Any], outputs: Sequence[ConfigOutput] = ()
) -> SignalVerdict:
    """The verdict of a signal; PayloadError listing every malformed entry of `details`."""
    problems: list[Problem] = []
    status = _status(details, problems)
    reason = _text(details, STATUS_REASON, problems, limit=MAX_REASON_CHARS)
    stdout = _text(details, STDOUT, problems)
    stderr = _text(details, STDERR, problems)
    code = _status_code(details, problems)
    if problems:
        raise PayloadError(problems)
    if status == DeployStatus.IN_PROGRESS:
        return SignalVerdict(DeployStatus.IN_PROGRESS, reason or "")
    values: dict[str, Any] = {
        STDOUT: None if stdout is None else _keep_tail(stdout),
        STDERR: None if stderr is None else _keep_tail(stderr),
        STATUS_CODE: code,
    }
    failures: list[str] = []
    for output in outputs:
        if output.name in STANDARD_OUTPUTS:
            continue
        value = details.get(output.name)
        values[output.name] = value
        if output.error_output and value not in (None, ""):
            failures.append(f"error output {output.name}: {_quoted(value)}")
    if code not in (None, 0):
        failures.insert(0, f"deploy_status_code {code}")
    if status != DeployStatus.FAILED and not failures:
        return SignalVerdict(DeployStatus.COMPLETE, reason or "", values)
    return SignalVerdict(DeployStatus.FAILED, _failure(reason, failures, stderr), values)


def _failure(reason: str | None, failures: list[str], stderr: str | None) -> str:
    if reason:
        return reason
    said = "; ".join(failures) if failures else "the server reported FAILED"
    quoted = tail(stderr) if stderr and stderr.strip() else ""
    return f"{said}: {quoted}" if quoted else said


def _quoted(value: Any) -> str:
    return tail(value if isinstance(value, str) else repr(value), lines=3, chars=300)


def _keep_tail(text: str) -> str:
    return text if len(text) <= MAX_LOG_CHARS else text[-MAX_LOG_CHARS:]


def _status(details: Mapping[str, Any], problems: list[Problem]) -> DeployStatus | None:
    raw = details.get(STATUS)
    if raw is None:
        return None
    try:
        return DeployStatus(raw)
    except ValueError:
        allowed = ", ".join(s.value for s in DeployStatus)
        problems.append(Problem(f"details.{STATUS}", f"must be one of {allowed}, got {raw!r}"))
        return None


def _text(
    details: Mapping[str, Any], key: str, problems: list[Problem], *, limit: int | None = None
) -> str | None:
    raw = details.get(key)
    if raw is None:
        return None
    if not isinstance(raw, str):
        problems.append(Problem(f"details.{key}", f"must be a string, got {type(raw).__name__}"))
        return None
    if limit is not None and len(raw) > limit:
        problems.append(
            Problem(
                f"details.{key}",
                f"holds {len(raw)} characters, more than MAX_REASON_CHARS ({limit})",
            )
        )
        return None
    return raw


def _status_code(details: Mapping[str, Any], problems: list[Problem]) -> int | None:
    raw = details.get(STATUS_CODE)
    if raw is None or raw == "":
        return None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        try:
            return int(raw.strip())
        except ValueError:
            pass
    problems.append(
        Problem(f"details.{STATUS_CODE}", f"must be an integer, got {raw!r}"[:MAX_REASON_CHARS])
    )
    return None
