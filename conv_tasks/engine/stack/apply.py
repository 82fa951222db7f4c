"""Apply: one idempotent call that creates a stack, updates it to the request, or leaves it.

For automation that holds a stack's desired state and sends it again and again (a CI job,
a reconcile loop). The request is create's: a stack of that name that does not exist is
created; one that exists is updated to the request (a full update: the request's
template, parameters, environments, files and tags replace the stack's), unless it is
COMPLETE and already stands on exactly what the request asks. Then nothing is started and
the answer says `unchanged`. "Exactly" compares what the update would store with what the
stack stores, both made by the same planning step (planning.py), so YAML text and the
mapping it loads to are the same request. `disable_rollback` and `timeout_mins` count only
when given; omitted, a new stack gets create's defaults and an existing one keeps its own.

The comparison is pure (`stands_on`); tenant.py reads and starts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from conv_tasks.db import StackRow
from conv_tasks.engine.stack.planning import ChangeRequest, PlannedChange
from conv_tasks.engine.stack.results import OperationResult
from conv_tasks.requests import ApplyRequest
from conv_tasks.statuses import Action, Status
from conv_tasks.template import without_pseudo


class ApplyResult(StrEnum):
    """What an apply did."""

    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


def change_of(request: ApplyRequest) -> ChangeRequest:
    """The update an apply makes of a stack that exists: a full one, to exactly the request."""
    return ChangeRequest(
        request.template, request.parameters, environment=request.environment, files=request.files
    )


@dataclass(frozen=True)
class Applied:
    """An apply's answer: what it did, and the operation it started (or the stack as it
    stands, for `unchanged`: no traversal, no event to follow)."""

    result: ApplyResult
    operation: OperationResult

    def to_json(self) -> dict[str, Any]:
        data = self.operation.to_json()
        if data.get("event_id") is None:
            data.pop("event_id", None)
        data["result"] = str(self.result)
        return data


def _canonical(value: Any) -> str:
    """One text per JSON value, whatever the order of its keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def stands_on(stack: StackRow, planned: PlannedChange, request: ApplyRequest) -> bool:
    """Whether `stack` is COMPLETE on exactly what `request` asks (`planned`: the update the
    request makes of it), so that applying it changes nothing."""
    if stack.status != Status.COMPLETE or stack.action == Action.DELETE:
        return False
    current = planned.current
    environment, files = planned.inputs.stored()
    same = (
        (current.template, planned.definition.template.raw),
        # A stack stored before pseudo-parameters were kept with its values has none.
        (without_pseudo(current.parameters), without_pseudo(planned.values)),
        (current.environment or {}, environment),
        (current.files or {}, files),
    )
    if any(_canonical(stored) != _canonical(wanted) for stored, wanted in same):
        return False
    if list(stack.tags) != list(request.tags or ()):
        return False
    if request.disable_rollback is not None and stack.disable_rollback != request.disable_rollback:
        return False
    return request.timeout_mins is None or stack.timeout_mins == request.timeout_mins
