"""stack.idempotency_key: a create request's key, unique per tenant

A caller that gave up waiting sends its create again with the same key; the
worker answers with the stack the first request made instead of a second
one (docs/task-api.md, "Late requests").

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("stack", sa.Column("idempotency_key", sa.String(255), nullable=True))
    op.create_index(
        "uq_stack_tenant_idempotency_key",
        "stack",
        ["tenant", "idempotency_key"],
        unique=True,
        postgresql_where=sa.text("idempotency_key IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("uq_stack_tenant_idempotency_key", table_name="stack")
    op.drop_column("stack", "idempotency_key")
