"""ConvTasks::HTTP::Resource's steps against a stand-in REST service (httpx's MockTransport):
what each step sends, and how a repeated create finds its object instead of making two.

The real service is json-server, in tests/integration/http_resource; these pin the plugin's own
decisions, one step at a time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
import pytest

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.node.actions import run_step
from conv_tasks.errors import TemplateError
from conv_tasks.provider_errors import AlreadyExists, Fatal, NotFound, Transient
from conv_tasks.resources import ActionContext, token_physical_id
from conv_tasks.resources.builtin.http import HttpResource
from conv_tasks.resources.builtin.http.object_ids import FAILED, REFUSED

SECRET = "tok-5ecret-value"
TOKEN = "stack-1:42:CREATE"


@dataclass
class StandIn:
    """A REST collection in memory: client ids kept, a duplicate refused with `duplicate`."""

    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[httpx.Request] = field(default_factory=list)
    duplicate: int = 409
    next_answers: list[httpx.Response] = field(default_factory=list)
    fault: Exception | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.fault is not None:
            raise self.fault
        if self.next_answers:
            return self.next_answers.pop(0)
        parts = request.url.path.removeprefix("/api/").strip("/").split("/")
        body = json.loads(request.content) if request.content else None
        if request.method == "POST" and len(parts) == 1:
            new = dict(body)
            new.setdefault("id", f"s{len(self.objects) + 1}")
            if str(new["id"]) in self.objects:
                return httpx.Response(self.duplicate, json={"message": "duplicate id"})
            self.objects[str(new["id"])] = new
            return httpx.Response(201, json={**new, "seen": request.headers["authorization"]})
        if len(parts) != 2 or parts[1] not in self.objects:
            return httpx.Response(404, json={})
        if request.method == "GET":
            return httpx.Response(200, json=self.objects[parts[1]])
        if request.method == "DELETE":
            del self.objects[parts[1]]
            return httpx.Response(200, json={})
        if request.method == "PUT":
            self.objects[parts[1]] = {**body, "id": self.objects[parts[1]]["id"]}
        else:
            self.objects[parts[1]].update(body)
        return httpx.Response(200, json=self.objects[parts[1]])


@dataclass
class Connection:
    """What an action sees of an http connection, on the stand-in."""

    client: httpx.Client
    name: str = "rest"
    kind: str = "http"

    def secrets(self) -> tuple[str, ...]:
        return (SECRET,)

    def admit(self, token: str, *, starting: bool) -> float:
        return 0.0

    def release(self, token: str) -> None:
        pass


@pytest.fixture
def service() -> StandIn:
    return StandIn()


@pytest.fixture
def context(service: StandIn) -> Callable[..., ActionContext]:
    client = httpx.Client(
        base_url="http://svc.test/api",
        transport=httpx.MockTransport(service),
        headers={"Authorization": f"Bearer {SECRET}"},
    )

    def make(
        action: str = "CREATE",
        *,
        physical_id: str | None = None,
        data: dict[str, Any] | None = None,
        token: str = TOKEN,
        **properties: Any,
    ) -> ActionContext:
        props = {"url": "items", "body": {"name": "web"}, "connection": "rest", **properties}
        now = time.time()
        return ActionContext(
            stack_id="stack-1",
            resource_name="web",
            action=action,
            idempotency_token=token,
            properties=props,
            old_properties=None,
            physical_id=physical_id,
            data=data or {},
            started_at=now,
            now=now,
            sandbox=None,  # type: ignore[arg-type] - never reached
            connection=Connection(client),
        )

    return make


def test_a_create_posts_the_body_with_an_id_chosen_from_its_token(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    progress = HttpResource().create(context())
    chosen = token_physical_id(TOKEN)
    assert progress.done and progress.physical_id == chosen
    [request] = service.requests
    assert (request.method, str(request.url)) == ("POST", "http://svc.test/api/items")
    assert json.loads(request.content) == {"name": "web", "id": chosen}
    assert request.headers["idempotency-key"] == TOKEN
    assert service.objects == {chosen: {"name": "web", "id": chosen}}
    assert progress.data["id"] == chosen and progress.data["status"] == 201
    # The service echoed the bearer token: what the resource keeps has it masked.
    assert progress.data["response"]["seen"] == "Bearer ******"


@pytest.mark.parametrize("duplicate", [409, 500, 400])
def test_a_create_repeated_after_a_crash_adopts_the_object_its_first_try_made(
    service: StandIn, context: Callable[..., ActionContext], duplicate: int
) -> None:
    service.duplicate = duplicate
    plugin = HttpResource()
    assert plugin.create(context()).done  # the first try: its worker dies before recording it
    again = plugin.create(context())  # the same step, run again with the same token
    assert not again.done and again.data[REFUSED].startswith("Resource web: POST")
    adopted = plugin.check_create(context(data=dict(again.data)))
    assert adopted.done and adopted.physical_id == token_physical_id(TOKEN)
    assert adopted.data[REFUSED] is None and adopted.data["status"] == 200
    assert len(service.objects) == 1
    assert [r.method for r in service.requests] == ["POST", "POST", "GET"]


def test_a_refused_create_whose_object_is_not_there_fails_with_the_posts_message(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    service.next_answers = [httpx.Response(422, json={"detail": f"bad name for {SECRET}"})]
    plugin = HttpResource()
    refused = plugin.create(context())
    assert not refused.done
    with pytest.raises(Fatal) as caught:
        plugin.check_create(context(data=dict(refused.data)))
    assert str(caught.value) == (
        "Resource web: POST http://svc.test/api/items answered 422 Unprocessable Entity: "
        "bad name for ******"
    )
    assert service.objects == {}


def test_a_create_whose_answer_is_not_json_fails_keeping_the_id_for_the_delete(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    chosen = token_physical_id(TOKEN)
    service.objects[chosen] = {"id": chosen}  # the service made it, then answered HTML
    html = httpx.Response(201, text="<html>made</html>", headers={"content-type": "text/html"})
    service.next_answers = [html]
    plugin = HttpResource()
    step = run_step(plugin, context(), first=True)
    assert not step.done and step.physical_id == chosen
    assert step.data[FAILED].endswith(
        "answered 201 Created with a body that is not JSON (text/html, 17 bytes)."
    )
    failed = run_step(plugin, context(data=dict(step.data)), first=False)
    assert failed.done and failed.failed == step.data[FAILED]
    # The engine keeps the physical id of the step before a failure: a delete removes it.
    assert plugin.delete(context("DELETE", physical_id=step.physical_id)).done
    assert service.objects == {}


def test_a_service_that_chooses_ids_is_read_at_id_path(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    service.next_answers = [httpx.Response(201, json={"data": {"id": 17}})]
    progress = HttpResource().create(context(choose_id=False, id_path="data.id"))
    assert progress.physical_id == "17" and progress.data["id"] == 17
    assert json.loads(service.requests[0].content) == {"name": "web"}
    service.next_answers = [httpx.Response(201, json={"data": {}})]
    with pytest.raises(Fatal, match=r"answered 201 Created with no id at data\.id"):
        HttpResource().create(context(choose_id=False, id_path="data.id"))
    # A service that refuses the create, with no id chosen, fails it at once.
    service.next_answers = [httpx.Response(409, json={"message": "exists"})]
    with pytest.raises(Fatal, match="answered 409 Conflict: exists"):
        HttpResource().create(context(choose_id=False))


def test_an_id_given_in_the_body_is_the_objects(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    body = {"id": "web-1", "name": "web"}
    plugin = HttpResource()
    progress = plugin.create(context(body=body))
    assert progress.physical_id == "web-1" and list(service.objects) == ["web-1"]
    # Repeated after a crash: the object found holds the body, so it is this resource's.
    again = plugin.create(context(body=body))
    adopted = plugin.check_create(context(body=body, data=dict(again.data)))
    assert adopted.done and adopted.physical_id == "web-1"


def test_an_id_given_in_the_body_that_names_someone_elses_object_is_not_adopted(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    service.objects["web-1"] = {"id": "web-1", "name": "theirs"}
    plugin = HttpResource()
    body = {"id": "web-1", "name": "web"}
    refused = plugin.create(context(body=body))
    assert not refused.done
    with pytest.raises(AlreadyExists, match="finds an object with the id 'web-1' its body gives"):
        plugin.check_create(context(body=body, data=dict(refused.data)))
    assert service.objects == {"web-1": {"id": "web-1", "name": "theirs"}}


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_an_update_sends_the_body_to_the_item_url(
    service: StandIn, context: Callable[..., ActionContext], method: str
) -> None:
    service.objects["x1"] = {"id": "x1", "name": "web", "size": 1}
    ctx = context("UPDATE", physical_id="x1", body={"name": "web2"}, update_method=method)
    progress = HttpResource().update(ctx)
    [request] = service.requests
    assert (request.method, request.url.path) == (method, "/api/items/x1")
    assert request.headers["idempotency-key"] == TOKEN
    assert json.loads(request.content) == {"name": "web2"}
    kept = {"id": "x1", "name": "web2"} if method == "PUT" else {**service.objects["x1"]}
    assert service.objects["x1"] == kept
    assert progress.data == {"status": 200, "response": kept}


def test_an_update_of_an_object_that_is_gone_fails(context: Callable[..., ActionContext]) -> None:
    ctx = context("UPDATE", physical_id="x1", item_url="/things/{id}")
    with pytest.raises(NotFound, match=r"PUT http://svc\.test/api/things/x1 answered 404"):
        HttpResource().update(ctx)


def test_a_delete_of_an_object_already_gone_is_done(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    service.objects["x1"] = {"id": "x1"}
    plugin = HttpResource()
    assert plugin.delete(context("DELETE", physical_id="x1")).done
    assert service.objects == {}
    step = run_step(plugin, context("DELETE", physical_id="x1"), first=True)
    assert step.done and step.failed is None
    assert plugin.delete(context("DELETE")).done  # nothing was ever made
    assert [r.method for r in service.requests] == ["DELETE", "DELETE"]


def _left(context: Callable[..., ActionContext], action: str, **properties: Any) -> ActionContext:
    """The context of a step on a version whose create (TOKEN) ended without a physical id."""
    token = TOKEN.replace(":CREATE", f":{action}")
    return replace(context(action, token=token, **properties), create_token=TOKEN)


def test_a_delete_of_a_create_that_ended_without_an_id_removes_the_object_its_token_chose(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    plugin = HttpResource()
    assert plugin.create(context()).done  # its worker died before the answer was recorded
    chosen = token_physical_id(TOKEN)
    seen = plugin.observe(_left(context, "CHECK"))
    assert seen is not None and seen.exists
    step = run_step(plugin, _left(context, "DELETE"), first=True)
    assert step.done and step.failed is None
    assert service.objects == {}
    delete = service.requests[-1]
    assert (delete.method, delete.url.path) == ("DELETE", f"/api/items/{chosen}")
    assert delete.headers["idempotency-key"] == "stack-1:42:DELETE"
    gone = plugin.observe(_left(context, "CHECK"))
    assert gone is not None and not gone.exists
    # Nothing there (any more): a 404, which is what a delete wants.
    again = run_step(plugin, _left(context, "DELETE"), first=True)
    assert again.done and again.failed is None


def test_a_delete_by_token_of_an_id_the_body_gave_removes_only_an_object_holding_the_body(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    body = {"id": "web-1", "name": "web"}
    service.objects["web-1"] = {"id": "web-1", "name": "theirs"}
    plugin = HttpResource()
    assert plugin.delete(_left(context, "DELETE", body=body)).done
    assert service.objects == {"web-1": {"id": "web-1", "name": "theirs"}}  # not ours
    seen = plugin.observe(_left(context, "CHECK", body=body))
    assert seen is not None and not seen.exists
    service.objects["web-1"] = {"id": "web-1", "name": "web", "added": 1}
    assert plugin.delete(_left(context, "DELETE", body=body)).done
    assert service.objects == {}


def test_a_delete_by_token_that_cannot_name_the_object_sends_nothing(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    plugin = HttpResource()
    # The service was to choose the id: only it knows which object the POST made.
    assert plugin.delete(_left(context, "DELETE", choose_id=False)).done
    # Properties no request can be sent with: the create sent nothing either.
    assert plugin.delete(_left(context, "DELETE", url="http://elsewhere.test/items")).done
    seen = plugin.observe(_left(context, "CHECK", url="http://elsewhere.test/items"))
    assert seen is not None and not seen.exists
    assert service.requests == []


def test_observe_reads_the_fields_the_template_sets(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    service.objects["x1"] = {"id": "x1", "name": "other", "added": 1}
    observed = HttpResource().observe(context("CHECK", physical_id="x1"))
    assert observed is not None and observed.exists
    assert observed.properties == {"body": {"name": "other"}}
    assert observed.differences({"body": {"name": "web"}}) == ["body"]
    del service.objects["x1"]
    gone = HttpResource().observe(context("CHECK", physical_id="x1"))
    assert gone is not None and not gone.exists


def test_a_service_that_does_not_answer_in_time_is_transient_and_the_step_is_retried(
    service: StandIn, context: Callable[..., ActionContext]
) -> None:
    service.fault = httpx.ReadTimeout("timed out")
    with pytest.raises(Transient, match=r"got no answer within 0\.5 s"):
        HttpResource().create(context(timeout=0.5))
    service.fault = None
    service.next_answers = [httpx.Response(503, text=f"down; {SECRET}")]
    step = run_step(HttpResource(), context(), first=True)
    assert not step.done and step.failed is None
    assert step.data["__conv_tasks_retry__"] == {"start": True, "attempts": 1}


def test_a_url_with_another_scheme_is_refused_when_the_template_is_loaded() -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "local": {"type": "ConvTasks::HTTP::Resource", "properties": {"url": "file:///etc"}},
            "leak": {
                "type": "ConvTasks::HTTP::Resource",
                "properties": {"url": "https://elsewhere.test/x", "connection": "rest"},
            },
            "headers": {
                "type": "ConvTasks::HTTP::Resource",
                "properties": {"url": "http://h.test/x", "headers": {"Idempotency-Key": "k"}},
            },
        },
    }
    with pytest.raises(TemplateError) as caught:
        StackDefinition.build(template, {})
    said = str(caught.value)
    assert "resources.local.properties.url: scheme 'file' is not allowed" in said
    assert "resources.leak.properties.url: must be a path under the connection's base_url" in said
    assert "resources.headers.properties.headers: Idempotency-Key is sent by conv_tasks" in said


def test_a_computed_url_is_checked_when_the_action_runs(
    context: Callable[..., ActionContext],
) -> None:
    step = run_step(HttpResource(), context(url="file:///etc/passwd"), first=True)
    assert step.failed == (
        "Resource web: property url scheme 'file' is not allowed: use http or https."
    )
