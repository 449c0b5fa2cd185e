"""Storage of tables as event logs, through SQLAlchemy: SQLite by default, PostgreSQL by URL.

The schema is made and changed by Alembic migrations (:mod:`motley.server.store.migrations`), run each time a
:class:`Storage` opens its database.

A table is its event log: the game, its params, the seed, the seats and settings, then every move as a
move string with the seat that made it (and who made it: the seat's person, its bot, or the timer's
bot). Replaying the moves from the seed restores the table exactly, so a restarted server resumes every
unfinished table (docs/design.md, Storage).

Where several server processes share one store, each table is owned by one of them at a time through a lease
(:meth:`Storage.claim`, :meth:`Storage.renew`, :meth:`Storage.release`, :meth:`Storage.owner_of`; the table
``motley_leases``, migration 0004; docs/scaling.md): those calls are :class:`~motley.server.store.leases.LeaseRows`',
the tables' definitions :mod:`motley.server.store.schema`'s.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from alembic.util.exc import CommandError
from sqlalchemy import (
    Engine,
    bindparam,
    create_engine,
    delete,
    event,
    exc,
    func,
    insert,
    make_url,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL
from sqlalchemy.pool import StaticPool

from motley.core.errors import MotleyError
from motley.core.extras import require
from motley.server.store import counters, migrations
from motley.server.store.chat import ChatRows
from motley.server.store.deadlines import check_deadline
from motley.server.store.leases import Fence, Lease, LeaseRows, StaleLease, new_owner
from motley.server.store.records import TableRecord
from motley.server.store.schema import analyses_t, buckets_t, metadata, moves_t, tables_t
from motley.server.store.writer import (
    DEADLINE,
    Creator,
    DuplicateMove,
    QuotaReached,
    RateReached,
    UnreadableTable,
)

__all__ = ["BadStoreUrl", "Fence", "Lease", "StaleLease", "Storage", "StoreUnavailable", "TableRecord",
           "UnreadableTable", "metadata", "moves_t", "new_owner", "store_url", "tables_t"]


#: Seconds a call waits for a lock held by another connection or process before it fails: SQLite's busy
#: timeout, PostgreSQL's ``lock_timeout``.
BUSY_TIMEOUT = 2.0
#: Seconds one PostgreSQL statement may run before the server cancels it (``statement_timeout``); also bounds
#: the wait for a new connection (``connect_timeout``, whole seconds, at least 2).
STATEMENT_TIMEOUT = 5.0
#: Seconds a TCP connection to PostgreSQL may leave data unacknowledged (``tcp_user_timeout``), and its keepalives
#: (idle, interval, count): a thread stuck reading from a store cut off without resets is freed (its connection
#: dropped) in about 10 s, and a call waits for a connection from the pool at most :data:`DEADLINE`.
TCP_USER_TIMEOUT = 10.0
KEEPALIVES = (4, 2, 3)


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


class Storage(LeaseRows, ChatRows):
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
    store's thread; over TCP, keepalives and ``tcp_user_timeout`` drop a connection to a server that went silent
    (:data:`TCP_USER_TIMEOUT`), and a wait for a pooled connection is bounded (``pool_timeout``). A server that
    stops answering altogether (hung, or cut off without resets) cancels nothing: the caller's deadline
    (:class:`~motley.server.store.writer.Store`) answers for it, and a call given up is rolled back before its next
    statement or commit (:func:`~motley.server.store.deadlines.check_deadline`, on this engine's events).
    A connection lost in a PostgreSQL restart fails the call that was using it; SQLAlchemy then
    drops the pool, and the next call connects anew.

    Every call blocks until the database answers; the server makes them in a worker thread
    (:class:`motley.server.store.writer.Store`), never on its event loop. Errors are SQLAlchemy's
    (``sqlalchemy.exc.SQLAlchemyError``) or the driver's, but :class:`DuplicateMove` and :class:`StaleLease` (a
    write under a lease that is no longer the table's).

    ``clock``: seconds since the epoch of the leases and of the creation buckets (:class:`LeaseRows`); None (the
    server's): the database's clock, which every process of a site reads alike. Tests hand in a fake one.
    """

    def __init__(self, url: str = "sqlite:///motley.db", busy_timeout: float = BUSY_TIMEOUT,
                 statement_timeout: float = STATEMENT_TIMEOUT, clock: Callable[[], float] | None = None) -> None:
        """Raises:
            BadStoreUrl, MissingExtraError: see :func:`store_url`.
            StoreUnavailable: the database cannot be reached, or its schema not brought up to date.
        """
        parsed = store_url(url)
        self.clock = clock
        self.engine: Engine = create_engine(parsed, **_engine_options(parsed, busy_timeout, statement_timeout))
        if parsed.get_backend_name() == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        counters.watch_engine(self.engine)
        event.listen(self.engine, "before_cursor_execute", check_deadline)  # a call given up is rolled back
        event.listen(self.engine, "commit", check_deadline)
        try:
            migrations.upgrade(self.engine)
        except (exc.SQLAlchemyError, CommandError) as error:  # CommandError: a revision this motley does not know
            self.engine.dispose()
            shown = parsed.render_as_string(hide_password=True)
            raise StoreUnavailable(f"cannot open the store {shown}: {_driver_error(error)}") from None
        self._insert_move = insert(moves_t)
        self._fenced_insert_statement: Any = None

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
            finished=False, result=None, created_by=None if creator is None else creator.address[:64],
            owner_key=record.owner))

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

    def add_move(self, table_id: str, number: int, seat: int, move: str, actor: str, fence: Fence | None = None
                 ) -> None:
        """Append move ``number`` (1-based) to a table's log (under ``fence``: see :meth:`add_moves`)."""
        self.add_moves([(table_id, number, seat, move, actor)], None if fence is None else {table_id: fence})

    def add_moves(self, moves: Sequence[tuple[str, int, int, str, str]], fences: Mapping[str, Fence] | None = None
                  ) -> None:
        """Append moves ``(table_id, number, seat, move, actor)`` to their tables' logs in one transaction:
        all are stored, or (on an error) none. ``fences``: the lease each table's moves are made under (a table
        without one: no lease checked, as for the one process of its store), checked by the insert itself
        (:meth:`~motley.server.store.leases.LeaseRows.fence_holds`: a move is inserted only where its table's
        lease is its fence's; fewer rows inserted than given roll the transaction back).

        Raises:
            DuplicateMove: if a move's number is stored already for its table (the unique index
                ``ux_motley_moves_table_number``: another writer stored it); nothing is stored.
            StaleLease: if a table's lease is no longer its fence's; nothing is stored.
        """
        now = time.time()
        fences = fences or {}
        plain = [{"table_id": t, "number": n, "seat": s, "move": m, "actor": a, "at": now}
                 for t, n, s, m, a in moves if t not in fences]
        fenced = [{"table_id": t, "number": n, "seat": s, "move": m, "actor": a, "at": now,
                   "fence_owner": fences[t].owner, "fence_epoch": fences[t].epoch}
                  for t, n, s, m, a in moves if t in fences]
        try:
            with self.engine.begin() as conn:  # fixed statements: SQLAlchemy reuses their compiled forms
                if fenced:
                    stored = conn.execution_options(preserve_rowcount=True).execute(self._fenced_insert(), fenced)
                    if stored.rowcount != len(fenced):
                        raise self._stale(conn, {t: fences[t] for t, *_ in moves if t in fences})
                if plain:
                    conn.execute(self._insert_move, plain)
        except exc.IntegrityError as error:  # the moves table has no other constraint
            raise DuplicateMove(f"a move number is stored already: {_driver_error(error)}") from error

    def _fenced_insert(self) -> Any:
        """The insert of one move (bound parameters named as the columns) that happens only under its fence
        (:meth:`~motley.server.store.leases.LeaseRows.fence_holds`), made once where the store's clock is the
        database's (a clock handed in gives each statement its own time)."""
        if self.clock is None and self._fenced_insert_statement is not None:
            return self._fenced_insert_statement
        columns = ["table_id", "number", "seat", "move", "actor", "at"]
        row = select(*(bindparam(name, type_=moves_t.c[name].type) for name in columns))
        statement = insert(moves_t).from_select(columns, row.where(self.fence_holds(bindparam("table_id"))))
        if self.clock is None:
            self._fenced_insert_statement = statement
        return statement

    def _stale(self, conn: Any, fences: Mapping[str, Fence]) -> StaleLease:
        """The error of a fenced write that changed fewer rows than it was given: the first table whose lease is
        not its fence's (:meth:`~motley.server.store.leases.LeaseRows.stale_lease`), or one naming every table if
        their leases hold now (they did not when the write ran)."""
        return self.stale_lease(conn, fences) or StaleLease(
            f"tables {', '.join(sorted(fences))}: a lease was no longer its fence's when the write ran")

    def update_seats(self, table_id: str, seats: list[dict[str, Any]], fence: Fence | None = None) -> None:
        """Rewrite a table's seat list (a seat claimed from the lobby, a person connected for the first time, a
        hint counted, a seat declined), under ``fence`` (None: no lease checked).

        Raises:
            StaleLease: if the table's lease is no longer ``fence``'s; nothing is stored.
        """
        self._fenced_update(table_id, fence, seats=json.dumps(seats))

    def update_settings(self, table_id: str, settings: dict[str, Any], fence: Fence | None = None) -> None:
        """Rewrite a table's settings (a person pressed Start: the bots no longer wait for the others), under
        ``fence`` (None: no lease checked).

        Raises:
            StaleLease: if the table's lease is no longer ``fence``'s; nothing is stored.
        """
        self._fenced_update(table_id, fence, settings=json.dumps(settings))

    def finish(self, table_id: str, result: dict[str, Any], fence: Fence | None = None) -> None:
        """Mark a table finished with its result (or cancelled), under ``fence`` (None: no lease checked).

        Raises:
            StaleLease: if the table's lease is no longer ``fence``'s; nothing is stored.
        """
        self._fenced_update(table_id, fence, finished=True, result=json.dumps(result))

    def _fenced_update(self, table_id: str, fence: Fence | None, **values: Any) -> None:
        """Set ``values`` on table ``table_id``'s row, only while its lease is ``fence``'s (None: whatever the
        lease), in one statement (:meth:`~motley.server.store.leases.LeaseRows.fence_holds`).

        Raises:
            StaleLease: if the table's lease is no longer ``fence``'s; nothing is stored.
        """
        query = update(tables_t).where(tables_t.c.id == table_id).values(**values)
        with self.engine.begin() as conn:
            if fence is None:
                conn.execute(query)
                return
            changed = conn.execution_options(preserve_rowcount=True).execute(
                query.where(self.fence_holds(tables_t.c.id)), {"fence_owner": fence.owner, "fence_epoch": fence.epoch})
            stale = None if changed.rowcount else self.stale_lease(conn, {table_id: fence})
            if stale is not None:  # no row changed: the lease is lost (or the table is not stored: nothing to do)
                raise stale

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

    def owned(self, owner: str, limit: int = 100) -> list[str]:
        """The ids of the unfinished tables made with the browser key whose digest is ``owner``
        (:attr:`TableRecord.owner`), newest first, at most ``limit`` (on the index of migration 0007)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(tables_t.c.id).where(tables_t.c.owner_key == owner,
                                                            tables_t.c.finished.is_(False))
                                .order_by(tables_t.c.created.desc()).limit(limit)).all()
        return [str(row.id) for row in rows]

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
                           moved_at=float(moves[-1].at) if moves else None, owner=row.owner_key)

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()


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
    idle, interval, count = KEEPALIVES
    return {"pool_timeout": DEADLINE,
            "connect_args": {"options": settings, "connect_timeout": max(2, math.ceil(statement_timeout)),
                             "keepalives": 1, "keepalives_idle": idle, "keepalives_interval": interval,
                             "keepalives_count": count, "tcp_user_timeout": round(TCP_USER_TIMEOUT * 1000)}}


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
