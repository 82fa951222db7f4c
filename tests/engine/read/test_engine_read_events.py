"""list_events on the stand-in database: the latest n, after a cursor; and a read whose
template's definition this process keeps does not read the template's row again."""

from __future__ import annotations

from typing import Any

from standins import RecordingDispatcher, standin_env, template

from conv_tasks.engine import NewStackRequest, TenantStacks
from conv_tasks.engine.definition import Definitions
from conv_tasks.engine.read import list_events


def _stack() -> tuple[Any, str]:
    env = standin_env()
    assert isinstance(env.dispatcher, RecordingDispatcher)
    doc = template(
        {
            "a": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}},
            "b": {"type": "OS::Heat::TestResource", "depends_on": ["a"]},
        }
    )
    made = TenantStacks(env, "tenant-a").create(NewStackRequest("s", doc, {}))
    env.dispatcher.drain(env)
    return env, made.stack_id


def test_the_latest_events_after_a_cursor() -> None:
    env, stack_id = _stack()
    every = list_events(env, "tenant-a", stack_id)
    assert len(every) == 6
    assert list_events(env, "tenant-a", stack_id, latest=2) == every[-2:]
    assert list_events(env, "tenant-a", stack_id, latest=10) == every
    cursor = every[1]["id"]
    assert list_events(env, "tenant-a", stack_id, after_id=cursor, latest=3) == every[-3:]
    assert list_events(env, "tenant-a", stack_id, after_id=every[-1]["id"], latest=3) == []


def test_a_kept_definition_spares_reading_the_template_row() -> None:
    env, stack_id = _stack()
    reads: list[str] = []
    env.db.before("templates.get", lambda: reads.append("templates.get"))
    # The create kept the definition it built: the read uses it.
    kept = list_events(env, "tenant-a", stack_id, latest=3)
    assert reads == []
    # A process that keeps none (another worker, or one whose cache let it go) reads the row.
    env.definitions = Definitions(10 * 2**20, env.registry)
    assert list_events(env, "tenant-a", stack_id, latest=3) == kept
    assert reads == ["templates.get"]
