"""The deployment store against the real PostgreSQL: tokens make publishing idempotent, only
the action published with a token can be stopped, a failed DELETE can be asked again."""

from __future__ import annotations

import uuid
from typing import NoReturn

from sqlalchemy import select

from conv_tasks.db.deployments import DeploymentRecords, PostgresDeployments
from conv_tasks.db.models import ServerCredential, SoftwareDeploymentRow, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.deployments.records import (
    ConfigInput,
    ConfigOutput,
    DeployAction,
    DeploymentAction,
    SoftwareConfig,
)
from conv_tasks.secrets_at_rest import PLAINTEXT


def _stack(url: str, tenant: str = "t") -> str:
    stack_id = str(uuid.uuid4())
    with session_scope(url) as session:
        session.add(
            Stack(id=stack_id, name=f"s-{stack_id[:8]}", tenant=tenant, action="CREATE", status="")
        )
    return stack_id


CONFIG = SoftwareConfig(
    id="",
    name="config",
    group="script",
    config="#!/bin/sh",
    inputs=(ConfigInput("foo"),),
    outputs=(ConfigOutput("result"),),
)


def _action(stack_id: str, deployment_id: str, token: str, **fields: object) -> DeploymentAction:
    values: dict[str, object] = {
        "id": deployment_id,
        "stack_id": stack_id,
        "resource_name": "deploy",
        "server": "srv",
        "name": "deploy",
        "config": CONFIG,
        "input_values": {"foo": 1},
        "action": DeployAction.CREATE,
        "token": token,
        **fields,
    }
    return DeploymentAction(**values)  # type: ignore[arg-type]


def _finish(url: str, deployment_id: str, status: str) -> None:
    with session_scope(url) as session:
        row = session.get(SoftwareDeploymentRow, deployment_id)
        assert row is not None
        row.status, row.outputs = status, {"result": "r"}


def test_configs_are_kept_once_and_only_for_their_tenant(database_url: str) -> None:
    store = PostgresDeployments(database_url, sealer=PLAINTEXT)
    mine, theirs = _stack(database_url), _stack(database_url, tenant="other")
    config_id = str(uuid.uuid4())
    store.save_config(mine, SoftwareConfig(**{**CONFIG.__dict__, "id": config_id}))
    store.save_config(mine, SoftwareConfig(**{**CONFIG.__dict__, "id": config_id, "config": "x"}))
    found = store.config(mine, config_id)
    assert found is not None and found.config == "#!/bin/sh" and found.inputs == CONFIG.inputs
    assert store.config(theirs, config_id) is None
    store.delete_config(config_id)
    assert store.config(mine, config_id) is None


def test_the_same_token_leaves_the_deployment_as_it_stands(database_url: str) -> None:
    store = PostgresDeployments(database_url, sealer=PLAINTEXT)
    stack_id, deployment_id = _stack(database_url), str(uuid.uuid4())
    first = store.publish(_action(stack_id, deployment_id, "tok-1"))
    assert first.status == "IN_PROGRESS" and first.output_names == ("result",)
    _finish(database_url, deployment_id, "COMPLETE")
    again = store.publish(_action(stack_id, deployment_id, "tok-1", input_values={"foo": 2}))
    assert again.status == "COMPLETE" and again.outputs == {"result": "r"}
    update = store.publish(
        _action(stack_id, deployment_id, "tok-2", action=DeployAction.UPDATE, awaited=False)
    )
    assert (update.action, update.status, update.token) == ("UPDATE", "COMPLETE", "tok-2")
    assert update.outputs == {"result": "r"}  # what the server reported last is kept
    with session_scope(database_url) as session:
        row = session.get(SoftwareDeploymentRow, deployment_id)
        assert row is not None and row.tenant == "t" and row.input_values == {"foo": 1}


def test_a_new_run_remembers_the_last_one_s_credential_and_end(database_url: str) -> None:
    store = PostgresDeployments(database_url, sealer=PLAINTEXT)
    stack_id, deployment_id = _stack(database_url), str(uuid.uuid4())
    store.publish(_action(stack_id, deployment_id, "tok-1"))
    with session_scope(database_url) as session:
        DeploymentRecords(session).set_signal_hashes({deployment_id: "hash-1"})
    store.publish(_action(stack_id, deployment_id, "tok-2", action=DeployAction.UPDATE))
    store.publish(_action(stack_id, deployment_id, "tok-2", action=DeployAction.UPDATE))
    with session_scope(database_url) as session:
        row = session.get(SoftwareDeploymentRow, deployment_id)
        assert row is not None
        # The first run was still waiting when the second was published: it ended FAILED.
        assert (row.previous_signal_hash, row.previous_status) == ("hash-1", "FAILED")
        assert row.signal_hash is None and row.action_token == "tok-2"
        row.signal_hash, row.status = "hash-2", "COMPLETE"
    store.publish_delete(deployment_id, "del")
    with session_scope(database_url) as session:
        row = session.get(SoftwareDeploymentRow, deployment_id)
        assert row is not None
        assert (row.previous_signal_hash, row.previous_status) == ("hash-2", "COMPLETE")


def test_only_the_action_published_with_a_token_is_stopped(database_url: str) -> None:
    store = PostgresDeployments(database_url, sealer=PLAINTEXT)
    stack_id, deployment_id = _stack(database_url), str(uuid.uuid4())
    store.publish(_action(stack_id, deployment_id, "tok-1"))
    store.stop(deployment_id, "someone-else", "no")
    assert (store.state(deployment_id) or _fail()).status == "IN_PROGRESS"
    store.stop(deployment_id, "tok-1", "stopped")
    state = store.state(deployment_id) or _fail()
    assert (state.status, state.status_reason) == ("FAILED", "stopped")


def test_a_failed_delete_is_asked_again(database_url: str) -> None:
    store = PostgresDeployments(database_url, sealer=PLAINTEXT)
    stack_id, deployment_id = _stack(database_url), str(uuid.uuid4())
    store.publish(_action(stack_id, deployment_id, "tok-1"))
    _finish(database_url, deployment_id, "COMPLETE")
    deleting = store.publish_delete(deployment_id, "del") or _fail()
    assert (deleting.action, deleting.status) == ("DELETE", "IN_PROGRESS")
    _finish(database_url, deployment_id, "COMPLETE")
    assert (store.publish_delete(deployment_id, "del") or _fail()).status == "COMPLETE"
    _finish(database_url, deployment_id, "FAILED")
    assert (store.publish_delete(deployment_id, "del") or _fail()).status == "IN_PROGRESS"
    store.remove(deployment_id)
    assert store.state(deployment_id) is None
    assert store.publish_delete(deployment_id, "del") is None


def test_a_credential_is_issued_once_unless_rotated(database_url: str) -> None:
    stack_id = _stack(database_url)
    with session_scope(database_url) as session:
        assert DeploymentRecords(session).issue_credential("t", stack_id, "srv", "a", rotate=False)
        assert not DeploymentRecords(session).issue_credential(
            "t", stack_id, "srv", "b", rotate=False
        )
        assert DeploymentRecords(session).issue_credential("t", stack_id, "srv", "c", rotate=True)
        hashes = session.scalars(
            select(ServerCredential.credential_hash).where(ServerCredential.stack_id == stack_id)
        ).all()
        assert hashes == ["c"]
        DeploymentRecords(session).forget_stack(stack_id)
        left = DeploymentRecords(session).credential_hashes("srv")
        assert all(owner != stack_id for owner, _digest in left)


def _fail() -> NoReturn:
    raise AssertionError("the deployment is gone")
