"""raw_template.environment: the merged environment a template was stored with

The parameters, parameter_defaults and resource_registry that applied to the
template (docs/features/environments.md), merged from the environments of the
request; the definition of a stored template is built from it and from
raw_template.files. Rows from before hold an empty environment.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "raw_template",
        sa.Column(
            "environment",
            postgresql.JSONB(),
            nullable=False,
            server_default=sa.text("'{}'::jsonb"),
        ),
    )


def downgrade() -> None:
    op.drop_column("raw_template", "environment")
