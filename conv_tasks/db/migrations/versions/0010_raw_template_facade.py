"""raw_template.facade: the parent resource's definition a nested stack's template reads

The metadata, deletion_policy and update_policy of the resource that owns a nested stack
(OS::Heat::Stack, a provider template), resolved, as resource_facade reads them; stored
with the child's template so that every process that builds its definition sees the same.
null for a template that is not a nested stack's (SQL NULL for rows from before).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23 15:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("raw_template", sa.Column("facade", postgresql.JSONB(), nullable=True))


def downgrade() -> None:
    op.drop_column("raw_template", "facade")
