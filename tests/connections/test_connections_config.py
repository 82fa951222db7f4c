"""The connections file: what it may hold, what it refuses (every problem by its path), and
which connection a tenant gets."""

from __future__ import annotations

import pytest

from conv_tasks.connections import Connections, parse_connections
from conv_tasks.errors import InvalidInput

GOOD = """
default:
  ops-db: {kind: postgresql, url: "postgresql://admin@db.internal:5432/postgres",
           password_file: /run/secrets/ops-db, rate_limit: {in_flight: 4}}
  api: {kind: http, base_url: "https://api.example/v1", bearer_token_env: API_TOKEN,
        headers: {X-Team: ops}, timeout: 5}
tenants:
  acme:
    api: {kind: http, base_url: "https://acme.example/v1", rate_limit: {per_second: 2.5}}
    jobs: {kind: celery, broker_url: "redis://queue.acme:6379/0", password_env: JOBS_PASSWORD}
"""


def test_a_tenant_s_own_connection_wins_over_every_tenant_s() -> None:
    config = parse_connections(GOOD)
    assert config.lookup("acme", "api").fields["base_url"] == "https://acme.example/v1"
    assert config.lookup("other", "api").fields["base_url"] == "https://api.example/v1"
    assert config.lookup("other", "jobs") is None
    assert config.lookup("acme", "ops-db").limit.in_flight == 4
    assert config.lookup("acme", "api").limit.per_second == 2.5
    assert config.names("acme") == ["api", "jobs", "ops-db"]
    assert config.lookup(None, "ops-db").secret.file == "/run/secrets/ops-db"


@pytest.mark.parametrize(
    ("text", "path", "says"),
    [
        ("default: {a: {kind: ftp}}", "default.a.kind", "must be one of"),
        ("default: {a: {kind: http}}", "default.a.base_url", "is required"),
        (
            "default: {a: {kind: http, base_url: 'file:///etc/passwd'}}",
            "default.a.base_url",
            "scheme 'file' is not allowed",
        ),
        (
            "default: {a: {kind: postgresql, url: 'postgresql://u:secret@h/db'}}",
            "default.a.url",
            "holds a password",
        ),
        (
            "default: {a: {kind: http, base_url: 'https://x', colour: red}}",
            "default.a.colour",
            "is not a field",
        ),
        (
            "default: {a: {kind: http, base_url: 'https://x', bearer_token_file: f, "
            "bearer_token_env: E}}",
            "default.a",
            "not both",
        ),
        (
            "default: {a: {kind: http, base_url: 'https://x', rate_limit: {in_flight: 0}}}",
            "default.a.rate_limit.in_flight",
            "at least 1",
        ),
        (
            "default: {a: {kind: http, base_url: 'https://x', rate_limit: {per_second: -1}}}",
            "default.a.rate_limit.per_second",
            "greater than zero",
        ),
        (
            "default: {a: {kind: celery, broker_url: 'http://x'}}",
            "default.a.broker_url",
            "scheme 'http' is not allowed",
        ),
        ("tenants: [a, b]", "tenants", "must map tenants"),
        ("colours: {}", "colours", "is not a section"),
    ],
)
def test_a_wrong_connection_refuses_the_file_naming_where(text: str, path: str, says: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        parse_connections(text, source="conn.yaml")
    problems = {p.path: p.message for p in raised.value.problems}
    assert path in problems, problems
    assert says in problems[path]


def test_not_yaml_is_refused() -> None:
    with pytest.raises(InvalidInput, match="not YAML"):
        parse_connections("default: {a: [", source="conn.yaml")


def test_a_resource_gets_a_reason_for_an_unknown_or_wrong_kind_of_connection() -> None:
    connections = Connections(parse_connections(GOOD))
    assert connections.problem("acme", "jobs", "celery") is None
    assert "which this tenant does not have (it has: api, ops-db)" in (
        connections.problem("other", "jobs", "celery") or ""
    )
    assert "a http connection; it needs a postgresql one" in (
        connections.problem("acme", "api", "postgresql") or ""
    )
    assert "must name a http connection" in (connections.problem("acme", 3, "http") or "")
