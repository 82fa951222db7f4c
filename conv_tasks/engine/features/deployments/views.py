"""What the stack's owner reads about its deployments: `deployment list` and `deployment show`.

Credentials never appear here, nor input values (they may derive from hidden
parameters); outputs and the ends of stdout and stderr are shown through the
stack's redactor, and withheld whole when the deployment's properties derive
from a hidden parameter.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import DeploymentRow
from conv_tasks.deployments import STANDARD_OUTPUTS, STATUS_CODE, STDERR, STDOUT
from conv_tasks.engine.definition import MASK, StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.read import iso_time, stack_definition
from conv_tasks.errors import NotFound

# How much of stdout and stderr `show` prints: the end, in characters.
SHOWN_LOG_CHARS = 4000


def _summary(row: DeploymentRow, definition: StackDefinition | None) -> dict[str, Any]:
    reason = row.status_reason or ""
    return {
        "name": row.resource_name,
        "id": row.id,
        "deployment_name": row.name,
        "server": row.server,
        "group": row.config_group,
        "config_id": row.config_id,
        "action": row.action,
        "status": row.state,
        "status_reason": definition.reason(row.resource_name, reason) if definition else reason,
        "server_started": row.started_at is not None,
        "updated_time": iso_time(row.action_published_at),
        "signalled_at": iso_time(row.signalled_at),
    }


def list_deployments(env: EngineEnv, tenant: str, stack_ref: str) -> list[dict[str, Any]]:
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, stack_ref)
        definition = stack_definition(env, tx, stack)
        return [_summary(row, definition) for row in tx.deployments.of_stack(stack.id)]


def show_deployment(env: EngineEnv, tenant: str, stack_ref: str, name: str) -> dict[str, Any]:
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, stack_ref)
        rows = tx.deployments.of_stack(stack.id)
        mine = [r for r in rows if r.resource_name == name]
        if not mine:
            raise NotFound(f"Stack {stack.name!r} has no deployment {name!r}.")
        head = tx.resources.head(stack.id, name)
        current = [r for r in mine if head is not None and r.id == head.physical_id]
        row = current[0] if current else mine[-1]
        definition = stack_definition(env, tx, stack)
        data = _summary(row, definition)
        data["inputs"] = sorted(
            {*(i.get("name") for i in row.config_inputs or ()), *(row.input_values or {})}
        )
        data.update(_results(row, definition))
        data["events"] = [
            {
                "id": e.id,
                "time": iso_time(e.created_at),
                "status": e.state,
                "reason": definition.redact(e.reason or "") if definition else e.reason,
            }
            for e in tx.events.list(stack.id, resource_name=name)
        ]
        return data


def _results(row: DeploymentRow, definition: StackDefinition | None) -> dict[str, Any]:
    """The outputs the server reported, and the ends of its stdout and stderr."""
    outputs = dict(row.outputs or {})
    declared = {
        str(o.get("name")): outputs.get(str(o.get("name")))
        for o in row.config_outputs or ()
        if o.get("name") not in STANDARD_OUTPUTS
    }
    stdout = outputs.get(STDOUT) or ""
    stderr = outputs.get(STDERR) or ""
    results: dict[str, Any] = {
        "outputs": declared,
        STATUS_CODE: outputs.get(STATUS_CODE),
        STDOUT: stdout[-SHOWN_LOG_CHARS:],
        STDERR: stderr[-SHOWN_LOG_CHARS:],
    }
    if definition is None:
        return results
    if row.resource_name in definition.hidden_resources:
        withheld = "withheld: the deployment's properties derive from hidden parameters"
        return {
            "outputs": {name: MASK for name in declared},
            STATUS_CODE: results[STATUS_CODE],
            STDOUT: withheld if stdout else "",
            STDERR: withheld if stderr else "",
        }
    shown: dict[str, Any] = definition.redact.value(results)
    return shown
