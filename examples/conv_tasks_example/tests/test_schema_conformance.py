"""Example::PostgreSQL::Schema passes the conformance kit, on real conv_tasks workers."""

from __future__ import annotations

from dataclasses import replace

from conftest import connections

from conv_tasks.testing import Conformance, PrivatePostgres, TcpFaultProxy, TypeCase, Verdict


def test_the_schema_type_conforms(conformance: Conformance, schema_case: TypeCase) -> None:
    report = conformance.check(schema_case)
    # It observes, replaces, keeps a secret: none of those checks may be left out.
    assert report.verdict("observe after delete") == Verdict.PASSED
    assert report.verdict("replacement") == Verdict.PASSED
    assert report.verdict("secrets kept") == Verdict.PASSED


def test_the_schema_type_conforms_on_a_server_that_drops_connections(
    conformance: Conformance,
    schema_case: TypeCase,
    postgres: PrivatePostgres,
    flaky_postgres: TcpFaultProxy,
) -> None:
    # Every check runs while the proxy drops connections: the type says Transient for them,
    # as the SDK asks, and the engine and the kit ask again.
    case = replace(
        schema_case,
        connections=connections(postgres, port=flaky_postgres.port),
        service_faults=lambda _cluster: flaky_postgres.faulty(),
    )
    report = conformance.check(case, service_faults=True)
    assert report.verdict("worker killed mid-create") == Verdict.PASSED
    assert flaky_postgres.faults_dealt() > 0
