"""Table ownership leases: ``motley_leases``, one row a table that some server process owns or owned.

A process owns a table while its row names it (``owner``, a random id drawn per process; ``holder``, the host and
process id, for people reading the table) and ``expires_at`` (seconds since the epoch, the database's clock) has
not passed; it renews its leases in one statement every few seconds, and another process may claim a table once
its lease has expired (docs/scaling.md). A store that has only ever served one process has no rows here. A store
that already has the table (made from the current definitions, as a test may) keeps it.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create the table and its index on owners (renew and release find an owner's rows through it), where the
    table is missing."""
    if "motley_leases" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "motley_leases",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("holder", sa.String(200), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_motley_leases_owner", "motley_leases", ["owner"])


def downgrade() -> None:
    """Drop the table (every lease with it)."""
    op.drop_index("ix_motley_leases_owner", table_name="motley_leases")
    op.drop_table("motley_leases")
