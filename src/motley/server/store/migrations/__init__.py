"""The store's schema, changed only through Alembic migrations (``versions/``, shipped inside the package).

:func:`upgrade` runs at every start of a :class:`~motley.server.store.storage.Storage`: it brings the database to the
newest revision (``alembic upgrade head``), on SQLite and PostgreSQL alike. A database made before the store
had migrations (it holds ``motley_tables`` but no ``alembic_version``) is adopted first: it gets the unique
index on move numbers if its moves allow it, then is stamped with the baseline revision, and the later
revisions run on it as on any other.

A new schema change is one more file in ``versions/`` (see ``r0007_lease_epoch.py``): ``revision = "0008"``,
``down_revision = "0007"`` and an ``upgrade()`` made of ``alembic.op`` calls (on SQLite, Alembic's batch mode
rewrites a table where ``ALTER`` cannot). The tables' SQLAlchemy definitions that the queries use stay in
:mod:`motley.server.store.storage`.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect, text

__all__ = ["BASELINE", "head", "upgrade"]

log = logging.getLogger("motley.server")

#: The first revision: the schema of the store before it had migrations.
BASELINE = "0001"
#: PostgreSQL advisory lock held while migrating, so processes starting together migrate one after another.
LOCK_KEY = 0x6D6F746C6579  # "motley"
#: Where the revisions are: this package's folder (inside an installed wheel too).
LOCATION = Path(__file__).resolve().parent


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(LOCATION))
    return config


@functools.cache
def head() -> str:
    """The newest revision: what :func:`upgrade` brings a database to."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None, "the migrations have a single head"
    return head


def upgrade(engine: Engine) -> None:
    """Bring the database behind ``engine`` to the newest schema revision, in one transaction (PostgreSQL: with
    the advisory lock :data:`LOCK_KEY` held, and no statement timeout, so a long migration is not cut off).

    A database already at the newest revision is left as it is without loading the revisions.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database cannot be reached or refused a change.
        alembic.util.exc.CommandError: the database is at a revision this motley does not know (a newer one's).
    """
    config = _config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SET LOCAL statement_timeout = 0"))
            conn.execute(text("SET LOCAL lock_timeout = '60s'"))
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        config.attributes["connection"] = conn
        tables = set(inspect(conn).get_table_names())
        if "alembic_version" in tables and MigrationContext.configure(conn).get_current_revision() == head():
            return
        if "motley_tables" in tables and "alembic_version" not in tables:
            _adopt(conn)
            command.stamp(config, BASELINE)
        command.upgrade(config, "head")


def _adopt(conn: Connection) -> None:
    """A database made before migrations: add the unique index on (table, move number) where it is missing
    and the stored moves allow it; with a move number stored twice it stays without, and the log says so."""
    indexes = {ix["name"] for ix in inspect(conn).get_indexes("motley_moves")}
    if "ux_motley_moves_table_number" in indexes:
        return
    twice = conn.execute(text("SELECT table_id, number FROM motley_moves GROUP BY table_id, number "
                              "HAVING count(*) > 1")).first()
    if twice is not None:
        log.warning("move numbers are not unique in the store (table %s, move %s stored twice), so it has no "
                    "unique index on them", twice.table_id, twice.number)
        return
    conn.execute(text("CREATE UNIQUE INDEX ux_motley_moves_table_number ON motley_moves (table_id, number)"))
