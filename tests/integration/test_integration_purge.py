"""Beat purges a stack deleted longer ago than the retention, with real workers and beat."""

from __future__ import annotations

import time

from integration_support import template, test_resource
from sqlalchemy import func, select, update

from conv_tasks.client import Client
from conv_tasks.db.models import Event, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.settings import get_settings


def test_beat_purges_a_stack_deleted_past_the_retention(client: Client) -> None:
    settings = get_settings()
    assert settings.purge_interval == 2  # tests/conftest.py
    assert settings.purge_deleted_after == 30 * 86400
    old = client.create("old", template({"a": test_resource("1")}))["stack_id"]
    recent = client.create("recent", template({"a": test_resource("2")}))["stack_id"]
    for stack_id in (old, recent):
        assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
        client.delete(stack_id)
        assert client.wait(stack_id, timeout=60)["status"] == "DELETE_COMPLETE"
    assert client.events(old)
    with session_scope() as session:
        session.execute(
            update(Stack)
            .where(Stack.id == old)
            .values(deleted_at=func.now() - func.make_interval(0, 0, 0, 31))
        )

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with session_scope() as session:
            if session.get(Stack, old) is None:
                break
        time.sleep(0.2)
    with session_scope() as session:
        assert session.get(Stack, old) is None, "beat did not purge the stack in 20 s"
        assert session.scalars(select(Event.id).where(Event.stack_id == old)).all() == []
        # Deleted a moment ago: kept, with its events, for 30 days.
        assert session.get(Stack, recent) is not None
        assert session.scalars(select(Event.id).where(Event.stack_id == recent)).all()
