"""Baseline: the event-log schema as it stood when the store moved to migrations.

``motley_tables``: one row a table (its header); ``motley_moves``: one row a move, unique per (table, move
number) so the database itself refuses a move stored twice.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create both tables and their indexes."""
    op.create_table(
        "motley_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
    )
    op.create_table(
        "motley_moves",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("move", sa.String(200), nullable=False),
        sa.Column("actor", sa.String(16), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_motley_moves_table_id", "motley_moves", ["table_id"])
    op.create_index("ux_motley_moves_table_number", "motley_moves", ["table_id", "number"], unique=True)


def downgrade() -> None:
    """Drop both tables (and every stored table with them)."""
    op.drop_table("motley_moves")
    op.drop_table("motley_tables")
