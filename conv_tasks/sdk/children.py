"""The engine service a nested-stack plugin acts through: its child stack, by id.

Pure declarations: a Protocol that the engine implements (its nested-stacks feature) and
the value it answers with. A plugin starts an operation on its child and then reads the
child's state on each poll; nothing here ever waits, and nothing here opens a connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from conv_tasks.statuses import state_name

COMPLETE = "COMPLETE"
FAILED = "FAILED"
IN_PROGRESS = "IN_PROGRESS"


@dataclass(frozen=True)
class ChildStack:
    """Where a child stack stands. `deleted` when its delete completed (or it never was)."""

    id: str
    name: str
    action: str
    status: str
    reason: str = ""
    # Output values (those derived from the child's hidden parameters masked).
    outputs: Mapping[str, Any] = field(default_factory=dict)
    deleted: bool = False

    @property
    def state(self) -> str:
        return state_name(self.action, self.status)


@dataclass(frozen=True)
class ChildRequest:
    """What a parent resource asks its child stack to be."""

    template: Mapping[str, Any] | str
    parameters: Mapping[str, Any]
    timeout_mins: int | None = None
    # The provider template file the child runs, if any: the child's environment does not
    # map types to it again (a template that provides a type it uses would nest forever).
    provider: str | None = None
    # The parent resource's definition (metadata, deletion_policy, update_policy) that the
    # child's resource_facade calls read; None: the child has no facade to read.
    facade: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ChildTemplateSource:
    """Where the template of the child stack a resource would own comes from, as its
    unresolved properties already say (`template validate` and a stack's request check it
    then): written in them (`template`: HOT text or a mapping), or the provider template
    the type `member_type` maps to (a group's members). `path` is where in the resource's
    properties it is given, for the problems found in it."""

    path: str
    template: Mapping[str, Any] | str | None = None
    member_type: str | None = None


@runtime_checkable
class ChildStacks(Protocol):
    """Create, update, delete, cancel and read the child stacks of a parent's resources.

    Every call is safe to repeat: `create` is keyed by the parent action's idempotency
    token, so the same step run twice finds the child the first run made; `check` and `walk`
    are keyed by the parent's step, so the same step run twice starts one operation of the
    child.
    """

    def create(
        self, *, parent_stack_id: str, resource_name: str, token: str, request: ChildRequest
    ) -> str:
        """Start creating the child; its id."""
        ...

    def update(self, child_id: str, request: ChildRequest) -> None:
        """Start updating the child to `request`."""
        ...

    def delete(self, child_id: str) -> None:
        """Start deleting the child (nothing if it is gone or already being deleted)."""
        ...

    def cancel(self, child_id: str) -> None:
        """Stop the child's create or update under way, without rolling it back (the
        parent's rollback drives it back); nothing if none is under way."""
        ...

    def get(self, child_id: str) -> ChildStack:
        """The child's state now."""
        ...

    def check(self, child_id: str, key: str) -> ChildStack:
        """Start a check of the child for the parent's check step `key`, unless the check
        for that key was started already (or another check of the child runs, or another
        operation, which the state returned shows); the child's state after that."""
        ...

    def walk(self, child_id: str, action: str, key: str) -> ChildStack:
        """Start a suspend or resume (`action`: SUSPEND, RESUME) of the child for the
        parent's step `key`, unless the one for that key was started already or the
        child's state forbids it (which the state returned shows); the child's state after
        that."""
        ...

    def template(self, child_id: str) -> Mapping[str, Any]:
        """The child's current template, as it was given (a group reads its members)."""
        ...

    def failed_resources(self, child_id: str) -> frozenset[str]:
        """The names of the child's resources whose current version failed."""
        ...

    def made_for(self, *, parent_stack_id: str, token: str) -> str | None:
        """The live child that a create step of the same resource version made (`token` is
        any action's token of that version), if any: a worker that died before recording
        the child's id leaves it to be found here, so that a delete does not orphan it."""
        ...
