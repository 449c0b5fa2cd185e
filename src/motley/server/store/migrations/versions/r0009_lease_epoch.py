"""A lease's epoch: ``motley_leases.epoch``, one more at every claim of the table (a takeover, or a claim by the
process that held it), so that the owner and epoch of a claim name that one claim. Every write that changes a table
carries them (a fencing token, ``Fence``) and the store refuses it, in the write's own transaction, once the lease
row no longer names them or has expired (docs/scaling.md). The leases held when this revision runs start at 0.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the column where it is missing."""
    if "epoch" not in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("motley_leases")}:
        op.add_column("motley_leases", sa.Column("epoch", sa.BigInteger, nullable=False, server_default="0"))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("motley_leases") as batch:
        batch.drop_column("epoch")
