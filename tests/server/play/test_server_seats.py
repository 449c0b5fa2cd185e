"""Person seats the lobby cannot take over, and tables that keep their turn clock and absent persons over a
restart.

A person seat is by invitation (only its invite link works) or open (anyone in the lobby may claim it, once,
and gets a fresh link; the invite link then stops working). Joining is refused with 409 and the reason for a
seat by invitation, one already claimed (or whose person connected) and a finished match. What a seat is
(open, claimed, ever connected) is stored, and so is the start of the current turn (the stored time of the
last move), so a restarted server (a new Service over the same SQLite file) changes none of it.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from motley.core import MotleyError
from motley.server.play import live as live_module
from motley.server.play.bodies import table_request
from motley.server.play.live import SEAT_TRIES, LiveTable
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.play.table import Table
from motley.server.store.records import SeatRefused, Settings
from motley.server.store.storage import Fence, Storage
from motley.server.store.writer import Store, StoreError
from motley.server.web.routes.tables import table_summary
from motley.server.web.testing import ServerThread
from tests.postgres import execute
from tests.support import Viewer

PERSON: dict[str, Any] = {"kind": "human"}
OPEN: dict[str, Any] = {"kind": "human", "open": True}
BOT: dict[str, Any] = {"kind": "bot", "bot": "random"}


def two_seats(first: dict[str, Any], second: dict[str, Any], **settings: Any) -> dict[str, Any]:
    return {"game": "fools_errand", "seats": [first, second], "bot_delay": 0.0, **settings}


def token_of(link: str) -> str:
    return link.split("token=")[1]


async def move_as(live: LiveTable, viewer: Viewer) -> None:
    """``viewer`` (the seat to move) plays its first legal move through the table's front door."""
    text = json.dumps({"type": "move", "version": live.table.version, "action": live.table.state.legal_actions()[0]})
    await live.submit(viewer, text)


async def until(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Wait (polling the event loop) until ``check()`` holds; fails naming ``what`` after ``timeout`` seconds."""
    async def poll() -> None:
        while not check():
            await asyncio.sleep(0.02)

    try:
        await asyncio.wait_for(poll(), timeout)
    except TimeoutError:
        raise AssertionError(f"{what} did not happen within {timeout:g} s") from None


async def restarted(url: str, body: Callable[[Service], Awaitable[None]]) -> None:
    """Run ``body`` with a fresh Service over the store at ``url`` after ``resume`` (a restarted server)."""
    service = Service(Storage(url), Settings(bot_delay=0.0))
    try:
        await service.resume()
        await body(service)
    finally:
        await service.close()


@pytest.fixture()
def url(store_url: str) -> str:
    """The test's store: once SQLite, once PostgreSQL."""
    return store_url


# ---- seats: the pure table and the service -------------------------------------------------------------------
def test_a_seat_by_invitation_is_never_handed_out() -> None:
    table = Table(new_record(table_request(two_seats(PERSON, OPEN)), Settings(), 1))
    invite = table.seats[0].token
    with pytest.raises(SeatRefused, match="seat is by invitation"):
        table.claim(0)
    with pytest.raises(SeatRefused, match="played by a bot"):
        Table(new_record(table_request(two_seats(OPEN, BOT)), Settings(), 1)).claim(1)
    only_invites = Table(new_record(table_request(two_seats(PERSON, PERSON)), Settings(), 1))
    with pytest.raises(SeatRefused, match="seat is by invitation"):
        only_invites.claim()
    assert table.seats[0].token == invite and not table.seats[0].claimed, "a refusal changes nothing"
    assert table.open_seats() == [1] and only_invites.open_seats() == []


def test_a_claimed_open_seat_gets_a_fresh_token_and_plays_that_seat(url: str) -> None:
    async def body() -> None:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(OPEN, PERSON)), seed=3)
        invite = live.table.seats[0].token
        assert invite is not None
        assert await service.join(live) == 0
        fresh = live.table.seats[0].token
        assert fresh is not None and fresh != invite
        assert live.table.seat_of_token(fresh) == 0
        assert live.table.seat_of_token(invite) is None, "the invite link of a claimed seat no longer works"
        with pytest.raises(SeatRefused, match="already claimed"):
            await service.join(live, 0)
        with pytest.raises(SeatRefused, match="already claimed"):
            await service.join(live)
        viewers = [Viewer(0), Viewer(1)]
        for viewer in viewers:
            live.attach(viewer)
        while not any(e.seat == 0 for e in live.table.log):
            await move_as(live, viewers[live.table.state.current_player()])
        assert any(e.seat == 0 and e.actor == "seat" for e in live.table.log)
        await service.close()

    asyncio.run(body())


class RefusingStorage(Storage):
    """A store that refuses the next ``refuse`` seat writes."""

    refuse = 0

    def update_seats(self, table_id: str, seats: list[dict[str, Any]], fence: Fence | None = None) -> None:
        if self.refuse > 0:
            self.refuse -= 1
            raise OSError("disk full")
        super().update_seats(table_id, seats, fence)


def test_a_claim_the_store_refuses_leaves_the_seat_open_with_its_invite_link(url: str,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.01)

    async def body() -> None:
        storage = RefusingStorage(url)
        service = Service(storage, Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(OPEN, PERSON)), seed=13)
        invite = live.table.seats[0].token
        storage.refuse = SEAT_TRIES  # every try refused
        with pytest.raises(StoreError):
            await service.join(live)
        assert live.table.open_seats() == [0] and live.table.seats[0].token == invite
        assert await service.join(live) == 0 and live.table.seats[0].token != invite
        await service.close()
        again = Storage(url)
        stored = again.load(live.id)
        again.close()
        assert stored is not None and stored.seats[0]["claimed"] and stored.seats[0]["token"] != invite

    asyncio.run(body())


def test_a_claim_the_store_refuses_once_is_tried_again_and_stored_before_it_is_answered(
        url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.01)

    async def body() -> None:
        storage = RefusingStorage(url)
        service = Service(storage, Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(OPEN, PERSON)), seed=13)
        invite = live.table.seats[0].token
        storage.refuse = 1  # a locked database, once
        assert await service.join(live) == 0
        stored = storage.load(live.id)
        assert stored is not None and stored.seats[0]["claimed"] and stored.seats[0]["token"] != invite
        await service.close()

    asyncio.run(body())


def test_join_is_refused_once_the_match_is_over(url: str) -> None:
    async def body() -> None:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(OPEN, OPEN)), seed=4)
        assert len(live.table.open_seats()) == 2 and table_summary(live)["free_seats"] == 2
        while not live.table.state.is_terminal():  # nobody connected: both seats would still be free
            async with live.lock:
                await live.play(live.table.prepare(live.table.state.current_player(),
                                                   live.table.state.legal_actions()[0], "seat"))
        with pytest.raises(SeatRefused, match="the match is over"):
            await service.join(live)
        with pytest.raises(SeatRefused, match="the match is over"):
            await service.join(live, 1)
        assert table_summary(live)["free_seats"] == 0
        assert not any(s.claimed for s in live.table.seats)
        await service.close()

    asyncio.run(body())


def test_a_seat_request_with_a_bad_open_value_is_refused() -> None:
    for seat in ({"kind": "human", "open": "yes"}, {"kind": "human", "open": 1}, {**BOT, "open": True}):
        with pytest.raises(MotleyError, match="'open'"):
            new_record(table_request(two_seats(seat, PERSON)), Settings(), 1)
    record = new_record(table_request(two_seats({"kind": "human", "open": False}, OPEN)), Settings(), 1)
    assert [s["open"] for s in record.seats] == [False, True]


# ---- seats over a restart ------------------------------------------------------------------------------
def test_a_claim_survives_a_restart(url: str) -> None:
    async def before() -> tuple[str, str, str]:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(OPEN, OPEN)), seed=5)
        invite = str(live.table.seats[0].token)
        await service.join(live, 0)
        fresh = str(live.table.seats[0].token)
        await service.close()
        return live.id, invite, fresh

    table_id, invite, fresh = asyncio.run(before())

    async def after(service: Service) -> None:
        table = service.tables[table_id].table
        assert table.seats[0].claimed and table.seat_of_token(fresh) == 0 and table.seat_of_token(invite) is None
        with pytest.raises(SeatRefused, match="already claimed"):
            await service.join(service.tables[table_id], 0)
        assert await service.join(service.tables[table_id]) == 1

    asyncio.run(restarted(url, after))


def test_a_person_who_connected_keeps_the_seat_over_a_restart(url: str) -> None:
    async def before() -> str:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(OPEN, OPEN)), seed=6)
        viewer = Viewer(0)  # seat 0's invitee came through the invite link, then left
        live.attach(viewer)
        live.detach(viewer)
        await service.close()
        return live.id

    table_id = asyncio.run(before())

    async def after(service: Service) -> None:
        live = service.tables[table_id]
        assert live.table.seats[0].ever_connected and not live.table.seats[1].ever_connected
        assert table_summary(live)["free_seats"] == 1
        with pytest.raises(SeatRefused, match="already claimed"):
            await service.join(live, 0)
        assert await service.join(live) == 1

    asyncio.run(restarted(url, after))


def test_a_table_stored_before_seats_could_be_open_still_loads(url: str) -> None:
    storage = Storage(url)
    record = new_record(table_request(two_seats(PERSON, PERSON)), Settings(), 7)
    record.seats = [{key: seat[key] for key in ("kind", "bot", "name", "token", "claimed")} for seat in record.seats]
    storage.create_table(record)
    storage.close()
    invite = str(record.seats[1]["token"])

    async def after(service: Service) -> None:
        live = service.tables[record.id]
        assert [(s.open, s.ever_connected) for s in live.table.seats] == [(False, False)] * 2
        assert live.table.seat_of_token(invite) == 1
        with pytest.raises(SeatRefused, match="seat is by invitation"):
            await service.join(live)
        stored = service.store.storage.load(record.id)
        assert stored is not None and stored.seats == record.seats, "a refused join stores nothing"

    asyncio.run(restarted(url, after))


# ---- the turn clock and absent persons over a restart --------------------------------------------------------
def test_the_turn_clock_carries_the_stored_time_over_to_the_timer_clock() -> None:
    record = new_record(table_request(two_seats(PERSON, PERSON, move_time=6)), Settings(), 8)
    record.created = 1000.0
    store = Store(Storage("sqlite://"))
    fresh = LiveTable(Table(record), store, clock=lambda: 50.0, wall=lambda: 1004.0)
    assert fresh.shared()["deadline"] == pytest.approx(2.0)  # 4 s of 6 gone since the table was made
    due = fresh.next_auto()
    assert due is not None and due[0] == pytest.approx(52.0) and due[1] == "timer"
    table = Table(record)
    table.apply(table.prepare(table.state.current_player(), table.state.legal_actions()[0], "seat"))
    record.moved_at = 1010.0
    moved = LiveTable(table, store, clock=lambda: 7.0, wall=lambda: 1011.5)
    assert moved.shared()["deadline"] == pytest.approx(4.5)  # the turn began with the last move
    late = LiveTable(Table(record), store, clock=lambda: 7.0, wall=lambda: 2000.0)
    due = late.next_auto()  # the time ran out while the server was down: the timer's move is due now
    assert late.shared()["deadline"] == 0.0 and due is not None and due[1] == "timer" and due[0] <= 7.0
    store.close()


def shift_stored_times(url: str, table_id: str, seconds: float) -> None:
    """Move a table's stored creation and move times ``seconds`` into the past (a server down that long)."""
    execute(url, ("UPDATE motley_tables SET created = created - :s WHERE id = :id", {"s": seconds, "id": table_id}),
            ("UPDATE motley_moves SET at = at - :s WHERE table_id = :id", {"s": seconds, "id": table_id}))


def test_a_restarted_table_keeps_the_time_left_to_move(url: str) -> None:
    async def before(moves: int) -> str:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(PERSON, PERSON, move_time=60)), seed=16)
        viewers = [Viewer(0), Viewer(1)]
        for viewer in viewers:
            live.attach(viewer)
        for _ in range(moves):
            await move_as(live, viewers[live.table.state.current_player()])
        assert not live.table.state.is_terminal()
        await service.close()
        return live.id

    ids = [asyncio.run(before(moves)) for moves in (0, 2)]
    for table_id in ids:
        shift_stored_times(url, table_id, 45.0)

    async def after(service: Service) -> None:
        for table_id in ids:
            deadline = service.tables[table_id].shared()["deadline"]
            assert deadline is not None and 0.0 < deadline <= 15.0, "45 s of the 60 s were gone before the restart"

    asyncio.run(restarted(url, after))


def test_a_turn_whose_time_ran_out_is_played_by_the_timer_after_a_restart(url: str) -> None:
    async def before() -> str:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(PERSON, PERSON, move_time=600, grace=600)), seed=10)
        await service.close()
        return live.id

    table_id = asyncio.run(before())
    shift_stored_times(url, table_id, 700.0)

    async def after(service: Service) -> None:
        live = service.tables[table_id]
        await until(lambda: live.table.version >= 1, "the timer's move")
        assert live.table.log[0].actor == "timer"

    asyncio.run(restarted(url, after))


def test_the_stand_in_plays_for_a_person_who_does_not_come_back_after_a_restart(url: str) -> None:
    async def before() -> str:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(PERSON, PERSON, grace=0.2)), seed=11)
        for seat in (0, 1):
            live.attach(Viewer(seat))  # both persons connected; the server then stops
        await service.close()
        return live.id

    table_id = asyncio.run(before())

    async def after(service: Service) -> None:
        live = service.tables[table_id]
        assert all(s.ever_connected for s in live.table.seats)
        mover = live.table.state.current_player()
        await until(lambda: live.table.version >= 1, "the stand-in's move")
        assert (live.table.log[0].seat, live.table.log[0].actor) == (mover, "away")
        assert live.is_away(mover) and live.seat_info()[mover]["away"]

    asyncio.run(restarted(url, after))


def test_a_person_who_reconnects_after_a_restart_keeps_the_seat_and_one_who_never_came_is_not_replaced(
        url: str) -> None:
    async def before() -> str:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        live = await service.create(table_request(two_seats(PERSON, PERSON, grace=30)), seed=12)
        live.attach(Viewer(live.table.state.current_player()))
        await service.close()
        return live.id

    table_id = asyncio.run(before())

    async def after(service: Service) -> None:
        live = service.tables[table_id]
        mover = live.table.state.current_player()
        due = live.next_auto()
        assert due is not None and due[1] == "away"  # its stand-in would play once the grace time is over
        live.attach(Viewer(mover))  # the person is back: no stand-in, no timer
        assert live.next_auto() is None and not live.is_away(mover)
        other = 1 - mover
        assert not live.table.seats[other].ever_connected and not live.is_away(other)

    asyncio.run(restarted(url, after))


# ---- the web API -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(module_store_url: str) -> Iterator[ServerThread]:
    with ServerThread(module_store_url, bot_delay=0.0) as running:
        yield running


def create(server: ServerThread, spec: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10)
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()
    return created


def join(server: ServerThread, table_id: str, seat: int | None = None) -> httpx.Response:
    query = "" if seat is None else f"?seat={seat}"
    return httpx.post(f"{server.base}/api/tables/{table_id}/join{query}", timeout=10)


def first_message(server: ServerThread, table_id: str, token: str) -> dict[str, Any]:
    with connect(f"{server.ws_base}/ws/{table_id}?token={token}", open_timeout=10) as ws:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        return message


def free_seats(server: ServerThread, table_id: str) -> int:
    listed = {t["id"]: t for t in httpx.get(f"{server.base}/api/tables", timeout=10).json()}
    return int(listed[table_id]["free_seats"])


def test_the_lobby_hands_out_open_seats_only(server: ServerThread) -> None:
    table = create(server, two_seats(OPEN, PERSON))
    assert [(s["open"], s["link"] is not None) for s in table["seats"]] == [(True, True), (False, True)]
    assert free_seats(server, table["id"]) == 1
    refused = join(server, table["id"], 1)
    assert refused.status_code == 409 and "seat is by invitation" in refused.json()["error"]["message"]
    joined = join(server, table["id"])
    assert joined.status_code == 200 and joined.json()["seat"] == 0
    fresh, invite = token_of(joined.json()["link"]), token_of(table["seats"][0]["link"])
    assert fresh != invite
    assert first_message(server, table["id"], fresh)["seat"] == 0
    old = first_message(server, table["id"], invite)
    assert old["type"] == "error" and old["code"] == "bad_token", "the invite link of a claimed seat is dead"
    again = join(server, table["id"])
    assert again.status_code == 409 and "already claimed" in again.json()["error"]["message"]
    assert free_seats(server, table["id"]) == 0
    assert first_message(server, table["id"], token_of(table["seats"][1]["link"]))["seat"] == 1
    invite_only = create(server, two_seats(PERSON, PERSON))
    refused = join(server, invite_only["id"])
    assert refused.status_code == 409 and "seat is by invitation" in refused.json()["error"]["message"]


def play_out(server: ServerThread, table_id: str, tokens: list[str]) -> None:
    """Play the match to its end through the seats' sockets (first legal move each turn)."""
    sockets: list[ClientConnection] = [connect(f"{server.ws_base}/ws/{table_id}?token={t}", open_timeout=10)
                                       .__enter__() for t in tokens]
    try:
        while True:
            for seat, ws in enumerate(sockets):
                message = json.loads(ws.recv(timeout=10))
                while message["type"] != "state":
                    message = json.loads(ws.recv(timeout=10))
                if message["terminal"]:
                    return
                if message["current_player"] == seat:
                    ws.send(json.dumps({"type": "move", "version": message["version"],
                                        "action": message["legal"][0]["action"]}))
    finally:
        for ws in sockets:
            ws.close()


def test_join_on_a_finished_table_is_refused(server: ServerThread) -> None:
    table = create(server, two_seats(OPEN, OPEN))
    play_out(server, table["id"], [token_of(s["link"]) for s in table["seats"]])
    refused = join(server, table["id"])
    assert refused.status_code == 409 and "the match is over" in refused.json()["error"]["message"]
    assert free_seats(server, table["id"]) == 0


def test_a_bad_open_value_is_a_400_naming_the_field(server: ServerThread) -> None:
    response = httpx.post(f"{server.base}/api/tables", json=two_seats({"kind": "human", "open": "true"}, PERSON),
                          timeout=10)
    assert response.status_code == 400 and "'open'" in response.json()["error"]["message"]


# ---- a person's first connection is stored before the seat is shown ------------------------------------------
def stored_seat(path: str, table_id: str, seat: int) -> dict[str, Any]:
    """Seat ``seat`` of table ``table_id`` as the store at ``path`` holds it now (read by a new connection)."""
    storage = Storage(path)
    try:
        record = storage.load(table_id)
    finally:
        storage.close()
    assert record is not None
    return dict(record.seats[seat])


def test_a_first_connection_the_store_refuses_once_is_stored_and_keeps_the_seat(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A locked database during the invitee's first connection: the write is tried again, so the stored seat
    says the person connected, the lobby cannot claim it (now or after a restart) and the invite link works."""
    db = f"sqlite:///{tmp_path / 'refused.db'}"
    refusals: list[str] = []
    write = Storage.update_seats

    def refuse_once(self: Storage, table_id: str, seats: list[dict[str, Any]]) -> None:
        if not refusals:
            refusals.append(table_id)
            raise sqlite3.OperationalError("database is locked")
        write(self, table_id, seats)

    monkeypatch.setattr(live_module, "STORE_RETRY", 0.05)
    with ServerThread(db, bot_delay=0.0) as running:
        table = create(running, two_seats(OPEN, PERSON))
        monkeypatch.setattr(Storage, "update_seats", refuse_once)
        invite = token_of(table["seats"][0]["link"])
        first = first_message(running, table["id"], invite)
        assert refusals == [table["id"]], "the first connection's write was refused once"
        assert first["type"] == "state" and first["seat"] == 0
        assert stored_seat(db, table["id"], 0)["ever_connected"], "the write was tried again and stored"
        refused = join(running, table["id"], 0)
        assert refused.status_code == 409 and "already claimed" in refused.json()["error"]["message"]
        assert free_seats(running, table["id"]) == 0
        assert first_message(running, table["id"], invite)["seat"] == 0, "the invite link still works"

    async def after(service: Service) -> None:
        with pytest.raises(SeatRefused, match="already claimed"):
            await service.join(service.tables[table["id"]], 0)

    asyncio.run(restarted(db, after))


def test_a_restart_right_after_the_first_state_message_sees_the_seat_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow store (each seat write takes 0.3 s): a server that stops as soon as the invitee's page got its first
    state message has stored the connection already."""
    db = f"sqlite:///{tmp_path / 'slow.db'}"
    write = Storage.update_seats

    def slow(self: Storage, table_id: str, seats: list[dict[str, Any]]) -> None:
        time.sleep(0.3)
        write(self, table_id, seats)

    with ServerThread(db, bot_delay=0.0) as running:
        table = create(running, two_seats(OPEN, OPEN))
        monkeypatch.setattr(Storage, "update_seats", slow)
        assert first_message(running, table["id"], token_of(table["seats"][0]["link"]))["seat"] == 0

        async def after(service: Service) -> None:  # a new server over the same store, at once
            live = await service.get(table["id"])
            assert live is not None and live.table.seats[0].ever_connected
            with pytest.raises(SeatRefused, match="already claimed"):
                await service.join(live, 0)
            assert live.table.open_seats() == [1]

        asyncio.run(restarted(db, after))


def test_a_first_connection_the_store_never_takes_is_told_not_stored_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every try refused: the socket gets ``not_stored`` instead of the seat, the seat stays open with its invite
    link, and once the store answers again the same link connects and keeps the seat."""
    db = f"sqlite:///{tmp_path / 'down.db'}"
    down = [True]
    write = Storage.update_seats

    def refusing(self: Storage, table_id: str, seats: list[dict[str, Any]]) -> None:
        if down[0]:
            raise sqlite3.OperationalError("disk I/O error")
        write(self, table_id, seats)

    monkeypatch.setattr(live_module, "STORE_RETRY", 0.02)
    with ServerThread(db, bot_delay=0.0) as running:
        table = create(running, two_seats(OPEN, PERSON))
        monkeypatch.setattr(Storage, "update_seats", refusing)
        invite = token_of(table["seats"][0]["link"])
        refused = first_message(running, table["id"], invite)
        assert refused["type"] == "error" and refused["code"] == "not_stored"
        assert not stored_seat(db, table["id"], 0)["ever_connected"]
        assert free_seats(running, table["id"]) == 1, "the seat is as it was: open"
        down[0] = False
        assert first_message(running, table["id"], invite)["seat"] == 0, "the invite link works once it is stored"
        assert stored_seat(db, table["id"], 0)["ever_connected"]
        assert join(running, table["id"], 0).status_code == 409


class HeldLog:
    """A table log whose seat writes wait until ``release`` is set, then are refused ``refuse`` more times."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.refuse = 0
        self.seats: list[list[dict[str, Any]]] = []

    async def add_move(self, row: tuple[str, int, int, str, str]) -> None:
        return None

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        return None

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        await self.release.wait()
        if self.refuse > 0:
            self.refuse -= 1
            raise StoreError("update_seats failed: OperationalError: database is locked")
        self.seats.append(seats)

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        self.seats.append(seats)

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        return None


def test_while_a_first_connection_is_stored_the_seat_is_taken_and_the_bots_still_wait(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The write in flight: a join is refused, the bots wait for the person; once it is stored, the person's first
    message shows the opening. Refused on every try: the seat is open again and the bots wait as before."""
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.01)
    spec = {"game": "fools_errand", "seats": [OPEN, {"kind": "bot", "bot": "heuristic"}]}

    async def body() -> None:
        log = HeldLog()
        live = LiveTable(Table(new_record(table_request(spec), Settings(bot_delay=0.5, pace=0.7), 5)), log)
        arriving = asyncio.create_task(live.arrive(0))
        await asyncio.sleep(0.05)
        assert not arriving.done() and live.waiting_for() == [0] and live.next_auto() is None
        with pytest.raises(SeatRefused, match="already claimed"):
            live.table.claim(0)
        log.release.set()
        await arriving
        assert log.seats[-1][0]["ever_connected"] and live.waiting_for() == []
        ann = Viewer(0)
        live.attach(ann)
        first = next(m for m in ann.messages if m["type"] == "state")
        assert first["opening"] is True and first["waiting_for"] == [], "the person's page shows the opening"

        refused = LiveTable(Table(new_record(table_request(spec), Settings(bot_delay=0.5, pace=0.7), 6)), log)
        log.refuse = SEAT_TRIES
        with pytest.raises(StoreError):
            await refused.arrive(0)
        assert not refused.table.seats[0].ever_connected and refused.table.open_seats() == [0]
        assert refused.waiting_for() == [0] and log.refuse == 0
        assert log.seats[-1][0]["ever_connected"] is False, "the seats are written as they are again"

    asyncio.run(body())
