"""software_config, software_deployment and server_credential (seed 002)

Configs a server runs, the deployments that run them with the action each
waits for and what its server reported, and the hashes of the credentials
with which servers read their deployments. No credential is stored, only
its SHA-256.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _now() -> sa.TextClause:
    return sa.text("now()")


def upgrade() -> None:
    op.create_table(
        "software_config",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant", sa.String(length=255), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("group", sa.String(length=255), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("inputs", postgresql.JSONB(), nullable=False),
        sa.Column("outputs", postgresql.JSONB(), nullable=False),
        sa.Column("options", postgresql.JSONB(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "software_deployment",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant", sa.String(length=255), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("resource_name", sa.String(length=255), nullable=False),
        sa.Column("server", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("config_id", sa.String(length=36), nullable=True),
        sa.Column("config_name", sa.String(length=255), nullable=False),
        sa.Column("config_group", sa.String(length=255), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("config_inputs", postgresql.JSONB(), nullable=False),
        sa.Column("config_outputs", postgresql.JSONB(), nullable=False),
        sa.Column("config_options", postgresql.JSONB(), nullable=False),
        sa.Column("input_values", postgresql.JSONB(), nullable=False),
        sa.Column("signal_transport", sa.String(length=32), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("action_token", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("outputs", postgresql.JSONB(), nullable=False),
        sa.Column("signal_hash", sa.String(length=64), nullable=True),
        sa.Column("previous_signal_hash", sa.String(length=64), nullable=True),
        sa.Column("previous_status", sa.String(length=32), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("signalled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "action_published_at",
            sa.DateTime(timezone=True),
            server_default=_now(),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_software_deployment_server", "software_deployment", ["server", "status"])
    op.create_index(
        "ix_software_deployment_stack", "software_deployment", ["stack_id", "resource_name"]
    )
    op.create_table(
        "server_credential",
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("server", sa.String(length=255), nullable=False),
        sa.Column("tenant", sa.String(length=255), nullable=False),
        sa.Column("credential_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("stack_id", "server"),
    )


def downgrade() -> None:
    op.drop_table("server_credential")
    op.drop_index("ix_software_deployment_stack", table_name="software_deployment")
    op.drop_index("ix_software_deployment_server", table_name="software_deployment")
    op.drop_table("software_deployment")
    op.drop_table("software_config")
