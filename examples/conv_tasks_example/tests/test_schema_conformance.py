"""Example::PostgreSQL::Schema passes the conformance kit, on real conv_tasks workers."""

from __future__ import annotations

from conv_tasks.testing import Conformance, TypeCase, Verdict


def test_the_schema_type_conforms(conformance: Conformance, schema_case: TypeCase) -> None:
    report = conformance.check(schema_case)
    # It observes, replaces, keeps a secret: none of those checks may be left out.
    assert report.verdict("observe after delete") == Verdict.PASSED
    assert report.verdict("replacement") == Verdict.PASSED
    assert report.verdict("secrets kept") == Verdict.PASSED
