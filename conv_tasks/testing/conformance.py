"""Conformance.check: every check of a TypeCase, in order, into one Report.

The checks, in the order they run (those after a failed one they stand on are not run):

    create                      create -> CREATE_COMPLETE, on the workers
    observe after create        `observe` finds the object, as its properties say
    preview after apply         a preview of the same template says nothing changes
    update in place             preview says update; after it, the same physical id
    replacement                 preview says replace; after it, a new one, the old gone
    delete                      delete -> DELETE_COMPLETE
    observe after delete        `observe` says the object is gone
    delete twice                the same delete again ends done
    same token twice            a create started again with its token makes no second object
    interrupt                   a cancelled create ends FAILED as interrupted, interrupt called
    worker killed mid-create    the workers resume it to exactly one object
    step budget                 every step measured returned within the type's step_budget
    secrets kept                no connection secret in a worker log, an event or a show
    clean up                    (always; reported when it fails) every stack made is deleted

Each stack a check makes has names of its own (TypeCase.unique). The kit's own calls of the
type's observe and of preview are asked again while the service puts them off, within the
case's RetryBudget (retries.py); a check that passed after that says how often. With
`service_faults=True` every check runs inside the case's `service_faults` hook: the service
throttles and fails some answers, and a type that does what the SDK asks still passes.

A check raises nothing out of here: a kit or service error fails the check it happened in,
naming it. The report goes to `on_report` (the pytest plugin's summary), and a failed check
raises ConformanceFailure.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Collection, Iterator, Mapping

from conv_tasks.connections import parse_connections, read_secret
from conv_tasks.testing.case import TypeCase
from conv_tasks.testing.cleanup import CLEAN_UP, clean_up
from conv_tasks.testing.cluster import Cluster
from conv_tasks.testing.inprocess import InProcessEngine
from conv_tasks.testing.lifecycle import Lifecycle
from conv_tasks.testing.measured import Recorder
from conv_tasks.testing.report import (
    CheckFailed,
    CheckResult,
    ConformanceFailure,
    NotApplicable,
    Report,
    Verdict,
)
from conv_tasks.testing.resilience import Resilience
from conv_tasks.testing.retries import Retrier

log = logging.getLogger(__name__)

# The shortest lease the cluster's workers get: the default step budget's and a second, so
# that types with shorter budgets share the workers of those with the default one.
LEASE_FLOOR = 6.0
CREATE = "create"
DELETE = "delete"
# Every check, in the order they run, and the check each stands on.
CHECKS: dict[str, str | None] = {
    CREATE: None,
    "observe after create": CREATE,
    "preview after apply": CREATE,
    "update in place": CREATE,
    "replacement": CREATE,
    DELETE: CREATE,
    "observe after delete": DELETE,
    "delete twice": DELETE,
    "same token twice": None,
    "interrupt": None,
    "worker killed mid-create": None,
    "step budget": None,
    "secrets kept": None,
}


class Conformance:
    """Checks TypeCases against a cluster's real workers."""

    def __init__(self, cluster: Cluster, on_report: Callable[[Report], None] | None = None):
        self.cluster = cluster
        self.on_report = on_report

    def check(
        self,
        case: TypeCase,
        *,
        checks: Collection[str] | None = None,
        service_faults: bool = False,
    ) -> Report:
        """Run the checks of `case` (all, or those named in `checks` and what they stand on);
        the report. ConformanceFailure if one failed. `service_faults`: every check runs with
        the service's fault injection on (the case's `service_faults` hook)."""
        report = self.run(case, checks=checks, service_faults=service_faults)
        if self.on_report is not None:
            self.on_report(report)
        if report.failed:
            raise ConformanceFailure(report)
        return report

    def run(
        self,
        case: TypeCase,
        *,
        checks: Collection[str] | None = None,
        service_faults: bool = False,
    ) -> Report:
        """The checks of `case`, failed ones included, without raising."""
        _with_needs(CHECKS, checks)  # an unknown name is refused before anything starts
        if service_faults and case.service_faults is None:
            raise ValueError(
                f"{case.type_name}: service_faults=True needs the case's service_faults hook "
                "(a function of the cluster that returns a context manager inside which the "
                "service misbehaves: HttpFaultProxy.faulty, TcpFaultProxy.faulty, sandbox_faults)"
            )
        # The workers (and the engine here) read the case's connections before anything runs.
        # A lease outlives any step within the budget: a slow step fails the budget check,
        # not the others.
        budget = self.cluster.type_of(case).step_budget
        self.cluster.configure(case, lock_ttl=max(LEASE_FLOOR, budget + 1.0))
        recorder = Recorder()
        engine = InProcessEngine(self.cluster, case, recorder)
        life = Lifecycle(self.cluster, case, engine)
        hardy = Resilience(self.cluster, case, engine)
        logged = self.cluster.log_marks()

        def secrets() -> str:
            stacks = [*([life.stack_id] if life.stack_id else []), *engine.stacks]
            places = {
                "the workers' logs": self.cluster.logs(since=logged),
                "resource show": "\n".join(life.shown),
            }
            return secrets_kept(self.cluster, case, places, stacks)

        bodies: dict[str, Callable[[], str]] = {
            CREATE: life.create,
            "observe after create": life.observe_after_create,
            "preview after apply": life.preview_after_apply,
            "update in place": life.update_in_place,
            "replacement": life.replacement,
            DELETE: life.delete,
            "observe after delete": life.observe_after_delete,
            "delete twice": life.delete_twice,
            "same token twice": hardy.same_token_twice,
            "interrupt": hardy.interrupt,
            "worker killed mid-create": hardy.killed_worker,
            "step budget": lambda: step_budget(engine, recorder),
            "secrets kept": secrets,
        }
        wanted = _with_needs(CHECKS, checks)
        report = Report(case.type_name, service_faults=service_faults)
        retrier = engine.retrier
        try:
            with self._weather(case, service_faults):
                for name, needs in CHECKS.items():
                    if name in wanted:
                        _run(report, name, bodies[name], needs=needs, retrier=retrier)
        finally:
            made = [*([life.stack_id] if life.stack_id else []), *engine.stacks]
            _left_behind(report, lambda: clean_up(self.cluster, case, engine, made))
            engine.close()
        return report

    @contextlib.contextmanager
    def _weather(self, case: TypeCase, service_faults: bool) -> Iterator[None]:
        """The service's faults on inside the block, when asked for."""
        if not service_faults or case.service_faults is None:
            yield
            return
        with case.service_faults(self.cluster):
            yield


def _with_needs(needs: Mapping[str, str | None], checks: Collection[str] | None) -> set[str]:
    """The checks to run: those asked for and every check they stand on (`needs`: check ->
    the check it stands on)."""
    if checks is None:
        return set(needs)
    unknown = sorted(set(checks) - set(needs))
    if unknown:
        known = ", ".join(needs)
        raise ValueError(f"no such conformance check: {', '.join(unknown)} (there are: {known})")
    wanted: set[str] = set()
    for name in checks:
        step: str | None = name
        while step is not None:
            wanted.add(step)
            step = needs[step]
    return wanted


def _run(
    report: Report,
    check: str,
    body: Callable[[], str],
    *,
    needs: str | None = None,
    retrier: Retrier | None = None,
) -> None:
    if needs is not None and report.verdict(needs) != Verdict.PASSED:
        report.add(CheckResult(check, Verdict.NOT_RUN, f"`{needs}` did not pass"))
        return
    began = time.monotonic()
    put_off = retrier.put_off if retrier is not None else 0

    def result(verdict: Verdict, detail: str) -> CheckResult:
        return CheckResult(check, verdict, detail, seconds=time.monotonic() - began)

    try:
        detail = body()
    except NotApplicable as exc:
        report.add(result(Verdict.NOT_APPLICABLE, str(exc)))
    except CheckFailed as exc:
        report.add(result(Verdict.FAILED, f"{exc.step}: {exc.saw}"))
    except Exception as exc:  # the check could not be made: that fails it, by name
        log.exception("conformance check %r of %s raised", check, report.type_name)
        report.add(result(Verdict.FAILED, f"raised {type(exc).__name__}: {exc}"))
    else:
        again = (retrier.put_off if retrier is not None else 0) - put_off
        if again:
            detail += f" (the service put off {again} of the kit's calls: asked again)"
        report.add(result(Verdict.PASSED, detail))


def _left_behind(report: Report, body: Callable[[], str]) -> None:
    """The clean-up, reported only when it failed: a report lists the checks asked for, and a
    stack left behind is the one thing the clean-up has to say."""
    scratch = Report(report.type_name)
    _run(scratch, CLEAN_UP, body)
    [result] = scratch.results
    if result.verdict == Verdict.FAILED:
        report.add(result)
    else:
        log.info("%s, %s: %s", report.type_name, CLEAN_UP, result.detail)


def step_budget(engine: InProcessEngine, recorder: Recorder) -> str:
    """Every step the kit ran in this process returned within the type's step budget."""
    budget = engine.original.step_budget
    slowest = recorder.slowest()
    if slowest is None:
        raise NotApplicable("no step of the type ran in the test process")
    over = [t for t in recorder.timings if t.seconds > budget]
    if over:
        raise CheckFailed(
            f"{slowest.resource} {slowest.method}",
            f"took {slowest.seconds:.2f} s, over the type's step budget of {budget:g} s "
            f"({len(over)} of {len(recorder.timings)} steps were over it)",
        )
    return (
        f"{len(recorder.timings)} steps within {budget:g} s (the slowest, "
        f"{slowest.resource} {slowest.method}, took {slowest.seconds:.2f} s)"
    )


def secrets_kept(
    cluster: Cluster, case: TypeCase, places: dict[str, str], stack_ids: list[str]
) -> str:
    """No secret of the case's connections in `places` (what the workers logged while the
    case ran, the resource as `show` gave it), nor in the events of every stack it made."""
    if not case.connections.strip():
        raise NotApplicable("the case names no connections")
    config = parse_connections(case.connections)
    environ = cluster.settings().environ
    specs = [*config.default.values(), *(s for t in config.tenants.values() for s in t.values())]
    secrets = {secret for spec in specs if (secret := read_secret(spec, environ))}
    if not secrets:
        raise NotApplicable("the case's connections hold no secret")
    client = cluster.client(case.tenant)
    for stack_id in stack_ids:
        places[f"the events of stack {stack_id}"] = repr(client.events(stack_id))
    leaked = sorted(where for where, text in places.items() if any(s in text for s in secrets))
    if leaked:
        raise CheckFailed("search", f"a connection's secret appears in {', '.join(leaked)}")
    return f"no secret of {len(specs)} connection(s) in {len(places)} places searched"
