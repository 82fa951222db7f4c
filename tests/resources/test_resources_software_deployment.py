"""OS::Heat::SoftwareConfig and OS::Heat::SoftwareDeployment against an in-memory store."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from memory_deployments import MemoryDeployments
from resources_sandbox import MemorySandbox, make_ctx

from conv_tasks.errors import ResourceFailure
from conv_tasks.resources import ActionContext, Progress, default_registry, static_problems
from conv_tasks.resources.builtin import SoftwareConfigResource, SoftwareDeploymentResource
from conv_tasks.resources.builtin.software_deployment import poll_after

CONFIG_PROPS: dict[str, Any] = {
    "group": "script",
    "config": "#!/bin/sh\necho hi",
    "inputs": [{"name": "foo", "default": "f"}],
    "outputs": [{"name": "result"}, {"name": "err", "error_output": True}],
}


def _ctx(store: MemoryDeployments, resource: type, **kwargs: Any) -> ActionContext:
    return replace(make_ctx(resource, MemorySandbox(), **kwargs), deployments=store)


def _config(store: MemoryDeployments) -> str:
    ctx = _ctx(store, SoftwareConfigResource, properties=CONFIG_PROPS, name="config")
    progress = SoftwareConfigResource().create(ctx)
    assert progress.done and progress.physical_id is not None
    return progress.physical_id


def _deploy_ctx(store: MemoryDeployments, config_id: str, **kwargs: Any) -> ActionContext:
    properties = {"config": config_id, "server": "server-1", "input_values": {"foo": "F"}}
    properties.update(kwargs.pop("properties", {}))
    return _ctx(store, SoftwareDeploymentResource, properties=properties, name="deploy", **kwargs)


def _after(ctx: ActionContext, progress: Progress, **kwargs: Any) -> ActionContext:
    """The context of the next poll, as the engine builds it."""
    return replace(
        ctx,
        physical_id=progress.physical_id or ctx.physical_id,
        data={**ctx.data, **progress.data},
        **kwargs,
    )


def test_config_is_saved_once_with_its_schema_applied() -> None:
    store = MemoryDeployments()
    config_id = _config(store)
    assert _config(store) == config_id  # same token, same config
    saved = store.configs[config_id]
    assert saved.group == "script"
    assert [(i.name, i.type, i.default) for i in saved.inputs] == [("foo", "String", "f")]
    assert [(o.name, o.error_output) for o in saved.outputs] == [("result", False), ("err", True)]


def test_any_change_of_a_config_replaces_it() -> None:
    plugin = SoftwareConfigResource()
    assert plugin.needs_replacement(CONFIG_PROPS, {**CONFIG_PROPS, "config": "other"})
    assert plugin.needs_replacement(CONFIG_PROPS, {**CONFIG_PROPS, "group": "puppet"})
    assert not plugin.needs_replacement(CONFIG_PROPS, dict(CONFIG_PROPS))


def test_config_attribute_and_delete() -> None:
    store = MemoryDeployments()
    config_id = _config(store)
    ctx = _ctx(store, SoftwareConfigResource, properties=CONFIG_PROPS, physical_id=config_id)
    assert SoftwareConfigResource().attributes(ctx) == {"config": CONFIG_PROPS["config"]}
    assert SoftwareConfigResource().delete(replace(ctx, action="DELETE")).done
    assert config_id not in store.configs


def test_create_publishes_then_waits_for_the_signal() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store))
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    assert not started.done and started.physical_id is not None
    [published] = store.published
    assert published.action == "CREATE" and published.server == "server-1"
    assert published.config.config == CONFIG_PROPS["config"]
    assert published.input_values == {"foo": "F"}
    assert published.token == ctx.idempotency_token and published.awaited
    polled = _after(ctx, started, now=ctx.now + 3)
    assert not plugin.check_create(polled).done
    store.server_signals(
        started.physical_id,
        "COMPLETE",
        outputs={"result": "42", "deploy_stdout": "out", "deploy_status_code": 0},
    )
    done = plugin.check_create(polled)
    assert done.done
    final = _after(polled, done)
    assert plugin.attributes(final) == {
        "deploy_stdout": "out",
        "deploy_stderr": None,
        "deploy_status_code": 0,
        "result": "42",
        "err": None,
    }


def test_a_step_run_again_does_not_publish_again() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store))
    plugin = SoftwareDeploymentResource()
    first = plugin.create(ctx)
    assert first.physical_id is not None
    store.server_signals(first.physical_id, "COMPLETE", outputs={"result": "r"})
    again = plugin.create(ctx)
    assert again.done and len(store.published) == 1


def test_a_failed_signal_fails_the_action_with_its_reason() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store))
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    assert started.physical_id is not None
    store.server_signals(started.physical_id, "FAILED", status_reason="exit 3: boom")
    with pytest.raises(ResourceFailure, match="the CREATE failed: exit 3: boom"):
        plugin.check_create(_after(ctx, started))


def test_an_action_not_in_actions_asks_nothing_of_the_server() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store), properties={"actions": ["UPDATE"]})
    progress = SoftwareDeploymentResource().create(ctx)
    assert progress.done
    assert store.published[0].awaited is False
    assert store.states[progress.physical_id or ""].status == "COMPLETE"


def test_update_publishes_a_new_action_on_the_same_deployment() -> None:
    store = MemoryDeployments()
    config_id = _config(store)
    ctx = _deploy_ctx(store, config_id)
    plugin = SoftwareDeploymentResource()
    created = plugin.create(ctx)
    assert created.physical_id is not None
    store.server_signals(created.physical_id, "COMPLETE")
    update = _deploy_ctx(
        store,
        config_id,
        action="UPDATE",
        physical_id=created.physical_id,
        token="stack-1:2:UPDATE",
        properties={"input_values": {"foo": "G"}},
    )
    progress = plugin.update(update)
    assert not progress.done and progress.physical_id == created.physical_id
    assert store.published[-1].action == "UPDATE"
    assert store.published[-1].input_values == {"foo": "G"}


def test_an_update_in_place_is_allowed_but_a_new_server_replaces() -> None:
    plugin = SoftwareDeploymentResource()
    old = {"server": "a", "config": "c1", "input_values": {}, "actions": ["CREATE"]}
    assert not plugin.needs_replacement(old, {**old, "config": "c2", "input_values": {"x": 1}})
    assert plugin.needs_replacement(old, {**old, "server": "b"})


def test_its_own_timeout_stops_the_wait() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store), properties={"timeout": 5})
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    assert plugin.action_timeout(ctx.properties) == 5.0
    with pytest.raises(ResourceFailure, match="within the deployment's timeout"):
        plugin.check_create(_after(ctx, started, now=ctx.started_at + 6))
    assert store.states[started.physical_id or ""].status == "FAILED"


def test_interrupt_ends_the_pending_action() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store))
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    plugin.interrupt(_after(ctx, started))
    state = store.states[started.physical_id or ""]
    assert state.status == "FAILED" and "stopped waiting" in state.status_reason


def test_a_missing_config_fails_the_action() -> None:
    store = MemoryDeployments()
    with pytest.raises(ResourceFailure, match="software config 'nope' does not exist"):
        SoftwareDeploymentResource().create(_deploy_ctx(store, "nope"))


def test_delete_without_delete_in_actions_just_removes() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store))
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    store.server_signals(started.physical_id or "", "COMPLETE")
    gone = plugin.delete(_after(ctx, started, action="DELETE", idempotency_token="t:DELETE"))
    assert gone.done and store.states == {}


def test_delete_in_actions_asks_the_server_then_removes() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store), properties={"actions": ["CREATE", "DELETE"]})
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    store.server_signals(started.physical_id or "", "COMPLETE")
    deleting = _after(ctx, started, action="DELETE", idempotency_token="t:DELETE")
    progress = plugin.delete(deleting)
    assert not progress.done
    assert store.states[started.physical_id or ""].action == "DELETE"
    assert not plugin.check_delete(deleting).done
    store.server_signals(started.physical_id or "", "COMPLETE")
    assert plugin.check_delete(deleting).done
    assert store.states == {}


def test_delete_asks_nothing_of_a_server_that_never_ran_the_deployment() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store), properties={"actions": ["CREATE", "DELETE"]})
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    gone = plugin.delete(_after(ctx, started, action="DELETE", idempotency_token="t:DELETE"))
    assert gone.done and store.states == {}


def test_a_delete_without_a_physical_id_removes_what_its_create_token_published() -> None:
    store = MemoryDeployments()
    config_ctx = _ctx(store, SoftwareConfigResource, properties=CONFIG_PROPS, name="config")
    config_id = SoftwareConfigResource().create(config_ctx).physical_id or ""
    ctx = _deploy_ctx(store, config_id)
    started = SoftwareDeploymentResource().create(ctx)  # its worker died: no id recorded
    assert started.physical_id in store.states
    # The deletes get the create's token (the engine's ActionContext.create_token).
    gone = SoftwareDeploymentResource().delete(
        replace(
            ctx, action="DELETE", idempotency_token="t:DELETE", create_token=ctx.idempotency_token
        )
    )
    assert gone.done and store.states == {}
    config_gone = SoftwareConfigResource().delete(
        replace(config_ctx, action="DELETE", create_token=config_ctx.idempotency_token)
    )
    assert config_gone.done and config_id not in store.configs


def test_a_delete_by_token_that_asks_the_server_records_the_deployments_id() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store), properties={"actions": ["CREATE", "DELETE"]})
    plugin = SoftwareDeploymentResource()
    started = plugin.create(ctx)
    store.server_signals(started.physical_id or "", "COMPLETE")
    left = replace(
        ctx, action="DELETE", idempotency_token="t:DELETE", create_token=ctx.idempotency_token
    )
    progress = plugin.delete(left)
    # Polled with the id it found, like any delete.
    assert not progress.done and progress.physical_id == started.physical_id
    store.server_signals(started.physical_id or "", "COMPLETE")
    assert plugin.check_delete(_after(left, progress)).done
    assert store.states == {}


def test_polls_start_quick_and_slow_down() -> None:
    assert poll_after(0) == 0.5
    assert poll_after(20) == 2.0
    assert poll_after(3600) == 5.0


def test_heat_signal_transports_are_refused_by_name() -> None:
    problems = static_problems(
        SoftwareDeploymentResource,
        {"server": "s", "signal_transport": "CFN_SIGNAL"},
        path="resources.d.properties",
    )
    [problem] = problems
    assert problem.path == "resources.d.properties.signal_transport"
    assert "not implemented by conv_tasks" in problem.message
    assert "CONV_TASKS_SIGNAL" in problem.message and "'CFN_SIGNAL'" in problem.message
    assert not static_problems(
        SoftwareDeploymentResource,
        {"server": "s", "signal_transport": "CONV_TASKS_SIGNAL"},
        path="resources.d.properties",
    )


@pytest.mark.parametrize("action", ["SUSPEND", "RESUME"])
def test_a_suspend_or_resume_in_actions_runs_the_config_on_the_server(action: str) -> None:
    store = MemoryDeployments()
    props = {"actions": ["CREATE", action]}
    ctx = _deploy_ctx(store, _config(store), properties=props)
    plugin = SoftwareDeploymentResource()
    created = plugin.create(ctx)
    assert created.physical_id is not None
    store.server_signals(created.physical_id, "COMPLETE", outputs={})
    walk = replace(
        _after(ctx, created), action=action, idempotency_token=f"{ctx.idempotency_token}:{action}"
    )
    start, poll = (
        (plugin.suspend, plugin.check_suspend)
        if action == "SUSPEND"
        else (plugin.resume, plugin.check_resume)
    )
    started = start(walk)
    assert not started.done
    published = store.published[-1]
    assert (published.action, published.awaited) == (action, True)
    assert published.id == created.physical_id and published.input_values == {"foo": "F"}
    assert not poll(_after(walk, started)).done
    store.server_signals(created.physical_id, "COMPLETE", outputs={"deploy_stdout": action})
    assert poll(_after(walk, started)).done


def test_a_suspend_or_resume_not_in_actions_completes_at_once() -> None:
    store = MemoryDeployments()
    ctx = _deploy_ctx(store, _config(store), properties={"actions": ["CREATE"]})
    plugin = SoftwareDeploymentResource()
    created = plugin.create(ctx)
    store.server_signals(created.physical_id or "", "COMPLETE", outputs={})
    walk = replace(_after(ctx, created), action="SUSPEND")
    assert plugin.suspend(walk).done and plugin.resume(replace(walk, action="RESUME")).done
    assert [p.action for p in store.published] == ["CREATE"]  # the server was asked nothing


def test_a_refused_action_is_named_by_its_word() -> None:
    [problem] = static_problems(
        SoftwareDeploymentResource,
        {"server": "s", "actions": ["CREATE", "PAUSE"]},
        path="resources.d.properties",
    )
    assert problem.path == "resources.d.properties.actions[1]"
    for word in ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME", "'PAUSE'"):
        assert word in problem.message, problem.message
    assert "DeployAction" not in problem.message and "<" not in problem.message
    shown = default_registry().show("OS::Heat::SoftwareDeployment")["properties"]["actions"]
    assert "<" not in str(shown) and "SUSPEND" in str(shown)


def test_both_types_are_registered() -> None:
    registry = default_registry()
    shown = registry.show("OS::Heat::SoftwareDeployment")
    assert set(shown["attributes"]) == {"deploy_stdout", "deploy_stderr", "deploy_status_code"}
    assert registry.show("OS::Heat::SoftwareConfig")["properties"]["config"]["immutable"]
