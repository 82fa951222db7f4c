"""resource.action_deadline and resource.interrupt_reason

An action's deadline is fixed when it starts, so that it holds whichever
traversal later owns the stack; interrupt_reason asks a polling action to stop
(a cancelled update, a stack delete).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 08:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "resource", sa.Column("action_deadline", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column("resource", sa.Column("interrupt_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("resource", "interrupt_reason")
    op.drop_column("resource", "action_deadline")
