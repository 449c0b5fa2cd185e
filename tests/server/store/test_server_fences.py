"""Fencing tokens (docs/scaling.md): every write that changes a table carries the writer's lease (``Fence``: its
owner id and the epoch its claim returned) and the store refuses it, in the write's own transaction, once the lease
row no longer names that owner and epoch or has expired (``StaleLease``; nothing stored). Every kind of write
(moves, seats: joins, declines, hint counts, first connections; settings; the finish) on SQLite and PostgreSQL;
two stores on one database stand for two processes, their leases on one fake clock."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import event

from motley.server.store.storage import Fence, StaleLease, Storage, TableRecord, new_owner
from tests.support import FakeClock

#: A lease that cannot expire during a test, and one the test moves the clock past.
LONG, SHORT = 60.0, 0.3

#: Each kind of write of a table, made by ``storage`` under ``fence``, as the server makes it.
WRITES: dict[str, Callable[[Storage, Fence], None]] = {
    "move": lambda s, f: s.add_moves([("t1", 1, 0, "m1", "seat")], {"t1": f}),
    "seats": lambda s, f: s.update_seats("t1", [{"name": "joined", "kind": "human"}], f),
    "settings": lambda s, f: s.update_settings("t1", {"pace": 9.0}, f),
    "finish": lambda s, f: s.finish("t1", {"cancelled": True, "reason": "fenced"}, f),
}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def two(store_url: str, clock: FakeClock) -> Iterator[tuple[Storage, Storage]]:
    """Two stores on one database and one clock, with the table ``t1`` stored."""
    a, b = Storage(store_url, clock=clock), Storage(store_url, clock=clock)
    a.create_table(TableRecord(id="t1", game="fool", params={}, seed=1, seats=[{"name": "", "kind": "human"}],
                               settings={}, created=1.0))
    yield a, b
    a.close()
    b.close()


def unchanged(storage: Storage) -> Any:
    """What the writes of :data:`WRITES` change: the table's moves, seats, settings and end."""
    record = storage.load("t1")
    assert record is not None
    return record.moves, record.seats, record.settings, record.finished, record.result


def test_a_claim_returns_a_growing_epoch_and_a_refused_claim_none(two: tuple[Storage, Storage],
                                                                   clock: FakeClock) -> None:
    a, b = two
    first, second = new_owner(), new_owner()
    assert a.claim("t1", first, SHORT) == 1
    assert a.claim("t1", first, SHORT) == 2  # claimed again by its owner: a new copy, a new epoch
    assert b.claim("t1", second, LONG) is None
    clock.advance(SHORT + 0.01)
    assert b.claim("t1", second, LONG) == 3  # taken over
    lease = a.owner_of("t1")
    assert lease is not None and (lease.owner, lease.epoch) == (second, 3)


@pytest.mark.parametrize("kind", sorted(WRITES))
def test_a_write_under_the_tables_lease_is_stored(two: tuple[Storage, Storage], kind: str) -> None:
    a, _ = two
    owner = new_owner()
    epoch = a.claim("t1", owner, LONG)
    assert epoch is not None
    before = unchanged(a)
    WRITES[kind](a, Fence(owner, epoch))
    assert unchanged(a) != before


@pytest.mark.parametrize("kind", sorted(WRITES))
@pytest.mark.parametrize("how", ["taken_over", "expired", "claimed_again", "released"])
def test_a_write_under_a_lease_no_longer_the_tables_is_refused_and_stores_nothing(
        two: tuple[Storage, Storage], clock: FakeClock, kind: str, how: str) -> None:
    """``taken_over``: another process claimed the expired lease (the writer was paused past it); ``expired``:
    nobody claimed it yet, but it ran out (the store's clock); ``claimed_again``: the writer's own process claimed
    the table again for a fresh copy, and the old copy writes; ``released``: the lease was given up."""
    a, b = two
    owner = new_owner()
    epoch = a.claim("t1", owner, SHORT)
    assert epoch is not None
    if how == "taken_over":
        clock.advance(SHORT + 0.01)
        assert b.claim("t1", new_owner(), LONG) is not None
    elif how == "expired":
        clock.advance(SHORT + 0.01)
    elif how == "claimed_again":
        assert a.claim("t1", owner, LONG) == epoch + 1
    else:
        assert a.release("t1", owner) == 1
    before = unchanged(b)
    with pytest.raises(StaleLease, match="t1"):
        WRITES[kind](a, Fence(owner, epoch))
    assert unchanged(b) == before


def test_a_group_of_moves_with_one_stale_fence_stores_none(two: tuple[Storage, Storage], clock: FakeClock) -> None:
    a, b = two
    a.create_table(TableRecord(id="t2", game="fool", params={}, seed=1, seats=[], settings={}, created=2.0))
    owner = new_owner()
    one, two_ = a.claim("t1", owner, LONG), a.claim("t2", owner, SHORT)
    assert one is not None and two_ is not None
    clock.advance(SHORT + 0.01)
    with pytest.raises(StaleLease, match="t2"):
        a.add_moves([("t1", 1, 0, "m1", "seat"), ("t2", 1, 0, "m1", "seat")],
                    {"t1": Fence(owner, one), "t2": Fence(owner, two_)})
    for table in ("t1", "t2"):
        record = b.load(table)
        assert record is not None and record.moves == []
    a.add_moves([("t1", 1, 0, "m1", "seat")], {"t1": Fence(owner, one)})  # the live one alone is stored
    record = b.load("t1")
    assert record is not None and record.moves == [(0, "m1", "seat")]


@pytest.mark.parametrize("kind", ["move", "seats"])
def test_a_claim_waits_for_a_fenced_write_in_flight_and_then_reads_it(two: tuple[Storage, Storage],
                                                                      clock: FakeClock, kind: str) -> None:
    """The fence is a condition of the write's own statement that holds the lease row (PostgreSQL: a share lock;
    SQLite: the write lock) to the commit: a claim made between the write's statement and its commit (the lease
    ran out meanwhile) waits for the commit, so its taker then reads the write."""
    a, b = two
    owner = new_owner()
    epoch = a.claim("t1", owner, SHORT)
    assert epoch is not None
    before = unchanged(b)
    claimed: list[int | None] = []
    taker = threading.Thread(target=lambda: claimed.append(b.claim("t1", new_owner(), LONG)))

    def before_commit(_conn: Any) -> None:  # the write's statement ran; its transaction is still open
        clock.advance(SHORT + 0.01)
        taker.start()
        taker.join(0.5)
        assert taker.is_alive(), "the claim did not wait for the write in flight"

    event.listen(a.engine, "commit", before_commit, once=True)
    WRITES[kind](a, Fence(owner, epoch))
    taker.join(10)
    assert claimed == [epoch + 1]
    assert unchanged(b) != before  # the taker reads the write its claim waited for


def test_a_renewal_does_not_wait_for_a_fenced_write_in_flight(two: tuple[Storage, Storage], store_url: str) -> None:
    """The heartbeat renews every lease of its process in one statement; the writes in flight hold their lease
    rows to their commits, and a renewal that waited for them was starved under load (a process fenced itself off
    while it worked). On PostgreSQL the renewal (the expiry alone) passes a write's lock; on SQLite every write
    waits for the database's one write lock, and the renewal is not tried here."""
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite has one write lock for the whole database")
    a, b = two
    owner = new_owner()
    epoch = a.claim("t1", owner, LONG)
    assert epoch is not None
    renewed: list[set[str]] = []
    heartbeat = threading.Thread(target=lambda: renewed.append(b.renew(owner, LONG, {"t1"})))

    def before_commit(_conn: Any) -> None:  # the write's statement ran; its transaction is still open
        heartbeat.start()
        heartbeat.join(5)
        assert not heartbeat.is_alive(), "the renewal waited for the write in flight"

    event.listen(a.engine, "commit", before_commit, once=True)
    WRITES["move"](a, Fence(owner, epoch))
    heartbeat.join(10)
    assert renewed == [set()]  # renewed: no lease of the held tables lost
