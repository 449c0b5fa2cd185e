"""The site mode: a table being made is never an orphan to the other processes. A process's scan for orphans
(``Storage.unowned``: unfinished tables without a live lease) may run between the store's insert of a new table
and its creator's claim; the creator claims first, so the scan never takes a table its creator goes on driving
(two drivers of one table: moves refused as stored already, sockets closed 1012, under load many times a second).
The heartbeat renews the leases on a thread of its own, never behind the store's queue. Two services on one
database stand for two processes, on SQLite and PostgreSQL, their leases on one fake clock."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from motley.server.play.bodies import table_request
from motley.server.play.service import Service
from tests.server.site.test_server_site import PEOPLE, lease_clock, member, with_pair


def _scan_after_insert(a: Service, b: Service, taken: list[str]) -> None:
    """Make ``b``'s scan for orphans run (and claim what it finds) right after each table or rematch ``a``
    stores, in the store's thread, as another process's scan can."""
    storage, site, leases = a.store.storage, member(b).site, member(b).leases

    def scan() -> None:
        for table_id in leases.unowned():
            if leases.claim(table_id, site.owner, site.ttl):
                taken.append(table_id)

    def wrap(name: str) -> None:
        original = getattr(storage, name)

        def stored(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            scan()
            return result

        setattr(storage, name, stored)

    wrap("create_table")
    wrap("create_rematch")


def test_a_new_table_is_claimed_before_another_process_can_see_it_unowned(store_url: str) -> None:
    with_pair(store_url, _claimed_before_seen)


async def _claimed_before_seen(a: Service, b: Service) -> None:
    taken: list[str] = []
    _scan_after_insert(a, b, taken)
    live = await a.create(table_request(PEOPLE), seed=5)
    assert taken == []  # the other process found nothing to take
    assert live.id in member(a).held
    site = member(a).site
    assert member(b).leases.renew(site.owner, site.ttl, {live.id}) == set()  # the creator holds the lease



def test_the_heartbeat_does_not_wait_behind_the_stores_queue(store_url: str) -> None:
    with_pair(store_url, _heartbeat_while_store_busy)


async def _heartbeat_while_store_busy(a: Service, b: Service) -> None:
    """The store's thread busy for longer than the lease (a long queue of moves and loads under load): the
    heartbeat still renews at once, so the other process finds nothing to take over."""
    live = await a.create(table_request(PEOPLE), seed=8)
    ttl = member(a).site.ttl
    done = threading.Event()
    busy = asyncio.ensure_future(a.store.call(done.wait, 30))  # the store's thread busy until the end
    await asyncio.sleep(0.05)
    for _ in range(4):  # past the lease's end while the store's thread is still busy
        assert await asyncio.wait_for(member(a).heartbeat(), 2 * ttl / 3) == []
        lease_clock(a).advance(ttl / 3)
    assert await b.store.call(member(b).leases.unowned) == []
    assert live.id in member(a).held
    done.set()
    await busy
