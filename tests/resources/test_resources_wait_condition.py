"""OS::Heat::WaitCondition and OS::Heat::WaitConditionHandle against an in-memory store."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from typing import Any

import pytest
from memory_wait_handles import MemoryWaitHandles
from resources_sandbox import MemorySandbox, make_ctx

from conv_tasks.deployments.credentials import matches
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.errors import ResourceFailure, TemplateError
from conv_tasks.limits import MAX_WAIT_CONDITION_SECS
from conv_tasks.resources import ActionContext, Progress
from conv_tasks.resources.builtin import WaitConditionHandleResource, WaitConditionResource
from conv_tasks.resources.builtin.wait_condition.resource import DEADLINE_MARGIN_SECS
from conv_tasks.waitconditions.signals import SignalStatus, WaitSignal

OK = SignalStatus.SUCCESS


def _ctx(store: MemoryWaitHandles, resource: type, **kwargs: Any) -> ActionContext:
    return replace(make_ctx(resource, MemorySandbox(), **kwargs), wait_handles=store)


def _handle(
    store: MemoryWaitHandles, edge_url: str | None = None, **properties: Any
) -> tuple[str, dict[str, Any]]:
    plugin = WaitConditionHandleResource()
    ctx = _ctx(store, WaitConditionHandleResource, properties=properties, name="handle")
    ctx = replace(ctx, edge_url=edge_url)
    progress = plugin.create(ctx)
    assert not progress.done and progress.physical_id is not None
    ctx = replace(ctx, physical_id=progress.physical_id, data=dict(progress.data))
    assert plugin.check_create(ctx).done
    return progress.physical_id, dict(plugin.attributes(ctx))


def _wait_ctx(store: MemoryWaitHandles, handle: str, **kwargs: Any) -> ActionContext:
    properties = {"handle": handle, "timeout": 60, **kwargs.pop("properties", {})}
    return _ctx(store, WaitConditionResource, properties=properties, name="wait", **kwargs)


def _next(ctx: ActionContext, progress: Progress, now: float) -> ActionContext:
    return replace(ctx, physical_id=progress.physical_id or ctx.physical_id, now=now)


def test_handle_keeps_only_the_hash_of_its_token_and_gives_it_in_its_attributes() -> None:
    store = MemoryWaitHandles()
    handle_id, attrs = _handle(store)
    token = attrs["token"]
    assert isinstance(token, str) and len(token) >= 40
    held = store.handles[handle_id]
    assert held.credential_hash != token and matches(token, held.credential_hash)
    assert attrs["endpoint"] == handle_id
    assert attrs["curl_cli"] == f"conv-tasks wait-condition signal {handle_id} --token {token}"
    assert json.loads(attrs["signal"]) == {
        "task": "conv_tasks.wait_condition.signal",
        "handle": handle_id,
        "token": token,
    }


def test_with_an_edge_the_handle_gives_heats_curl_command_against_it() -> None:
    store = MemoryWaitHandles()
    handle_id, attrs = _handle(store, edge_url="https://orchestration.example:8004")
    token = attrs["token"]
    endpoint = f"https://orchestration.example:8004/signal/v1/wait_condition_handles/{handle_id}"
    assert attrs["endpoint"] == endpoint
    assert attrs["curl_cli"] == (
        f"curl -i -X POST -H 'X-Auth-Token: {token}' -H 'Content-Type: application/json' "
        f"-H 'Accept: application/json' {endpoint}"
    )
    assert shlex.split(attrs["curl_cli"])[5] == f"X-Auth-Token: {token}"
    assert json.loads(attrs["signal"]) == {"endpoint": endpoint, "token": token}


def test_the_handle_takes_the_hash_only_of_the_token_the_engine_recorded() -> None:
    store = MemoryWaitHandles()
    plugin = WaitConditionHandleResource()
    ctx = _ctx(store, WaitConditionHandleResource, name="handle")
    first, raced = plugin.create(ctx), plugin.create(ctx)  # two runs of the step, one lease
    assert first.data["token"] != raced.data["token"] and not store.handles
    recorded = replace(ctx, physical_id=first.physical_id, data=dict(first.data))
    assert plugin.create(recorded).data == first.data  # the step again keeps its token
    assert plugin.check_create(recorded).done
    assert plugin.check_create(recorded).done
    held = store.handles[str(first.physical_id)]
    assert matches(first.data["token"], held.credential_hash)
    assert not matches(raced.data["token"], held.credential_hash)


def test_a_repeated_create_keeps_the_handles_id_and_signals() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    store.signal(handle_id, WaitSignal("1", OK, "early"))
    again, attrs = _handle(store)
    assert again == handle_id
    assert store.signals(handle_id, "stack-1") == (WaitSignal("1", OK, "early"),)
    assert matches(attrs["token"], store.handles[handle_id].credential_hash)


def test_a_delete_without_a_physical_id_removes_the_handle_of_its_create_token() -> None:
    store = MemoryWaitHandles()
    ctx = _ctx(store, WaitConditionHandleResource)
    plugin = WaitConditionHandleResource()
    started = plugin.create(ctx)
    made = replace(ctx, physical_id=started.physical_id, data=dict(started.data))
    assert plugin.check_create(made).done  # made: its worker died before it was recorded
    left = replace(ctx, action="DELETE", create_token=ctx.idempotency_token)
    assert plugin.delete(left).done
    assert store.handles[started.physical_id or ""].deleted


def test_no_signal_transport_has_no_token_and_null_attributes() -> None:
    store = MemoryWaitHandles()
    handle_id, attrs = _handle(store, signal_transport="NO_SIGNAL")
    assert attrs == {"token": None, "endpoint": None, "curl_cli": None, "signal": None}
    assert store.handles[handle_id].credential_hash is None


def test_heat_only_transports_are_refused_by_name() -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "h": {
                "type": "OS::Heat::WaitConditionHandle",
                "properties": {"signal_transport": "CFN_SIGNAL"},
            }
        },
    }
    with pytest.raises(TemplateError) as exc:
        StackDefinition.build(template, {})
    assert "resources.h.properties.signal_transport" in str(exc.value)
    assert "TOKEN_SIGNAL" in str(exc.value)


def test_deleted_handle_has_no_signals_for_a_wait() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    ctx = _ctx(store, WaitConditionHandleResource, action="DELETE", physical_id=handle_id)
    assert WaitConditionHandleResource().delete(ctx).done
    assert store.signals(handle_id, "stack-1") is None
    with pytest.raises(ResourceFailure, match="not a valid wait condition handle"):
        WaitConditionResource().create(_wait_ctx(store, handle_id))


def test_wait_polls_until_count_signals_then_gives_data() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    plugin = WaitConditionResource()
    ctx = _wait_ctx(store, handle_id, properties={"count": 2})
    progress = plugin.create(ctx)
    assert not progress.done and progress.physical_id is not None
    store.signal(handle_id, WaitSignal("web1", OK, "up", {"ip": "10.0.0.1"}))
    ctx = _next(ctx, progress, 1002.0)
    assert not plugin.check_create(ctx).done
    store.signal(handle_id, WaitSignal("web2", OK, "up", {"ip": "10.0.0.2"}))
    assert plugin.check_create(_next(ctx, progress, 1004.0)).done
    data = json.loads(plugin.attributes(ctx)["data"])
    assert data == {"web1": {"ip": "10.0.0.1"}, "web2": {"ip": "10.0.0.2"}}


def test_signals_sent_before_the_wait_began_count() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    store.signal(handle_id, WaitSignal("1", OK, "early"))
    assert WaitConditionResource().create(_wait_ctx(store, handle_id)).done


def test_a_failure_signal_fails_with_its_reason() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    store.signal(handle_id, WaitSignal("1", SignalStatus.FAILURE, "config broke"))
    with pytest.raises(ResourceFailure) as exc:
        WaitConditionResource().create(_wait_ctx(store, handle_id, properties={"count": 3}))
    assert str(exc.value) == "WaitCondition wait: a FAILURE signal was received: config broke"


def test_timeout_fails_with_how_many_arrived() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    plugin = WaitConditionResource()
    ctx = _wait_ctx(store, handle_id, properties={"count": 2, "timeout": 30})
    progress = plugin.create(ctx)
    store.signal(handle_id, WaitSignal("1", OK, "one up"))
    assert not plugin.check_create(_next(ctx, progress, 1029.0)).done
    with pytest.raises(ResourceFailure) as exc:
        plugin.check_create(_next(ctx, progress, 1030.5))
    assert str(exc.value) == "WaitCondition wait: timed out after 30 s: 1 of 2 received - one up"


def test_a_wait_on_a_handle_of_another_stack_fails() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    ctx = replace(_wait_ctx(store, handle_id), stack_id="stack-2")
    with pytest.raises(ResourceFailure, match="not a valid wait condition handle"):
        WaitConditionResource().create(ctx)


def test_update_waits_again_for_the_new_count_and_delete_clears_the_handle() -> None:
    store = MemoryWaitHandles()
    handle_id, _ = _handle(store)
    store.signal(handle_id, WaitSignal("1", OK, "r"))
    plugin = WaitConditionResource()
    ctx = _wait_ctx(store, handle_id, action="UPDATE", properties={"count": 2}, physical_id="w")
    assert not plugin.update(ctx).done
    store.signal(handle_id, WaitSignal("2", OK, "r"))
    assert plugin.check_update(ctx).done
    assert plugin.delete(replace(ctx, action="DELETE")).done
    assert store.signals(handle_id, "stack-1") == ()


def test_timeout_is_bounded_and_the_engine_deadline_comes_after_it() -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "w": {
                "type": "OS::Heat::WaitCondition",
                "properties": {
                    "handle": {"get_resource": "h"},
                    "timeout": MAX_WAIT_CONDITION_SECS + 1,
                    "count": 0,
                },
            },
        },
    }
    with pytest.raises(TemplateError) as exc:
        StackDefinition.build(template, {})
    text = str(exc.value)
    assert "resources.w.properties.timeout" in text
    assert "resources.w.properties.count" in text
    assert WaitConditionResource().action_timeout({"timeout": 30}) == 30 + DEADLINE_MARGIN_SECS


def test_whatever_reads_the_token_is_hidden_and_the_data_is_not() -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "h": {"type": "OS::Heat::WaitConditionHandle"},
            "host": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_attr": ["h", "curl_cli"]}},
            },
            "downstream": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_attr": ["host", "value"]}},
            },
            "w": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "h"}, "timeout": 10},
            },
        },
        "outputs": {
            "token": {"value": {"get_attr": ["h", "token"]}},
            "signal": {"value": {"get_attr": ["h", "signal"]}},
            "endpoint": {"value": {"get_attr": ["h", "endpoint"]}},
            "data": {"value": {"get_attr": ["w", "data"]}},
        },
    }
    definition = StackDefinition.build(template, {})
    assert definition.hidden_resources == frozenset({"host", "downstream"})
    assert definition.hidden_outputs == frozenset({"token", "signal"})
    assert definition.secret_attributes == {"h": frozenset({"token", "curl_cli", "signal"})}
    assert definition.reason("downstream", "failed with value abc") == (
        "details withheld: the properties of downstream derive from secret attributes "
        "(a wait condition handle's token)"
    )
    assert definition.reason("w", "timed out") == "timed out"
