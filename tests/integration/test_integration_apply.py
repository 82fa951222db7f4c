"""`conv_tasks.stack.apply` on real workers, through the client: created, then unchanged while
the same request comes again (no traversal, no event, nothing touched), then updated; and
bad requests refused by name, changing nothing."""

from __future__ import annotations

import pytest
import yaml
from integration_support import resource_rows, sandbox_objects, template, test_resource

from conv_tasks.client import Client
from conv_tasks.errors import Conflict, InvalidInput

V1 = template({"a": test_resource("1"), "b": {**test_resource("2"), "depends_on": ["a"]}})
# Its delete takes a while, so that a request made while it runs finds it being deleted.
KEPT = template({"a": test_resource("1", action_wait_secs={"delete": 10})})
V2 = template({"a": test_resource("1"), "b": {**test_resource("3"), "depends_on": ["a"]}})


def test_created_then_unchanged_then_updated(client: Client) -> None:
    first = client.apply("applied", V1, tags=["ci"])
    assert (first["result"], first["status"]) == ("created", "CREATE_IN_PROGRESS")
    stack_id = first["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    events = client.events(stack_id)
    objects = {o.id: o.create_calls for o in sandbox_objects(stack_id)}
    rows = {(r.name, r.version, r.template_id) for r in resource_rows(stack_id)}

    # The same request again, as YAML text this time: nothing is started.
    again = client.apply("applied", yaml.safe_dump(V1), tags=["ci"])
    assert again["result"] == "unchanged"
    assert (again["stack_id"], again["status"]) == (stack_id, "CREATE_COMPLETE")
    assert "traversal" not in again and "event_id" not in again
    assert client.events(stack_id) == events
    assert {o.id: o.create_calls for o in sandbox_objects(stack_id)} == objects
    assert {(r.name, r.version, r.template_id) for r in resource_rows(stack_id)} == rows

    changed = client.apply("applied", V2, tags=["ci"])
    assert (changed["result"], changed["status"]) == ("updated", "UPDATE_IN_PROGRESS")
    final = client.wait(stack_id, timeout=60)
    assert (final["status"], final["tags"]) == ("UPDATE_COMPLETE", ["ci"])
    values = sorted(o.properties["value"] for o in sandbox_objects(stack_id))
    assert values == ["1", "3"]
    assert client.apply("applied", V2, tags=["ci"])["result"] == "unchanged"
    # Tags are part of the request: dropping them is a change.
    assert client.apply("applied", V2)["result"] == "updated"
    assert client.wait(stack_id, timeout=60)["tags"] == []


def test_bad_requests_are_refused_by_name_and_change_nothing(client: Client) -> None:
    stack_id = client.apply("kept", KEPT)["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    events = client.events(stack_id)

    with pytest.raises(InvalidInput, match="No::Such::Type") as refused:
        client.apply("kept", template({"a": {"type": "No::Such::Type"}}))
    assert refused.value.code == "invalid_template"
    assert [p.path for p in refused.value.problems] == ["resources.a.type"]
    with pytest.raises(InvalidInput) as refused:
        client.call("conv_tasks.stack.apply", name="kept", template=KEPT, stack="kept")
    assert [p.path for p in refused.value.problems] == ["stack"]
    with pytest.raises(InvalidInput) as refused:
        client.call("conv_tasks.stack.apply", name="kept")
    assert [p.path for p in refused.value.problems] == ["template"]
    with pytest.raises(InvalidInput, match="timeout_mins"):
        client.apply("kept", KEPT, timeout_mins=0)
    assert client.events(stack_id) == events
    assert [s["name"] for s in client.list()] == ["kept"]

    client.delete("kept")
    with pytest.raises(Conflict, match="being deleted"):
        client.apply("kept", KEPT)
