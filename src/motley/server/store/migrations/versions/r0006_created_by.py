"""The client address that created each table: ``motley_tables.created_by`` (null: made before this revision,
by a Python caller, or by a server not in the site mode), indexed with ``finished``, so that every process of a
site counts an address's unfinished tables in the store (its quota; docs/scaling.md); and ``motley_buckets``, the
creation rate of each address lately active (a token bucket: ``tokens`` at time ``at``, the database's clock).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the column and its index where they are missing."""
    inspector = sa.inspect(op.get_bind())
    if "created_by" not in {c["name"] for c in inspector.get_columns("motley_tables")}:
        op.add_column("motley_tables", sa.Column("created_by", sa.String(64), nullable=True))
    if "ix_motley_tables_created_by" not in {i["name"] for i in inspector.get_indexes("motley_tables")}:
        op.create_index("ix_motley_tables_created_by", "motley_tables", ["created_by", "finished"])
    if "motley_buckets" not in inspector.get_table_names():
        op.create_table(
            "motley_buckets",
            sa.Column("address", sa.String(64), primary_key=True),
            sa.Column("tokens", sa.Float, nullable=False),
            sa.Column("at", sa.Float, nullable=False),
        )


def downgrade() -> None:
    """Drop the buckets, the index and the column."""
    op.drop_table("motley_buckets")
    op.drop_index("ix_motley_tables_created_by", "motley_tables")
    with op.batch_alter_table("motley_tables") as batch:
        batch.drop_column("created_by")
