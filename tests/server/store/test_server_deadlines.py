"""The store's deadlines (:class:`motley.server.store.writer.Store`): a call the store does not answer fails within
its deadline as :class:`StoreSilent`, the calls behind it fail at once, and the call given up is rolled back when the
store answers after all (:func:`check_deadline`, on the storage's engine), so a move answered ``not_stored`` is
never stored later. The storage here is held by a gate, as a store that has gone silent holds the thread."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from motley.server.play.bodies import table_request
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.store.leases import Fence
from motley.server.store.records import Settings, TableRecord
from motley.server.store.storage import Storage
from motley.server.store.writer import MoveRow, Store, StoreSilent
from tests.support import Viewer

#: Seconds of the store's deadline in these tests.
DEADLINE = 0.3
#: A generous bound on an answer during the stall: the point is that it comes, long before the store does.
BOUND = 2.0


def stored_table(store_url: str, seed: int) -> tuple[Storage, TableRecord]:
    """A storage on ``store_url`` holding a new table of four people at Fool! (dealt by ``seed``), and the table."""
    storage = Storage(store_url)
    record = new_record(table_request({"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}),
                        Settings(None, 30.0, 0.0), seed=seed)
    storage.create_table(record)
    return storage, record


class Held:
    """A :class:`Storage` whose writes and loads wait for :attr:`gate` first (a store that does not answer), then
    go to the database."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.gate = threading.Event()

    def add_moves(self, moves: Sequence[MoveRow]) -> None:
        self.gate.wait(30)
        self.storage.add_moves(moves)

    def load(self, table_id: str) -> Any:
        self.gate.wait(30)
        return self.storage.load(table_id)

    def close(self) -> None:
        self.storage.close()


def test_a_move_the_store_does_not_answer_is_refused_in_time_and_not_stored_when_it_answers(store_url: str) -> None:
    """A move held by a silent store fails with :class:`StoreSilent` within the bound, a load asked meanwhile fails
    at once; once the store answers, the held move is rolled back (the store holds no move), and the move made
    again is stored, once."""
    storage, record = stored_table(store_url, seed=1)
    held = Held(storage)
    row: MoveRow = (record.id, 1, 0, "first", "human")

    async def stall() -> list[float]:
        store = Store(held, deadline=DEADLINE)  # type: ignore[arg-type]  # the calls used here only
        took = []
        for call in (lambda: store.add_move(row), lambda: store.call(held.load, record.id)):
            began = time.monotonic()
            with pytest.raises(StoreSilent):
                await asyncio.wait_for(call(), 10)
            took.append(time.monotonic() - began)
        held.gate.set()  # the store answers again
        await asyncio.to_thread(store._thread.submit(lambda: None).result)  # the held call has come back
        assert storage.load(record.id).moves == []  # type: ignore[union-attr]  # rolled back, not stored late
        await store.add_move(row)
        store.close()
        return took

    try:
        took = asyncio.run(stall())
        assert took[0] < BOUND and took[1] < BOUND, took
        stored = storage.load(record.id)
        assert stored is not None and stored.moves == [(0, "first", "human")]
    finally:
        storage.close()


class AnsweredLate(Held):
    """A :class:`Storage` whose writes are committed at once and answered once :attr:`gate` opens: a commit sent
    before the deadline whose answer comes after it."""

    def add_moves(self, moves: Sequence[MoveRow]) -> None:
        self.storage.add_moves(moves)
        self.gate.wait(30)


def test_a_move_stored_after_its_mover_was_told_it_was_not_is_reported(store_url: str) -> None:
    """A move whose commit is answered after the deadline fails with :class:`StoreSilent`; once the answer comes,
    the store reports the move (``Store.stored_late``, with which the server loads the table again) and it is
    stored once."""
    storage, record = stored_table(store_url, seed=2)
    late = AnsweredLate(storage)
    row: MoveRow = (record.id, 1, 0, "first", "human")

    async def answered_late() -> list[MoveRow]:
        store = Store(late, deadline=DEADLINE)  # type: ignore[arg-type]  # the calls used here only
        reported: list[MoveRow] = []
        store.stored_late = reported.append
        with pytest.raises(StoreSilent):
            await asyncio.wait_for(store.add_move(row), 10)
        assert reported == []
        late.gate.set()
        await asyncio.to_thread(store._thread.submit(lambda: None).result)
        await asyncio.sleep(0)  # the group's outcome is settled on the loop
        store.close()
        return reported

    try:
        assert asyncio.run(answered_late()) == [row]
        stored = storage.load(record.id)
        assert stored is not None and stored.moves == [(0, "first", "human")]
    finally:
        storage.close()


def test_a_move_whose_mover_went_away_is_stored_without_a_report(store_url: str) -> None:
    """A move whose mover is cancelled while its commit is under way (a driver stopped, not a deadline passed) is
    stored, and not reported as stored after a refusal: nobody was told it failed."""
    storage, record = stored_table(store_url, seed=3)
    late = AnsweredLate(storage)

    async def went_away() -> list[MoveRow]:
        store = Store(late, deadline=5.0)  # type: ignore[arg-type]  # the calls used here only
        reported: list[MoveRow] = []
        store.stored_late = reported.append
        mover = asyncio.create_task(store.add_move((record.id, 1, 0, "first", "human")))
        await asyncio.sleep(0.1)
        mover.cancel()
        late.gate.set()
        await asyncio.to_thread(store._thread.submit(lambda: None).result)
        await asyncio.sleep(0)
        store.close()
        return reported

    try:
        assert asyncio.run(went_away()) == []
        stored = storage.load(record.id)
        assert stored is not None and stored.moves == [(0, "first", "human")]
    finally:
        storage.close()


class LateStorage(Storage):
    """A SQLite :class:`Storage` whose move writes, once :attr:`late` is set, are committed and then answered only
    when :attr:`gate` opens."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.late = False
        self.gate = threading.Event()

    def add_moves(self, moves: Sequence[MoveRow], fences: Mapping[str, Fence] | None = None) -> None:
        super().add_moves(moves, fences)
        if self.late:
            self.gate.wait(30)


def test_a_table_whose_move_was_stored_after_it_was_refused_is_loaded_again_with_it(tmp_path: Path) -> None:
    """A person's move whose commit is answered after the deadline: the mover is told ``not_stored`` and the table
    stays at its version; once the answer comes, the server drops the table (its sockets closed with 1012, to
    reconnect) and loads it again from the store, where it has the move."""
    storage = LateStorage(f"sqlite:///{tmp_path / 'motley.db'}")

    async def body() -> None:
        service = Service(storage, Settings(bot_delay=0.0))
        service.store.deadline = DEADLINE
        live = await service.create(table_request({"game": "fools_errand", "players": 2,
                                                   "seats": [{"kind": "human"}] * 2}), seed=4)
        viewers = [Viewer(q) for q in range(2)]
        for viewer in viewers:
            live.attach(viewer)
        mover = viewers[live.table.state.current_player()]
        storage.late = True
        await asyncio.wait_for(live.submit(mover, json.dumps({"type": "move", "version": 0,
                                                              "action": live.table.state.legal_actions()[0]})), 10)
        assert mover.last("error")["code"] == "not_stored" and live.table.version == 0
        storage.gate.set()
        for _ in range(100):
            again = service.tables.get(live.id)
            if again is not None and again is not live:
                break
            await asyncio.sleep(0.05)
        assert again is not None and again is not live and again.table.version == 1  # loaded with the move
        assert all(viewer.stopped == 1012 for viewer in viewers)
        await service.close()

    try:
        asyncio.run(body())
    finally:
        storage.close()


class Recording(Held):
    """A storage whose loads wait for :attr:`gate` (the thread is busy) and whose seat rewrites are recorded."""

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage)
        self.rewrites: list[tuple[str, list[dict[str, Any]], Fence | None]] = []

    def update_seats(self, table_id: str, seats: list[dict[str, Any]], fence: Fence | None = None) -> None:
        self.rewrites.append((table_id, seats, fence))


def test_seat_rewrites_waiting_their_turn_are_made_once_with_the_newest_list(store_url: str) -> None:
    """A table's people connect at once, and each connection rewrites the table's seats: the rewrites of one table
    under one fence that wait behind a call in the thread become one, of the newest list, and every caller hears
    it stored; another table's, or another fence's, stay their own."""
    storage = Storage(store_url)
    held = Recording(storage)
    old, new = Fence("owner", 1), Fence("owner", 2)

    async def connect_at_once() -> None:
        store = Store(held, deadline=10.0)  # type: ignore[arg-type]  # the calls used here only
        busy = asyncio.ensure_future(store.call(held.load, "none"))
        await asyncio.sleep(0.05)  # the load holds the thread
        writes = [store.store_seats("t1", [{"name": f"v{i}"}], old) for i in range(3)]
        writes += [store.store_seats("t2", [{"name": "other"}], old), store.store_seats("t1", [{"name": "new"}], new)]
        waiting = asyncio.gather(*writes)
        await asyncio.sleep(0.05)
        held.gate.set()
        await waiting
        await busy
        store.close()

    try:
        asyncio.run(connect_at_once())
    finally:
        storage.close()
    assert held.rewrites == [("t1", [{"name": "v2"}], old), ("t2", [{"name": "other"}], old),
                             ("t1", [{"name": "new"}], new)]


def test_calls_given_up_leave_no_unheard_errors(store_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Calls whose callers gave up (the store did not answer in time) end later in errors of their own (rolled
    back, or never made): nobody is left to hear them, and the event loop reports none as never retrieved."""
    storage = Storage(store_url)
    held = Held(storage)

    async def give_up() -> None:
        store = Store(held, deadline=DEADLINE)  # type: ignore[arg-type]  # the calls used here only
        calls = [store.call(held.load, "none"), store.call(held.load, "other")]
        for outcome in await asyncio.gather(*calls, return_exceptions=True):
            assert isinstance(outcome, StoreSilent)
        held.gate.set()
        await asyncio.to_thread(store._thread.submit(lambda: None).result)  # both have ended in the thread
        await asyncio.sleep(0)
        store.close()

    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            asyncio.run(give_up())
            gc.collect()
    finally:
        storage.close()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


class Slow(Held):
    """A storage that answers every load after :data:`SLOW` seconds, and its writes at once: busy, not silent."""

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage)
        self.gate.set()

    def load(self, table_id: str) -> Any:
        time.sleep(SLOW)
        return self.storage.load(table_id)


#: Seconds each load of :class:`Slow` takes: well under the deadline, five of them well over it.
SLOW = 0.2


def test_calls_queued_behind_a_busy_store_wait_for_it_and_are_made(store_url: str) -> None:
    """The deadline is the store's to answer a call once it is asked, not the queue's: calls that wait behind
    others the store answers (a burst of tables made at once, each with its writes) wait their turn past the
    deadline and are made, moves included; only a store that does not answer the call under way fails them."""
    storage, record = stored_table(store_url, seed=2)
    slow = Slow(storage)

    async def burst() -> float:
        store = Store(slow, deadline=DEADLINE)  # type: ignore[arg-type]  # the calls used here only
        began = time.monotonic()
        loads = [store.call(slow.load, record.id) for _ in range(5)]
        answers = await asyncio.gather(*loads, store.add_move((record.id, 1, 0, "first", "human")))
        took = time.monotonic() - began
        assert all(answer is not None for answer in answers[:5])
        store.close()
        return took

    try:
        took = asyncio.run(burst())
        assert took > 3 * DEADLINE  # the last calls did wait past the deadline
        stored = storage.load(record.id)
        assert stored is not None and stored.moves == [(0, "first", "human")]
    finally:
        storage.close()
