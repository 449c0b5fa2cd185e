"""The rematch of a finished table (:class:`Rematches`, one per :class:`~motley.server.play.service.Service`): made
once whatever the requests, in this process or another over the store, offered to the old table's viewers, and an
offer made elsewhere read from the store so that the viewers here see it too."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Protocol

from motley.server.play.bodies import RematchSeat
from motley.server.play.live import LiveTable, Offer
from motley.server.play.membership import Membership
from motley.server.play.requests import rematch_plan, rematch_record
from motley.server.play.table import Table
from motley.server.store.records import SeatRefused, Settings
from motley.server.store.writer import Creator, Store, StoreError

log = logging.getLogger("motley.server")


class Maker(Protocol):
    """What the rematches need of the set of tables (:class:`~motley.server.play.service.Service`)."""

    store: Store
    defaults: Settings
    membership: Membership
    tables: dict[str, LiveTable]
    kept: OrderedDict[str, LiveTable]

    def live(self, table: Table) -> LiveTable:
        """A live table over ``table``, not started."""

    def seed(self) -> int | None:
        """A new table's seed (None: the table draws its own)."""

    async def make(self, live: LiveTable, client: str | None,
                   stored: Callable[[Creator | None], Awaitable[bool]]) -> bool:
        """Admit, claim and store the new table ``live``; returns whether this one was made."""

    def start(self, live: LiveTable) -> None:
        """Start the table's driver."""

    async def copy_of(self, table_id: str) -> LiveTable | None:
        """The table ``table_id``, driven here or a copy of another process's."""


class Rematches:
    """The rematches of the tables of ``service``."""

    def __init__(self, service: Maker) -> None:
        self.service = service

    async def rematch(self, live: LiveTable, token: str, seats: list[RematchSeat] | None = None, *,
                      client: str | None = None) -> LiveTable:
        """The rematch of a finished table, made once (asked again, by anyone, after a restart or at another copy
        of the table: the same one): a new table with the same game options and settings, and the seats asked
        for (``seats``: who sits where and the bots, :func:`~motley.server.play.requests.rematch_plan`; None: everyone
        where they sat, the same bots), stored with the offer on the old table's row
        (``TableStorage.create_rematch``, which makes one whatever the requests at once) and started (its bots
        wait for the people); every viewer of the old table is sent the offer as they read it
        (:meth:`LiveTable.announce_rematch`): nobody is moved to it. ``client``: the address asking, whose
        tables :attr:`Service.gate` limits as for :meth:`Service.create` (not asked when the rematch exists already).

        Raises:
            SeatRefused: for a ``token`` that is no seat's of the table, a match that is not over, ``seats``
                that differ from the offer already made, or a rematch made already that cannot be served now;
                nothing changes. MotleyError: naming what is wrong with ``seats``. TablesRefused: if ``client``
                may not create a table now. StoreError: if the store refused the new table.
        """
        asker = live.table.seat_of_token(token)
        if asker is None:
            raise SeatRefused("only a person at the table may ask for a rematch (this link's token is not valid)")
        if not live.table.state.is_terminal():
            raise SeatRefused("the match is not over")
        async with live.lock:
            offer = live.rematch
            if offer is None:  # made before a restart, or at another copy of this finished table
                stored = await self.service.store.call(self.service.store.storage.rematch, live.id)
                offer = None if stored is None else await self._restore_offer(live, stored)
            if offer is not None:
                return await self._offered(live, offer, seats)
            plan = rematch_plan(live.table, seats)
            record = rematch_record(live.table, self.service.defaults, plan, self.service.seed())
            new = self.service.live(Table(record))
            new.chat.new_table()
            made: dict[str, Any] = {}  # the offer stored: this one, or one made meanwhile at another copy

            async def store(creator: Creator | None) -> bool:
                storage = self.service.store.storage
                made.update(await self.service.store.call(storage.create_rematch, live.id, record,
                                                          {"offered_by": asker, "plan": plan}, creator))
                return bool(made["table"] == new.id)

            if not await self.service.make(new, client, store):  # another copy of this finished table made it
                return await self._offered(live, await self._restore_offer(live, made), seats)
            self.service.start(new)
            self.service.membership.publish("rematch", new.id)
            new.rematch_of = live
            live.announce_rematch(Offer(new.table, asker, plan, _new_seats(plan, len(live.table.seats))))
            return new

    async def stored_offer(self, live: LiveTable) -> None:
        """The rematch offered at the finished table ``live`` before it was loaded (before a restart, or at another
        server over the store), restored so that its viewers see it as they open the table; a rematch that cannot
        be read or served now is left to be found when someone asks for one (:meth:`rematch`)."""
        try:
            stored = await self.service.store.call(self.service.store.storage.rematch, live.id)
            if stored is not None:
                await self._restore_offer(live, stored)
        except (StoreError, SeatRefused) as exc:
            log.warning("the rematch offered at table %s is not shown: %s", live.id, exc)

    async def _offered(self, live: LiveTable, offer: Offer, seats: list[RematchSeat] | None) -> LiveTable:
        """The rematch ``offer`` made at ``live``, asked for again (with ``seats``, or None).

        Raises:
            SeatRefused: for ``seats`` other than the offer's, or a rematch table that cannot be served.
            StoreError: if the store cannot be read.
        """
        if seats is not None and rematch_plan(live.table, seats) != offer.plan:
            raise SeatRefused("a rematch with other seats has been offered already; accept or decline it")
        known = await self.service.copy_of(offer.table.id)
        if known is None:
            raise SeatRefused("the rematch of this table was made, but it cannot be served now")
        return known

    async def _restore_offer(self, live: LiveTable, stored: dict[str, Any]) -> Offer:
        """The offer stored for ``live`` (``{"table", "offered_by", "plan"}``: ``TableStorage.rematch``) with
        its table, announced to ``live``'s viewers; its seats declined since are those whose invitation became
        an open seat.

        Raises:
            SeatRefused: if the rematch table cannot be served. StoreError: if the store cannot be read.
        """
        new = await self.service.copy_of(str(stored["table"]))
        if new is None:
            raise SeatRefused("the rematch of this table was made, but it cannot be served now")
        plan: list[dict[str, Any]] = stored["plan"]
        old = live.table.seats
        declined = [i for i, entry in enumerate(plan) if entry["kind"] == "human" and not old[entry["from"]].open
                    and new.table.seats[i].open]
        offer = Offer(new.table, int(stored["offered_by"]), plan, _new_seats(plan, len(old)), declined)
        if new.rematch_of is None:
            new.rematch_of = live
        live.announce_rematch(offer)
        return offer

    async def decline(self, live: LiveTable, token: str) -> int:
        """The person whose seat link at ``live`` has ``token`` declines the seat (a rematch they were offered):
        it becomes an open seat (:meth:`LiveTable.decline`), stored, and then every viewer of both tables is told
        (:meth:`LiveTable.announce_decline`); returns the seat.

        Raises:
            SeatRefused: for a token that is no seat's of this table, or a seat that cannot be declined (its
                person has joined, the match is over); nothing changes. StoreError: if the store refused the
                seats (the seat is as it was, nobody told).
        """
        seat = live.table.seat_of_token(token)
        if seat is None:
            raise SeatRefused("this link's token is not a seat of this table")
        before = replace(live.table.seats[seat])
        live.decline(seat)
        try:
            await live.store_seats()
        except StoreError:
            live.table.seats[seat] = before
            raise
        live.announce_decline(seat)
        return seat


    async def offers(self) -> int:
        """The finished tables in memory that somebody watches and that have no rematch yet read
        their rematch from the store, so that an offer made through another process (at its copy of the table)
        reaches the viewers here too (:meth:`stored_offer`); returns how many got one. One store read per such
        table, at every scan (the membership's scan)."""
        watched = [live for live in [*self.service.tables.values(), *self.service.kept.values()]
                   if live.rematch is None and live.viewers() and live.table.state.is_terminal()]
        for live in watched:
            await self.stored_offer(live)
        return sum(live.rematch is not None for live in watched)


def _new_seats(plan: list[dict[str, Any]], seats: int) -> list[int | None]:
    """Each of the old table's ``seats`` seats' seat at the rematch of ``plan`` (None: not a person seat there)."""
    moved = {entry["from"]: i for i, entry in enumerate(plan) if entry["kind"] == "human"}
    return [moved.get(i) for i in range(seats)]
