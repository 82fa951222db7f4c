"""A signal the stack's owner sends to a resource (`resource signal`) goes to the wait
handle's store when the resource's type says it keeps wait signals (keeps_wait_signals),
whatever its name; to any other resource it is an event. The engine asks the type, never
whether it is the built-in OS::Heat::WaitConditionHandle."""

from __future__ import annotations

from typing import Any, ClassVar

from standins import RecordingDispatcher, standin_env, template

from conv_tasks.engine import NewStackRequest, TenantStacks, signal_resource
from conv_tasks.resources import default_registry
from conv_tasks.resources.builtin import WaitConditionHandleResource
from conv_tasks.sdk import ResourceType


class Handle(WaitConditionHandleResource):
    """A wait condition handle of some other package, under a name of its own."""

    type_name: ClassVar[str] = "Example::Handle"


class Plain(ResourceType):
    type_name: ClassVar[str] = "Example::Plain"


def _signalled(resource: str, details: dict[str, Any]) -> dict[str, Any]:
    registry = default_registry().with_types({Handle.type_name: Handle, Plain.type_name: Plain})
    env = standin_env(registry=registry)
    assert isinstance(env.dispatcher, RecordingDispatcher)
    doc = template({"h": {"type": Handle.type_name}, "p": {"type": Plain.type_name}})
    TenantStacks(env, "tenant-a").create(NewStackRequest("s", doc, {}))
    env.dispatcher.drain(env)
    return signal_resource(env, "tenant-a", "s", resource, details)


def test_a_type_that_keeps_wait_signals_gets_the_owners_signal_as_a_hosts() -> None:
    answer = _signalled("h", {"status": "SUCCESS", "reason": "ready", "data": "d", "id": "1"})
    assert (answer["resource"], answer["status"], answer["signals"]) == ("h", "SUCCESS", 1)
    assert answer["message"] == "Signal: status:SUCCESS reason:ready"


def test_any_other_type_gets_it_as_an_event() -> None:
    answer = _signalled("p", {"deploy_status": "COMPLETE", "deploy_status_reason": "done"})
    assert answer == {
        "stack_id": answer["stack_id"],
        "resource": "p",
        "deploy_status": "COMPLETE",
        "message": "done",
    }
