"""Which process of a site owns which table: the lease rows of the store (``motley_leases``, migration 0004) and
the processes' addresses (``motley_processes``, migration 0005), docs/scaling.md.

Every claim of a table's lease gives it a new epoch (migration 0009): the claim's owner and epoch, a
:class:`Fence`, are the fencing token that every write changing the table carries, and the store refuses the
write (:class:`StaleLease`) in the write's own statement once the lease row no longer names them or has expired
(:meth:`LeaseRows.fence_holds`), so that a process that lost a table (paused past its lease, cut off) stores
nothing of it any more.

:class:`LeaseRows` is the part of :class:`~motley.server.store.storage.Storage` that keeps them; its times are the
database's clock (every process reads the same), or a clock handed in (tests: a fake one, so a lease expires
without waiting).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import socket
from collections.abc import Callable, Collection, Mapping
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Engine,
    Float,
    String,
    any_,
    bindparam,
    delete,
    exists,
    extract,
    func,
    literal,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from motley.server.store.schema import leases_t, processes_t, tables_t

__all__ = ["Fence", "Lease", "LeaseRows", "StaleLease", "new_owner"]


class Lease(NamedTuple):
    """A table's current lease: the owner's id (:func:`new_owner`), its ``holder`` (``"host/pid"``), when it
    expires (seconds since the epoch, the database's clock) and its ``epoch`` (one more at every claim)."""

    table: str
    owner: str
    holder: str
    expires_at: float
    epoch: int = 0


class Fence(NamedTuple):
    """The lease a write is made under (a fencing token): its ``owner`` and the ``epoch`` its claim returned
    (:meth:`LeaseRows.claim`). Owner ids are drawn afresh by each process, and a lease row's epoch grows at each
    claim, so the pair names one claim of one process."""

    owner: str
    epoch: int


class StaleLease(Exception):
    """A write refused because the lease it carries (:class:`Fence`) is no longer the table's: another claim came
    after it (another process took the table over), or it expired; nothing of the write was stored."""


def new_owner() -> str:
    """A fresh owner id for one server process's leases: 16 random hex digits (unique without coordination; a
    restarted process draws a new one, so it never mistakes its predecessor's leases for its own)."""
    return secrets.token_hex(8)


class LeaseRows:
    """The lease calls of a store over ``engine`` (a mixin of :class:`~motley.server.store.storage.Storage`).
    ``clock``: seconds since the epoch of lease and bucket times (None: the database's own clock)."""

    engine: Engine
    clock: Callable[[], float] | None = None

    def claim(self, table_id: str, owner: str, ttl: float) -> int | None:
        """Make ``owner`` the owner of table ``table_id`` for ``ttl`` seconds, only if the table has no lease, its
        lease has expired, or ``owner`` holds it already (then it is extended): one statement (an upsert whose
        update is conditional), so of processes claiming one table at once exactly one gets it. On PostgreSQL the
        lease row is locked ``FOR UPDATE`` first, so a claim waits for the writes in flight under the lease it
        replaces (:meth:`fence_holds`). The table need
        not be stored. Returns the lease's new epoch (1 for a new lease row, one more than before at every
        claim, the owner's own included: a process that claims a table again drives a new copy of it, and the
        old copy's writes must be refused), the fencing token of the table's writes (:class:`Fence`); None if
        ``owner`` does not own the table.

        Raises:
            ValueError: for an empty or over-long table id or owner, or a ``ttl`` that is not a positive number
                of seconds; nothing is changed.
        """
        _check_lease(owner, ttl, table_id)
        now = self._now()
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(leases_t).values(table_id=table_id, owner=owner, holder=_holder(),
                                                 expires_at=now + ttl, epoch=1)
        upsert = upsert.on_conflict_do_update(
            index_elements=[leases_t.c.table_id],
            set_={"owner": upsert.excluded.owner, "holder": upsert.excluded.holder,
                  "expires_at": upsert.excluded.expires_at, "epoch": leases_t.c.epoch + 1},
            where=or_(leases_t.c.expires_at <= now, leases_t.c.owner == owner))
        with self.engine.begin() as conn:
            if self.engine.dialect.name == "postgresql":  # wait for the writes in flight under the lease (fence_holds)
                conn.execute(select(leases_t.c.table_id).where(leases_t.c.table_id == table_id).with_for_update())
            row = conn.execute(upsert.returning(leases_t.c.epoch)).first()
        return None if row is None else int(row.epoch)

    def fence_holds(self, table: Any) -> Any:
        """The condition, inside a write's own statement, that the lease of the table named by ``table`` (a column
        or a bound parameter) still names the write's fence (bound parameters ``fence_owner`` and ``fence_epoch``)
        and has not expired (the store's clock, :meth:`_now`): ``EXISTS (SELECT ... FROM motley_leases ... FOR
        KEY SHARE)``. On PostgreSQL the lease row stays key-share-locked to the commit, so a claim of the table
        (which locks the row ``FOR UPDATE`` first, :meth:`claim`) waits for the write, and the new owner, which
        reads the table after its claim, reads the write too; a claim committed first makes the condition false
        (the row is read again after the wait). The heartbeat's renewal (an update of the expiry alone) does not
        conflict with that lock, so it never waits for the moves in flight (a renewal that waited for every
        table's writes in turn was starved under load, and the process fenced itself off). On SQLite the write
        holds the database's write lock from its first statement to the commit, with the same effect. One
        statement, not a check before the write: a fenced move costs no more round trips than an unfenced one
        (the check as a statement of its own cost a PostgreSQL move about 1.7 times the server's CPU)."""
        held = (select(literal(1)).where(leases_t.c.table_id == table, leases_t.c.owner == bindparam("fence_owner"),
                                         leases_t.c.epoch == bindparam("fence_epoch"),
                                         leases_t.c.expires_at > self._now())
                .with_for_update(read=True, key_share=True))
        return exists(held)

    def stale_lease(self, conn: Any, fences: Mapping[str, Fence]) -> StaleLease | None:
        """In the transaction of ``conn``, after a fenced write stored fewer rows than it was given
        (:meth:`fence_holds`): the error naming the first table of ``fences`` whose lease is no longer its
        fence's, or None if every one still holds."""
        rows = conn.execute(select(leases_t.c.table_id, leases_t.c.owner, leases_t.c.epoch)
                            .where(self._one_of(leases_t.c.table_id, fences), leases_t.c.expires_at > self._now()))
        held = {str(r.table_id): Fence(str(r.owner), int(r.epoch)) for r in rows}
        for table_id in sorted(fences):
            fence = fences[table_id]
            if held.get(table_id) != fence:
                return StaleLease(f"table {table_id}: the lease of owner {fence.owner} at epoch {fence.epoch} is no "
                                  "longer the table's (another process claimed it, or it expired)")
        return None

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
                                              float(row.expires_at), int(row.epoch))

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
        """Now in seconds since the epoch, as SQL: the database's clock, so every process reads the same one and
        leases do not depend on the machines' clocks agreeing; or :attr:`clock`'s reading, where one was handed
        in."""
        if self.clock is not None:
            return literal(self.clock(), Float)
        if self.engine.dialect.name == "postgresql":
            return extract("epoch", func.clock_timestamp()).cast(Float)
        return literal_column("((julianday('now') - 2440587.5) * 86400.0)", Float)


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
