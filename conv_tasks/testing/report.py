"""What a conformance run found: one verdict per check, and the failure a test raises.

A check passes, fails (naming the type, the step and what it saw), is not applicable to the
type (it cannot observe, it has no replacement: said, never passed silently), or was not
run because a check it stands on failed. Pure: nothing here talks to a service.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    """What a check found: PASSED, FAILED, NOT_APPLICABLE (to this type: said why) or NOT_RUN
    (a check it stands on failed)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_APPLICABLE = "not applicable"
    NOT_RUN = "not run"


class CheckFailed(Exception):
    """A check saw something the contract forbids: at `step`, `saw`."""

    def __init__(self, step: str, saw: str) -> None:
        super().__init__(f"{step}: {saw}")
        self.step = step
        self.saw = saw


class NotApplicable(Exception):
    """The check does not apply to this type, for the reason given."""


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict."""

    check: str
    """The check's name (`create`, `same token twice`, ...)."""
    verdict: Verdict
    """What it found."""
    detail: str = ""
    """The failure (step: what it saw), what it saw when it passed, or why it did not apply
    or run."""
    seconds: float = field(default=0.0, compare=False)
    """How long the check took (not part of its equality: a verdict is what it is)."""

    def line(self, type_name: str) -> str:
        """`type, check: verdict: detail`, as the report renders it."""
        detail = f": {self.detail}" if self.detail else ""
        return f"{type_name}, {self.check}: {self.verdict}{detail}"


@dataclass
class Report:
    """Every check of one TypeCase, in the order they ran."""

    type_name: str
    results: list[CheckResult] = field(default_factory=list)
    # The checks ran with the service's fault injection on (conformance.check(service_faults=)).
    service_faults: bool = False

    @property
    def title(self) -> str:
        """The type, and under what weather it was checked."""
        return self.type_name + (" (service faults on)" if self.service_faults else "")

    def add(self, result: CheckResult) -> None:
        """Record one more check's result."""
        self.results.append(result)

    def of(self, verdict: Verdict) -> list[CheckResult]:
        """The results with this verdict, in the order the checks ran."""
        return [r for r in self.results if r.verdict == verdict]

    def verdict(self, check: str) -> Verdict:
        """The verdict of the check named `check`; KeyError if it did not run."""
        for result in self.results:
            if result.check == check:
                return result.verdict
        raise KeyError(check)

    @property
    def failed(self) -> list[CheckResult]:
        """The checks that failed."""
        return self.of(Verdict.FAILED)

    @property
    def not_applicable(self) -> list[CheckResult]:
        """The checks that do not apply to the type."""
        return self.of(Verdict.NOT_APPLICABLE)

    def render(self) -> str:
        """The report as lines, one per check."""
        return "\n".join(result.line(self.type_name) for result in self.results)


class ConformanceFailure(AssertionError):
    """A type failed conformance checks; the message names each failure, and `report` holds
    every verdict."""

    def __init__(self, report: Report) -> None:
        failed = report.failed
        lines = [f"{report.title} failed {len(failed)} conformance check(s):"]
        lines += [f"  - {result.line(report.type_name)}" for result in failed]
        lines += ["", "All checks:", report.render()]
        super().__init__("\n".join(lines))
        self.report = report
