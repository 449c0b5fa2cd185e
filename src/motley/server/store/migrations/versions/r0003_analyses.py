"""The analyses of finished matches: ``motley_analyses``, one row per table and seat (the JSON of
:func:`motley.bots.analysis.analyse_record`'s result), inserted once.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create the table where it is missing."""
    if "motley_analyses" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "motley_analyses",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("simulations", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )


def downgrade() -> None:
    """Drop the table (and every stored analysis with it)."""
    op.drop_table("motley_analyses")
