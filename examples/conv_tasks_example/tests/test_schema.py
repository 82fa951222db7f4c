"""What the schema type does beyond the kit's checks, through the kit's cluster."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from conftest import connections

from conv_tasks.testing import Conformance, PrivatePostgres, TypeCase, Verdict


def test_a_schema_it_did_not_make_is_refused_by_name(
    conformance: Conformance, schema_case: TypeCase, postgres: PrivatePostgres
) -> None:
    with postgres.connect() as conn:
        conn.execute('CREATE SCHEMA "someone_elses"')
    taken = replace(schema_case, properties={**schema_case.properties, "name": "someone_elses"})
    report = conformance.run(taken, checks=["create"])
    [create] = report.results
    assert create.verdict == Verdict.FAILED
    assert "schema 'someone_elses' exists already and was not made by this resource" in (
        create.detail
    )
    with postgres.connect() as conn:  # still there: nothing was done to it
        row = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'someone_elses'")
        assert row.fetchone() == (1,)


def test_a_missing_owner_fails_the_create_with_postgresqls_reason(
    conformance: Conformance, schema_case: TypeCase
) -> None:
    nobody = replace(schema_case, properties={**schema_case.properties, "owner": "nobody"})
    report = conformance.run(nobody, checks=["create"])
    assert 'PostgreSQL refused it: role "nobody" does not exist' in report.results[0].detail


def test_a_wrong_password_fails_the_create_and_is_shown_nowhere(
    conformance: Conformance, schema_case: TypeCase, postgres: PrivatePostgres, tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong-password"
    wrong.write_text("not-the-password-" + "x" * 20)
    case = replace(schema_case, connections=connections(postgres, str(wrong)), timeout=60)
    report = conformance.run(case, checks=["create", "secrets kept"])
    assert report.verdict("create") == Verdict.FAILED
    assert "password authentication failed" in report.results[0].detail
    assert report.verdict("secrets kept") == Verdict.PASSED
    assert wrong.read_text() not in report.render()
