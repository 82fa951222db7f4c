"""The stack requests: create, apply, update, preview, validate, delete and rollback, each a
frozen dataclass.

Each field's annotation carries its RequestField (stack_fields.py); its default is the
dataclass field's. In Python (the engine, and conv_tasks.client.Client's methods, which
take exactly these arguments) the first fields (the stack, the template, the parameters)
may be given by position, the others only by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Annotated, Any, ClassVar

from conv_tasks.requests.stack_fields import (
    APPLIED_KEY,
    APPLIED_ROLLBACK,
    APPLIED_TAGS,
    APPLIED_TIMEOUT,
    DISABLE_ROLLBACK,
    ENVIRONMENT,
    EXISTING_PARAMETERS,
    FILES,
    IDEMPOTENCY_KEY,
    KEPT_ROLLBACK,
    KEPT_TAGS,
    KEPT_TIMEOUT,
    NAME,
    NEW_TEMPLATE,
    PARAMETERS,
    RETAIN,
    SKIP,
    STACK,
    TAGS,
    TEMPLATE,
    TIMEOUT_MINS,
)

Template = Mapping[str, Any] | str
EnvironmentSources = Sequence[str | Mapping[str, Any]]


@dataclass(frozen=True)
class _NewStack:
    """What a create and an apply both take: the stack's name and what it is made from."""

    name: Annotated[str, NAME]
    template: Annotated[Template, TEMPLATE]
    parameters: Annotated[Mapping[str, Any], PARAMETERS] = field(default_factory=dict)
    _: KW_ONLY
    environment: Annotated[EnvironmentSources | None, ENVIRONMENT] = field(default_factory=list)
    files: Annotated[Mapping[str, Any] | None, FILES] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class NewStackRequest(_NewStack):
    """What a create asks for."""

    TASK: ClassVar[str] = "conv_tasks.stack.create"

    disable_rollback: Annotated[bool, DISABLE_ROLLBACK] = False
    timeout_mins: Annotated[int | None, TIMEOUT_MINS] = None
    idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None
    tags: Annotated[Sequence[str] | None, TAGS] = None


@dataclass(frozen=True, kw_only=True)
class ApplyRequest(_NewStack):
    """What an apply asks for: create's fields, the rollback and timeout settings optional
    (omitted: create's defaults for a new stack, the stack's own for an existing one)."""

    TASK: ClassVar[str] = "conv_tasks.stack.apply"

    disable_rollback: Annotated[bool | None, APPLIED_ROLLBACK] = None
    timeout_mins: Annotated[int | None, APPLIED_TIMEOUT] = None
    idempotency_key: Annotated[str | None, APPLIED_KEY] = None
    tags: Annotated[Sequence[str] | None, APPLIED_TAGS] = None

    def to_create(self) -> NewStackRequest:
        return NewStackRequest(
            self.name,
            self.template,
            self.parameters,
            environment=self.environment,
            files=self.files,
            disable_rollback=bool(self.disable_rollback),
            timeout_mins=self.timeout_mins,
            idempotency_key=self.idempotency_key,
            tags=self.tags,
        )


@dataclass(frozen=True)
class _StackChange:
    """What an update and its preview both take: the stack, and what it is to become.
    `template` None keeps the stack's; `existing_parameters` keeps its parameters,
    environment and files and patches the given ones in."""

    stack: Annotated[str, STACK]
    template: Annotated[Template | None, NEW_TEMPLATE] = None
    parameters: Annotated[Mapping[str, Any], PARAMETERS] = field(default_factory=dict)
    _: KW_ONLY
    environment: Annotated[EnvironmentSources | None, ENVIRONMENT] = field(default_factory=list)
    files: Annotated[Mapping[str, Any] | None, FILES] = field(default_factory=dict)
    existing_parameters: Annotated[bool, EXISTING_PARAMETERS] = False


@dataclass(frozen=True, kw_only=True)
class UpdateRequest(_StackChange):
    """What an update asks for. The rollback and timeout settings omitted are kept; the
    tags omitted are kept when the update keeps the template or the parameters, else
    cleared (Heat's PATCH and PUT)."""

    TASK: ClassVar[str] = "conv_tasks.stack.update"

    disable_rollback: Annotated[bool | None, KEPT_ROLLBACK] = None
    timeout_mins: Annotated[int | None, KEPT_TIMEOUT] = None
    tags: Annotated[Sequence[str] | None, KEPT_TAGS] = None


@dataclass(frozen=True)
class PreviewRequest(_StackChange):
    """What a preview asks for: what the update of the stack (or, for a stack that does not
    exist, its create) with these fields would do. A preview is its own request, not an
    update's flag: a caller retrying a mutation is never one flag away from a preview."""

    TASK: ClassVar[str] = "conv_tasks.stack.preview"


@dataclass(frozen=True)
class ValidateRequest:
    """What a template validation asks for: a template checked with its environments and
    files, and the parameter values given."""

    TASK: ClassVar[str] = "conv_tasks.template.validate"

    template: Annotated[Template, TEMPLATE]
    parameters: Annotated[Mapping[str, Any], PARAMETERS] = field(default_factory=dict)
    _: KW_ONLY
    environment: Annotated[EnvironmentSources | None, ENVIRONMENT] = field(default_factory=list)
    files: Annotated[Mapping[str, Any] | None, FILES] = field(default_factory=dict)


@dataclass(frozen=True)
class DeleteRequest:
    """What a delete asks for: the stack, and the resources to leave alone (their physical
    resources are not deleted, and the stack forgets them)."""

    TASK: ClassVar[str] = "conv_tasks.stack.delete"

    stack: Annotated[str, STACK]
    _: KW_ONLY
    retain: Annotated[Sequence[str], RETAIN] = field(default_factory=list)


@dataclass(frozen=True)
class RollbackRequest:
    """What a rollback asks for: the stack, and the resources it would delete to leave alone."""

    TASK: ClassVar[str] = "conv_tasks.stack.rollback"

    stack: Annotated[str, STACK]
    _: KW_ONLY
    skip: Annotated[Sequence[str], SKIP] = field(default_factory=list)
