"""wait_condition_handle: the signals of each wait condition handle, and its token's hash

A handle's token is checked against its SHA-256 only; the signals are kept
in arrival order for the wait condition that reads them
(docs/features/wait-conditions.md).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "wait_condition_handle",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("resource_name", sa.String(length=255), nullable=False),
        sa.Column("credential_hash", sa.String(length=64), nullable=True),
        sa.Column("signals", postgresql.JSONB(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
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
    )
    op.create_index(
        "ix_wait_condition_handle_stack", "wait_condition_handle", ["stack_id", "resource_name"]
    )


def downgrade() -> None:
    op.drop_index("ix_wait_condition_handle_stack", table_name="wait_condition_handle")
    op.drop_table("wait_condition_handle")
