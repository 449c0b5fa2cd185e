"""Table ownership leases (``Storage.claim``, ``renew``, ``release``, ``owner_of``, ``unowned``) on SQLite and
PostgreSQL: several stores opened on one database stand for several server processes, on one fake clock (the
leases' times), so that a lease expires when the test moves the clock, not after a wait."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from motley.server.store.storage import Storage, TableRecord, new_owner
from tests.support import FakeClock

#: A lease long enough that it cannot expire during a test, and one short enough to move the clock past.
LONG, SHORT = 60.0, 0.3


@pytest.fixture
def clock() -> FakeClock:
    """The leases' clock (seconds since the epoch), moved by the tests."""
    return FakeClock()


@pytest.fixture
def two(store_url: str, clock: FakeClock) -> Iterator[tuple[Storage, Storage]]:
    """Two stores on one database and one clock: two server processes of one site."""
    a, b = Storage(store_url, clock=clock), Storage(store_url, clock=clock)
    yield a, b
    a.close()
    b.close()


def test_a_free_table_is_claimed_and_then_refused_to_any_other_owner(two: tuple[Storage, Storage]) -> None:
    a, b = two
    first, second = new_owner(), new_owner()
    assert a.owner_of("t1") is None
    assert a.claim("t1", first, LONG)
    assert not b.claim("t1", second, LONG)
    lease = b.owner_of("t1")
    assert lease is not None and lease.owner == first and lease.table == "t1"
    assert lease.expires_at > time.time() + LONG / 2 and "/" in lease.holder
    assert a.claim("t1", first, LONG)  # its owner claims it again: extended, still its


def test_of_two_processes_racing_for_a_table_exactly_one_wins_every_time(two: tuple[Storage, Storage]) -> None:
    owners = [new_owner(), new_owner()]
    rounds = 40
    won: list[list[bool]] = [[], []]
    barrier = threading.Barrier(2)

    def race(i: int) -> None:
        for n in range(rounds):
            barrier.wait()
            won[i].append(two[i].claim(f"race{n}", owners[i], LONG) is not None)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for n in range(rounds):
        assert won[0][n] != won[1][n], f"round {n}: both or neither won"
        lease = two[0].owner_of(f"race{n}")
        assert lease is not None and lease.owner == owners[0 if won[0][n] else 1]


def test_an_expired_lease_is_taken_over_and_its_old_owner_hears_it_lost_at_its_renew(
        two: tuple[Storage, Storage], clock: FakeClock) -> None:
    a, b = two
    dead, heir = new_owner(), new_owner()
    assert a.claim("t1", dead, SHORT) and a.claim("t2", dead, LONG)
    assert not b.claim("t1", heir, LONG)
    clock.advance(SHORT - 0.01)
    assert not b.claim("t1", heir, LONG)  # not yet expired
    clock.advance(0.02)
    assert a.owner_of("t1") is None
    assert b.claim("t1", heir, LONG)
    assert a.renew(dead, LONG, held={"t1", "t2"}) == {"t1"}  # t1 is the heir's now; t2 is still its own
    lease = a.owner_of("t1")
    assert lease is not None and lease.owner == heir


def test_renew_extends_every_lease_of_its_owner_in_time(two: tuple[Storage, Storage], clock: FakeClock) -> None:
    a, b = two
    owner, other = new_owner(), new_owner()
    for table in ("t1", "t2", "t3"):
        assert a.claim(table, owner, SHORT)
    for _ in range(4):  # four heartbeats span more than one lease's life
        clock.advance(SHORT / 3)
        assert a.renew(owner, SHORT, held={"t1", "t2", "t3"}) == set()
    assert not any(b.claim(table, other, LONG) for table in ("t1", "t2", "t3"))
    clock.advance(SHORT + 0.01)  # no heartbeat for a lease's life: every one of them lapsed
    assert all(b.claim(table, other, LONG) for table in ("t1", "t2", "t3"))


def test_a_released_table_may_be_claimed_at_once_and_another_owners_lease_is_left_alone(
        two: tuple[Storage, Storage]) -> None:
    a, b = two
    draining, other = new_owner(), new_owner()
    for table in ("t1", "t2", "t3"):
        assert a.claim(table, draining, LONG)
    assert b.claim("t4", other, LONG)
    assert a.release("t1", other) == 0  # not its lease
    assert a.release("t1", draining) == 1
    assert b.claim("t1", other, LONG)
    assert a.release(None, draining) == 2  # a drain: everything it holds
    assert b.owner_of("t2") is None and b.owner_of("t3") is None
    lease = b.owner_of("t4")
    assert lease is not None and lease.owner == other
    assert a.renew(draining, LONG, held={"t2"}) == {"t2"}


def test_unowned_lists_the_unfinished_tables_without_a_live_lease(two: tuple[Storage, Storage],
                                                                   clock: FakeClock) -> None:
    a, b = two
    for n, table in enumerate(("old", "owned", "lapsed", "done")):
        a.create_table(TableRecord(id=table, game="fool", params={}, seed=1, seats=[], settings={},
                                   created=float(n)))
    a.finish("done", {"winner": 0})
    assert a.claim("owned", new_owner(), LONG) and a.claim("lapsed", new_owner(), SHORT)
    assert b.unowned() == ["old"]
    clock.advance(SHORT + 0.01)
    assert b.unowned() == ["old", "lapsed"]


@pytest.mark.parametrize(("table", "owner", "ttl"), [("t1", "", 1.0), ("t1", "x" * 65, 1.0), ("", "me", 1.0),
                                                     ("t" * 33, "me", 1.0), ("t1", "me", 0.0),
                                                     ("t1", "me", float("nan")), ("t1", "me", float("inf"))])
def test_a_bad_lease_request_is_refused_by_name_and_changes_nothing(
        two: tuple[Storage, Storage], table: str, owner: str, ttl: float) -> None:
    a, _ = two
    with pytest.raises(ValueError, match=r"lease|table id"):
        a.claim(table, owner, ttl)
    assert a.owner_of(table) is None
    if table == "t1":  # the owner or the time is bad: renew refuses them too
        with pytest.raises(ValueError, match="lease"):
            a.renew(owner, ttl)
