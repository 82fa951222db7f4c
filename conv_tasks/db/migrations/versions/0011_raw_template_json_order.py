"""raw_template.template as json, not jsonb: a template keeps the order it was written in

jsonb keeps a mapping's keys in an order of its own (shorter keys first), so a template
read back from the database listed its resources, outputs and parameters in another order
than the one the worker that stored it had cached: `stack outputs` alternated between the
two orders from one call to the next. json keeps the text as written. Rows stored before
keep the order jsonb gave them (it cannot be recovered); nothing queries into the column.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 09:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE raw_template ALTER COLUMN template TYPE json USING template::json")


def downgrade() -> None:
    op.execute("ALTER TABLE raw_template ALTER COLUMN template TYPE jsonb USING template::jsonb")
