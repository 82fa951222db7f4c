"""SQLAlchemy 2.x models: the tables that hold the truth about every stack.

One row per stack, per raw template, per resource *version* and per event.
Nothing here talks to Redis or Celery, and nothing outside conv_tasks.db
builds SQL from these models directly: repositories do.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

JsonB = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JsonB, list[Any]: JsonB}


class RawTemplate(Base):
    """A template as the user gave it, with its parameters, environment and files. Immutable
    once written."""

    __tablename__ = "raw_template"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    # json, not jsonb: the template keeps the order it was written in (resources, outputs and
    # parameters are listed in that order; migration 0011).
    template: Mapped[dict[str, Any]] = mapped_column(JSON(), nullable=False)
    parameters: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    files: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    # The environments of the request, merged (conv_tasks.template.environment; migration 0008).
    environment: Mapped[dict[str, Any]] = mapped_column(
        JsonB, nullable=False, default=dict, server_default=text("'{}'")
    )
    # A nested stack's template: its parent resource's metadata, deletion_policy and
    # update_policy, as resource_facade reads them (migration 0010). None: no parent.
    facade: Mapped[dict[str, Any] | None] = mapped_column(JsonB, nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )


class Stack(Base):
    """A stack. current_traversal is swapped by compare-and-swap: the winner owns the stack."""

    __tablename__ = "stack"
    __table_args__ = (
        Index(
            "uq_stack_tenant_name_live",
            "tenant",
            "name",
            unique=True,
            postgresql_where=text("deleted_at IS NULL"),
        ),
        Index("ix_stack_status", "status"),
        Index("ix_stack_parent_stack_id", "parent_stack_id"),
        Index("ix_stack_tags", "tags", postgresql_using="gin"),
        # The stacks overview pages through live stacks newest first, by keyset on
        # (updated_at, id): of one tenant, or of all (migration 0012).
        Index(
            "ix_stack_tenant_live_recent",
            "tenant",
            text("updated_at DESC"),
            text("id DESC"),
            postgresql_where=text("deleted_at IS NULL"),
        ),
        Index(
            "ix_stack_live_recent",
            text("updated_at DESC"),
            text("id DESC"),
            postgresql_where=text("deleted_at IS NULL"),
        ),
        # A create's idempotency key names one stack of its tenant for as long as the row lives.
        Index(
            "uq_stack_tenant_idempotency_key",
            "tenant",
            "idempotency_key",
            unique=True,
            postgresql_where=text("idempotency_key IS NOT NULL"),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    tenant: Mapped[str] = mapped_column(String(255), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    status: Mapped[str] = mapped_column(String(32), nullable=False)
    status_reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    raw_template_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("raw_template.id", ondelete="RESTRICT"), nullable=True
    )
    prev_raw_template_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("raw_template.id", ondelete="RESTRICT"), nullable=True
    )
    current_traversal: Mapped[str | None] = mapped_column(String(36), nullable=True)
    current_graph: Mapped[dict[str, Any] | None] = mapped_column(JsonB, nullable=True)
    disable_rollback: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    timeout_mins: Mapped[int | None] = mapped_column(Integer, nullable=True)
    operation_started_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    idempotency_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # The stack's tags (Heat's), filterable in `stack list` (conv_tasks.tags).
    tags: Mapped[list[str]] = mapped_column(
        ARRAY(Text()), nullable=False, default=list, server_default=text("'{}'::text[]")
    )
    # A nested stack: the stack whose resource `parent_resource` made it, and how deep it
    # sits (0 for a stack a user made). Purging a parent row leaves a child row unlinked.
    parent_stack_id: Mapped[str | None] = mapped_column(
        String(36),
        ForeignKey("stack.id", ondelete="SET NULL", name="fk_stack_parent_stack_id"),
        nullable=True,
    )
    parent_resource: Mapped[str | None] = mapped_column(String(255), nullable=True)
    nested_depth: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )


class Resource(Base):
    """One version of one resource of a stack.

    A changed resource gets a new version row (seed 003); the old row is
    deleted by the traversal's clean-up node. `replaced_by` is NULL on the
    head version, the one a traversal converges. `atomic_key` is bumped on
    every write so that writers can compare-and-swap; `lock_*` is the lease
    a node task holds while it acts on the resource, `waiter` the node that
    waits for that lease.
    """

    __tablename__ = "resource"
    __table_args__ = (
        UniqueConstraint("stack_id", "name", "version", name="uq_resource_stack_name_version"),
        Index("ix_resource_stack_name", "stack_id", "name"),
        Index(
            "ix_resource_in_flight_template",
            "template_id",
            postgresql_where=text("status = 'IN_PROGRESS'"),
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    type: Mapped[str] = mapped_column(String(255), nullable=False)
    physical_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    action: Mapped[str] = mapped_column(String(32), nullable=False, default="INIT")
    status: Mapped[str] = mapped_column(String(32), nullable=False, default="COMPLETE")
    status_reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    # The raw template this version was last converged to (not a foreign key: templates are
    # garbage-collected once no stack refers to them, resource versions may outlive that).
    template_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    properties_data: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    attr_data: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    plugin_data: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    definition_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    requires: Mapped[list[Any]] = mapped_column(JsonB, nullable=False, default=list)
    deletion_policy: Mapped[str] = mapped_column(String(16), nullable=False, default="Delete")
    replaces: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    replaced_by: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    lock_holder: Mapped[str | None] = mapped_column(String(36), nullable=True)
    lock_nonce: Mapped[str | None] = mapped_column(String(36), nullable=True)
    lock_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The node waiting for this version's lease ("<traversal> <template id> <node>"): whoever
    # releases the lease enqueues it, in the same statement that releases.
    waiter: Mapped[str | None] = mapped_column(Text, nullable=True)
    action_started_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    # When the action under way must have finished, fixed as it starts.
    action_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # Set by a cancel or a stack delete: the action under way stops on its next poll.
    interrupt_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    atomic_key: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )


class Event(Base):
    """Something that happened to a stack or one of its resources, for the user to read."""

    __tablename__ = "event"
    __table_args__ = (Index("ix_event_stack_id", "stack_id", "id"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id", ondelete="CASCADE"), nullable=False
    )
    resource_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    physical_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    status: Mapped[str] = mapped_column(String(32), nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    traversal: Mapped[str | None] = mapped_column(String(36), nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )


class StackOperation(Base):
    """One operation of a stack (create, update, delete, rollback, check): what its history
    shows. Written as the operation starts, in the transaction that swaps its traversal in;
    finished when the stack's SyncPoint completes (or the operation is timed out or cancelled),
    or marked SUPERSEDED when a newer operation takes the stack over. Never computed from the
    events when read (migration 0012).

    `traversal` is the operation's current traversal; `restarted_from` those the watchdog
    replaced with it (each restart counts in `watchdog_restarts`). `first_event_id` is where
    the operation's events begin: the counts are read from them once, as it ends.
    """

    __tablename__ = "stack_operation"
    __table_args__ = (Index("ix_stack_operation_stack", "stack_id", text("id DESC")),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id", ondelete="CASCADE"), nullable=False
    )
    tenant: Mapped[str] = mapped_column(String(255), nullable=False)
    traversal: Mapped[str] = mapped_column(String(36), nullable=False)
    restarted_from: Mapped[list[str]] = mapped_column(
        ARRAY(Text()), nullable=False, default=list, server_default=text("'{}'::text[]")
    )
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    # IN_PROGRESS, COMPLETE, FAILED or SUPERSEDED.
    result: Mapped[str] = mapped_column(String(16), nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    first_event_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    started_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    resources_created: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )
    resources_updated: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )
    resources_replaced: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )
    resources_deleted: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )
    resources_failed: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )
    # [{"resource", "reason"}], the first of them only (conv_tasks.db.operations).
    failures: Mapped[list[Any]] = mapped_column(
        JsonB, nullable=False, default=list, server_default=text("'[]'::jsonb")
    )
    watchdog_restarts: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )


class SandboxObject(Base):
    """An object in the sandbox cloud that test resource types create.

    `token` is the idempotency token of the action that created it: the same
    token never creates a second object, which is how tests prove that a
    redelivered task made nothing twice.
    """

    __tablename__ = "sandbox_object"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    token: Mapped[str] = mapped_column(String(255), nullable=False, unique=True)
    kind: Mapped[str] = mapped_column(String(64), nullable=False)
    properties: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    create_calls: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    deleted: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )


class SoftwareConfigRow(Base):
    """A software config (OS::Heat::SoftwareConfig): never changed once written."""

    __tablename__ = "software_config"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant: Mapped[str] = mapped_column(String(255), nullable=False)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(255), nullable=False, default="")
    group: Mapped[str] = mapped_column(String(255), nullable=False)
    config: Mapped[str] = mapped_column(Text, nullable=False, default="")
    inputs: Mapped[list[Any]] = mapped_column(JsonB, nullable=False, default=list)
    outputs: Mapped[list[Any]] = mapped_column(JsonB, nullable=False, default=list)
    options: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )


class SoftwareDeploymentRow(Base):
    """A software deployment: the action its server must run, and what the server reported.

    `config_*` is the snapshot of the config taken when the action was published.
    `action_token` is the resource action's idempotency token: the same resource step run
    again finds its own action and changes nothing. Only hashes of signal credentials are kept
    (conv_tasks.deployments.credentials).
    """

    __tablename__ = "software_deployment"
    __table_args__ = (
        Index("ix_software_deployment_server", "server", "status"),
        Index("ix_software_deployment_stack", "stack_id", "resource_name"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant: Mapped[str] = mapped_column(String(255), nullable=False)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id", ondelete="CASCADE"), nullable=False
    )
    resource_name: Mapped[str] = mapped_column(String(255), nullable=False)
    server: Mapped[str] = mapped_column(String(255), nullable=False)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    config_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    config_name: Mapped[str] = mapped_column(String(255), nullable=False, default="")
    config_group: Mapped[str] = mapped_column(String(255), nullable=False)
    config: Mapped[str] = mapped_column(Text, nullable=False, default="")
    config_inputs: Mapped[list[Any]] = mapped_column(JsonB, nullable=False, default=list)
    config_outputs: Mapped[list[Any]] = mapped_column(JsonB, nullable=False, default=list)
    config_options: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    input_values: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    signal_transport: Mapped[str] = mapped_column(String(32), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    action_token: Mapped[str] = mapped_column(String(255), nullable=False)
    status: Mapped[str] = mapped_column(String(32), nullable=False)
    status_reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    # What the server reported with its last COMPLETE or FAILED signal: each declared output,
    # deploy_stdout, deploy_stderr and deploy_status_code.
    outputs: Mapped[dict[str, Any]] = mapped_column(JsonB, nullable=False, default=dict)
    signal_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # The run before the current one: its signal credential's hash and how it ended, so that
    # a late signal of it is answered as such.
    previous_signal_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    previous_status: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # When the server signalled IN_PROGRESS for the current action, and last signalled at all.
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    signalled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # When the current action was published (the agent's "updated_time").
    action_published_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )


class ServerCredential(Base):
    """The hash of the credential with which a server's agent reads its deployments of a stack."""

    __tablename__ = "server_credential"

    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id", ondelete="CASCADE"), primary_key=True
    )
    server: Mapped[str] = mapped_column(String(255), primary_key=True)
    tenant: Mapped[str] = mapped_column(String(255), nullable=False)
    credential_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )


class WaitConditionHandleRow(Base):
    """A wait condition handle (OS::Heat::WaitConditionHandle): the signals it holds, in the
    order they first arrived, and the hash of the token that signals must carry (never the
    token). A deleted handle keeps its row (deleted_at set) so that a late signal is told
    why it is refused; the row goes with its stack's."""

    __tablename__ = "wait_condition_handle"
    __table_args__ = (Index("ix_wait_condition_handle_stack", "stack_id", "resource_name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id", ondelete="CASCADE"), nullable=False
    )
    resource_name: Mapped[str] = mapped_column(String(255), nullable=False)
    credential_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    signals: Mapped[list[Any]] = mapped_column(JsonB, nullable=False, default=list)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now()
    )
