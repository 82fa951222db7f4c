"""Credentials: random, kept only as hashes, checked in constant time; signal credentials
derived per deployment from the server's."""

from __future__ import annotations

from conv_tasks.deployments.credentials import (
    credential_hash,
    matches,
    new_credential,
    signal_credential,
)


def test_credentials_are_fresh_and_long() -> None:
    made = {new_credential() for _ in range(20)}
    assert len(made) == 20
    assert all(len(c) >= 43 for c in made)


def test_a_credential_matches_only_its_own_hash() -> None:
    credential = new_credential()
    stored = credential_hash(credential)
    assert stored != credential and len(stored) == 64
    assert matches(credential, stored)
    assert not matches(new_credential(), stored)
    assert not matches("", stored)
    assert not matches(None, stored)
    assert not matches(credential, None)


def test_signal_credentials_differ_per_deployment_run_and_server_credential() -> None:
    server = new_credential()
    one = signal_credential(server, "dep-1", "run-1")
    assert one == signal_credential(server, "dep-1", "run-1")
    assert one != signal_credential(server, "dep-2", "run-1")
    assert one != signal_credential(server, "dep-1", "run-2")
    assert one != signal_credential(new_credential(), "dep-1", "run-1")
    assert server not in one and len(one) >= 43
