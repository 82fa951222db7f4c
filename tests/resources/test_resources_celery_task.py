"""ConvTasks::Celery::Task without services: its checks of calls and results, its choice
between update in place and replacement, and its steps on an in-memory Celery broker and
result backend (kombu's memory transport, Celery's cache backend: real Celery, no server).
The tests against another service's real workers are in tests/integration/celery_task."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from celery import Celery

from conv_tasks.connections import Connections, own_connections
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.errors import TemplateError
from conv_tasks.provider_errors import Fatal, Transient
from conv_tasks.resources import ActionContext
from conv_tasks.resources.builtin.celery_task import CeleryTaskResource
from conv_tasks.resources.builtin.celery_task.call import (
    TaskCall,
    json_problem,
    kwargs_problems,
    physical_id_at,
    task_id_for,
)
from conv_tasks.resources.builtin.celery_task.remote import read_state

QUEUE = "unit.records"


def test_a_task_id_is_the_same_for_the_same_token_and_differs_between_tokens() -> None:
    assert task_id_for("s:1:CREATE") == task_id_for("s:1:CREATE")
    assert task_id_for("s:1:CREATE") != task_id_for("s:1:DELETE")
    uuid.UUID(task_id_for("s:1:CREATE"))  # Celery's own ids are UUIDs too


def test_a_call_gets_the_token_and_for_update_and_delete_the_id() -> None:
    call = TaskCall.of({"task": "svc.create", "queue": None, "kwargs": {"name": "a"}})
    assert call.sent_kwargs("tok") == {"name": "a", "idempotency_key": "tok"}
    assert call.sent_kwargs("tok", "rec-1") == {
        "name": "a",
        "idempotency_key": "tok",
        "id": "rec-1",
    }


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"a": [1, 2.5, None, True, "x"]}, None),
        ({"a": {"b": float("nan")}}, "holds nan at a.b, which JSON has no number for"),
        ({"a": ["ok", "nul\x00"]}, "holds a NUL character at a[1]"),
        ({1: "x"}, "has a key that is not a string (1)"),
        ({"when": {1, 2}}, "holds a set at when, which is not a JSON value"),
        ("x" * 2000, "is 2002 bytes as JSON, over the limit of 1000 (MAX_TASK_JSON_BYTES)"),
    ],
)
def test_what_is_json_that_conv_tasks_keeps(value: Any, problem: str | None) -> None:
    assert json_problem(value, max_bytes=1000) == problem


def test_kwargs_may_not_set_what_conv_tasks_sets() -> None:
    assert kwargs_problems({"name": "a"}, "update") == []
    assert kwargs_problems({"id": 1, "idempotency_key": "k"}, "delete") == [
        (".idempotency_key", "is set by conv_tasks (the delete task receives it); remove it"),
        (".id", "is set by conv_tasks (the delete task receives it); remove it"),
    ]
    assert kwargs_problems({"id": 1}, "create") == []  # a create has no id to hand
    assert kwargs_problems(["a"], "create") == [
        ("", "must be a JSON object (a map of argument names to values)")
    ]


def test_the_physical_id_is_read_at_id_path() -> None:
    result = {"account": {"id": 42, "tags": [{"id": "t-1"}]}}
    assert physical_id_at(result, "account.id") == "42"
    assert physical_id_at(result, "account.tags.0.id") == "t-1"
    with pytest.raises(ValueError, match=r"has no account\.name \(id_path\)"):
        physical_id_at(result, "account.name.first")
    with pytest.raises(ValueError, match="an id must be a non-empty string or a whole number"):
        physical_id_at(result, "account.tags")


# ------------------------------------------------------------------------ the template


def _definition(**properties: Any) -> StackDefinition:
    template = {
        "heat_template_version": "2018-08-31",
        "parameters": {"p": {"type": "string", "default": "x"}},
        "resources": {"t": {"type": CeleryTaskResource.type_name, "properties": properties}},
    }
    return StackDefinition.build(template, {})


def _problems(**properties: Any) -> list[tuple[str, str]]:
    with pytest.raises(TemplateError) as refused:
        _definition(**properties)
    return [(p.path, p.message) for p in refused.value.problems]


def test_a_template_is_refused_naming_the_resource_and_the_property() -> None:
    found = _problems(
        create={"task": "svc", "kwargs": {"idempotency_key": "mine"}},
        update={"task": "svc.update", "queue": "a queue"},
        delete={"kwargs": {"id": {"get_param": "p"}}},
        id_path="a..b",
    )
    assert found == [
        (
            "resources.t.properties.create.task",
            "must be a dotted task name such as billing.tasks.create_account (got 'svc')",
        ),
        (
            "resources.t.properties.update.queue",
            "must be a queue name without spaces (got 'a queue')",
        ),
        ("resources.t.properties.delete.task", "is required but has no value."),
        (
            "resources.t.properties.id_path",
            "must be keys joined by dots, such as account.id (got 'a..b')",
        ),
        (
            "resources.t.properties.create.kwargs.idempotency_key",
            "is set by conv_tasks (the create task receives it); remove it",
        ),
        (
            "resources.t.properties.delete.kwargs.id",
            "is set by conv_tasks (the delete task receives it); remove it",
        ),
    ]
    assert _problems(update={"task": "svc.update"}) == [
        ("resources.t.properties.create", "is required but has no value.")
    ]


def test_kwargs_made_of_functions_are_taken_on_trust_until_they_resolve() -> None:
    _definition(create={"task": "svc.create", "kwargs": {"name": {"get_param": "p"}}})
    _definition(create={"task": "svc.create", "kwargs": {"get_param": "p"}})


CREATE = {"task": "svc.create", "kwargs": {"name": "a"}}
UPDATE = {"task": "svc.update", "kwargs": {"name": "a"}}


def _renamed(spec: dict[str, Any], name: str) -> dict[str, Any]:
    return {**spec, "kwargs": {"name": name}}


@pytest.mark.parametrize(
    ("old", "new", "replaced"),
    [
        # What the create makes changes and the update carries it: in place.
        (
            {"create": CREATE, "update": UPDATE},
            {"create": _renamed(CREATE, "b"), "update": _renamed(UPDATE, "b")},
            False,
        ),
        # Only the create sees it: made again.
        (
            {"create": CREATE, "update": UPDATE},
            {"create": _renamed(CREATE, "b"), "update": UPDATE},
            True,
        ),
        ({"create": CREATE}, {"create": _renamed(CREATE, "b")}, True),
        # The update task changes alone: in place.
        (
            {"create": CREATE, "update": UPDATE},
            {"create": CREATE, "update": _renamed(UPDATE, "b")},
            False,
        ),
        # Where it runs, how it is deleted, how long it may take: in place.
        ({"create": CREATE}, {"create": {**CREATE, "queue": "q2"}, "timeout": 60}, False),
        ({"create": CREATE}, {"create": CREATE, "delete": {"task": "svc.delete"}}, False),
        # Another service, or another id: another thing.
        ({"create": CREATE}, {"create": CREATE, "connection": "other"}, True),
        ({"create": CREATE}, {"create": CREATE, "id_path": "id"}, True),
    ],
)
def test_an_update_is_in_place_unless_only_the_create_task_sees_the_change(
    old: dict[str, Any], new: dict[str, Any], replaced: bool
) -> None:
    assert CeleryTaskResource().needs_replacement(old, new) is replaced


# ------------------------------------------------------------------ steps, in memory


@pytest.fixture
def connections() -> Iterator[Connections]:
    own = Connections(own=own_connections("memory://", "cache+memory://"))
    handle = own.own_handle("tenant", "celery", "record")
    assert handle is not None
    _sent(handle.client)  # the memory transport is the process's: start with an empty queue
    yield own
    own.close()


def _ctx(connections: Connections, action: str = "CREATE", **properties: Any) -> ActionContext:
    token = f"{uuid.uuid4()}:1:{action}"
    now = time.time()
    return ActionContext(
        stack_id="s",
        resource_name="record",
        action=action,
        idempotency_token=token,
        properties={
            "create": {"task": "svc.create", "queue": QUEUE, "kwargs": {"n": 1}},
            **properties,
        },
        old_properties=None,
        physical_id="rec-7" if action != "CREATE" else None,
        data={},
        started_at=now,
        now=now,
        sandbox=None,  # type: ignore[arg-type] - never reached
        connection=connections.own_handle("tenant", "celery", "record"),
    )


def _app(ctx: ActionContext) -> Celery:
    app = ctx.client()
    assert isinstance(app, Celery)
    return app


def _sent(app: Celery, queue: str = QUEUE) -> list[tuple[str, str, dict[str, Any]]]:
    """(task id, task, kwargs) of every message waiting in `queue`, taken off it."""
    found = []
    with app.connection_for_read() as conn:
        waiting = conn.SimpleQueue(queue)
        while True:
            try:
                message = waiting.get_nowait()
            except waiting.Empty:
                break
            message.ack()
            found.append((message.headers["id"], message.headers["task"], message.payload[1]))
        waiting.close()
    return found


def test_create_sends_the_call_with_its_token_and_a_task_id_from_it(
    connections: Connections,
) -> None:
    ctx = _ctx(connections)
    plugin = CeleryTaskResource()

    started = plugin.create(ctx)

    assert not started.done and started.physical_id == ctx.idempotency_token
    token = ctx.idempotency_token
    assert _sent(_app(ctx)) == [
        (task_id_for(token), "svc.create", {"n": 1, "idempotency_key": token})
    ]
    assert not plugin.check_create(ctx).done  # PENDING: queued, polled again


def test_a_create_started_again_sends_again_only_while_nothing_is_known_of_its_task(
    connections: Connections,
) -> None:
    ctx = _ctx(connections)
    plugin = CeleryTaskResource()
    app = _app(ctx)
    plugin.create(ctx)
    plugin.create(ctx)  # PENDING: maybe lost, so sent again as the same task
    assert [sent[0] for sent in _sent(app)] == [task_id_for(ctx.idempotency_token)] * 2

    app.backend.store_result(task_id_for(ctx.idempotency_token), None, "STARTED")
    plugin.create(ctx)  # a worker has it: never sent again
    assert _sent(app) == []


def test_a_create_that_succeeded_keeps_its_result_and_reads_its_id(
    connections: Connections,
) -> None:
    ctx = _ctx(connections, id_path="record.id")
    plugin = CeleryTaskResource()
    plugin.create(ctx)
    result = {"record": {"id": "rec-9", "name": "a"}}
    _app(ctx).backend.store_result(task_id_for(ctx.idempotency_token), result, "SUCCESS")

    done = plugin.check_create(ctx)

    assert (done.done, done.physical_id, done.data) == (True, "rec-9", {"result": result})
    final = ActionContext(**{**ctx.__dict__, "physical_id": "rec-9", "data": done.data})
    assert plugin.attributes(final) == {"result": result, "id": "rec-9"}


def test_a_task_that_raised_fails_with_its_exception(connections: Connections) -> None:
    ctx = _ctx(connections)
    plugin = CeleryTaskResource()
    plugin.create(ctx)
    try:
        raise KeyError("no such plan")
    except KeyError as exc:
        _app(ctx).backend.store_result(task_id_for(ctx.idempotency_token), exc, "FAILURE")

    with pytest.raises(Fatal, match=r"^Resource record: the create task svc\.create raised "):
        plugin.check_create(ctx)


def test_an_id_missing_from_the_result_fails_the_create(connections: Connections) -> None:
    ctx = _ctx(connections, id_path="id")
    plugin = CeleryTaskResource()
    plugin.create(ctx)
    _app(ctx).backend.store_result(task_id_for(ctx.idempotency_token), {"ok": 1}, "SUCCESS")

    with pytest.raises(Fatal) as failed:
        plugin.check_create(ctx)
    assert str(failed.value) == ("Resource record: the create task's result has no id (id_path).")


def test_update_and_delete_hand_the_id_and_without_a_task_do_nothing(
    connections: Connections,
) -> None:
    plugin = CeleryTaskResource()
    update = _ctx(connections, "UPDATE", update={"task": "svc.update", "queue": QUEUE})
    assert not plugin.update(update).done
    delete = _ctx(connections, "DELETE", delete={"task": "svc.delete", "queue": QUEUE})
    assert not plugin.delete(delete).done
    assert [(task, kwargs) for _, task, kwargs in _sent(_app(update))] == [
        ("svc.update", {"idempotency_key": update.idempotency_token, "id": "rec-7"}),
        ("svc.delete", {"idempotency_key": delete.idempotency_token, "id": "rec-7"}),
    ]
    assert plugin.update(_ctx(connections, "UPDATE")).done
    assert plugin.delete(_ctx(connections, "DELETE")).done


DELETE_CALL = {"task": "svc.delete", "queue": QUEUE}


def _left(connections: Connections, create: ActionContext, **properties: Any) -> ActionContext:
    """The delete of the version whose create (`create`) ended without a physical id."""
    given = _ctx(connections, "DELETE", delete=DELETE_CALL, **properties)
    return replace(given, physical_id=None, create_token=create.idempotency_token)


def test_a_delete_of_a_create_that_ended_without_an_id_waits_for_its_task_then_deletes_it(
    connections: Connections,
) -> None:
    plugin = CeleryTaskResource()
    create = _ctx(connections, id_path="id")
    plugin.create(create)  # its worker died before the step was recorded
    app = _app(create)
    _sent(app)
    created = task_id_for(create.idempotency_token)
    app.backend.store_result(created, None, "STARTED")
    left = _left(connections, create, id_path="id")

    waiting = plugin.delete(left)  # a worker runs the create: revoked, and waited for
    assert not waiting.done and waiting.data == {"awaiting_create": True}
    assert _sent(app) == []
    app.backend.store_result(created, {"id": "rec-3"}, "SUCCESS")  # it finished first
    sent = plugin.check_delete(replace(left, data=dict(waiting.data)))

    assert not sent.done and sent.physical_id == "rec-3"
    assert [(task, kwargs) for _, task, kwargs in _sent(app)] == [
        ("svc.delete", {"idempotency_key": left.idempotency_token, "id": "rec-3"})
    ]


def test_a_delete_by_token_hands_the_create_token_as_the_id_without_an_id_path(
    connections: Connections,
) -> None:
    plugin = CeleryTaskResource()
    create = _ctx(connections)
    app = _app(create)
    left = _left(connections, create)  # the create may still be queued: it is revoked

    sent = plugin.delete(left)

    assert not sent.done and sent.physical_id == create.idempotency_token
    assert [(task, kwargs) for _, task, kwargs in _sent(app)] == [
        (
            "svc.delete",
            {"idempotency_key": left.idempotency_token, "id": create.idempotency_token},
        )
    ]


@pytest.mark.parametrize("state", ["PENDING", "FAILURE", "REVOKED"])
def test_a_delete_by_token_of_a_create_that_made_nothing_it_can_name_sends_nothing(
    connections: Connections, state: str
) -> None:
    plugin = CeleryTaskResource()
    create = _ctx(connections, id_path="id")
    app = _app(create)
    if state != "PENDING":
        app.backend.store_result(task_id_for(create.idempotency_token), None, state)
    assert plugin.delete(_left(connections, create, id_path="id")).done
    assert _sent(app) == []


def test_polls_come_soon_then_further_apart(connections: Connections) -> None:
    ctx = _ctx(connections)
    plugin = CeleryTaskResource()
    soon = plugin.check_create(ctx).poll_after
    later = plugin.check_create(
        ActionContext(**{**ctx.__dict__, "started_at": ctx.now - 2.0})
    ).poll_after
    much_later = plugin.check_create(
        ActionContext(**{**ctx.__dict__, "started_at": ctx.now - 600})
    ).poll_after
    assert soon < later < much_later == 1.0


def test_an_unreachable_broker_is_transient_and_names_the_connection() -> None:
    own = Connections(own=own_connections("redis://127.0.0.1:1/0", "redis://127.0.0.1:1/1"))
    ctx = _ctx(own)
    with pytest.raises(Transient) as put_off:
        CeleryTaskResource().create(ctx)
    assert str(put_off.value).startswith(
        "Resource record: the create task svc.create: connection 'conv_tasks': its result "
        "backend cannot be reached (ConnectionError: "
    )
    own.close()


def test_a_state_of_an_unknown_task_is_pending(connections: Connections) -> None:
    ctx = _ctx(connections)
    assert read_state(_app(ctx), "no-such-task").pending


def test_a_connection_without_a_result_backend_cannot_be_followed() -> None:
    own = Connections(own=own_connections("memory://", ""))
    with pytest.raises(Fatal) as failed:
        CeleryTaskResource().create(_ctx(own))
    assert str(failed.value) == (
        "Resource record: the create task svc.create: connection 'conv_tasks': it has no "
        "result backend to read the task's result from."
    )
    own.close()


def test_a_result_the_service_stored_in_another_format_fails_saying_it_is_not_json(
    connections: Connections,
) -> None:
    """A service whose results are pickled: its result backend holds bytes JSON cannot read."""
    import pickle

    ctx = _ctx(connections)
    plugin = CeleryTaskResource()
    plugin.create(ctx)
    backend = _app(ctx).backend
    meta = {"status": "SUCCESS", "result": {"id": 1}, "task_id": "x"}
    backend.set(backend.get_key_for_task(task_id_for(ctx.idempotency_token)), pickle.dumps(meta))

    with pytest.raises(Fatal) as failed:
        plugin.check_create(ctx)
    assert str(failed.value).startswith(
        "Resource record: the create task svc.create: connection 'conv_tasks': its result is "
        "not valid JSON ("
    ), failed.value
