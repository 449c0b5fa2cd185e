"""The rematch offered at a finished table, on its row: ``motley_tables.rematch`` (JSON text, null: none).

A store made by a motley that added the column at start-up, before this revision, already has it and keeps it.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the column where it is missing."""
    if "rematch" not in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("motley_tables")}:
        op.add_column("motley_tables", sa.Column("rematch", sa.Text, nullable=True))


def downgrade() -> None:
    """Drop the column (and every stored offer with it)."""
    with op.batch_alter_table("motley_tables") as batch:
        batch.drop_column("rematch")
