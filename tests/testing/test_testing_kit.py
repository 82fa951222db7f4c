"""The conformance kit catches what it checks: each broken type fails its check, by name, and
a type that does what the SDK asks passes on a busy service.

The broken types (kit_types.py) come through an entry point of a distribution written here,
on a path the workers and this process both search, as a type package's would. One per
check:

    create                    OS::Heat::TestResource asked to fail
    observe after create      Kit::ObserveLies
    preview after apply       Kit::ObserveLies
    update in place           Kit::UpdateReplaces
    replacement               Kit::ReplaceKeeps
    delete                    Kit::DeleteFails
    observe after delete      Kit::ObserveLies
    delete twice              Kit::DeleteOnce
    same token twice          Kit::TokenIgnored
    interrupt                 Kit::InterruptRaises
    worker killed mid-create  Kit::TokenIgnored
    step budget               Kit::SlowStep
    secrets kept              Kit::SecretLogger
    clean up                  Kit::DeleteFails

and a service that stays busy past the retry budget (Kit::ObserveThrottled,
Kit::StartThrottled) fails its check saying so, without blaming the type.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from kit_types import entry_points_text
from sqlalchemy import select
from test_testing_builtins import sandbox_objects

from conv_tasks.db.models import SandboxObject, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.testing import (
    UNIQUE,
    Cluster,
    Conformance,
    ConformanceFailure,
    FaultPlan,
    PrivatePostgres,
    Report,
    RetryBudget,
    TypeCase,
    Verdict,
    connections_file,
    sandbox_faults,
)

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def plugged_in(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A distribution whose entry points plug kit_types in: the environment workers need to
    find it (this process finds it from now on)."""
    site = tmp_path_factory.mktemp("kit-types-site")
    dist = site / "conv_tasks_kit_types-0.dist-info"
    dist.mkdir()
    metadata = "Metadata-Version: 2.1\nName: conv-tasks-kit-types\nVersion: 0\n"
    (dist / "METADATA").write_text(metadata)
    (dist / "entry_points.txt").write_text(entry_points_text())
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        path = os.pathsep.join([str(site), str(HERE), os.environ.get("PYTHONPATH", "")])
        yield {"PYTHONPATH": path}


def case(type_name: str, environ: dict[str, str], **given: object) -> TypeCase:
    return TypeCase(
        type_name=type_name,
        properties={"value": "one"},
        update_in_place={"value": "two"},
        update_replace={"name": "other"},
        environ=environ,
        count_objects=sandbox_objects,
        timeout=60,
        **given,  # type: ignore[arg-type]
    )


def live_stacks(conformance: Conformance, prefix: str) -> list[str]:
    """The names of the cluster's stacks starting with `prefix` that are not deleted."""
    with session_scope(conformance.cluster.database_url) as session:
        rows = session.scalars(
            select(Stack.name).where(Stack.name.like(f"{prefix}%"), Stack.deleted_at.is_(None))
        )
        return list(rows)


def failure(report: Report, check: str) -> str:
    [result] = [r for r in report.results if r.check == check]
    assert result.verdict == Verdict.FAILED, report.render()
    return result.detail


def test_a_well_behaved_sandbox_type_passes(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.check(case("Kit::SandboxThing", plugged_in))
    assert not report.failed
    assert report.verdict("secrets kept") == Verdict.NOT_APPLICABLE
    assert "clean up" not in {r.check for r in report.results}  # said only when it fails


def test_a_type_that_ignores_the_token_fails_the_exactly_once_checks(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(
        case("Kit::TokenIgnored", plugged_in),
        checks=["same token twice", "worker killed mid-create"],
    )
    assert "start again: the same token made a second object" in failure(report, "same token twice")
    assert "two objects" in failure(report, "worker killed mid-create")


def test_an_observe_that_lies_fails_both_observe_checks(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    checks = ["observe after create", "observe after delete"]
    report = conformance.run(case("Kit::ObserveLies", plugged_in), checks=checks)
    assert "the type's observe reads object" in failure(report, "observe after create")
    assert "as differing from the resource's properties in value" in failure(
        report, "observe after create"
    )
    assert "the type's observe finds object" in failure(report, "observe after delete")
    assert "still there after the stack's delete" in failure(report, "observe after delete")


def test_an_observe_that_lies_fails_preview_after_apply_naming_the_observe(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(case("Kit::ObserveLies", plugged_in), checks=["preview after apply"])
    assert failure(report, "preview after apply") == (
        "preview: a preview of the template just applied says: the type's observe reads "
        "under_test's object as differing from its properties in value (applying it again "
        "must change nothing)"
    )


def test_a_delete_that_fails_fails_delete_and_the_clean_up_names_what_is_left(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(case("Kit::DeleteFails", plugged_in), checks=["delete"])
    assert "stack delete: the stack ended DELETE_FAILED: under_test is DELETE_FAILED" in failure(
        report, "delete"
    )
    assert "the service will not delete" in failure(report, "delete")
    left = failure(report, "clean up")
    assert left.startswith(
        "delete what the checks made: 1 of the 1 stack(s) the checks made could not be deleted, "
        "and what they made may be left in the service: kit-kit--deletefails-life-"
    )
    assert "ended DELETE_FAILED (under_test is DELETE_FAILED: Resource under_test: " in left


def test_an_update_in_place_that_makes_a_new_object_disagrees_with_preview(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(case("Kit::UpdateReplaces", plugged_in), checks=["update in place"])
    assert "preview said update, but the physical id changed" in failure(report, "update in place")


def test_a_replacement_that_keeps_the_object_disagrees_with_preview(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(case("Kit::ReplaceKeeps", plugged_in), checks=["replacement"])
    assert "preview said replace, but the physical id stayed" in failure(report, "replacement")


def test_a_step_over_the_types_budget_fails_the_budget_check(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(
        case("Kit::SlowStep", plugged_in), checks=["same token twice", "step budget"]
    )
    detail = failure(report, "step budget")
    assert "under_test create: took" in detail and "over the type's step budget of 0.3 s" in detail


def test_a_delete_that_fails_on_a_missing_object_fails_delete_twice(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(case("Kit::DeleteOnce", plugged_in), checks=["delete twice"])
    assert "the second delete failed" in failure(report, "delete twice")
    assert "is not there" in failure(report, "delete twice")


def test_an_interrupt_that_raises_fails_the_interrupt_check(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    report = conformance.run(case("Kit::InterruptRaises", plugged_in), checks=["interrupt"])
    assert "the type's interrupt raised RuntimeError: cannot stop" in failure(report, "interrupt")


def secret_case(type_name: str, plugged_in: dict[str, str], postgres: PrivatePostgres) -> TypeCase:
    """A case of `type_name` acting through a connection to `postgres`, which has a password."""
    connections = connections_file({"kit-db": postgres.connection()})
    given = case(type_name, plugged_in, connections=connections)
    return replace(given, properties={"value": "one", "connection": "kit-db"})


def test_the_engine_in_the_test_process_acts_through_the_cases_connections(
    conformance: Conformance, plugged_in: dict[str, str], private_postgres: PrivatePostgres
) -> None:
    # After a case without connections, the next case's are the ones its steps get, in the
    # workers and in the test process alike.
    conformance.run(case("Kit::SandboxThing", plugged_in), checks=["interrupt"])
    connected = secret_case("Kit::ConnectedThing", plugged_in, private_postgres)
    checks = ["observe after create", "same token twice", "secrets kept"]
    report = conformance.check(connected, checks=checks)
    assert report.verdict("same token twice") == Verdict.PASSED
    assert report.verdict("secrets kept") == Verdict.PASSED


def test_a_type_that_logs_its_connections_password_fails_the_secrets_check(
    conformance: Conformance, plugged_in: dict[str, str], private_postgres: PrivatePostgres
) -> None:
    leaky = secret_case("Kit::SecretLogger", plugged_in, private_postgres)
    with pytest.raises(ConformanceFailure) as raised:
        conformance.check(leaky, checks=["create", "secrets kept"])
    message = str(raised.value)
    assert "Kit::SecretLogger failed 1 conformance check(s)" in message
    assert (
        "Kit::SecretLogger, secrets kept: failed: search: a connection's secret appears in "
        "the workers' logs" in message
    )
    assert private_postgres.password is not None and private_postgres.password not in message


def test_a_password_in_a_failure_is_masked_in_what_the_kit_reports(
    conformance: Conformance, plugged_in: dict[str, str], private_postgres: PrivatePostgres
) -> None:
    failing = secret_case("Kit::SecretInReason", plugged_in, private_postgres)
    with pytest.raises(ConformanceFailure) as raised:
        conformance.check(failing, checks=["create", "secrets kept"])
    report = raised.value.report
    assert "the server said no to ******." in failure(report, "create")
    assert report.verdict("secrets kept") == Verdict.PASSED
    assert private_postgres.password is not None
    assert private_postgres.password not in str(raised.value)


def test_checks_that_do_not_apply_are_reported_so(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    given = TypeCase(type_name="Kit::SandboxThing", properties={"value": "one"}, environ=plugged_in)
    report = conformance.run(given, checks=["update in place", "replacement", "interrupt"])
    assert report.verdict("update in place") == Verdict.NOT_APPLICABLE
    assert report.verdict("replacement") == Verdict.NOT_APPLICABLE
    assert report.verdict("interrupt") == Verdict.NOT_APPLICABLE
    assert "nothing was under way to interrupt" in report.render()


def test_a_failed_create_leaves_the_checks_standing_on_it_not_run(
    conformance: Conformance,
) -> None:
    broken = TypeCase(type_name="OS::Heat::TestResource", properties={"fail": True})
    report = conformance.run(broken, checks=["delete twice"])
    assert failure(report, "create") == (
        "stack create: the stack ended CREATE_FAILED: under_test is CREATE_FAILED: Resource "
        "under_test failed to create because it was asked to (TestResource fail/fail_on)."
    )
    assert report.verdict("delete") == Verdict.NOT_RUN
    assert report.verdict("delete twice") == Verdict.NOT_RUN


def test_a_create_that_fails_at_its_start_has_nothing_to_kill_and_says_why(
    conformance: Conformance,
) -> None:
    broken = TypeCase(type_name="OS::Heat::TestResource", properties={"fail": True})
    report = conformance.run(broken, checks=["worker killed mid-create"])
    assert failure(report, "worker killed mid-create") == (
        "kill: the type's create failed at its start, before it began anything the kit could "
        "interrupt or kill (ResourceFailure: Resource under_test failed to create because it "
        "was asked to (TestResource fail/fail_on).); the stack ended CREATE_FAILED"
    )


def test_an_unknown_check_is_refused_by_name(conformance: Conformance) -> None:
    with pytest.raises(ValueError, match="no such conformance check: creat "):
        conformance.run(TypeCase(type_name="OS::Heat::None"), checks=["creat"])


def test_a_type_that_raises_throttled_as_the_sdk_asks_passes_on_a_busy_service(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    # Its first start of each create and first observe of each object are throttled: the
    # kill waits for a start that returned, and the kit's observes are asked again.
    report = conformance.check(case("Kit::ThrottledOnce", plugged_in))
    assert report.verdict("worker killed mid-create") == Verdict.PASSED
    observed = next(r for r in report.results if r.check == "observe after create")
    assert "(the service put off 1 of the kit's calls: asked again)" in observed.detail


def test_a_service_that_stays_busy_fails_the_check_saying_so_not_blaming_the_type(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    busy = replace(
        case("Kit::ObserveThrottled", plugged_in), retries=RetryBudget(attempts=3, seconds=5)
    )
    report = conformance.run(busy, checks=["observe after create", "preview after apply"])
    for check in ("observe after create", "preview after apply"):
        said = failure(report, check)
        assert "the service stayed busy: 3 call(s) over" in said, said
        assert "(4 calls" not in said and "retry budget (3 calls, 5 s of waiting" in said
        assert "That is the service's weather, not a fault the kit found in the type" in said
    assert "429 Too Many Requests" in failure(report, "observe after create")
    assert "the preview could not read reality (under_test: " in failure(
        report, "preview after apply"
    )
    # The failed checks left their stack created: the run's clean-up deleted it.
    assert live_stacks(conformance, "kit-kit--observethrottled-") == []


def test_a_create_the_service_never_lets_begin_fails_the_kill_check_saying_why(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    busy = replace(
        case("Kit::StartThrottled", plugged_in), retries=RetryBudget(attempts=3, seconds=20)
    )
    report = conformance.run(busy, checks=["worker killed mid-create"])
    said = failure(report, "worker killed mid-create")
    assert said.startswith(
        "kill: the service put off every start of the type's create (3 start(s) over"
    ), said
    assert "raised Throttled or Transient, the last Throttled: Resource under_test: POST" in said
    assert "never began. That is the service's weather" in said
    assert "never started" not in said
    assert [r.check for r in report.results] == ["worker killed mid-create"], report.render()


def test_each_stack_the_checks_make_has_names_of_its_own(
    conformance: Conformance, plugged_in: dict[str, str], conv_tasks_cluster: Cluster
) -> None:
    named = replace(
        case("Kit::SandboxThing", plugged_in),
        properties={"value": f"uniq-one-{UNIQUE}"},
        update_in_place={"value": f"uniq-two-{UNIQUE}"},
    )
    conformance.check(named)
    suffixes: dict[str, set[str]] = {}
    with session_scope(conv_tasks_cluster.database_url) as session:
        for made in session.scalars(select(SandboxObject).where(SandboxObject.kind == "kit")):
            value = str(made.properties.get("value") or "")
            if value.startswith("uniq-"):
                stack_id = made.token.split(":")[0]
                suffixes.setdefault(stack_id, set()).add(value.rsplit("-", 1)[1])
    # The life stack, same token, interrupt and the killed worker's: one suffix each.
    assert len(suffixes) >= 4, suffixes
    assert all(len(used) == 1 for used in suffixes.values()), suffixes
    every = [next(iter(used)) for used in suffixes.values()]
    assert len(set(every)) == len(every) and UNIQUE not in every, every


def test_a_sandbox_type_passes_every_check_with_the_sandboxs_faults_on(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    busy = replace(
        case("Kit::SandboxThing", plugged_in),
        service_faults=sandbox_faults(FaultPlan(throttled=0.2, unavailable=0.1, retry_after=0.2)),
    )
    report = conformance.check(busy, service_faults=True)
    assert report.service_faults and not report.failed
    assert any("asked again" in r.detail for r in report.results), report.render()


def test_service_faults_without_the_cases_hook_are_refused(conformance: Conformance) -> None:
    with pytest.raises(ValueError, match="service_faults=True needs the case's service_faults"):
        conformance.run(TypeCase(type_name="OS::Heat::None"), service_faults=True)


def test_a_killed_workers_lease_is_ended_rather_than_waited_out(
    conformance: Conformance, plugged_in: dict[str, str]
) -> None:
    # Last in the file: the workers start again for these leases, and again after them.
    # The cluster's leases last 300 s (the type's budget and one): waited out, the resumed
    # create could not end within the case's 60 s.
    report = conformance.run(
        case("Kit::LongLease", plugged_in), checks=["worker killed mid-create"]
    )
    assert report.verdict("worker killed mid-create") == Verdict.PASSED, report.render()
