"""stack.parent_stack_id, parent_resource, nested_depth: nested stacks (issue 10)

A nested stack is a real stack made by a resource of another stack (OS::Heat::Stack or a
provider template). Its row names its parent stack and the parent's resource, and how deep
it sits (a top-level stack is 0), so the depth limit is one read of the parent row.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "stack",
        sa.Column(
            "parent_stack_id",
            sa.String(36),
            sa.ForeignKey("stack.id", ondelete="SET NULL", name="fk_stack_parent_stack_id"),
            nullable=True,
        ),
    )
    op.add_column("stack", sa.Column("parent_resource", sa.String(255), nullable=True))
    op.add_column(
        "stack",
        sa.Column("nested_depth", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    op.create_index("ix_stack_parent_stack_id", "stack", ["parent_stack_id"])


def downgrade() -> None:
    op.drop_index("ix_stack_parent_stack_id", table_name="stack")
    op.drop_column("stack", "nested_depth")
    op.drop_column("stack", "parent_resource")
    op.drop_column("stack", "parent_stack_id")
