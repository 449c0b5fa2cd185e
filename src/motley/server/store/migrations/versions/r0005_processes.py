"""The processes of a site: ``motley_processes``, one row a server process running in the site mode.

A row names the process's lease owner id (``owner``, as in ``motley_leases``) and the address (``host:port``) at
which the other processes reach it to relay a WebSocket for a table it owns (docs/scaling.md); ``seen_at`` is
when it registered (seconds since the epoch, the database's clock). A store that already has the table keeps it.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create the table where it is missing."""
    if "motley_processes" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "motley_processes",
        sa.Column("owner", sa.String(64), primary_key=True),
        sa.Column("address", sa.String(200), nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    """Drop the table."""
    op.drop_table("motley_processes")
