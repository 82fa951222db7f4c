"""What the stack's owner reads about its deployments: `deployment list` and `deployment show`.

Credentials never appear here, nor input values (they may derive from hidden
parameters); outputs and the ends of stdout and stderr are shown through the
stack's redactor, and withheld whole when the deployment's properties derive
from a hidden parameter.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from conv_tasks.db import deployments as deployment_repo
from conv_tasks.db import events as event_repo
from conv_tasks.db import resources as resource_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db.models import SoftwareDeploymentRow
from conv_tasks.db.session import session_scope
from conv_tasks.deployments.signals import STANDARD_OUTPUTS, STATUS_CODE, STDERR, STDOUT
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.redact import MASK
from conv_tasks.engine.read.views import stack_definition
from conv_tasks.errors import NotFound

# How much of stdout and stderr `show` prints: the end, in characters.
SHOWN_LOG_CHARS = 4000


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _summary(row: SoftwareDeploymentRow, definition: StackDefinition | None) -> dict[str, Any]:
    reason = row.status_reason or ""
    return {
        "name": row.resource_name,
        "id": row.id,
        "deployment_name": row.name,
        "server": row.server,
        "group": row.config_group,
        "config_id": row.config_id,
        "action": row.action,
        "status": f"{row.action}_{row.status}",
        "status_reason": definition.reason(row.resource_name, reason) if definition else reason,
        "server_started": row.started_at is not None,
        "updated_time": _time(row.action_published_at),
        "signalled_at": _time(row.signalled_at),
    }


def list_deployments(tenant: str, stack_ref: str) -> list[dict[str, Any]]:
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, stack_ref)
        definition = stack_definition(session, stack)
        return [
            _summary(row, definition)
            for row in deployment_repo.stack_deployments(session, stack.id)
        ]


def show_deployment(tenant: str, stack_ref: str, name: str) -> dict[str, Any]:
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, stack_ref)
        rows = deployment_repo.stack_deployments(session, stack.id)
        mine = [r for r in rows if r.resource_name == name]
        if not mine:
            raise NotFound(f"Stack {stack.name!r} has no deployment {name!r}.")
        head = resource_repo.head_of(session, stack.id, name)
        current = [r for r in mine if head is not None and r.id == head.physical_id]
        row = current[0] if current else mine[-1]
        definition = stack_definition(session, stack)
        data = _summary(row, definition)
        data["inputs"] = sorted(
            {*(i.get("name") for i in row.config_inputs or ()), *(row.input_values or {})}
        )
        data.update(_results(row, definition))
        data["events"] = [
            {
                "id": e.id,
                "time": _time(e.created_at),
                "status": f"{e.action}_{e.status}",
                "reason": definition.redact(e.reason or "") if definition else e.reason,
            }
            for e in event_repo.list_events(session, stack.id, resource_name=name)
        ]
        return data


def _results(row: SoftwareDeploymentRow, definition: StackDefinition | None) -> dict[str, Any]:
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
