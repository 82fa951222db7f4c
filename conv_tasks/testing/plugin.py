"""The pytest plugin of the conformance kit: its fixtures, and a summary of what it checked.

Registered through the `pytest11` entry point, so that any package that installs conv_tasks
gets these fixtures; `-p conv_tasks.testing.plugin` loads it where that entry point is not
installed. It defines no autouse fixture and starts nothing until a test asks for a fixture:
loading it changes nothing for a test run that uses none (nor does importing it read
conv_tasks' settings or the environment).

- `conformance`: a Conformance on the session's cluster; `conformance.check(case)`.
- `conv_tasks_cluster`: the session's private conv_tasks (workers start when a case needs them).
- `conv_tasks_services`: where that cluster keeps its state (CONV_TASKS_TEST_* variables);
  override it to give the cluster other services.
- `private_postgres`: a throwaway PostgreSQL cluster with a password, for types that act on
  PostgreSQL.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from conv_tasks.testing.report import Report, Verdict

if TYPE_CHECKING:
    # Imported where a fixture needs them: a run that uses none pays nothing (see __init__).
    from conv_tasks.testing.cluster import Cluster
    from conv_tasks.testing.conformance import Conformance
    from conv_tasks.testing.private_postgres import PrivatePostgres
    from conv_tasks.testing.services import TestServices

REPORTS = pytest.StashKey[list[Report]]()


@pytest.fixture(scope="session")
def conv_tasks_services() -> TestServices:
    """The PostgreSQL, Redis and broker the cluster uses (CONV_TASKS_TEST_DATABASE_URL,
    CONV_TASKS_TEST_BROKER_URL, CONV_TASKS_TEST_REDIS_URL, CONV_TASKS_TEST_RESULT_BACKEND)."""
    from conv_tasks.testing.services import TestServices

    return TestServices.from_env()


@pytest.fixture(scope="session")
def conv_tasks_cluster(
    conv_tasks_services: TestServices, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """A private conv_tasks for the session: a database of its own, workers on demand."""
    from conv_tasks.testing.cluster import Cluster

    cluster = Cluster(conv_tasks_services, tmp_path_factory.mktemp("conv-tasks-cluster"))
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def conformance(conv_tasks_cluster: Cluster, request: pytest.FixtureRequest) -> Conformance:
    """Checks a TypeCase on the session's cluster: `conformance.check(case)`."""
    from conv_tasks.testing.conformance import Conformance

    reports = request.config.stash.setdefault(REPORTS, [])
    return Conformance(conv_tasks_cluster, on_report=reports.append)


@pytest.fixture(scope="session")
def private_postgres() -> Iterator[PrivatePostgres]:
    """A PostgreSQL cluster of the session's own on a free port, whose superuser `postgres`
    has a random password (`password`, and the file `password_file` holds it)."""
    from conv_tasks.testing.private_postgres import PrivatePostgres

    server = PrivatePostgres("postgres", password=secrets.token_urlsafe(24))
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.destroy()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    reports = terminalreporter.config.stash.get(REPORTS, [])
    if not reports:
        return
    terminalreporter.section("conv_tasks conformance")
    marks = {
        Verdict.PASSED: "ok",
        Verdict.FAILED: "FAILED",
        Verdict.NOT_APPLICABLE: "n/a",
        Verdict.NOT_RUN: "not run",
    }
    for report in reports:
        terminalreporter.write_line(report.title)
        for result in report.results:
            detail = f": {result.detail}" if result.detail else ""
            took = f" ({result.seconds:.1f} s)" if result.verdict != Verdict.NOT_RUN else ""
            terminalreporter.write_line(f"  {marks[result.verdict]:8} {result.check}{took}{detail}")
