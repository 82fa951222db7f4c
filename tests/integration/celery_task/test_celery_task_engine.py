"""ConvTasks::Celery::Task against another service's real Celery workers: its create,
update and delete tasks do the work once, its failures fail the resource, an interrupted
or timed-out action revokes the task, and the connection's secret never shows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import celery_task_service as svc
import pytest
from celery_task_world import (
    CONNECTION,
    Cluster,
    ServiceWorld,
    call,
    task_resource,
    template,
    wait_until,
)

from conv_tasks.errors import ConvTasksError

pytestmark = pytest.mark.broker("redis", reason="its brokers are private Redis servers")


@pytest.fixture(scope="module")
def cluster(database_url: str, service: ServiceWorld) -> Iterator[Cluster]:
    world = Cluster.start(database_url, service, suffix="celerytask")
    try:
        yield world
    finally:
        world.stop()


def _records_stack(name: str, *, with_update: bool = True, with_delete: bool = True) -> Any:
    """A record whose name is the parameter `name`, made, renamed and deleted by the
    service's tasks; its outputs read the resource's attributes."""
    properties: dict[str, Any] = {
        "connection": CONNECTION,
        "id_path": "id",
        "create": call(svc.CREATE, name={"get_param": "name"}),
    }
    if with_update:
        properties["update"] = call(svc.UPDATE, name={"get_param": "name"})
    if with_delete:
        properties["delete"] = call(svc.DELETE)
    return template(
        {"record": task_resource(**properties)},
        parameters={"name": {"type": "string", "default": name}},
        outputs={
            "id": {"value": {"get_attr": ["record", "id"]}},
            "result": {"value": {"get_attr": ["record", "result"]}},
        },
    )


def _outputs(client: Any, stack_id: str) -> dict[str, Any]:
    return {name: shown.get("value") for name, shown in client.outputs(stack_id).items()}


def test_create_update_and_delete_are_the_services_tasks_each_run_once(
    cluster: Cluster, service: ServiceWorld
) -> None:
    client = cluster.client()
    stack_id = client.create("records", _records_stack("alpha"))["stack_id"]
    created = client.wait(stack_id, timeout=60, interval=0.2)
    assert created["status"] == "CREATE_COMPLETE", created

    [record] = service.records_by(stack_id)
    assert (record["name"], record["version"]) == ("alpha", 1)
    assert len(service.calls(svc.CREATE, stack_id)) == 1
    assert _outputs(client, stack_id) == {"id": record["id"], "result": record}
    [resource] = client.resources(stack_id)
    assert resource["physical_id"] == record["id"]

    client.update(stack_id, _records_stack("beta"))
    updated = client.wait(stack_id, timeout=60, interval=0.2)
    assert updated["status"] == "UPDATE_COMPLETE", updated
    [renamed] = service.records_by(stack_id)
    assert (renamed["id"], renamed["name"], renamed["version"]) == (record["id"], "beta", 2)
    [update_call] = service.calls(svc.UPDATE, stack_id)
    assert update_call["kwargs"] == {"id": record["id"], "name": "beta"}
    assert _outputs(client, stack_id) == {"id": record["id"], "result": renamed}
    assert len(service.calls(svc.CREATE, stack_id)) == 1  # in place: made once

    client.delete(stack_id)
    deleted = client.wait(stack_id, timeout=60, interval=0.2)
    assert deleted["status"] == "DELETE_COMPLETE", deleted
    assert service.records_by(stack_id) == []
    [delete_call] = service.calls(svc.DELETE, stack_id)
    assert delete_call["kwargs"] == {"id": record["id"]}
    assert delete_call["key"] != update_call["key"] != record["created_by"]


def test_a_change_only_the_create_task_sees_makes_a_new_record(
    cluster: Cluster, service: ServiceWorld
) -> None:
    client = cluster.client()
    stack_id = client.create("replaced", _records_stack("one", with_update=False))["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    [first] = service.records_by(stack_id)

    client.update(stack_id, _records_stack("two", with_update=False))
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "UPDATE_COMPLETE"

    [second] = service.records_by(stack_id)
    assert second["name"] == "two" and second["id"] != first["id"]
    assert [c["kwargs"] for c in service.calls(svc.DELETE, stack_id)] == [{"id": first["id"]}]
    assert _outputs(client, stack_id)["id"] == second["id"]


def test_without_a_connection_it_uses_conv_tasks_own_broker_and_the_token_is_its_id(
    cluster: Cluster, service: ServiceWorld
) -> None:
    """No connection: conv_tasks' own broker and result backend (a service worker serves
    them here). No id_path: the id is the token. No delete task: a delete forgets it."""
    client = cluster.client()
    body = task_resource(create=call(svc.CREATE, name="own"))
    stack = template({"record": body}, outputs={"id": {"value": {"get_attr": ["record", "id"]}}})
    stack_id = client.create("own-broker", stack)["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"

    [record] = service.records_by(stack_id)
    assert record["name"] == "own"
    assert _outputs(client, stack_id)["id"] == record["created_by"]
    assert record["created_by"].startswith(f"{stack_id}:") and record["created_by"].endswith(
        ":CREATE"
    )

    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "DELETE_COMPLETE"
    assert service.records_by(stack_id) == [record]  # forgotten, not deleted
    assert service.calls(svc.DELETE, stack_id) == []


def test_an_upstream_resources_attribute_reaches_the_tasks_kwargs(
    cluster: Cluster, service: ServiceWorld
) -> None:
    client = cluster.client()
    stack = template(
        {
            "account": {"type": "OS::Heat::Value", "properties": {"value": "acct-42"}},
            "server": {"type": "OS::Heat::TestResource", "properties": {"value": "srv"}},
            "record": task_resource(
                connection=CONNECTION,
                create=call(
                    svc.CREATE,
                    name="linked",
                    owner={"get_attr": ["account", "value"]},
                    server={"get_resource": "server"},
                ),
            ),
        }
    )
    stack_id = client.create("linked", stack)["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"

    [record] = service.records_by(stack_id)
    server = {r["name"]: r for r in client.resources(stack_id)}["server"]
    assert (record["owner"], record["server"]) == ("acct-42", server["physical_id"])


def _failing(create: dict[str, Any], **properties: Any) -> Any:
    return template({"record": task_resource(connection=CONNECTION, create=create, **properties)})


def _failed(client: Any, stack_id: str) -> dict[str, Any]:
    final = client.wait(stack_id, timeout=90, interval=0.2)
    assert final["status"] == "CREATE_FAILED", final

    def failed() -> dict[str, Any] | None:
        # A cancel fails the stack at once; its resource fails on its next poll.
        [resource] = client.resources(stack_id)
        return dict(resource) if resource["status"] == "CREATE_FAILED" else None

    return dict(wait_until("the resource's failure", failed))


def test_a_task_that_raises_fails_the_resource_with_its_message_on_one_line(
    cluster: Cluster, service: ServiceWorld
) -> None:
    client = cluster.client()
    create = call(svc.FAIL, message="quota exceeded\nfor tenant 7")
    stack_id = client.create("raises", _failing(create), disable_rollback=True)["stack_id"]

    resource = _failed(client, stack_id)
    assert resource["status_reason"] == (
        "Resource record: the create task svc.records.fail raised "
        "RecordRefused: quota exceeded for tenant 7."
    )
    assert len(service.calls(svc.FAIL, stack_id)) == 1


def test_a_result_that_is_not_json_fails_the_resource_saying_so(
    cluster: Cluster, service: ServiceWorld
) -> None:
    client = cluster.client()
    stack_id = client.create("not-json", _failing(call(svc.NOT_JSON)), disable_rollback=True)[
        "stack_id"
    ]

    resource = _failed(client, stack_id)
    assert resource["status_reason"] == (
        "Resource record: the result of the create task svc.records.not_json is not JSON: "
        "it holds nan, which JSON has no number for."
    )


def _slow_task_of(service: ServiceWorld, stack_id: str) -> str:
    """The task id of the stack's slow task, once a service worker runs it."""

    def started() -> str | None:
        held = service.store.hgetall(svc.STARTED)
        return next((v for k, v in held.items() if k.startswith(stack_id)), None)

    return str(wait_until("the slow task's start", started))


def _assert_revoked(service: ServiceWorld, stack_id: str, task_id: str) -> None:
    app = service.app()
    wait_until("the task's revocation", lambda: app.AsyncResult(task_id).state == "REVOKED")
    assert not any(k.startswith(stack_id) for k in service.store.hkeys(svc.FINISHED))


def test_a_create_past_its_timeout_revokes_its_task(
    cluster: Cluster, service: ServiceWorld
) -> None:
    client = cluster.client()
    slow = _failing(call(svc.SLOW, seconds=120), timeout=3)
    stack_id = client.create("too-slow", slow, disable_rollback=True)["stack_id"]
    task_id = _slow_task_of(service, stack_id)

    resource = _failed(client, stack_id)
    assert "timed out" in resource["status_reason"], resource
    _assert_revoked(service, stack_id, task_id)


def test_a_cancelled_create_revokes_its_task_and_its_delete_still_runs(
    cluster: Cluster, service: ServiceWorld
) -> None:
    client = cluster.client()
    slow = _failing(call(svc.SLOW, seconds=120), delete=call(svc.DELETE))
    stack_id = client.create("cancelled", slow)["stack_id"]
    task_id = _slow_task_of(service, stack_id)

    client.cancel(stack_id, rollback=False)

    resource = _failed(client, stack_id)
    assert "interrupted" in resource["status_reason"], resource
    _assert_revoked(service, stack_id, task_id)
    # Its id is the create's token, known from the start: the delete task is still called,
    # for whatever the interrupted create left.
    [slow_run] = service.calls(svc.SLOW, stack_id)
    assert resource["physical_id"] == slow_run["key"]
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "DELETE_COMPLETE"
    [delete_call] = service.calls(svc.DELETE, stack_id)
    assert delete_call["kwargs"] == {"id": slow_run["key"]}


def test_the_connections_secret_never_shows_whatever_fails(
    cluster: Cluster, service: ServiceWorld
) -> None:
    password = service.redis.password
    client = cluster.client()
    leaky = client.create("leaky", _failing(call(svc.LEAK)), disable_rollback=True)["stack_id"]
    refused = client.create(
        "refused",
        template(
            {
                "record": task_resource(
                    connection="records-wrong-password", create=call(svc.CREATE, name="x")
                )
            }
        ),
        disable_rollback=True,
    )["stack_id"]

    leaked = _failed(client, leaky)
    assert leaked["status_reason"].startswith(
        "Resource record: the create task svc.records.leak raised RecordRefused: cannot reach "
        "redis://:******@127.0.0.1:"
    ), leaked
    wrong = _failed(client, refused)
    assert wrong["status_reason"] == (
        "Resource record: the create task svc.records.create: connection "
        "'records-wrong-password': its result backend refuses the connection's credentials."
    )
    assert service.calls(svc.CREATE, refused) == []

    shown = [
        client.get(leaky),
        client.get(refused),
        client.events(leaky),
        client.events(refused),
        client.resources(leaky, all_versions=True),
        client.resources(refused, all_versions=True),
        client.outputs(leaky),
    ]
    assert password not in repr(shown)
    assert password not in (cluster.root / "logs").joinpath("w1.log").read_text()


@pytest.mark.parametrize(
    ("properties", "path", "message"),
    [
        (
            {"create": {"task": "create record"}},
            "resources.record.properties.create.task",
            "must be a dotted task name",
        ),
        (
            {"create": {"task": "svc.records.create", "kwargs": ["name"]}},
            "resources.record.properties.create.kwargs",
            "must be a map",
        ),
        (
            {"create": {"task": "svc.records.create", "kwargs": {"idempotency_key": "mine"}}},
            "resources.record.properties.create.kwargs.idempotency_key",
            "is set by conv_tasks",
        ),
        (
            {"create": {"task": "svc.records.create"}, "connection": "web"},
            "resources.record.properties.connection",
            "names connection 'web', a http connection; it needs a celery one",
        ),
        (
            {"create": {"task": "svc.records.create"}, "connection": "nowhere"},
            "resources.record.properties.connection",
            "names connection 'nowhere', which this tenant does not have",
        ),
    ],
    ids=["task", "kwargs", "engine-kwargs", "wrong-kind", "unknown"],
)
def test_bad_input_is_refused_when_the_template_is_loaded_and_changes_nothing(
    cluster: Cluster,
    service: ServiceWorld,
    properties: dict[str, Any],
    path: str,
    message: str,
) -> None:
    client = cluster.client()
    calls = len(service.calls())
    with pytest.raises(ConvTasksError) as refused:
        client.create("refused", template({"record": task_resource(**properties)}))

    problems = [(p.path, p.message) for p in getattr(refused.value, "problems", [])]
    assert any(p == path and message in m for p, m in problems), problems
    assert client.list() == []
    time.sleep(0.5)  # a task sent anyway would have been run by now
    assert len(service.calls()) == calls
