"""resource: a partial index on the templates of versions whose action is in flight

The template collector keeps a template that an IN_PROGRESS resource version names: a
superseded traversal's template is named by no stack, yet its actions still running read it
when they fail at their deadline (to mask hidden values in the reason). The index holds only
the versions in flight, so the collector's check stays an index probe however many resources
the database keeps.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 21:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_resource_in_flight_template",
        "resource",
        ["template_id"],
        postgresql_where=sa.text("status = 'IN_PROGRESS'"),
    )


def downgrade() -> None:
    op.drop_index("ix_resource_in_flight_template", table_name="resource")
