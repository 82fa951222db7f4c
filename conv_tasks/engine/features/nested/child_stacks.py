"""The ChildStacks service: nested-stack plugins create, update, delete, cancel and read
their child stacks through the engine's own stack operations (StackControl).

A child is a real stack of the parent's tenant, with its own traversal. It is created with
rollback disabled (the parent's rollback drives it back) and keyed by the parent action's
idempotency token, so a step delivered twice, or run again after its worker died, finds the
child the first run made. Nothing here waits for a child: the plugin polls `get`.
This module must never be imported by resources/ (plugins see only the Protocol).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conv_tasks.db import StackRow, Transaction
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.features.nested.inherited_secrets import with_inherited_secrets
from conv_tasks.engine.payload import read_stored_output
from conv_tasks.engine.read import stored_outputs
from conv_tasks.engine.stack import ChangeRequest, NewStackRequest, StackControl
from conv_tasks.sdk import ChildRequest, ChildStack
from conv_tasks.statuses import Action, Status


class EngineChildStacks:
    """ChildStacks on this engine's database and queues. Cheap to make: it holds the env."""

    def __init__(self, env: EngineEnv) -> None:
        self._env = env
        self._control = StackControl(env)

    def create(
        self, *, parent_stack_id: str, resource_name: str, token: str, request: ChildRequest
    ) -> str:
        with self._env.db.transaction() as tx:
            parent = tx.stacks.get(parent_stack_id)
            files, environment = _inherited(tx, parent, request.provider)
            secrets = _hidden_values(self._env, tx, parent)
        template, parameters = with_inherited_secrets(
            request.template, request.parameters, secrets, files=files
        )
        wanted = NewStackRequest(
            name=parent.name,  # StackControl names the child after its parent's resource
            template=template,
            parameters=parameters,
            disable_rollback=True,
            timeout_mins=request.timeout_mins,
            idempotency_key=token,
            environment=environment,
            files=files,
        )
        return self._control.create_child(parent, resource_name, token, wanted, request.facade)

    def update(self, child_id: str, request: ChildRequest) -> None:
        change = self.change_request(child_id, request)
        self._control.update_child(
            child_id, change, timeout_mins=request.timeout_mins, facade=request.facade
        )

    def change_request(self, child_id: str, request: ChildRequest) -> ChangeRequest:
        """The update of the child that `request` makes: the parent's files, environment
        and hidden values handed down. Only reads."""
        with self._env.db.transaction() as tx:
            child = tx.stacks.get(child_id)
        [change] = self.change_requests([(child_id, child.parent_stack_id, request)])
        assert change is not None
        return change

    def change_requests(
        self,
        asked: Sequence[tuple[str, str | None, ChildRequest]],
        *,
        secrets: Mapping[str | None, Sequence[Any]] | None = None,
    ) -> list[ChangeRequest | None]:
        """change_request of each (child id, its parent's id, request), each parent read once
        in one transaction (a preview of many children); None where the parent is gone.
        `secrets`: hidden values a parent will have besides those stored (a preview's: the
        parent's update is not stored yet), handed down too."""
        handed: dict[tuple[str | None, str | None], _HandedDown | None] = {}
        with self._env.db.transaction() as tx:
            parents = {
                parent_id: tx.stacks.get_any(parent_id) if parent_id else None
                for parent_id in dict.fromkeys(parent_id for _, parent_id, _ in asked)
            }
            hidden = {
                parent_id: [
                    *_hidden_values(self._env, tx, parent),
                    *(secrets or {}).get(parent_id, ()),
                ]
                for parent_id, parent in parents.items()
            }
            for _, parent_id, request in asked:
                key = (parent_id, request.provider)
                parent = parents[parent_id]
                if key not in handed:
                    gone = parent_id is not None and parent is None
                    handed[key] = (
                        None
                        if gone
                        else (*_inherited(tx, parent, request.provider), hidden[parent_id])
                    )
        changes: list[ChangeRequest | None] = []
        for _, parent_id, request in asked:
            down = handed[(parent_id, request.provider)]
            if down is None:
                changes.append(None)
                continue
            files, environment, values = down
            template, parameters = with_inherited_secrets(
                request.template, request.parameters, values, files=files
            )
            changes.append(
                ChangeRequest(template, parameters, environment=environment, files=files)
            )
        return changes

    def delete(self, child_id: str) -> None:
        self._control.delete_child(child_id)

    def cancel(self, child_id: str) -> None:
        self._control.cancel_child(child_id)

    def template(self, child_id: str) -> dict[str, Any]:
        with self._env.db.transaction() as tx:
            child = tx.stacks.get(child_id)
            if child.raw_template_id is None:
                return {}
            return dict(tx.templates.get(child.raw_template_id).template)

    def failed_resources(self, child_id: str) -> frozenset[str]:
        with self._env.db.transaction() as tx:
            return frozenset(
                row.name
                for row in tx.resources.of_stack(child_id)
                if row.is_head and row.status == Status.FAILED
            )

    def made_for(self, *, parent_stack_id: str, token: str) -> str | None:
        with self._env.db.transaction() as tx:
            return tx.stacks.made_for(parent_stack_id, creation_keys(token))

    def check(self, child_id: str, key: str) -> ChildStack:
        self._control.check_child(child_id, key)
        return self.get(child_id)

    def walk(self, child_id: str, action: str, key: str) -> ChildStack:
        self._control.walk_child(child_id, Action(action), key)
        return self.get(child_id)

    def get(self, child_id: str) -> ChildStack:
        with self._env.db.transaction() as tx:
            child = tx.stacks.get_any(child_id)
            if child is None:
                return ChildStack(child_id, "", Action.DELETE, Status.COMPLETE, deleted=True)
            outputs: dict[str, Any] = {}
            if not child.deleted and child.status == Status.COMPLETE:
                outputs = _outputs(self._env, tx, child)
            return ChildStack(
                id=child.id,
                name=child.name,
                action=child.action,
                status=child.status,
                reason=child.status_reason,
                outputs=outputs,
                deleted=child.deleted,
            )


# What a parent hands down to a child: its files, its environment, its hidden values.
_HandedDown = tuple[dict[str, Any], list[dict[str, Any]], list[Any]]


def creation_keys(token: str) -> list[str]:
    """The idempotency keys a create step of the version that `token` names may have used
    (a nested resource whose create failed before its child existed creates it on update).
    Tokens are `<stack>:<version>:<action>` (engine.node.actions.action_context)."""
    version = token.rsplit(":", 1)[0]
    return [f"{version}:{Action.CREATE}", f"{version}:{Action.UPDATE}"]


def _inherited(
    tx: Transaction, stack: StackRow | None, provider: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The files map and environment a parent hands down to a child, as Heat does: its
    files (get_file, provider templates), its parameter_defaults and its stack-wide
    resource_registry, less the mappings to the child's own provider template. Not its
    `parameters` (they name the parent's parameters) nor its per-resource mappings."""
    if stack is None or stack.raw_template_id is None:
        return {}, []
    raw = tx.templates.get(stack.raw_template_id)
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


def _hidden_values(env: EngineEnv, tx: Transaction, stack: StackRow | None) -> list[Any]:
    """The values of the stack's hidden parameters (its inherited ones included) and of its
    resources' secret attributes (a wait condition handle's token, handed to a child through
    get_attr, stays a secret there)."""
    if stack is None or stack.raw_template_id is None:
        return []
    definition = env.definitions.of_row(tx.templates.get(stack.raw_template_id))
    hidden = definition.template.hidden_parameters()
    values = [value for name, value in definition.parameters.items() if name in hidden]
    if definition.secret_attributes:  # read only for stacks that have secrets
        values.extend(_secret_attribute_values(tx, stack.id, definition.secret_attributes))
    return values


def _secret_attribute_values(
    tx: Transaction, stack_id: str, secret: Mapping[str, frozenset[str]]
) -> list[str]:
    """The stored values (those read by get_attr) of the stack's secret attributes, as text."""
    found: list[str] = []
    for row in tx.resources.of_stack(stack_id):
        names = secret.get(row.name)
        if not names or not row.is_head:
            continue
        attributes = read_stored_output(row.attr_data).attributes
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


def _outputs(env: EngineEnv, tx: Transaction, child: StackRow) -> dict[str, Any]:
    """The child's output values; one derived from its hidden parameters is masked."""
    if child.raw_template_id is None:
        return {}
    definition = env.definitions.of_row(tx.templates.get(child.raw_template_id))
    outputs = definition.shown_outputs(stored_outputs(tx, child.id))
    return {name: out.get("value") for name, out in outputs.items()}
