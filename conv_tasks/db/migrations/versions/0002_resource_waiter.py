"""resource.waiter: the node waiting for a version's lease

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 23:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("resource", sa.Column("waiter", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("resource", "waiter")
