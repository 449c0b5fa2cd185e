"""The site mode's fencing tokens (docs/scaling.md): a process that lost a table's lease (paused past it: its
heartbeat late, another process claimed the table) writes nothing of that table any more, because every write
carries the lease the process claimed (owner and epoch) and the store refuses it in the same transaction. So a
seat is given once (a join at the old owner and one at the new), a move made at the old owner is neither stored
nor shown (no viewer ever sees a version go back), and the old copy is dropped at its first refused write. Two
services on one database stand for two processes, on SQLite and PostgreSQL, their leases on one fake clock: "paused
past its lease" is the clock moved past it while the old owner's heartbeat does not run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.protocol import ProtocolError
from motley.server.play.service import Service
from motley.server.store.leases import Fence
from motley.server.store.records import SeatRefused
from motley.server.store.writer import LeaseLost, StoreError
from tests.server.site.test_server_site import PEOPLE, TTL, _seat, lease_clock, member, with_pair
from tests.support import Viewer, stored_record

#: Two people's seats, seat 0 open to anyone in the lobby.
OPEN_SEAT = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human", "open": True}, {"kind": "human"}]}


async def settled(process: Service) -> None:
    """Wait for the writes ``process`` made so far without waiting (its store's one thread runs them in order)."""
    await process.store.call(lambda: None)


async def taken_over(a: Service, b: Service, table_id: str) -> LiveTable:
    """``a`` pauses past its lease of ``table_id`` (its writes so far stored); ``b`` claims and loads the table."""
    await settled(a)
    lease_clock(a).advance(TTL + 0.1)
    new = await b.get(table_id)
    assert new is not None and table_id in member(b).held
    return new


@pytest.mark.parametrize("first", ["taker", "old_owner"])
def test_two_joins_racing_through_an_old_owner_and_the_taker_give_the_seat_once(store_url: str, first: str) -> None:
    """A join queued at a paused owner and a join at the process that took the table over, in either order: the
    taker's is answered with the seat, the old owner's is refused (nothing stored), and the stored seat's token
    is the taker's."""
    async def body(a: Service, b: Service) -> None:
        live = await a.create(table_request(OPEN_SEAT), seed=3)
        new = await taken_over(a, b, live.id)
        given: list[str] = []
        refused: list[Exception] = []

        async def join(process: Service, copy: LiveTable) -> None:
            try:
                seat = await process.join(copy, 0)
                token = copy.table.seats[seat].token
                assert token is not None
                given.append(token)
            except (StoreError, SeatRefused) as exc:
                refused.append(exc)

        order = [(b, new), (a, live)] if first == "taker" else [(a, live), (b, new)]
        for process, copy in order:
            await join(process, copy)
        assert len(given) == 1 and len(refused) == 1, (given, refused)
        assert isinstance(refused[0], LeaseLost)
        assert given == [new.table.seats[0].token]
        await settled(a)
        await settled(b)
        record = stored_record(store_url, live.id)
        assert record is not None and record.seats[0]["token"] == given[0]
        assert live.id not in a.tables and live.closed  # the old owner dropped its copy at the refusal

    with_pair(store_url, body)


def test_a_move_at_an_owner_paused_past_its_lease_is_neither_stored_nor_shown(store_url: str) -> None:
    """The old owner, resumed before its heartbeat, takes a person's move: the store refuses it (the lease is the
    taker's), so it is not applied and no viewer of the old copy is shown its version (then served the taker's
    copy one version lower); the old copy is dropped, its sockets told to reconnect; the taker plays the move."""
    async def body(a: Service, b: Service) -> None:
        live = await a.create(table_request(PEOPLE), seed=7)
        viewers = [Viewer(0), Viewer(1), Viewer(None)]
        for viewer in viewers:
            live.attach(viewer)
        new = await taken_over(a, b, live.id)
        mover = live.table.state.current_player()
        move = json.dumps({"type": "move", "version": 0, "action": live.table.state.legal_actions()[0]})
        await live.submit(viewers[mover], move)
        errors = [m for m in viewers[mover].messages if m["type"] == "error"]
        assert errors and errors[-1]["code"] == "not_stored"
        shown = [m["version"] for v in viewers for m in v.messages if m["type"] == "state"]
        assert max(shown) == 0 and live.table.version == 0
        record = stored_record(store_url, live.id)
        assert record is not None and record.moves == []
        assert live.id not in a.tables and all(v.stopped == 1012 for v in viewers)
        await new.submit(_seat(new, mover), move)  # the page reconnects to the taker and moves again
        assert new.table.version == 1 and len(stored_moves(store_url, live.id)) == 1

    with_pair(store_url, body)


def test_a_cancel_and_a_start_at_an_old_owner_are_refused_unstored(store_url: str) -> None:
    """The finish (here a cancel) and the settings (a person presses Start) are fenced as moves are."""
    async def body(a: Service, b: Service) -> None:
        request = {**PEOPLE, "wait_for_people": True}
        live = await a.create(table_request(request), seed=7)
        starter = Viewer(0)
        live.attach(starter)
        await taken_over(a, b, live.id)
        before = stored_record(store_url, live.id)
        live.start(starter)  # written without waiting: refused in the store
        await settled(a)
        with pytest.raises(StoreError):
            await a.cancel(live, "a test")
        after = stored_record(store_url, live.id)
        assert before is not None and after is not None
        assert (after.settings, after.finished, after.result) == (before.settings, False, None)

    with_pair(store_url, body)


def test_a_hint_at_an_old_owner_is_neither_counted_nor_given(store_url: str) -> None:
    """A hint's count is a seat write: at an old owner it is refused, so nothing is counted (``not_stored``)."""
    async def body(a: Service, b: Service) -> None:
        live = await a.create(table_request({**PEOPLE, "hints": True}), seed=7)
        mover = live.table.state.current_player()
        asking = Viewer(mover)
        live.attach(asking)
        await taken_over(a, b, live.id)
        with pytest.raises(ProtocolError) as refused:
            await live.hint(asking)
        assert refused.value.code == "not_stored" and live.hints.used[mover] == 0
        record = stored_record(store_url, live.id)
        assert record is not None and not record.seats[mover].get("hints")
        assert not [m for m in asking.messages if m["type"] == "hint"]

    with_pair(store_url, body)


def test_a_copy_replaced_by_a_new_claim_in_its_own_process_writes_nothing(store_url: str) -> None:
    """A process that claims a table again (its lease expired unclaimed, a refused write dropped the copy) drives a
    new copy under a new epoch; a request that still had the old copy in hand writes nothing through it."""
    async def body(a: Service, b: Service) -> None:
        live = await a.create(table_request(OPEN_SEAT), seed=3)
        await settled(a)
        member(a).drop(live.id, "a test: as after a refused write")
        again = await a.get(live.id)
        assert again is not None and again is not live and member(a).epochs[live.id] == 2
        with pytest.raises(StoreError):
            await a.join(live, 0)
        seat = await a.join(again, 0)
        record = stored_record(store_url, live.id)
        assert record is not None and record.seats[seat]["token"] == again.table.seats[seat].token

    with_pair(store_url, body)


def test_the_taker_serves_what_the_old_owner_stored_before_the_claim(store_url: str) -> None:
    """The taker reads the table, then the old owner (its lease still live) stores a move, then its lease runs out
    and the taker claims: the taker reads the table again after its claim, so it drives it with that move, and a
    viewer that saw the move at the old owner is never shown an older version by the taker."""
    async def body(a: Service, b: Service) -> None:
        live = await a.create(table_request(PEOPLE), seed=7)
        await settled(a)
        leases = member(b).leases
        original = leases.claim
        epoch = member(a).epochs[live.id]
        mover = live.table.state.current_player()
        action = live.table.state.legal_actions()[0]
        text = live.table.state.action_to_string(action)
        owner = member(a).site.owner

        def late_claim(table_id: str, *args: Any) -> int | None:
            a.store.storage.add_moves([(table_id, 1, mover, text, "seat")], {table_id: Fence(owner, epoch)})
            lease_clock(a).advance(TTL + 0.1)
            return original(table_id, *args)

        leases.claim = late_claim  # type: ignore[method-assign,assignment]
        new = await b.get(live.id)
        assert new is not None and new.table.version == 1

    with_pair(store_url, body)


def stored_moves(url: str, table_id: str) -> list[tuple[int, str, str]]:
    record = stored_record(url, table_id)
    assert record is not None
    return list(record.moves)
