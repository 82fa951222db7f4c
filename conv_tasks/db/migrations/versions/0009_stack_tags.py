"""stack.tags: a stack's tags, filterable in `stack list`

A text array, so that heatclient's filters are PostgreSQL's array operators
(@> for all of, && for any of), served by a GIN index.

Revision ID: 0009
Revises: 0008 (re-chained after the merge of main: 0005, 0007, 0008, 0006)
Create Date: 2026-11-23 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "stack",
        sa.Column(
            "tags",
            postgresql.ARRAY(sa.Text()),
            nullable=False,
            server_default=sa.text("'{}'::text[]"),
        ),
    )
    op.create_index("ix_stack_tags", "stack", ["tags"], postgresql_using="gin")


def downgrade() -> None:
    op.drop_index("ix_stack_tags", table_name="stack")
    op.drop_column("stack", "tags")
