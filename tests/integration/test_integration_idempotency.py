"""A create sent twice with one idempotency key makes one stack, and both answers name it."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from click.testing import CliRunner
from integration_support import template, test_resource
from sqlalchemy import func, select

from conv_tasks.cli.main import cli
from conv_tasks.client import Client
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.errors import Conflict

TEMPLATE = template({"box": test_resource("x")})


def _stacks_of(tenant: str) -> int:
    with session_scope() as session:
        return int(session.scalar(select(func.count()).where(Stack.tenant == tenant)) or 0)


def test_the_same_key_answers_with_the_first_stack(client: Client) -> None:
    key = uuid.uuid4().hex
    first = client.create("once", TEMPLATE, idempotency_key=key)
    again = client.create("once", TEMPLATE, idempotency_key=key)
    assert again["stack_id"] == first["stack_id"]
    assert again["replayed"] is True and "replayed" not in first
    assert again["event_id"] == first["event_id"]
    assert _stacks_of(client.tenant) == 1
    # A new key is a new request: the name is taken.
    with pytest.raises(Conflict, match="already exists"):
        client.create("once", TEMPLATE, idempotency_key=uuid.uuid4().hex)


def test_a_key_names_one_stack(client: Client) -> None:
    key = uuid.uuid4().hex
    client.create("first", TEMPLATE, idempotency_key=key)
    with pytest.raises(Conflict, match="already created stack 'first'"):
        client.create("second", TEMPLATE, idempotency_key=key)
    assert _stacks_of(client.tenant) == 1


def test_keys_are_per_tenant(client: Client) -> None:
    key = uuid.uuid4().hex
    other = Client(tenant=f"{client.tenant}-other", timeout=30)
    mine = client.create("shared", TEMPLATE, idempotency_key=key)
    theirs = other.create("shared", TEMPLATE, idempotency_key=key)
    assert mine["stack_id"] != theirs["stack_id"]


def test_the_cli_create_retried_with_its_key_gets_the_same_stack(
    client: Client, tmp_path: Any
) -> None:
    path = tmp_path / "stack.yaml"
    path.write_text(json.dumps(TEMPLATE))
    args = ["--tenant", client.tenant, "--json", "stack", "create", "cli", "-t", str(path)]
    key = ["--idempotency-key", uuid.uuid4().hex]
    first = CliRunner().invoke(cli, [*args, *key])
    again = CliRunner().invoke(cli, [*args, *key])
    assert first.exit_code == 0 and again.exit_code == 0, (first.output, again.output)
    assert json.loads(first.stdout)["stack_id"] == json.loads(again.stdout)["stack_id"]
    assert _stacks_of(client.tenant) == 1
