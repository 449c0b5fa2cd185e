"""This process's membership of a site of several processes over one store (docs/scaling.md):
:class:`SiteMembership`, the site's :class:`~motley.server.play.membership.Membership`.

An unfinished table is driven only while this process holds its lease (claimed when the table is made or loaded,
renewed by the heartbeat, :meth:`SiteMembership.heartbeat`); the scan takes over the tables whose owner died
(:meth:`SiteMembership.take_over`). Every write of a table driven here carries its lease (a fencing token,
:class:`~motley.server.store.leases.Fence`: this process's owner id and the epoch its claim returned), and the store
refuses it in the write's own transaction once the lease is no longer the table's; a table whose lease is lost is
dropped, at the heartbeat or at once when the store refuses one of its writes
(:class:`~motley.server.store.writer.LeaseLost`, through the table's
:class:`~motley.server.site.fencing.FencedLog`). With news
(:func:`~motley.server.site.news.open_news`) the other processes' lobby lines are kept from news
(:class:`~motley.server.site.lobby.Lobby`) and handed-over leases are heard at once; without, the lobby reads the
store at each listing and orphans are found by the scan alone. A drain (SIGTERM, :meth:`SiteMembership.drain`) hands
every table over.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from motley.core import MotleyError
from motley.server.play import replays
from motley.server.play.live import TableLog
from motley.server.play.membership import TableSet
from motley.server.play.service import OwnedElsewhere
from motley.server.site.fencing import FencedLog
from motley.server.site.leases import Leases, Site
from motley.server.site.lobby import LEASES, TOPIC, Lobby, live_line
from motley.server.site.news import News, NewsUnavailable, Subscription
from motley.server.store.leases import Fence
from motley.server.store.writer import Creator, LeaseLost, StoreError

__all__ = ["DRAIN_NEWS_WAIT", "OUTBOX", "SiteMembership"]

log = logging.getLogger("motley.server")

#: News messages waiting to be published; past that, new ones are dropped (the other processes read their lobby
#: from the store again every :data:`~motley.server.site.lobby.REFRESH` seconds).
OUTBOX = 1000
#: Seconds a drain (:meth:`SiteMembership.drain`) waits to tell the others of the tables it hands over.
DRAIN_NEWS_WAIT = 2.0
#: What a draining process answers a move at a table it hands over.
HANDING_OVER = "this server process is stopping; the table moves to another one"
#: What a copy of a table this process no longer drives answers a write (its lease was lost, or claimed again for
#: a fresh copy).
NOT_DRIVEN = "this server process no longer drives this table"


class SiteMembership:
    """This process's part in a site (``site``: its owner id, lease length, heartbeat and scan, address and
    secret) over the set of tables it serves (:meth:`serve`), whose store must keep leases (:class:`Leases`:
    :class:`~motley.server.store.storage.Storage`); ``news``: the site's news channel (started by :meth:`listen`,
    closed by :meth:`close`), or None. Its clocks are the set of tables' (:attr:`TableSet.clock`): the heartbeat's
    self-fencing and the lobby's freshness."""

    def __init__(self, site: Site, news: News | None = None) -> None:
        self.site = site
        self.news = news
        self.owner: str | None = site.owner
        self.secret: bytes | None = site.secret
        #: Set by :meth:`drain`: no table is made, claimed or taken over here any more.
        self.draining = False
        #: The tables whose lease this process holds, as far as it knows.
        self.held: set[str] = set()
        #: The epoch of this process's claim of each table of :attr:`held` (the fence of its writes).
        self.epochs: dict[str, int] = {}
        #: The heartbeat's own thread: a renewal never waits behind the store thread's queue of moves and loads,
        #: which under load can be longer than the lease (then every table would be lost).
        self.beats = ThreadPoolExecutor(max_workers=1, thread_name_prefix="motley-leases")
        self._tables: TableSet | None = None
        self._leases: Leases | None = None
        self._outbox: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(maxsize=OUTBOX)
        self._listening: list[asyncio.Task[None]] = []
        #: The version last published (``progress``) of each table driven here.
        self._published: dict[str, int] = {}
        self.lobby = Lobby(self._now)
        #: The clock's time of the last heartbeat the store accepted (self-fencing), set by :meth:`serve`.
        self.renewed = 0.0
        #: The renewal under way (:meth:`_renew`) and when it began; None: none is.
        self._renewal: tuple[asyncio.Future[set[str]], float] | None = None

    # ---- what the set of tables asks (play.membership.Membership) ----------------------------------------------
    @property
    def tables(self) -> TableSet:
        """The set of tables served (:meth:`serve`)."""
        assert self._tables is not None, "SiteMembership.serve was not called"
        return self._tables

    @property
    def leases(self) -> Leases:
        """The lease calls of the set of tables' storage."""
        assert self._leases is not None, "SiteMembership.serve was not called"
        return self._leases

    def _now(self) -> float:
        return self.tables.clock()

    def serve(self, tables: TableSet) -> None:
        """Serve ``tables``.

        Raises:
            MotleyError: if their storage keeps no leases.
        """
        storage = tables.store.storage
        if not isinstance(storage, Leases):
            raise MotleyError("a site of several processes needs a store with leases (Storage)")
        self._tables, self._leases = tables, storage
        self.renewed = tables.clock()

    def log(self, table_id: str) -> TableLog:
        """The table's :class:`FencedLog`, its writes fenced by :meth:`fence`."""
        return FencedLog(self.tables.store, table_id, self._lost, self.publish, self.fence)

    def fence(self, log: FencedLog) -> Fence | None:
        """The lease a write through ``log`` carries: this process's owner id and the epoch of its claim, if
        ``log`` is the log of the copy of its table driven here; None for a table this process does not hold (a
        finished table: no lease to carry).

        Raises:
            LeaseLost: for another copy of a table held here (an older one, replaced when the table was claimed
                again): its write is refused unstored.
        """
        table_id = log.table_id
        if table_id not in self.held:
            return None
        live = self.tables.tables.get(table_id)
        if live is None or live.store is not log:
            raise LeaseLost(f"table {table_id}: {NOT_DRIVEN} (another copy of it is driven here)")
        return Fence(self.site.owner, self.epochs[table_id])

    async def claim(self, table_id: str) -> bool:
        """Claim the lease of ``table_id`` for this process (False: another process holds it, or this one drains).

        Raises:
            StoreError: if the store refused the claim.
        """
        if self.draining:
            return False
        store = self.tables.store
        epoch = await store.call(self.leases.claim, table_id, self.site.owner, self.site.ttl)
        if epoch is None:
            return False
        self.held.add(table_id)
        self.epochs[table_id] = epoch
        return True

    async def unclaim(self, table_id: str) -> None:
        """Give up the lease claimed for a table that was not made after all (a store that does not answer leaves
        it to expire)."""
        self.held.discard(table_id)
        self.epochs.pop(table_id, None)
        with contextlib.suppress(StoreError):
            await self.tables.store.call(self.leases.release, table_id, self.site.owner)

    def release(self, table_id: str) -> None:
        """Give up this process's lease of ``table_id`` (nothing if it holds none), written without waiting: the
        table is over here."""
        self._published.pop(table_id, None)
        self.epochs.pop(table_id, None)
        if table_id in self.held:
            self.held.discard(table_id)
            self.tables.store.later(self.leases.release, table_id, self.site.owner)

    def creator(self, client: str | None, quota: int | None, per_minute: float | None, burst: int
                ) -> Creator | None:
        """``client`` as the creator of a table, stored with it and held to its quota of unfinished tables and its
        creation rate kept in the store, so that both are the same from every process (docs/scaling.md); None
        without a client."""
        return None if client is None else Creator(client, quota, per_minute, burst)

    async def process_of(self, table_id: str) -> tuple[str, str] | None:
        """The owner id and address of the process driving ``table_id`` (None: none known).

        Raises:
            StoreError: if the store cannot be read.
        """
        return await self.tables.store.call(self.leases.process_of, table_id)

    async def resume(self) -> int:
        """The tables no process owns (:meth:`take_over`)."""
        return await self.take_over()

    def drop(self, table_id: str, reason: str) -> None:
        """Stop driving ``table_id`` here (its lease is lost, or this process stops): it is no longer held (its
        lease is not renewed), the copy driven here refuses every write from now on (a request that had it in
        hand writes nothing), and the set of tables drops it (:meth:`TableSet.drop`)."""
        self.held.discard(table_id)
        self.epochs.pop(table_id, None)
        self._published.pop(table_id, None)
        live = self.tables.tables.get(table_id)
        if live is not None and isinstance(live.store, FencedLog) and live.store.refusing is None:
            live.store.refusing = NOT_DRIVEN
        self.tables.drop(table_id, reason)

    def _lost(self, table_id: str) -> None:
        """A write of ``table_id`` was refused: its lease is another process's now (or expired), or its move
        number was stored already. Drop the table, then load it again from the store if this process still (or
        again) owns it: claimed anew, so with a new epoch."""
        if table_id in self.held:
            self.drop(table_id, "the store refused a write: another process of the site holds the table's lease, "
                      "or it expired")

        async def reload() -> None:
            with contextlib.suppress(OwnedElsewhere, StoreError):
                await self.tables.get(table_id)

        asyncio.get_running_loop().create_task(reload())

    # ---- leases --------------------------------------------------------------------------------------------------
    async def heartbeat(self) -> list[str]:
        """Renew this process's leases; drop (:meth:`drop`) the tables whose lease another process took, and
        every table if no renewal succeeded for ``ttl`` minus a beat (self-fencing: the store may be cut off
        while others take them over; a renewal that does not answer within half a beat counts as failed, so a
        silent store fences too). Returns the tables dropped."""
        clock = self.tables.clock
        try:
            lost = await self._renew(set(self.held))
        except StoreError as exc:
            if clock() - self.renewed < self.site.ttl - self.site.every:
                return []
            log.error("leases not renewed for %.1f s (%s): no table is driven here until they are",
                      clock() - self.renewed, exc)
            lost = set(self.held)
        for table_id in lost:
            self.drop(table_id, "another process of the site drives this table now")
        return sorted(lost)

    async def _renew(self, held: set[str]) -> set[str]:
        """``Leases.renew`` of this process's leases on the heartbeat's own thread (or the renewal still under way,
        if the last one has not come back), waited for at most half a beat; returns those of ``held`` lost. A
        renewal that comes back later still counts (:meth:`_renewed`).

        Raises:
            StoreError: whatever the store raised, wrapped (the original is its ``__cause__``), or the store did not
                answer within half a beat.
        """
        if self._renewal is None:
            renew = functools.partial(self.leases.renew, self.site.owner, self.site.ttl, held)
            job = asyncio.get_running_loop().run_in_executor(self.beats, renew)
            self._renewal = (job, self.tables.clock())
            job.add_done_callback(self._renewed)
        job, _ = self._renewal
        seconds = self.site.every / 2
        try:
            async with asyncio.timeout(seconds):  # not wait_for: on 3.11 it can swallow a cancellation
                return await asyncio.shield(job)
        except TimeoutError:
            raise StoreError(f"renew failed: the store did not answer within {seconds:g} s") from None
        except Exception as exc:
            cause = getattr(exc, "orig", None) or exc  # the driver's error in one line, as Store.call says it
            raise StoreError(f"renew failed: {type(cause).__name__}: {str(cause).partition(chr(10))[0]}") from exc

    def _renewed(self, job: asyncio.Future[set[str]]) -> None:
        """On the loop, when a renewal comes back (in time or late): if it succeeded, the leases run from when it
        began (:attr:`renewed`; the store's statement came after) and the tables it reports lost are dropped."""
        assert self._renewal is not None and self._renewal[0] is job
        began = self._renewal[1]
        self._renewal = None
        if job.cancelled() or job.exception() is not None:
            return
        self.renewed = max(self.renewed, began)
        for table_id in job.result():
            self.drop(table_id, "another process of the site drives this table now")

    async def take_over(self) -> int:
        """Claim and rebuild (:meth:`TableSet.get`) every unfinished table no process owns (its owner died or let it
        go), timers carried over as after a restart; returns how many this process took. A table another process
        claims first is left to it.

        Raises:
            StoreError: if the store cannot be read.
        """
        if self.draining:
            return 0
        taken = 0
        tables = self.tables
        for table_id in await tables.store.call(self.leases.unowned):
            if table_id in tables.tables:
                continue
            try:
                live = await tables.get(table_id)
            except OwnedElsewhere:
                continue
            if live is not None and table_id in tables.tables:
                log.info("table %s taken over", table_id)
                taken += 1
        return taken

    async def run(self) -> None:
        """The background work until cancelled: register this process's address, follow the news
        (:meth:`listen`), :meth:`heartbeat` every ``Site.every`` seconds, and :meth:`take_over` and the rematches
        offered elsewhere (:meth:`TableSet.offers`) every ``Site.scan`` seconds (after a random part of it, so
        that the survivors of a dead process share its tables)."""
        if self.site.address is not None:
            await self.tables.store.call(self.leases.register, self.site.owner, self.site.address)
        listening = asyncio.create_task(self.listen(), name="motley-news-start")  # the leases are kept meanwhile
        listening.add_done_callback(lambda task: None if task.cancelled() or task.exception() is None
                                    else log.error("news not followed: %s", task.exception()))
        try:
            await self._keep_leases()
        finally:
            listening.cancel()

    async def _keep_leases(self) -> None:
        """:meth:`run`'s loop: heartbeats (and ``progress`` news after each) and scans, until cancelled."""
        site, clock = self.site, self.tables.clock
        next_beat = next_scan = clock()
        while True:
            await asyncio.sleep(min(site.scan, site.every) * random.uniform(0.5, 1.0))
            try:
                if clock() >= next_beat:
                    next_beat = clock() + site.every
                    await self.heartbeat()
                    self.announce_progress()
                if clock() >= next_scan:
                    next_scan = clock() + site.scan
                    await self.take_over()
                    await self.tables.offers()
            except Exception:  # the loop never stops for one bad table or a store that does not answer
                log.exception("the site's leases could not be kept")

    async def drain(self) -> list[str]:
        """Hand this process's tables over before it stops (SIGTERM): make, claim or take over no table any more;
        at each table it drives, wait for the move in flight (the table's lock), then refuse every later move
        unstored (``not_stored``: the page makes it again at the new owner) and stop the driver; give every lease
        up, tell the other processes which tables they are (news :data:`LEASES`: they claim them at once instead of
        after the lease's TTL), then close the tables' sockets with 1012 so that the pages reconnect
        (:meth:`drop`). Returns the tables handed over. No acknowledged move is lost (each was stored before it was
        shown) and none is made twice (later ones are refused here; the store's move numbers fence the rest)."""
        self.draining = True
        tables = self.tables
        handed = [live for table_id, live in list(tables.tables.items()) if table_id in self.held]
        for live in handed:
            async with live.lock:
                if isinstance(live.store, FencedLog):
                    live.store.refusing = HANDING_OVER
                live.closed = True
                live.changed.set()
            task = tables.tasks.pop(live.id, None)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        ids = sorted(self.held)
        try:
            await tables.store.call(self.leases.release, None, self.site.owner)
        except StoreError as exc:
            log.warning("leases not released (they expire by themselves): %s", exc)
        self.held.clear()
        if self.news is not None and ids:
            try:
                await asyncio.wait_for(self.news.publish(LEASES, {"owner": self.site.owner, "tables": ids[:100]}),
                                       DRAIN_NEWS_WAIT)
            except (NewsUnavailable, TimeoutError) as exc:
                log.warning("handed-over tables not announced (the others' scan finds them): %s", exc)
        for live in handed:
            self.drop(live.id, "this server process stops; another one drives the table")
        log.info("%d tables handed over", len(ids))
        return ids

    async def close(self) -> None:
        """Stop the heartbeat's thread and the news, and give up this process's leases."""
        self.beats.shutdown(wait=False)  # a renewal stuck on a silent store is not waited for
        for task in self._listening:
            task.cancel()
        if self.news is not None:
            await self.news.close()
        store = self.tables.store
        try:
            await store.call(self.leases.release, None, self.site.owner)
            await store.call(self.leases.unregister, self.site.owner)
        except StoreError as exc:
            log.warning("leases not released (they expire by themselves): %s", exc)

    # ---- news and the lobby --------------------------------------------------------------------------------------
    async def listen(self) -> None:
        """Start following the site's :attr:`news` (nothing without it): subscribe to the lobby's lines and to
        handed-over leases, start the tasks that apply what comes and publish this process's news, and once the
        channel listens, read the lobby from the store. A channel that cannot be started is tried again until it
        is (this waits meanwhile); until the lobby is read, each listing reads the store."""
        if self.news is None or self._listening:
            return
        lobby, leases = self.news.subscribe(TOPIC), self.news.subscribe(LEASES)
        self._listening = [asyncio.create_task(self._follow_lobby(lobby), name="motley-lobby-news"),
                           asyncio.create_task(self._follow_leases(leases), name="motley-lease-news"),
                           asyncio.create_task(self._send_news(), name="motley-news-out")]
        while True:
            try:
                await self.news.start()
                break
            except NewsUnavailable as exc:
                log.warning("%s: the lobby reads the store until news comes", exc)
        with contextlib.suppress(StoreError):
            await self._reload_lobby()

    async def _follow_lobby(self, subscription: Subscription) -> None:
        """Apply each lobby message to :attr:`lobby`; a gap makes it read the store again."""
        async for message in subscription:
            if message.gap:
                self.lobby.gap()
            else:
                self.lobby.apply(message.payload)

    async def _follow_leases(self, subscription: Subscription) -> None:
        """Take over at once the tables another process hands over (:meth:`drain`), after a random moment under
        0.05 s so that several survivors share them; a gap (the message may be lost) looks once too."""
        async for message in subscription:
            payload = message.payload if isinstance(message.payload, dict) else {}
            if payload.get("owner") == self.site.owner or self.draining:
                continue
            await asyncio.sleep(random.uniform(0.0, 0.05))
            try:
                taken = await self.take_over()
            except StoreError as exc:
                log.warning("handed-over tables not taken yet (the scan tries again): %s", exc)
                continue
            log.info("%d tables handed over by another process taken", taken)

    def _announce(self, payload: dict[str, Any]) -> None:
        """Queue ``payload`` for the lobby's news topic (nothing without :attr:`news`; dropped when
        :data:`OUTBOX` messages wait already: the others' lobbies read the store again in time)."""
        if self.news is None:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self._outbox.put_nowait((TOPIC, payload))

    def publish(self, event: str, table_id: str) -> None:
        """Tell the site's lobbies of ``event`` at the table ``table_id`` driven here: its line (:func:`live_line`)
        for ``made``, ``rematch``, ``taken``, ``seats``; its id for ``finished`` and ``cancelled``. A table whose
        match is over, or that was closed, has no line: its seats written after the end (a person opening the
        finished table) would list it again as unfinished in every other lobby until the next store read."""
        if event in ("finished", "cancelled"):
            self._published.pop(table_id, None)
            self._announce({"event": event, "table": table_id})
            return
        live = self.tables.tables.get(table_id)
        if live is not None and self.news is not None and not live.closed and not live.table.state.is_terminal():
            self._published[table_id] = live.table.version
            self._announce({"event": event, "line": live_line(live)})

    def announce_progress(self) -> None:
        """Tell the site's lobbies the version and stage of every table driven here that moved since the last
        time (``progress`` messages of at most 100 tables each), so that the lines stay as current as the
        heartbeat without a message per move."""
        moved: dict[str, list[Any]] = {}
        for table_id, live in self.tables.tables.items():
            version = live.table.version
            if self._published.get(table_id, version) != version and not live.table.state.is_terminal():
                self._published[table_id] = version
                moved[table_id] = [version, replays.stage_of(live.table.state, version)]
                if len(moved) == 100:
                    self._announce({"event": "progress", "tables": moved})
                    moved = {}
        if moved:
            self._announce({"event": "progress", "tables": moved})

    async def _send_news(self) -> None:
        """Publish the queued news in order; one that cannot be sent is logged and dropped."""
        assert self.news is not None
        while True:
            topic, payload = await self._outbox.get()
            try:
                await self.news.publish(topic, payload)
            except (NewsUnavailable, ValueError) as exc:
                log.warning("news not published (%s): %s", topic, exc)

    async def listed(self) -> list[dict[str, Any]]:
        """The lobby lines (:func:`~motley.server.site.lobby.live_line`'s keys and ``age``) of the unfinished tables
        that other processes drive. With :attr:`news` they are kept from news (:class:`Lobby`: no store read, but
        at start, after a news gap and every :data:`~motley.server.site.lobby.REFRESH` seconds); without, read from
        the store (``Storage.running_headers``) each time.

        Raises:
            StoreError: if the store cannot be read.
        """
        tables = self.tables
        if self.news is None:
            fresh = Lobby(tables.clock)
            fresh.loaded(await tables.store.call(self.leases.running_headers))
            return fresh.listed(tables.wall(), tables.tables)
        if self.lobby.stale:
            await self._reload_lobby()
        return self.lobby.listed(tables.wall(), tables.tables)

    async def finished_headers(self) -> list[dict[str, Any]]:
        """The newest finished tables' headers: without news, read at each listing; with news, read again only
        once a table ended (a ``finished`` message) or news was lost.

        Raises:
            StoreError: if the store cannot be read.
        """
        store = self.tables.store
        if self.news is None:
            return await store.call(store.storage.finished_headers)
        cached, ends = self.lobby.finished, self.lobby.ends
        headers = cached if cached is not None and not self.lobby.stale else await store.call(
            store.storage.finished_headers)
        if self.lobby.ends == ends:  # no table ended while it was read
            self.lobby.finished = headers
        return headers

    async def _reload_lobby(self) -> None:
        """Read the lobby's lines from the store again (:meth:`Lobby.loading`, :meth:`Lobby.loaded`).

        Raises:
            StoreError: if the store cannot be read (the lines stay stale).
        """
        self.lobby.loading()
        try:
            rows = await self.tables.store.call(self.leases.running_headers)
        except BaseException:
            self.lobby.failed()
            raise
        self.lobby.loaded(rows)
