"""The agent's poll: fetch the server's deployments, run what is new, report every outcome.

Each run goes through its record in the state store (see state.py):

    no record ──▶ STARTED (on disk before anything runs) ──hook──▶ RAN (final signal kept)
                                                                   ──signal acknowledged──▶ FINISHED

A poll moves every deployment the metadata lists as far along that path as
it can. A record found STARTED belongs to a run the agent was killed during:
it is reported FAILED as interrupted and never run again. A record found RAN
has its final signal sent again. When the broker or the engine does not
answer, the poll stops where it is, in one log line, and the next poll picks
up from the records.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from conv_tasks.agent import signals
from conv_tasks.agent.hooks import Hook, HookResult
from conv_tasks.agent.link import NOT_AUTHORIZED, Answer, ServerLink, ServerUnreachable
from conv_tasks.agent.metadata import Deployment, RunKey, parse_metadata
from conv_tasks.agent.redact import SecretFilter
from conv_tasks.agent.state import RunPhase, RunRecord, StateStore
from conv_tasks.errors import ConvTasksError

LOG = logging.getLogger("conv_tasks.agent")

# Refusals of an IN_PROGRESS signal after which the run would be reported to nobody: the
# deployment is gone, or its credential is not (or no longer) good. Any other refusal (a
# duplicate, say, after an answer lost on the way) does not stop the run.
STOPS_A_RUN = frozenset({NOT_AUTHORIZED, "not_found"})
# How long the record of a finished run the engine no longer lists is kept: well past any
# chance of the same run (same deployment, action and update time) being listed again.
KEEP_FINISHED_SECS = 30 * 24 * 3600.0


class CredentialError(ConvTasksError):
    """The agent has no usable credential for its server."""

    code = "no_credential"


def credential_from_file(path: Path) -> Callable[[], list[str]]:
    """The credentials in `path`, one a line (one per stack with deployments on this server),
    read at every poll so that a new one is taken without a restart. Blank lines and lines
    starting with # are left out."""

    def read() -> list[str]:
        try:
            text = path.read_text()
        except OSError as exc:
            raise CredentialError(
                f"cannot read the credential file {str(path)!r}: {exc.strerror}"
            ) from None
        values = parse_credentials(text)
        if not values:
            raise CredentialError(f"the credential file {str(path)!r} holds no credential")
        return values

    return read


def parse_credentials(text: str) -> list[str]:
    """Credentials one a line; blank lines and # comments left out."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def fixed_credentials(values: list[str]) -> Callable[[], list[str]]:
    def read() -> list[str]:
        return list(values)

    return read


class PollOutcome(StrEnum):
    DONE = "done"
    UNREACHABLE = "unreachable"
    NOT_AUTHORIZED = "not_authorized"
    REFUSED = "refused"
    NO_CREDENTIAL = "no_credential"
    STATE_ERROR = "state_error"


@dataclass
class PollReport:
    """What one poll did."""

    outcome: PollOutcome = PollOutcome.DONE
    message: str = ""
    problems: list[str] = field(default_factory=list)
    deployments: int = 0
    ran: list[RunKey] = field(default_factory=list)
    # Each final signal the engine acknowledged or refused, with what it said.
    finished: list[tuple[RunKey, str]] = field(default_factory=list)


class Agent:
    """Runs the deployments of one server. Construct it with stand-ins to test it."""

    def __init__(
        self,
        server: str,
        credentials: Callable[[], list[str]],
        link: ServerLink,
        store: StateStore,
        hooks: Mapping[str, Hook],
        *,
        legacy: bool = False,
        secrets: SecretFilter | None = None,
        log: logging.Logger = LOG,
    ) -> None:
        self.server = server
        self.credentials = credentials
        self.link = link
        self.store = store
        self.hooks = dict(hooks)
        self.legacy = legacy
        self.secrets = secrets or SecretFilter()
        self.log = log
        # The problems of the previous poll: the same again is logged at the debug level only.
        self._problems: set[str] = set()
        self._noted: set[str] = set()

    # ---------------------------------------------------------------- logging
    def _problem(self, report: PollReport, outcome: PollOutcome, message: str) -> PollReport:
        """One log line per problem: repeated every poll, it goes to the debug level."""
        if report.outcome is PollOutcome.DONE or outcome is PollOutcome.UNREACHABLE:
            report.outcome, report.message = outcome, message
        level = logging.DEBUG if message in self._problems else logging.WARNING
        self.log.log(level, "%s", message)
        report.problems.append(message)
        return report

    def _end(self, report: PollReport) -> PollReport:
        if self._problems and not report.problems:
            self.log.info("the engine answers again")
        self._problems = set(report.problems)
        return report

    def _note_once(self, message: str) -> None:
        if message not in self._noted:
            self._noted.add(message)
            self.log.warning("%s", message)

    # ------------------------------------------------------------------ polls
    def run_forever(self, interval: float, stop: threading.Event) -> None:
        """Poll every `interval` seconds until `stop` is set (a run under way is finished)."""
        while not stop.is_set():
            try:
                self.run_once()
            except Exception as exc:  # a bug must not become a traceback every interval
                self.log.error("poll failed: %s: %s", type(exc).__name__, exc)
                self.log.debug("poll failure", exc_info=True)
            stop.wait(interval)

    def run_once(self) -> PollReport:
        report = PollReport()
        try:
            credentials = self.credentials()
        except CredentialError as exc:
            return self._end(self._problem(report, PollOutcome.NO_CREDENTIAL, str(exc)))
        deployments: dict[str, Deployment] = {}
        for index, credential in enumerate(credentials):
            self.secrets.add(credential)
            which = (
                f" (credential {index + 1} of {len(credentials)})" if len(credentials) > 1 else ""
            )
            try:
                listed = self._fetch(credential, which, report)
            except ServerUnreachable as exc:
                message = f"cannot reach the engine ({exc}); will retry"
                return self._end(self._problem(report, PollOutcome.UNREACHABLE, message))
            for deployment in listed:
                deployments.setdefault(deployment.id, deployment)
        report.deployments = len(deployments)
        for deployment in deployments.values():
            try:
                self._advance(deployment, report)
            except ServerUnreachable as exc:
                message = (
                    f"cannot reach the engine ({exc}); {deployment.describe()} will be taken "
                    "up on the next poll"
                )
                return self._end(self._problem(report, PollOutcome.UNREACHABLE, message))
            except OSError as exc:
                message = (
                    f"cannot write the agent's state under {self.store.root}: {exc}; "
                    f"{deployment.describe()} was left alone"
                )
                return self._end(self._problem(report, PollOutcome.STATE_ERROR, message))
        if report.outcome is PollOutcome.DONE:
            # Every credential answered: what the engine no longer lists, it no longer waits for.
            self._settle_unlisted({d.key for d in deployments.values()})
        return self._end(report)

    def _fetch(self, credential: str, which: str, report: PollReport) -> list[Deployment]:
        """The deployments one credential lists ([] after logging a refusal)."""
        answer = self.link.fetch(self.server, credential)
        if not answer.ok:
            outcome = (
                PollOutcome.NOT_AUTHORIZED
                if answer.error == NOT_AUTHORIZED
                else PollOutcome.REFUSED
            )
            message = (
                f"the engine refused to list the deployments of server {self.server}{which}: "
                f"{answer.refusal()}"
            )
            self._problem(report, outcome, message)
            return []
        raw = answer.data.get("deployments")
        if not isinstance(raw, list):
            message = f"the engine's answer{which} has no list of deployments"
            self._problem(report, PollOutcome.REFUSED, message)
            return []
        parsed = parse_metadata(raw)
        for note in parsed.skipped:
            self._note_once(note)
        for deployment in parsed.deployments:
            self.secrets.add(deployment.signal_credential)
        return list(parsed.deployments)

    def _settle_unlisted(self, listed: set[RunKey]) -> None:
        for record in self.store.records():
            if record.key in listed:
                continue
            if record.phase is not RunPhase.FINISHED:
                self.log.info(
                    "deployment %s (%s) %s: the engine no longer waits for it; its result "
                    "was not delivered",
                    record.name or record.key.deployment,
                    record.key.deployment,
                    record.key.action,
                )
                self.store.put(record.finished("abandoned: the engine no longer listed it"))
            elif (record.finished_at or 0.0) < time.time() - KEEP_FINISHED_SECS:
                self.store.forget(record.key)

    # ------------------------------------------------------------------- runs
    def _advance(self, deployment: Deployment, report: PollReport) -> None:
        record = self.store.get(deployment.key)
        if record is not None and record.phase is RunPhase.FINISHED:
            return
        credential = deployment.signal_credential
        if credential is None:
            self._note_once(
                f"{deployment.describe()} has no signal credential input; it was left alone"
            )
            return
        if record is None:
            self._start(deployment, credential, report)
        elif record.phase is RunPhase.STARTED:
            self.log.warning(
                "%s was interrupted (the agent stopped while it ran); reporting it FAILED "
                "without running it again",
                deployment.describe(),
            )
            record = record.ran(signals.failure(signals.INTERRUPTED_REASON, legacy=self.legacy))
            self.store.put(record)
            self.store.clear_workdir(deployment.key)  # what the interrupted script left
            self._finish(deployment, credential, record, report)
        else:
            self._finish(deployment, credential, record, report)

    def _start(self, deployment: Deployment, credential: str, report: PollReport) -> None:
        record = RunRecord(deployment.key, RunPhase.STARTED, name=deployment.name)
        hook = self.hooks.get(deployment.group)
        if hook is None:
            known = ", ".join(sorted(self.hooks)) or "none"
            reason = (
                f"this agent has no hook for group {deployment.group!r} (it has: {known}); "
                "nothing was run"
            )
            record = record.ran(signals.failure(reason, legacy=self.legacy))
            self.store.put(record)
            self._finish(deployment, credential, record, report)
            return
        # On disk before anything is said or run: a restart from here on never runs it again.
        self.store.put(record)
        if deployment.status_aware and not self.legacy:
            try:
                answer = self.link.signal(
                    deployment.id,
                    credential,
                    deployment.action,
                    signals.in_progress(self.server, hook.name),
                )
            except ServerUnreachable:
                self.store.forget(deployment.key)  # nothing ran: it may start on the next poll
                raise
            if not answer.ok and answer.error in STOPS_A_RUN:
                self.store.put(record.finished(f"refused: {answer.refusal()}"))
                self.log.warning(
                    "%s: the engine refused its IN_PROGRESS signal (%s); not run",
                    deployment.describe(),
                    answer.refusal(),
                )
                return
            if answer.ok and _already_ended(answer):
                said = str(answer.data.get("message", ""))
                self.store.put(record.finished(f"ended before it ran: {said}"))
                self.log.info(
                    "%s: not run, the engine says the run has ended (%s)",
                    deployment.describe(),
                    said,
                )
                return
        self.log.info("%s: running (hook %s)", deployment.describe(), hook.name)
        result = self._run_hook(hook, deployment)
        report.ran.append(deployment.key)
        details = signals.bounded(
            signals.outcome(result, hook.name, legacy=self.legacy), legacy=self.legacy
        )
        record = record.ran(details)
        self.store.put(record)
        self._finish(deployment, credential, record, report)

    def _run_hook(self, hook: Hook, deployment: Deployment) -> HookResult:
        try:
            return hook.run(deployment, self.store.workdir(deployment.key))
        except Exception as exc:  # the run ends FAILED with the reason, the agent goes on
            return HookResult(
                signals.AGENT_FAILURE_CODE,
                failure=f"the {hook.name} hook failed: {type(exc).__name__}: {exc}",
            )
        finally:
            self.store.clear_workdir(deployment.key)

    def _finish(
        self, deployment: Deployment, credential: str, record: RunRecord, report: PollReport
    ) -> None:
        """Send the run's final signal; once the engine has answered, the run is FINISHED."""
        details: dict[str, Any] = dict(record.signal or {})
        answer: Answer = self.link.signal(deployment.id, credential, deployment.action, details)
        if answer.ok and answer.data.get("duplicate"):
            outcome = f"duplicate: {answer.data.get('message', '')}"
            self.log.info(
                "%s: the engine had its outcome already (%s)",
                deployment.describe(),
                answer.data.get("message", ""),
            )
        elif answer.ok:
            outcome = _status_of(details)
            reason = details.get("deploy_status_reason") or ""
            self.log.info(
                "%s: %s%s", deployment.describe(), outcome, f" ({reason})" if reason else ""
            )
        else:
            outcome = f"refused: {answer.refusal()}"
            self.log.warning(
                "%s: the engine refused its final signal (%s)",
                deployment.describe(),
                answer.refusal(),
            )
        self.store.put(record.finished(outcome))
        report.finished.append((deployment.key, outcome))


def _already_ended(answer: Answer) -> bool:
    """Whether the engine answered an IN_PROGRESS signal saying the run is over (it timed out,
    or the deployment moved on to another run): then there is nobody to run it for."""
    if not answer.data.get("duplicate"):
        return False
    ended = answer.data.get("ended")
    if isinstance(ended, bool):
        return ended
    over = (str(signals.DeployStatus.COMPLETE), str(signals.DeployStatus.FAILED))
    return answer.data.get("deploy_status") in over


def _status_of(details: Mapping[str, Any]) -> str:
    status = details.get("deploy_status")
    if isinstance(status, str):
        return status
    return "COMPLETE" if details.get("deploy_status_code") in (0, None) else "FAILED"
