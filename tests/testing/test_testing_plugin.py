"""The kit's pytest plugin changes nothing until asked, and its pure parts (no services)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from conv_tasks.connections import parse_connections
from conv_tasks.resources.builtin import TestResource
from conv_tasks.sdk import Fatal, Throttled, Transient
from conv_tasks.testing import (
    UNIQUE,
    CheckResult,
    ConformanceFailure,
    Report,
    TypeCase,
    Verdict,
    connections_file,
)
from conv_tasks.testing.case import unique_suffix
from conv_tasks.testing.conformance import CHECKS, _with_needs
from conv_tasks.testing.fault_plan import Fault, FaultPlan, Weather
from conv_tasks.testing.inprocess import HeldDispatcher
from conv_tasks.testing.measured import Recorder, WorkerKilled, measured_type
from conv_tasks.testing.retries import Retrier, RetryBudget, ServiceBusy

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ("conformance", "conv_tasks_cluster", "conv_tasks_services", "private_postgres")


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=True,
    )
    return done.stdout


def test_conv_tasks_declares_the_plugin_under_its_module_name() -> None:
    # Named as its module, `-p conv_tasks.testing.plugin` beside the installed entry point
    # loads it once, not twice.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    plugins = project["entry-points"]["pytest11"]
    assert plugins == {"conv_tasks.testing.plugin": "conv_tasks.testing.plugin"}


def test_loading_the_plugin_reads_no_settings_and_starts_nothing() -> None:
    out = run_python(
        """
        import os, sys
        before = dict(os.environ)
        import conv_tasks.testing.plugin
        from conv_tasks.settings import get_settings
        heavy = [m for m in ("conv_tasks.engine", "celery", "sqlalchemy", "conv_tasks.tasks.app")
                 if m in sys.modules]
        print(get_settings.cache_info().currsize, dict(os.environ) == before, heavy)
        """
    )
    assert out.split("\n")[0] == "0 True []"


def test_a_run_that_asks_for_no_kit_fixture_sets_none_up(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conv_tasks.testing.plugin", "--setup-plan",
         "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [name for name in FIXTURES if name in done.stdout], done.stdout
    assert "conv_tasks conformance" not in done.stdout
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conv_tasks.testing.plugin", "--fixtures",
         "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert all(name in listed.stdout for name in FIXTURES), listed.stdout


def test_the_plugin_defines_no_autouse_fixture(request: pytest.FixtureRequest) -> None:
    manager = request.config.pluginmanager
    plugin = manager.get_plugin("conv_tasks.testing.plugin")
    assert plugin is not None
    defined = {
        name: defs
        for name, defs in request._fixturemanager._arg2fixturedefs.items()
        if any(d.func.__module__ == plugin.__name__ for d in defs)
    }
    assert sorted(defined) == sorted(FIXTURES)
    autouse = request._fixturemanager._getautousenames(request.node)
    assert not set(autouse) & set(FIXTURES)


# ------------------------------------------------------------------ pure parts


def test_a_failure_names_the_type_the_check_the_step_and_what_it_saw() -> None:
    report = Report("Example::Thing")
    report.add(CheckResult("create", Verdict.PASSED, "the stack is CREATE_COMPLETE"))
    report.add(CheckResult("update in place", Verdict.FAILED, "update: the physical id changed"))
    report.add(CheckResult("replacement", Verdict.NOT_APPLICABLE, "the case gives none"))
    message = str(ConformanceFailure(report))
    assert message.splitlines()[:2] == [
        "Example::Thing failed 1 conformance check(s):",
        "  - Example::Thing, update in place: failed: update: the physical id changed",
    ]
    assert "Example::Thing, replacement: not applicable: the case gives none" in message
    assert report.not_applicable == [report.results[2]]


def test_a_case_merges_its_changes_over_its_properties_beside_its_companions() -> None:
    case = TypeCase(
        type_name="Example::Thing",
        properties={"size": 1, "name": "a"},
        update_in_place={"size": 2},
        companions={"handle": {"type": "OS::Heat::WaitConditionHandle"}},
    )
    template = case.template(case.changed(case.update_in_place))
    assert template["resources"] == {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "under_test": {"type": "Example::Thing", "properties": {"size": 2, "name": "a"}},
    }
    assert case.slow == {"size": 1, "name": "a"}


def test_asking_for_one_check_runs_what_it_stands_on() -> None:
    assert _with_needs(CHECKS, ["delete twice"]) == {"create", "delete", "delete twice"}
    assert _with_needs(CHECKS, ["interrupt"]) == {"interrupt"}
    assert _with_needs(CHECKS, None) == set(CHECKS)


def test_held_tasks_are_taken_in_the_order_they_are_due_and_handed_over_but_the_lost() -> None:
    held = HeldDispatcher()
    held.node({"n": "later"}, countdown=30)
    held.nodes([{"n": "first"}, {"n": "second"}])
    assert held.due_in() == 0
    assert [held.take()["n"], held.take()["n"]] == ["first", "second"]
    assert (held.due_in() or 0) > 20
    sent: list[object] = []

    class Workers:
        def node(self, payload: object, *, countdown: float | None = None) -> None:
            sent.append((payload, countdown))

    held.node({"n": "poll", "poll": 1})
    lost = held.hand_over(Workers(), lambda payload: bool(payload.get("poll")))  # type: ignore[arg-type]
    assert lost == [{"n": "poll", "poll": 1}]
    [(payload, countdown)] = sent
    assert payload == {"n": "later"} and countdown is not None and 20 < countdown <= 30
    assert held.due_in() is None


def test_the_measured_type_times_each_step_and_dies_on_cue() -> None:
    recorder = Recorder()
    measured = measured_type(TestResource, recorder)
    assert measured.type_name == TestResource.type_name and issubclass(measured, TestResource)

    class Ctx:
        resource_name = "under_test"

    recorder.kill_after = ("under_test", "interrupt")
    with pytest.raises(WorkerKilled):
        measured().interrupt(Ctx())  # type: ignore[arg-type]
    assert recorder.count("under_test", "interrupt") == 1
    assert recorder.kill_after is None  # once
    measured().interrupt(Ctx())  # type: ignore[arg-type]
    assert [t.method for t in recorder.timings] == ["interrupt", "interrupt"]


def test_a_connections_file_is_written_as_conv_tasks_reads_it() -> None:
    text = connections_file(
        {"ops-db": {"kind": "postgresql", "url": "postgresql://admin@db:5432/postgres",
                    "password_file": "/run/secrets/ops-db"}},
        tenants={"acme": {"billing": {"kind": "http", "base_url": "https://billing.example"}}},
    )  # fmt: skip
    config = parse_connections(text)
    assert config.lookup("acme", "billing").kind == "http"  # type: ignore[union-attr]
    assert config.lookup("other", "ops-db").secret.file == "/run/secrets/ops-db"  # type: ignore[union-attr]
    assert config.lookup("other", "billing") is None


def test_the_measured_type_never_kills_a_start_the_service_put_off() -> None:
    recorder = Recorder()

    class Busy(TestResource):
        __test__ = False
        answers = [Throttled("429: busy", retry_after=1.0), Transient("503")]

        def create(self, ctx):  # type: ignore[no-untyped-def]
            if self.answers:
                raise self.answers.pop(0)
            return "made"

    measured = measured_type(Busy, recorder)

    class Ctx:
        resource_name = "under_test"

    recorder.kill_after = ("under_test", "create")
    for _ in range(2):
        with pytest.raises(Transient):
            measured().create(Ctx())  # type: ignore[arg-type]
    assert recorder.kill_after == ("under_test", "create")  # still waiting for a start to return
    assert (
        recorder.put_off_count("under_test", "create"),
        recorder.returned("under_test", "create"),
    ) == (2, 0)
    with pytest.raises(WorkerKilled):
        measured().create(Ctx())  # type: ignore[arg-type]
    assert recorder.returned("under_test", "create") == 1


def test_the_kit_asks_again_as_the_service_asks_and_gives_up_at_its_budget() -> None:
    waits: list[float] = []
    retrier = Retrier(RetryBudget(attempts=4, seconds=30, first_wait=0.2), sleep=waits.append)
    answers: list[Exception | str] = [Throttled("429", retry_after=2.0), Transient("503"), "seen"]

    def observe() -> str:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert retrier.call("observe", observe) == "seen"
    assert waits == [2.0, 0.4]  # the service's Retry-After, then the kit's own doubling wait
    assert retrier.put_off == 2

    def busy() -> str:
        raise Throttled("Resource under_test: GET /things/1 answered 429", retry_after=0.5)

    with pytest.raises(ServiceBusy) as gave_up:
        retrier.call("observe after create", busy)
    said = str(gave_up.value)
    assert said.startswith("observe after create: the service stayed busy: 4 call(s) over 1.8 s")
    assert "(Throttled: Resource under_test: GET /things/1 answered 429)" in said
    assert "retry budget (4 calls, 30 s of waiting; TypeCase.retries) ran out" in said
    assert "not a fault the kit found in the type" in said


def test_a_wait_longer_than_what_is_left_of_the_budget_is_not_waited() -> None:
    waits: list[float] = []
    retrier = Retrier(RetryBudget(attempts=10, seconds=5), sleep=waits.append)

    def busy() -> str:
        raise Throttled("429", retry_after=60.0)

    with pytest.raises(ServiceBusy):
        retrier.call("preview", busy)
    assert waits == []


def test_an_error_that_is_not_passing_is_the_types_and_is_not_asked_again() -> None:
    retrier = Retrier(RetryBudget(), sleep=lambda _: None)
    calls = []

    def refused() -> str:
        calls.append(1)
        raise Fatal("403")

    with pytest.raises(Fatal):
        retrier.call("observe", refused)
    assert calls == [1] and retrier.put_off == 0


def test_each_stack_of_a_case_gets_its_own_names() -> None:
    case = TypeCase(
        type_name="Example::Thing",
        properties={"name": f"kit_{UNIQUE}", "body": {"tags": [f"a-{UNIQUE}", 3]}, "size": 1},
        update_in_place={"size": 2},
        update_replace={"name": f"kit_two_{UNIQUE}"},
        slow_properties=None,
        companions={"handle": {"type": "T", "properties": {"n": f"h-{UNIQUE}"}}},
    )
    one = case.unique("kaaaa111")
    assert one.properties == {
        "name": "kit_kaaaa111",
        "body": {"tags": ["a-kaaaa111", 3]},
        "size": 1,
    }
    assert one.update_replace == {"name": "kit_two_kaaaa111"}
    assert one.update_in_place == {"size": 2} and one.slow_properties is None
    assert one.companions == {"handle": {"type": "T", "properties": {"n": "h-kaaaa111"}}}
    assert case.properties["name"] == f"kit_{UNIQUE}"  # the case itself is unchanged
    suffixes = {unique_suffix() for _ in range(50)}
    assert len(suffixes) == 50
    assert all(len(s) == 8 and s[0].isalpha() and s.isalnum() and s.islower() for s in suffixes)


def test_a_fault_plan_deals_the_same_answers_from_its_seed_only_while_on() -> None:
    plan = FaultPlan(throttled=0.25, unavailable=0.25, seed=5)
    weather = Weather(plan)
    assert [weather.draw() for _ in range(5)] == [Fault.NONE] * 5  # off
    with weather.turned_on():
        first = [weather.draw() for _ in range(200)]
    with weather.turned_on():
        again = [weather.draw() for _ in range(200)]
    assert first == again and weather.faults_dealt() == 2 * sum(f != Fault.NONE for f in first)
    assert 20 < first.count(Fault.THROTTLED) < 80 and 20 < first.count(Fault.UNAVAILABLE) < 80
    with pytest.raises(ValueError, match="add up to more than 1"):
        FaultPlan(throttled=0.6, unavailable=0.6)
    with pytest.raises(ValueError, match=r"FaultPlan.throttled is a probability"):
        FaultPlan(throttled=2)


def test_a_report_says_when_the_services_faults_were_on() -> None:
    report = Report("Example::Thing", service_faults=True)
    report.add(CheckResult("create", Verdict.FAILED, "stack create: ended CREATE_FAILED"))
    assert str(ConformanceFailure(report)).splitlines()[0] == (
        "Example::Thing (service faults on) failed 1 conformance check(s):"
    )
