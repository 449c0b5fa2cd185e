"""The digest of the key of the browser that made each table: ``motley_tables.owner_key`` (null: made without a
key, by a Python caller, or before this revision), indexed with ``finished``, so that the browser's "your tables"
lists its unfinished tables from any process of a site, and only that browser may cancel them by its key.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the column and its index where they are missing."""
    inspector = sa.inspect(op.get_bind())
    if "owner_key" not in {c["name"] for c in inspector.get_columns("motley_tables")}:
        op.add_column("motley_tables", sa.Column("owner_key", sa.String(64), nullable=True))
    if "ix_motley_tables_owner_key" not in {i["name"] for i in inspector.get_indexes("motley_tables")}:
        op.create_index("ix_motley_tables_owner_key", "motley_tables", ["owner_key", "finished"])


def downgrade() -> None:
    """Drop the index and the column."""
    op.drop_index("ix_motley_tables_owner_key", "motley_tables")
    with op.batch_alter_table("motley_tables") as batch:
        batch.drop_column("owner_key")
