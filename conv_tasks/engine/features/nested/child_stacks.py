"""The ChildStacks service: nested-stack plugins create, update, delete, cancel and read
their child stacks through the engine's own stack operations.

A child is a real stack of the parent's tenant, with its own traversal. It is created with
rollback disabled (the parent's rollback drives it back) and keyed by the parent action's
idempotency token, so a step delivered twice, or run again after its worker died, finds the
child the first run made. Nothing here waits for a child: the plugin polls `get`.
This module must never be imported by resources/ (plugins see only the Protocol).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from conv_tasks.db import resources as resource_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine.stack import operations
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.health import check_for_parent
from conv_tasks.engine.features.nested.inherited_secrets import with_inherited_secrets
from conv_tasks.engine.stack.nesting import child_stack_name, nesting_of_child
from conv_tasks.statuses import Action, Status
from conv_tasks.errors import Conflict, NotFound
from conv_tasks.resources.child_stacks import ChildRequest, ChildStack
from conv_tasks.template import ResourceData


class EngineChildStacks:
    """ChildStacks on this engine's database and queues. Cheap to make: it holds the env."""

    def __init__(self, env: EngineEnv) -> None:
        self._env = env

    def create(
        self, *, parent_stack_id: str, resource_name: str, token: str, request: ChildRequest
    ) -> str:
        with session_scope() as session:
            parent = stack_repo.get_stack(session, parent_stack_id)
            files, environment = _inherited(session, parent, request.provider)
            secrets = _hidden_values(self._env, session, parent)
            tenant, parent_name = parent.tenant, parent.name
            nesting = nesting_of_child(parent.id, parent.name, parent.nested_depth, resource_name)
        template, parameters = with_inherited_secrets(
            request.template, request.parameters, secrets, files=files
        )
        result = operations.create_stack(
            self._env,
            tenant=tenant,
            name=child_stack_name(parent_name, resource_name, token),
            template=template,
            parameters=parameters,
            disable_rollback=True,
            timeout_mins=request.timeout_mins,
            idempotency_key=token,
            environment=environment,
            files=files,
            nesting=nesting,
            facade=request.facade,
        )
        return str(result["stack_id"])

    def update(self, child_id: str, request: ChildRequest) -> None:
        with session_scope() as session:
            child = stack_repo.get_stack(session, child_id)
            tenant = child.tenant
            parent = session.get(Stack, child.parent_stack_id) if child.parent_stack_id else None
            files, environment = _inherited(session, parent, request.provider)
            secrets = _hidden_values(self._env, session, parent)
        template, parameters = with_inherited_secrets(
            request.template, request.parameters, secrets, files=files
        )
        operations.update_stack(
            self._env,
            tenant=tenant,
            stack_ref=child_id,
            template=template,
            parameters=parameters,
            timeout_mins=request.timeout_mins,
            environment=environment,
            files=files,
            via_parent=True,
            facade=request.facade,
        )

    def delete(self, child_id: str) -> None:
        with session_scope() as session:
            try:
                child = stack_repo.get_stack(session, child_id)
            except NotFound:
                return  # deleted already: a repeated step
            if child.action == Action.DELETE and child.status == Status.IN_PROGRESS:
                return
            tenant = child.tenant
        operations.delete_stack(self._env, tenant=tenant, stack_ref=child_id, via_parent=True)

    def cancel(self, child_id: str) -> None:
        with session_scope() as session:
            try:
                child = stack_repo.get_stack(session, child_id)
            except NotFound:
                return
            under_way = child.status == Status.IN_PROGRESS and child.action in (
                Action.CREATE,
                Action.UPDATE,
            )
            tenant = child.tenant
        if not under_way:
            return
        # Conflict: it ended meanwhile, and nothing is left to cancel.
        with contextlib.suppress(Conflict):
            operations.cancel_update(
                self._env, tenant=tenant, stack_ref=child_id, rollback=False, via_parent=True
            )

    def template(self, child_id: str) -> dict[str, Any]:
        with session_scope() as session:
            child = stack_repo.get_stack(session, child_id)
            if child.raw_template_id is None:
                return {}
            return dict(template_repo.get_template(session, child.raw_template_id).template)

    def failed_resources(self, child_id: str) -> frozenset[str]:
        with session_scope() as session:
            return frozenset(
                row.name
                for row in resource_repo.versions(session, child_id)
                if row.replaced_by is None and row.status == Status.FAILED
            )

    def made_for(self, *, parent_stack_id: str, token: str) -> str | None:
        with session_scope() as session:
            stmt = select(Stack.id).where(
                Stack.parent_stack_id == parent_stack_id,
                Stack.idempotency_key.in_(creation_keys(token)),
                Stack.deleted_at.is_(None),
            )
            return session.scalars(stmt).first()

    def check(self, child_id: str, key: str) -> ChildStack:
        check_for_parent(self._env, child_id, key)
        return self.get(child_id)

    def get(self, child_id: str) -> ChildStack:
        with session_scope() as session:
            child = session.get(Stack, child_id)
            if child is None:
                return ChildStack(child_id, "", Action.DELETE, Status.COMPLETE, deleted=True)
            outputs: dict[str, Any] = {}
            if child.deleted_at is None and child.status == Status.COMPLETE:
                outputs = _outputs(self._env, session, child)
            return ChildStack(
                id=child.id,
                name=child.name,
                action=child.action,
                status=child.status,
                reason=child.status_reason or "",
                outputs=outputs,
                deleted=child.deleted_at is not None,
            )


def creation_keys(token: str) -> list[str]:
    """The idempotency keys a create step of the version that `token` names may have used
    (a nested resource whose create failed before its child existed creates it on update).
    Tokens are `<stack>:<version>:<action>` (engine.actions.action_context)."""
    version = token.rsplit(":", 1)[0]
    return [f"{version}:{Action.CREATE}", f"{version}:{Action.UPDATE}"]


def _inherited(
    session: Session, stack: Stack | None, provider: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The files map and environment a parent hands down to a child, as Heat does: its
    files (get_file, provider templates), its parameter_defaults and its stack-wide
    resource_registry, less the mappings to the child's own provider template. Not its
    `parameters` (they name the parent's parameters) nor its per-resource mappings."""
    if stack is None or stack.raw_template_id is None:
        return {}, []
    raw = template_repo.get_template(session, stack.raw_template_id)
    stored = dict(raw.environment or {})
    environment: dict[str, Any] = {}
    if stored.get("parameter_defaults"):
        environment["parameter_defaults"] = dict(stored["parameter_defaults"])
    registry = {
        key: target
        for key, target in dict(stored.get("resource_registry") or {}).items()
        if key != "resources" and target != provider
    }
    if registry:
        environment["resource_registry"] = registry
    return dict(raw.files or {}), [environment] if environment else []


def _hidden_values(env: EngineEnv, session: Session, stack: Stack | None) -> list[Any]:
    """The values of the stack's hidden parameters (its inherited ones included) and of its
    resources' secret attributes (a wait condition handle's token, handed to a child through
    get_attr, stays a secret there)."""
    if stack is None or stack.raw_template_id is None:
        return []
    raw = template_repo.get_template(session, stack.raw_template_id)
    definition = env.definitions.of_row(raw)
    hidden = definition.template.hidden_parameters()
    values = [value for name, value in definition.parameters.items() if name in hidden]
    if definition.secret_attributes:  # read only for stacks that have secrets
        values.extend(_secret_attribute_values(session, stack.id, definition.secret_attributes))
    return values


def _secret_attribute_values(
    session: Session, stack_id: str, secret: Mapping[str, frozenset[str]]
) -> list[str]:
    """The stored values (those read by get_attr) of the stack's secret attributes, as text."""
    found: list[str] = []
    for row in resource_repo.versions(session, stack_id):
        names = secret.get(row.name)
        if not names or row.replaced_by is not None:
            continue
        attributes = dict((row.attr_data or {}).get("attributes") or {})
        found.extend(_texts([attributes[name] for name in names if name in attributes]))
    return found


def _texts(value: Any) -> list[str]:
    """The strings in a value, however nested."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _texts(item)]
    return []


def _outputs(env: EngineEnv, session: Session, child: Stack) -> dict[str, Any]:
    """The child's output values; one derived from its hidden parameters is masked."""
    if child.raw_template_id is None:
        return {}
    raw = template_repo.get_template(session, child.raw_template_id)
    definition = env.definitions.of_row(raw)
    inputs = {
        row.name: ResourceData(
            row.attr_data.get("ref"), dict(row.attr_data.get("attributes") or {})
        )
        for row in resource_repo.versions(session, child.id)
        if row.replaced_by is None and row.attr_data
    }
    return {name: out.get("value") for name, out in definition.shown_outputs(inputs).items()}
