"""Storage of tables as event logs, through SQLAlchemy: SQLite by default, PostgreSQL by URL.

The schema is made and changed by Alembic migrations (:mod:`motley.server.store.migrations`), run each time a
:class:`Storage` opens its database.

A table is its event log: the game, its params, the seed, the seats and settings, then every move as a
move string with the seat that made it (and who made it: the seat's person, its bot, or the timer's
bot). Replaying the moves from the seed restores the table exactly, so a restarted server resumes every
unfinished table (docs/design.md, Storage).

Where several server processes share one store, each table is owned by one of them at a time through a lease
(:meth:`Storage.claim`, :meth:`Storage.renew`, :meth:`Storage.release`, :meth:`Storage.owner_of`; the table
``motley_leases``, migration 0004; docs/scaling.md).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import socket
import time
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from alembic.util.exc import CommandError
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ColumnElement,
    Engine,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    any_,
    bindparam,
    create_engine,
    delete,
    event,
    exc,
    exists,
    extract,
    func,
    insert,
    literal_column,
    make_url,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL
from sqlalchemy.pool import StaticPool

from motley.core.errors import MotleyError
from motley.core.extras import require
from motley.server.store import counters, migrations
from motley.server.store.records import TableRecord
from motley.server.store.writer import Creator, QuotaReached, RateReached, UnreadableTable

__all__ = ["BadStoreUrl", "Lease", "Storage", "StoreUnavailable", "TableRecord", "UnreadableTable", "new_owner",
           "store_url"]

metadata = MetaData()

tables_t = Table(
    "motley_tables", metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(64), nullable=False),
    Column("params", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("seats", Text, nullable=False),
    Column("settings", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("finished", Boolean, nullable=False, default=False),
    Column("result", Text, nullable=True),
    # the rematch offered at this (finished) table: {"table": its id, "offered_by": seat, "plan": [...]}
    Column("rematch", Text, nullable=True),
    # the client address that created the table (the site mode: its quota is counted here), migration 0006
    Column("created_by", String(64), nullable=True),
    Index("ix_motley_tables_created_by", "created_by", "finished"),
)

moves_t = Table(
    "motley_moves", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False, index=True),
    Column("number", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("move", String(200), nullable=False),
    Column("actor", String(16), nullable=False),
    Column("at", Float, nullable=False),
)
analyses_t = Table(
    "motley_analyses", metadata,
    # the analysis of one seat's decisions in a finished table (motley.bots.analysis), computed once
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("simulations", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("result", Text, nullable=False),  # the JSON of motley.bots.analysis.analyse_record's result
    Column("created", Float, nullable=False),
)

#: A table's move numbers are unique: the database itself refuses a move stored twice.
move_numbers = Index("ux_motley_moves_table_number", moves_t.c.table_id, moves_t.c.number, unique=True)

leases_t = Table(
    "motley_leases", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("owner", String(64), nullable=False, index=True),  # the owning process's random id (new_owner)
    Column("holder", String(200), nullable=False),  # "host/pid" of that process, for people
    Column("expires_at", Float, nullable=False),  # seconds since the epoch, the database's clock
)
buckets_t = Table(
    "motley_buckets", metadata,  # the creation rate of each client address, the site mode (migration 0006)
    Column("address", String(64), primary_key=True),
    Column("tokens", Float, nullable=False),  # tables it may create at ``at`` (the bucket then)
    Column("at", Float, nullable=False),  # seconds since the epoch, the database's clock
)
processes_t = Table(
    "motley_processes", metadata,
    Column("owner", String(64), primary_key=True),  # a site process's lease owner id (new_owner)
    Column("address", String(200), nullable=False),  # "host:port" where the others relay sockets to it
    Column("seen_at", Float, nullable=False),  # when it registered, seconds since the epoch, the database's clock
)


#: Seconds a call waits for a lock held by another connection or process before it fails: SQLite's busy
#: timeout, PostgreSQL's ``lock_timeout``.
BUSY_TIMEOUT = 2.0
#: Seconds one PostgreSQL statement may run before the server cancels it (``statement_timeout``); also bounds
#: the wait for a new connection (``connect_timeout``, whole seconds, at least 2).
STATEMENT_TIMEOUT = 5.0


class Lease(NamedTuple):
    """A table's current lease: the owner's id (:func:`new_owner`), its ``holder`` (``"host/pid"``) and when it
    expires (seconds since the epoch, the database's clock)."""

    table: str
    owner: str
    holder: str
    expires_at: float


def new_owner() -> str:
    """A fresh owner id for one server process's leases: 16 random hex digits (unique without coordination; a
    restarted process draws a new one, so it never mistakes its predecessor's leases for its own)."""
    return secrets.token_hex(8)


class BadStoreUrl(MotleyError):
    """``--db`` names no store motley can open: not a SQLAlchemy URL, or a database other than SQLite and
    PostgreSQL."""


class StoreUnavailable(MotleyError):
    """The store could not be opened or brought to the current schema (database unreachable, refused login,
    a migration that failed); the message names the database (without its password) and the driver's error."""


def store_url(db: str) -> URL:
    """The SQLAlchemy URL of a ``--db`` value: a URL (``sqlite:///FILE``, ``sqlite://`` in memory,
    ``postgresql://USER:PASSWORD@HOST/DB``, ``postgresql+psycopg://...``), or a file path (no ``://``), which
    is taken as a SQLite file. ``postgresql://`` uses psycopg 3 (the ``postgres`` extra).

    Raises:
        BadStoreUrl: for a value that is not a URL of SQLite or PostgreSQL.
        MissingExtraError: for PostgreSQL without psycopg installed (``pip install 'motley[postgres]'``).
    """
    if "://" not in db:
        if not db.strip():
            raise BadStoreUrl("--db is empty: give a SQLite file (motley.db) or a URL (postgresql://...)")
        return URL.create("sqlite", database=db)
    try:
        url = make_url(db)
    except (exc.ArgumentError, ValueError):  # ValueError: a port that is not a number
        raise BadStoreUrl(f"--db {db.split('://')[0]}://... is not a database URL: give sqlite:///FILE, a file "
                          "path, or postgresql://USER:PASSWORD@HOST/DATABASE") from None
    if url.get_backend_name() == "postgresql":
        if url.get_driver_name() in ("psycopg", "postgresql", ""):
            url = url.set(drivername="postgresql+psycopg")
            require("psycopg", "postgres", "a PostgreSQL store (--db postgresql://...)")
        return url
    if url.get_backend_name() != "sqlite":
        raise BadStoreUrl(f"--db {url.get_backend_name()}://... is not a store motley serves on: use SQLite "
                          "(sqlite:///FILE or a file path) or PostgreSQL (postgresql://...)")
    return url


class Storage:
    """The event-log store (the server's :class:`~motley.server.store.writer.TableStorage`). ``url``: a SQLAlchemy URL
    or a SQLite file path (see :func:`store_url`: ``sqlite:///motley.db``, ``postgresql://...``). Opening it
    brings its schema to the newest revision (:func:`motley.server.store.migrations.upgrade`).

    SQLite runs in WAL mode with ``synchronous=NORMAL``: a move is durable against a killed server
    process (the WAL is written before the commit returns) and costs well under a millisecond. A database
    locked by another process is waited for at most ``busy_timeout`` seconds; then the call fails
    (``sqlite3.OperationalError: database is locked``), so a mover hears of it at once rather than after
    the driver's default of 5 s.

    PostgreSQL (psycopg 3) gets the same bound on locks (``lock_timeout`` = ``busy_timeout``), a statement
    timeout (``statement_timeout`` = ``statement_timeout`` seconds) and a connection timeout, so a stopped or
    unreachable database fails a call within seconds (a mover is told ``not_stored``) instead of hanging the
    store's thread. A connection lost in a PostgreSQL restart fails the call that was using it; SQLAlchemy then
    drops the pool, and the next call connects anew.

    Every call blocks until the database answers; the server makes them in a worker thread
    (:class:`motley.server.store.writer.Store`), never on its event loop. Errors are SQLAlchemy's
    (``sqlalchemy.exc.SQLAlchemyError``) or the driver's.
    """

    def __init__(self, url: str = "sqlite:///motley.db", busy_timeout: float = BUSY_TIMEOUT,
                 statement_timeout: float = STATEMENT_TIMEOUT) -> None:
        """Raises:
            BadStoreUrl, MissingExtraError: see :func:`store_url`.
            StoreUnavailable: the database cannot be reached, or its schema not brought up to date.
        """
        parsed = store_url(url)
        self.engine: Engine = create_engine(parsed, **_engine_options(parsed, busy_timeout, statement_timeout))
        if parsed.get_backend_name() == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        counters.watch_engine(self.engine)
        try:
            migrations.upgrade(self.engine)
        except (exc.SQLAlchemyError, CommandError) as error:  # CommandError: a revision this motley does not know
            self.engine.dispose()
            shown = parsed.render_as_string(hide_password=True)
            raise StoreUnavailable(f"cannot open the store {shown}: {_driver_error(error)}") from None
        self._insert_move = insert(moves_t)

    def create_table(self, record: TableRecord, creator: Creator | None = None) -> None:
        """Store a new table (its header; ``record.moves`` must be empty) with its ``creator``'s address.

        Raises:
            QuotaReached: if ``creator`` has a quota and that many unfinished tables (:meth:`_within_quota`);
                nothing is stored.
        """
        with self.engine.begin() as conn:
            self._within_quota(conn, creator)
            self._insert(conn, record, creator)

    def _within_quota(self, conn: Any, creator: Creator | None) -> None:
        """Raises :class:`QuotaReached` if ``creator.address`` has ``creator.quota`` unfinished tables in the store
        (one ``SELECT count``, on the index of migration 0006), else takes a token of its creation rate
        (:meth:`_take_token`, which raises :class:`RateReached`). On PostgreSQL the transaction first takes an
        advisory lock of the address (``pg_advisory_xact_lock``, held to its commit), so that two processes
        creating tables for one address at once count one after the other; SQLite writes one transaction at a
        time. Nothing to check without a creator or a quota."""
        if creator is None or creator.quota is None:
            return
        if self.engine.dialect.name == "postgresql":
            conn.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(creator.address, 0))))
        count = conn.execute(select(func.count()).select_from(tables_t).where(
            tables_t.c.created_by == creator.address, tables_t.c.finished.is_(False))).scalar_one()
        if count >= creator.quota:
            raise QuotaReached(creator.address, creator.quota)
        self._take_token(conn, creator)

    def _take_token(self, conn: Any, creator: Creator) -> None:
        """Take one token of ``creator.address``'s bucket kept in the store (``motley_buckets``: ``burst`` tokens,
        refilled at ``per_minute``, the database's clock), under the advisory lock :meth:`_within_quota` took;
        the buckets full again (their address idle for ``burst / per_minute`` minutes) are deleted first, so the
        rows held are those of the addresses that created a table lately. Nothing without a rate.

        Raises:
            RateReached: with the seconds until a token is there, if the bucket holds less than one.
        """
        if creator.per_minute is None or creator.per_minute <= 0:
            return
        rate, burst = creator.per_minute / 60.0, float(creator.burst)
        now = float(conn.execute(select(self._now())).scalar_one())
        conn.execute(delete(buckets_t).where(buckets_t.c.tokens + (now - buckets_t.c.at) * rate >= burst))
        row = conn.execute(select(buckets_t).where(buckets_t.c.address == creator.address)).first()
        tokens = burst if row is None else min(burst, float(row.tokens) + (now - float(row.at)) * rate)
        if tokens < 1.0:
            raise RateReached(creator.burst, creator.per_minute, (1.0 - tokens) / rate)
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(buckets_t).values(address=creator.address, tokens=tokens - 1.0, at=now)
        conn.execute(upsert.on_conflict_do_update(index_elements=[buckets_t.c.address],
                                                  set_={"tokens": upsert.excluded.tokens, "at": upsert.excluded.at}))

    @staticmethod
    def _insert(conn: Any, record: TableRecord, creator: Creator | None = None) -> None:
        conn.execute(insert(tables_t).values(
            id=record.id, game=record.game, params=json.dumps(record.params), seed=record.seed,
            seats=json.dumps(record.seats), settings=json.dumps(record.settings), created=record.created,
            finished=False, result=None, created_by=None if creator is None else creator.address[:64]))

    def create_rematch(self, table_id: str, record: TableRecord, offer: dict[str, Any],
                       creator: Creator | None = None) -> dict[str, Any]:
        """Store ``record`` as the rematch of table ``table_id``, offered as ``offer`` (``{"offered_by", "plan"}``),
        unless that table has one already: in one transaction, the offer goes on the old table's row only where
        it has none (so of requests at once, in this process or another, one makes it) and the new table is
        stored with it. Returns the stored offer, ``{"table", "offered_by", "plan"}``: this one (``"table"`` is
        ``record.id``) or the one made before (nothing stored then).

        Raises:
            UnreadableTable: for a table ``table_id`` that is not stored, or whose stored offer cannot be read.
            QuotaReached: if the rematch would be made and ``creator`` has its quota (:meth:`create_table`);
                nothing is stored.
        """
        with self.engine.begin() as conn:
            taken = conn.execute(update(tables_t).where(tables_t.c.id == table_id, tables_t.c.rematch.is_(None))
                                 .values(rematch=json.dumps({"table": record.id, **offer})))
            if taken.rowcount == 1:
                self._within_quota(conn, creator)
                self._insert(conn, record, creator)
                return {"table": record.id, **offer}
            earlier = self._offer(conn, table_id)
        if earlier is None:
            raise UnreadableTable(f"table {table_id}: no such table, so no rematch of it")
        return earlier

    def rematch(self, table_id: str) -> dict[str, Any] | None:
        """The rematch offered at table ``table_id``, ``{"table", "offered_by", "plan"}``, or None.

        Raises:
            UnreadableTable: if the stored offer cannot be read.
        """
        with self.engine.connect() as conn:
            return self._offer(conn, table_id)

    @staticmethod
    def _offer(conn: Any, table_id: str) -> dict[str, Any] | None:
        """The stored rematch offer of a table (None: none, or no such table).

        Raises:
            UnreadableTable: for one that is not ``{"table": id, "offered_by": seat, "plan": [objects]}``.
        """
        stored = conn.execute(select(tables_t.c.rematch).where(tables_t.c.id == table_id)).scalar()
        if stored is None:
            return None
        offer = _table_json(stored, "rematch", table_id)
        if not (isinstance(offer, dict) and isinstance(offer.get("table"), str)
                and isinstance(offer.get("offered_by"), int) and isinstance(offer.get("plan"), list)
                and all(isinstance(e, dict) for e in offer["plan"])):
            raise UnreadableTable(f"table {table_id}: its stored rematch is not an offer")
        return offer

    def save_analysis(self, table_id: str, seat: int, result: dict[str, Any]) -> dict[str, Any]:
        """Store the analysis of ``seat``'s decisions at table ``table_id`` (``result``: JSON-able, with
        ``simulations`` and ``seed``) unless one is stored already; returns the stored one (this, or the earlier)."""
        row = {"table_id": table_id, "seat": seat, "simulations": int(result["simulations"]),
               "seed": int(result["seed"]), "result": json.dumps(result, separators=(",", ":")), "created": time.time()}
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(analyses_t).values(**row))
        except exc.IntegrityError:
            earlier = self.analysis(table_id, seat)
            if earlier is not None:
                return earlier
            raise
        return result

    def analysis(self, table_id: str, seat: int) -> dict[str, Any] | None:
        """The stored analysis of ``seat``'s decisions at table ``table_id``, or None.

        Raises:
            UnreadableTable: if the stored analysis is not a JSON object.
        """
        with self.engine.connect() as conn:
            stored = conn.execute(select(analyses_t.c.result).where(analyses_t.c.table_id == table_id,
                                                                    analyses_t.c.seat == seat)).scalar()
        if stored is None:
            return None
        result = _table_json(stored, "analysis", table_id)
        if not isinstance(result, dict):
            raise UnreadableTable(f"table {table_id}: its stored analysis of seat {seat} is not an object")
        return result

    def add_move(self, table_id: str, number: int, seat: int, move: str, actor: str) -> None:
        """Append move ``number`` (1-based) to a table's log."""
        self.add_moves([(table_id, number, seat, move, actor)])

    def add_moves(self, moves: Sequence[tuple[str, int, int, str, str]]) -> None:
        """Append moves ``(table_id, number, seat, move, actor)`` to their tables' logs in one transaction:
        all are stored, or (on an error) none."""
        now = time.time()
        rows = [{"table_id": t, "number": n, "seat": s, "move": m, "actor": a, "at": now} for t, n, s, m, a in moves]
        with self.engine.begin() as conn:  # one fixed statement: SQLAlchemy reuses its compiled form
            conn.execute(self._insert_move, rows)

    def update_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """Rewrite a table's seat list (a seat claimed from the lobby, a person connected for the first time)."""
        with self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(seats=json.dumps(seats)))

    def update_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        """Rewrite a table's settings (a person pressed Start: the bots no longer wait for the others)."""
        with self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(settings=json.dumps(settings)))

    def finish(self, table_id: str, result: dict[str, Any]) -> None:
        """Mark a table finished with its result."""
        with self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(finished=True,
                                                                                  result=json.dumps(result)))

    def load(self, table_id: str) -> TableRecord | None:
        """One table with its moves, or ``None``.

        Raises:
            UnreadableTable: if its stored row cannot be read.
        """
        with self.engine.connect() as conn:
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if row is None:
                return None
            return self._record(conn, row)

    def load_all(self, finished: bool | None = None, unreadable: list[tuple[str, str]] | None = None
                 ) -> list[TableRecord]:
        """Every table (or only the unfinished / finished ones), oldest first, with their moves.

        A stored table that cannot be read (JSON that does not parse, a field of the wrong type): with
        ``unreadable`` given, it is left out and ``(table id, reason)`` appended there; without, its error
        (:class:`UnreadableTable`) is raised.
        """
        records = []
        with self.engine.connect() as conn:
            query = select(tables_t).order_by(tables_t.c.created)
            if finished is not None:
                query = query.where(tables_t.c.finished == finished)
            for row in conn.execute(query).all():
                try:
                    records.append(self._record(conn, row))
                except UnreadableTable as exc:
                    if unreadable is None:
                        raise
                    unreadable.append((str(row.id), f"stored table cannot be read: {exc}"))
        return records

    def finished_headers(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest finished tables, headers only: ``{"id", "game", "players", "created", "moves", "names",
        "last_move", "cancelled"}`` (``names``: the seats' names; ``last_move``: wall-clock time of the last
        stored move, None without moves; ``cancelled``: ended without a result, see ``Service.cancel``)."""
        return self._headers(True, limit)

    def running_headers(self, limit: int = 500) -> list[dict[str, Any]]:
        """The newest unfinished tables, headers as :meth:`finished_headers` gives them plus ``seats`` (the stored
        seat entries, tokens included: for the server, not for a client): what a process of a site lists for the
        tables other processes drive."""
        return self._headers(False, limit)

    def _headers(self, finished: bool, limit: int) -> list[dict[str, Any]]:
        """The headers of :meth:`finished_headers` (``finished``) or :meth:`running_headers`."""
        count = (select(func.count()).where(moves_t.c.table_id == tables_t.c.id).scalar_subquery())
        last = (select(func.max(moves_t.c.at)).where(moves_t.c.table_id == tables_t.c.id).scalar_subquery())
        query = (select(tables_t.c.id, tables_t.c.game, tables_t.c.seats, tables_t.c.created, count.label("moves"),
                        last.label("last_move"), tables_t.c.result)
                 .where(tables_t.c.finished.is_(finished)).order_by(tables_t.c.created.desc()).limit(limit))
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        headers = []
        for r in rows:
            try:
                seats = json.loads(r.seats)
            except (ValueError, RecursionError):
                continue  # a damaged row is left out of the list
            if isinstance(seats, list):
                headers.append({"id": r.id, "game": r.game, "players": len(seats), "created": r.created,
                                "moves": int(r.moves), "names": [_name(s) for s in seats],
                                "last_move": r.last_move, "cancelled": _cancelled(r.result)}
                               | ({} if finished else {"seats": seats}))
        return headers

    def _record(self, conn: Any, row: Any) -> TableRecord:
        """The record of a stored row and its moves.

        Raises:
            UnreadableTable: for a JSON field that does not parse or is not of its shape (params and settings
                objects, seats a list of objects, result an object or null), or a seat number that is not one.
        """
        try:
            return self._read(conn, row)
        except (ValueError, TypeError, RecursionError) as exc:
            raise UnreadableTable(f"table {row.id}: {exc}") from None

    def _read(self, conn: Any, row: Any) -> TableRecord:
        moves = conn.execute(select(moves_t.c.seat, moves_t.c.move, moves_t.c.actor, moves_t.c.at)
                             .where(moves_t.c.table_id == row.id).order_by(moves_t.c.number)).all()
        params, seats = _json(row.params, "params"), _json(row.seats, "seats")
        settings = _json(row.settings, "settings")
        result = _json(row.result, "result") if row.result else None
        if not isinstance(params, dict) or not isinstance(settings, dict):
            raise ValueError("'params' and 'settings' must be JSON objects")
        if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
            raise ValueError("'seats' must be a JSON list of objects")
        if result is not None and not isinstance(result, dict):
            raise ValueError("'result' must be a JSON object")
        return TableRecord(id=row.id, game=row.game, params=params, seed=int(row.seed), seats=seats,
                           settings=settings, created=row.created, finished=bool(row.finished), result=result,
                           moves=[(int(m.seat), str(m.move), str(m.actor)) for m in moves],
                           moved_at=float(moves[-1].at) if moves else None)

    # ---- leases: which process owns which table (docs/scaling.md) ------------------------------------------
    def claim(self, table_id: str, owner: str, ttl: float) -> bool:
        """Make ``owner`` the owner of table ``table_id`` for ``ttl`` seconds, only if the table has no lease, its
        lease has expired, or ``owner`` holds it already (then it is extended): one statement (an upsert whose
        update is conditional), so of processes claiming one table at once exactly one gets it. The table need
        not be stored. Returns whether ``owner`` now owns the table.

        Raises:
            ValueError: for an empty or over-long table id or owner, or a ``ttl`` that is not a positive number
                of seconds; nothing is changed.
        """
        _check_lease(owner, ttl, table_id)
        now = self._now()
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(leases_t).values(table_id=table_id, owner=owner, holder=_holder(),
                                                 expires_at=now + ttl)
        upsert = upsert.on_conflict_do_update(
            index_elements=[leases_t.c.table_id],
            set_={"owner": upsert.excluded.owner, "holder": upsert.excluded.holder,
                  "expires_at": upsert.excluded.expires_at},
            where=or_(leases_t.c.expires_at <= now, leases_t.c.owner == owner))
        with self.engine.begin() as conn:
            return conn.execute(upsert.returning(leases_t.c.table_id)).first() is not None

    def renew(self, owner: str, ttl: float, held: Collection[str] = ()) -> set[str]:
        """Extend the leases of ``held`` (the tables the caller drives) that ``owner`` still holds to ``ttl``
        seconds from now, in one statement (a heartbeat). A lease that expired but that nobody claimed meanwhile
        is still the owner's and is extended. A lease of ``owner``'s for a table not in ``held`` (one the caller
        stopped driving, e.g. every table after it could not renew for a while: self-fencing) is left to expire,
        so that a process's scan claims and drives it again. Returns the tables of ``held`` whose lease is no
        longer ``owner``'s: another process claimed them after they expired, or they were released; the caller
        must stop serving them.

        Raises:
            ValueError: for an empty or over-long owner or a ``ttl`` that is not a positive number of seconds.
        """
        _check_lease(owner, ttl)
        if not held:
            return set()
        query = (update(leases_t).where(leases_t.c.owner == owner, self._one_of(leases_t.c.table_id, held))
                 .values(expires_at=self._now() + ttl).returning(leases_t.c.table_id))
        with self.engine.begin() as conn:
            renewed = {str(r.table_id) for r in conn.execute(query)}
        return set(held) - renewed

    def _one_of(self, column: Any, values: Collection[str]) -> Any:
        """``column`` is one of ``values``, as one bound parameter whatever their number (a heartbeat names
        every table of its process): ``= ANY(:array)`` on PostgreSQL, ``IN (SELECT value FROM json_each(:json))``
        on SQLite; a list of one parameter per value made a heartbeat of 500 leases about 3 times slower."""
        if self.engine.dialect.name == "postgresql":
            return column == any_(bindparam("one_of", sorted(values), type_=postgresql.ARRAY(String)))
        listed: Any = select(literal_column("value")).select_from(
            func.json_each(bindparam("one_of", json.dumps(sorted(values)))))
        return column.in_(listed)

    def release(self, table_id: str | None, owner: str) -> int:
        """Give up ``owner``'s lease of table ``table_id`` (None: every lease ``owner`` holds), so another process
        may claim it at once (a drain); a lease that is another owner's is left alone. Returns how many were
        released."""
        query = delete(leases_t).where(leases_t.c.owner == owner)
        if table_id is not None:
            query = query.where(leases_t.c.table_id == table_id)
        with self.engine.begin() as conn:
            return int(conn.execute(query).rowcount)

    def owner_of(self, table_id: str) -> Lease | None:
        """The current (not expired) lease of table ``table_id``, or None: no process owns it."""
        query = select(leases_t).where(leases_t.c.table_id == table_id, leases_t.c.expires_at > self._now())
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else Lease(str(row.table_id), str(row.owner), str(row.holder),
                                              float(row.expires_at))

    def unowned(self) -> list[str]:
        """The unfinished tables that no process owns (no lease, or an expired one), oldest first: what a
        process may claim and rebuild after another one died."""
        live = exists().where(leases_t.c.table_id == tables_t.c.id, leases_t.c.expires_at > self._now())
        query = select(tables_t.c.id).where(tables_t.c.finished.is_(False), ~live).order_by(tables_t.c.created)
        with self.engine.connect() as conn:
            return [str(r.id) for r in conn.execute(query)]

    def register(self, owner: str, address: str) -> None:
        """Record that the site process ``owner`` is reached at ``address`` (``host:port``), replacing what it
        recorded before.

        Raises:
            ValueError: for an empty or over-long owner or address.
        """
        if not (0 < len(owner) <= 64 and 0 < len(address) <= 200):
            raise ValueError(f"an owner is 1 to 64 characters and an address 1 to 200; got {owner!r}, {address!r}")
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(processes_t).values(owner=owner, address=address, seen_at=self._now())
        upsert = upsert.on_conflict_do_update(index_elements=[processes_t.c.owner],
                                              set_={"address": upsert.excluded.address,
                                                    "seen_at": upsert.excluded.seen_at})
        with self.engine.begin() as conn:
            conn.execute(upsert)

    def unregister(self, owner: str) -> None:
        """Forget the site process ``owner`` (it stops)."""
        with self.engine.begin() as conn:
            conn.execute(delete(processes_t).where(processes_t.c.owner == owner))

    def process_of(self, table_id: str) -> tuple[str, str] | None:
        """The owner id and address (``host:port``) of the process holding the live lease of ``table_id``, or
        None: no live lease, or its owner recorded no address. A socket for the table is relayed to that address, and
        a seat request forwarded there with the owner id, which the owner checks before it trusts the client's
        address named by the forwarding process."""
        query = (select(processes_t.c.owner, processes_t.c.address)
                 .join(leases_t, leases_t.c.owner == processes_t.c.owner)
                 .where(leases_t.c.table_id == table_id, leases_t.c.expires_at > self._now()))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else (str(row.owner), str(row.address))

    def _now(self) -> ColumnElement[float]:
        """The database's clock in seconds since the epoch, as SQL: every process reads the same clock, so leases
        do not depend on the machines' clocks agreeing."""
        if self.engine.dialect.name == "postgresql":
            return extract("epoch", func.clock_timestamp()).cast(Float)
        return literal_column("((julianday('now') - 2440587.5) * 86400.0)", Float)

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()


def _check_lease(owner: str, ttl: float, table_id: str | None = None) -> None:
    """Raises ValueError for an owner or table id that is empty or longer than its column (64, 32 characters),
    or a ``ttl`` that is not a positive, finite number of seconds."""
    if not 0 < len(owner) <= 64:
        raise ValueError(f"a lease owner is 1 to 64 characters, not {len(owner)}")
    if table_id is not None and not 0 < len(table_id) <= 32:
        raise ValueError(f"a table id is 1 to 32 characters, not {len(table_id)}")
    if not (isinstance(ttl, int | float) and math.isfinite(ttl) and ttl > 0):
        raise ValueError(f"a lease lasts a positive number of seconds, not {ttl!r}")


def _holder() -> str:
    """This process, for people reading ``motley_leases``: ``"host/pid"``."""
    return f"{socket.gethostname()}/{os.getpid()}"[:200]


def _name(seat: Any) -> str:
    """A stored seat's name ("" for an entry without one)."""
    return str(seat.get("name", "")) if isinstance(seat, dict) else ""


def _cancelled(result: Any) -> bool:
    """Is a stored ``result`` (JSON text or None) that of a cancelled table (``{"cancelled": true, ...}``)?"""
    try:
        parsed = json.loads(result) if result else None
    except (ValueError, RecursionError):
        return False
    return isinstance(parsed, dict) and parsed.get("cancelled") is True


def _json(text: Any, name: str) -> Any:
    """A stored JSON field, parsed.

    Raises:
        ValueError: naming the field, for text that is not JSON.
    """
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"stored {name!r} is not JSON: {exc}") from None


def _table_json(text: Any, name: str, table_id: str) -> Any:
    """The stored JSON field ``name`` of table ``table_id``, parsed.

    Raises:
        UnreadableTable: naming the table and the field, for text that is not JSON.
    """
    try:
        return _json(text, name)
    except ValueError as exc:
        raise UnreadableTable(f"table {table_id}: {exc}") from None


def _engine_options(url: URL, busy_timeout: float, statement_timeout: float) -> dict[str, Any]:
    """``create_engine`` options for the database of ``url`` (see :class:`Storage` for the timeouts)."""
    if url.get_backend_name() == "sqlite":
        options: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": busy_timeout}}
        if url.database in (None, "", ":memory:"):
            options["poolclass"] = StaticPool  # one shared in-memory database
        return options
    settings = f"-c lock_timeout={round(busy_timeout * 1000)} -c statement_timeout={round(statement_timeout * 1000)}"
    return {"connect_args": {"options": settings, "connect_timeout": max(2, math.ceil(statement_timeout))}}


def _driver_error(error: Exception) -> str:
    """The driver's error in one line, without SQLAlchemy's statement and background link."""
    cause = getattr(error, "orig", None) or error
    lines = [line for line in str(cause).splitlines() if line.strip()]
    return f"{type(cause).__name__}: {lines[0] if lines else ''}"


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
