"""stack_operation: one row per stack operation, for the web view's history; overview indexes

Each operation (create, update, delete, rollback, check) gets a row as it starts, in the
transaction that swaps its traversal in, and is finished as the stack's SyncPoint completes:
result, reason, end, what it did to the resources (counts) and the failures. The history
reads these rows, never the events. Operations that ran before this migration have none.

Two partial indexes on the live stacks, (tenant, updated_at, id) and (updated_at, id), both
descending, let the stacks overview page through 10,000 stacks by keyset.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _count(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=False, server_default=sa.text("0"))


def upgrade() -> None:
    op.create_table(
        "stack_operation",
        sa.Column("id", sa.BigInteger(), autoincrement=True, primary_key=True),
        sa.Column(
            "stack_id",
            sa.String(36),
            sa.ForeignKey("stack.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("tenant", sa.String(255), nullable=False),
        sa.Column("traversal", sa.String(36), nullable=False),
        sa.Column(
            "restarted_from",
            postgresql.ARRAY(sa.Text()),
            nullable=False,
            server_default=sa.text("'{}'::text[]"),
        ),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("result", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False, server_default=""),
        sa.Column("first_event_id", sa.BigInteger(), nullable=True),
        sa.Column(
            "started_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        _count("resources_created"),
        _count("resources_updated"),
        _count("resources_replaced"),
        _count("resources_deleted"),
        _count("resources_failed"),
        sa.Column(
            "failures",
            postgresql.JSONB(),
            nullable=False,
            server_default=sa.text("'[]'::jsonb"),
        ),
        _count("watchdog_restarts"),
    )
    op.create_index("ix_stack_operation_stack", "stack_operation", ["stack_id", sa.text("id DESC")])
    op.create_index(
        "ix_stack_tenant_live_recent",
        "stack",
        ["tenant", sa.text("updated_at DESC"), sa.text("id DESC")],
        postgresql_where=sa.text("deleted_at IS NULL"),
    )
    op.create_index(
        "ix_stack_live_recent",
        "stack",
        [sa.text("updated_at DESC"), sa.text("id DESC")],
        postgresql_where=sa.text("deleted_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_stack_live_recent", table_name="stack")
    op.drop_index("ix_stack_tenant_live_recent", table_name="stack")
    op.drop_index("ix_stack_operation_stack", table_name="stack_operation")
    op.drop_table("stack_operation")
