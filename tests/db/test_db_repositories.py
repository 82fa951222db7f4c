"""Repository operations against the real PostgreSQL: compare-and-swap races and bad input."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

import pytest
from sqlalchemy import event, func, select

from conv_tasks.db.models import RawTemplate, Resource, Stack
from conv_tasks.db.resources import ResourceVersions
from conv_tasks.db.session import session_scope
from conv_tasks.db.stacks import Stacks
from conv_tasks.db.templates import Templates
from conv_tasks.errors import InvalidInput

CONTENDERS = 8


def _new_stack(url: str, traversal: str | None = None) -> str:
    stack_id = str(uuid.uuid4())
    with session_scope(url) as session:
        tmpl = Templates(session).add({"heat_template_version": "2018-08-31"}, {})
        session.add(
            Stack(
                id=stack_id,
                name=f"s-{stack_id[:8]}",
                tenant="t",
                action="CREATE",
                status="IN_PROGRESS",
                raw_template_id=tmpl.id,
                current_traversal=traversal,
            )
        )
    return stack_id


def _new_resource(url: str, stack_id: str) -> int:
    with session_scope(url) as session:
        row = Resource(stack_id=stack_id, name="r", version=0, type="OS::Heat::None")
        session.add(row)
        session.flush()
        return row.id


def _try_swap(url: str, stack_id: str, expected: str, barrier_at: float) -> str | None:
    new = str(uuid.uuid4())
    while time.time() < barrier_at:
        time.sleep(0.001)
    with session_scope(url) as session:
        won = Stacks(session).swap_traversal(stack_id, expected, new, status="IN_PROGRESS")
    return new if won else None


@pytest.fixture(scope="module")
def pool() -> object:
    with ProcessPoolExecutor(CONTENDERS, mp_context=get_context("spawn")) as executor:
        yield executor


@pytest.mark.parametrize("attempt", range(20))
def test_swap_traversal_race_has_exactly_one_winner(database_url: str, pool, attempt: int) -> None:
    start = str(uuid.uuid4())
    stack_id = _new_stack(database_url, start)
    barrier = time.time() + 0.3
    results = list(
        pool.map(
            _try_swap, *zip(*[(database_url, stack_id, start, barrier)] * CONTENDERS, strict=True)
        )
    )
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    with session_scope(database_url) as session:
        assert Stacks(session).get(stack_id).current_traversal == winners[0]


def test_compare_and_swap_refuses_stale_atomic_key(database_url: str) -> None:
    resource_id = _new_resource(database_url, _new_stack(database_url))
    with session_scope(database_url) as session:
        key = session.get(Resource, resource_id).atomic_key
        assert ResourceVersions(session).compare_and_swap(resource_id, key, status="FAILED")
        assert not ResourceVersions(session).compare_and_swap(resource_id, key, status="COMPLETE")
        session.expire_all()
        assert session.get(Resource, resource_id).status == "FAILED"


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (
            lambda s, sid, rid: Stacks(s).swap_traversal(sid, "not-a-uuid", str(uuid.uuid4())),
            "expected traversal",
        ),
        (
            lambda s, sid, rid: Stacks(s).swap_traversal(
                sid, None, str(uuid.uuid4()), colour="red"
            ),
            "colour",
        ),
        (lambda s, sid, rid: Stacks(s).swap_traversal("x", None, str(uuid.uuid4())), "stack_id"),
        (
            lambda s, sid, rid: ResourceVersions(s).compare_and_swap(rid, 0, lock_holder="x"),
            "lock_holder",
        ),
    ],
)
def test_malformed_repository_input_is_rejected_and_writes_nothing(
    database_url: str, call, fragment: str
) -> None:
    stack_id = _new_stack(database_url)
    resource_id = _new_resource(database_url, stack_id)
    with session_scope(database_url) as session:
        before_stack = session.get(Stack, stack_id).updated_at
        before_key = session.get(Resource, resource_id).atomic_key
    with pytest.raises(InvalidInput) as info, session_scope(database_url) as session:
        call(session, stack_id, resource_id)
    assert fragment in str(info.value)
    with session_scope(database_url) as session:
        assert session.get(Stack, stack_id).updated_at == before_stack
        assert session.get(Resource, resource_id).atomic_key == before_key
        assert session.get(Stack, stack_id).current_traversal is None


def test_orphaned_templates_are_collected_and_referenced_ones_kept(database_url: str) -> None:
    stack_id = _new_stack(database_url)
    with session_scope(database_url) as session:
        orphan = Templates(session).add({"heat_template_version": "2018-08-31"}, {}).id
        prev = Templates(session).add({"heat_template_version": "2018-08-31"}, {}).id
        session.get(Stack, stack_id).prev_raw_template_id = prev
    with session_scope(database_url) as session:
        assert Templates(session).delete_orphaned(only=[orphan, prev]) == 1
    with session_scope(database_url) as session:
        ids = set(session.scalars(select(RawTemplate.id)))
        assert orphan not in ids
        assert prev in ids
        assert session.get(Stack, stack_id).raw_template_id in ids
        assert session.scalar(select(func.count()).select_from(RawTemplate)) >= 2


def test_a_template_that_an_action_in_flight_names_is_kept_until_it_ends(
    database_url: str,
) -> None:
    """A superseded traversal's template is named by no stack, but its action still running
    reads it when it fails (to mask hidden values): the collector keeps it until the version
    whose action is in flight ends, then collects it."""
    stack_id = _new_stack(database_url)
    resource_id = _new_resource(database_url, stack_id)
    with session_scope(database_url) as session:
        superseded = Templates(session).add({"heat_template_version": "2018-08-31"}, {}).id
        row = session.get(Resource, resource_id)
        row.template_id, row.action, row.status = superseded, "CREATE", "IN_PROGRESS"
    with session_scope(database_url) as session:
        assert Templates(session).delete_orphaned(only=[superseded]) == 0
    with session_scope(database_url) as session:
        session.get(Resource, resource_id).status = "FAILED"
    with session_scope(database_url) as session:
        assert Templates(session).delete_orphaned(only=[superseded]) == 1


def test_several_stacks_are_read_together_for_a_preview(database_url: str) -> None:
    first, second = _new_stack(database_url), _new_stack(database_url)
    made = _new_resource(database_url, first)
    missing = str(uuid.uuid4())
    with session_scope(database_url) as session:
        stacks = Stacks(session).get_many([first, second, missing, first])
        assert set(stacks) == {first, second}
        versions = ResourceVersions(session).of_stacks([first, second])
        assert [row.id for row in versions[first]] == [made]
        assert versions[second] == []
        templates = Templates(session)
        ids = [s.raw_template_id for s in stacks.values() if s.raw_template_id]
        templates.load(ids)
        statements: list[str] = []

        def record(*args: Any) -> None:
            statements.append(str(args[2]))

        engine = session.get_bind()
        event.listen(engine, "before_cursor_execute", record)
        try:
            assert [templates.get(i).id for i in ids] == ids
        finally:
            event.remove(engine, "before_cursor_execute", record)
        assert statements == []  # loaded: get reads none again
        assert ResourceVersions(session).of_stacks([]) == {}
        assert Stacks(session).get_many([]) == {}
