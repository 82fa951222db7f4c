"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21 22:39:16.112754
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "raw_template",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("template", postgresql.JSONB(), nullable=False),
        sa.Column("parameters", postgresql.JSONB(), nullable=False),
        sa.Column("files", postgresql.JSONB(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "sandbox_object",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("token", sa.String(length=255), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("properties", postgresql.JSONB(), nullable=False),
        sa.Column("create_calls", sa.Integer(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token"),
    )
    op.create_table(
        "stack",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("tenant", sa.String(length=255), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("raw_template_id", sa.BigInteger(), nullable=True),
        sa.Column("prev_raw_template_id", sa.BigInteger(), nullable=True),
        sa.Column("current_traversal", sa.String(length=36), nullable=True),
        sa.Column("current_graph", postgresql.JSONB(), nullable=True),
        sa.Column("disable_rollback", sa.Boolean(), nullable=False),
        sa.Column("timeout_mins", sa.Integer(), nullable=True),
        sa.Column("operation_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["prev_raw_template_id"], ["raw_template.id"], ondelete="RESTRICT"),
        sa.ForeignKeyConstraint(["raw_template_id"], ["raw_template.id"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_stack_status", "stack", ["status"], unique=False)
    op.create_index(
        "uq_stack_tenant_name_live",
        "stack",
        ["tenant", "name"],
        unique=True,
        postgresql_where=sa.text("deleted_at IS NULL"),
    )
    op.create_table(
        "event",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("resource_name", sa.String(length=255), nullable=True),
        sa.Column("physical_id", sa.String(length=255), nullable=True),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("traversal", sa.String(length=36), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_event_stack_id", "event", ["stack_id", "id"], unique=False)
    op.create_table(
        "resource",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=255), nullable=False),
        sa.Column("physical_id", sa.String(length=255), nullable=True),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("template_id", sa.BigInteger(), nullable=True),
        sa.Column("properties_data", postgresql.JSONB(), nullable=False),
        sa.Column("attr_data", postgresql.JSONB(), nullable=False),
        sa.Column("plugin_data", postgresql.JSONB(), nullable=False),
        sa.Column("definition_hash", sa.String(length=64), nullable=True),
        sa.Column("requires", postgresql.JSONB(), nullable=False),
        sa.Column("deletion_policy", sa.String(length=16), nullable=False),
        sa.Column("replaces", sa.BigInteger(), nullable=True),
        sa.Column("replaced_by", sa.BigInteger(), nullable=True),
        sa.Column("lock_holder", sa.String(length=36), nullable=True),
        sa.Column("lock_nonce", sa.String(length=36), nullable=True),
        sa.Column("lock_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("action_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("atomic_key", sa.Integer(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("stack_id", "name", "version", name="uq_resource_stack_name_version"),
    )
    op.create_index("ix_resource_stack_name", "resource", ["stack_id", "name"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_resource_stack_name", table_name="resource")
    op.drop_table("resource")
    op.drop_index("ix_event_stack_id", table_name="event")
    op.drop_table("event")
    op.drop_index(
        "uq_stack_tenant_name_live",
        table_name="stack",
        postgresql_where=sa.text("deleted_at IS NULL"),
    )
    op.drop_index("ix_stack_status", table_name="stack")
    op.drop_table("stack")
    op.drop_table("sandbox_object")
    op.drop_table("raw_template")
