"""The store's deadlines (:class:`motley.server.store.writer.Store`): a call the store does not answer fails within
its deadline as :class:`StoreSilent`, the calls behind it fail at once, and the call given up is rolled back when the
store answers after all (:func:`check_deadline`, on the storage's engine), so a move answered ``not_stored`` is
never stored later. The storage here is held by a gate, as a store that has gone silent holds the thread."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from motley.server.play.bodies import table_request
from motley.server.play.requests import new_record
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.store.writer import MoveRow, Store, StoreSilent

#: Seconds of the store's deadline in these tests.
DEADLINE = 0.3
#: A generous bound on an answer during the stall: the point is that it comes, long before the store does.
BOUND = 2.0


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
    storage = Storage(store_url)
    record = new_record(table_request({"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}),
                        Settings(None, 30.0, 0.0), seed=1)
    storage.create_table(record)
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
