"""What the people at a table said: ``motley_chat``, a line per message (its number at the table, the writer's seat,
null for a spectator, the name, the text and when), kept with the table so that a reload, a restart or another
process shows them (:mod:`motley.server.play.chat`).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the table where it is missing."""
    if "motley_chat" not in sa.inspect(op.get_bind()).get_table_names():
        op.create_table(
            "motley_chat",
            sa.Column("table_id", sa.String(32), primary_key=True),
            sa.Column("number", sa.Integer, primary_key=True),
            sa.Column("seat", sa.Integer, nullable=True),
            sa.Column("name", sa.String(80), nullable=False),
            sa.Column("text", sa.String(400), nullable=False),
            sa.Column("at", sa.Float, nullable=False),
        )


def downgrade() -> None:
    """Drop the table."""
    op.drop_table("motley_chat")
