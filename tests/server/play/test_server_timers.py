"""Turn timers and disconnects (issue item 4): a bot moves for a timed-out or long-disconnected seat, and the
person takes over again by moving; a reconnect restores the seat's view."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from motley.server.web.testing import ServerThread
from tests.support import seat_tokens


@pytest.fixture(scope="module")
def server(module_store_url: str) -> Iterator[ServerThread]:
    with ServerThread(module_store_url, bot_delay=0.0, pace=0.0) as running:  # no pace: nothing waits to be shown
        yield running


def open_seat(server: ServerThread, table_id: str, token: str) -> ClientConnection:
    return connect(f"{server.ws_base}/ws/{table_id}?token={token}", open_timeout=10).__enter__()


def next_state(ws: ClientConnection, timeout: float = 10.0) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
        if message["type"] == "state":
            return message


def test_move_timer_lets_a_bot_move_and_the_person_takes_over(server: ServerThread) -> None:
    spec = {"game": "fools_errand", "move_time": 1.0, "grace": 60, "bot_delay": 0.0,
            "seats": [{"kind": "human"}, {"kind": "human"}]}
    table = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
    tokens = seat_tokens(table)
    seats = [open_seat(server, table["id"], t) for t in tokens]
    first = [next_state(ws) for ws in seats]
    assert first[0]["deadline"] is not None and 0 < first[0]["deadline"] <= 1.0
    mover = first[0]["current_player"]
    started = time.monotonic()
    timed = next_state(seats[mover], timeout=5)  # nobody moves: the timer's bot does, after about 1 s
    assert time.monotonic() - started >= first[mover]["deadline"] - 0.15  # not before the time ran out
    assert timed["version"] == 1 and timed["log"][-1]["actor"] == "timer" and timed["log"][-1]["seat"] == mover
    # the person takes over: whoever is to move now plays themselves, before the timer runs out
    now = timed if timed["current_player"] == mover else next_state(seats[1 - mover])
    who = now["current_player"]
    current = now if now["seat"] == who else next_state(seats[who])
    move = {"type": "move", "version": current["version"], "action": current["legal"][0]["action"]}
    seats[who].send(json.dumps(move))
    after = next_state(seats[who])
    assert after["version"] == current["version"] + 1 and after["log"][-1]["actor"] == "seat"
    for ws in seats:
        ws.close()


def test_disconnected_seat_is_played_by_a_bot_after_the_grace_time(server: ServerThread) -> None:
    # Fool! for one round: every seat plays in every trick, so seat 1 surely has moves to be played for it
    spec = {"game": "fool", "players": 4, "options": {"rounds": 1}, "grace": 0.3, "bot_delay": 0.0,
            "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"},
                      {"kind": "bot", "bot": "random"}]}
    table = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
    tokens = [s["link"].split("token=")[1] for s in table["seats"][:2]]
    a = open_seat(server, table["id"], tokens[0])
    b = open_seat(server, table["id"], tokens[1])
    seen_a, seen_b = next_state(a), next_state(b)
    assert seen_a["version"] == seen_b["version"] == 0
    b.close()  # seat 1 drops; seat 0 plays its own moves, seat 1's bot plays after the grace time
    state = seen_a
    deadline = time.monotonic() + 60
    while not state["terminal"] and time.monotonic() < deadline:
        if state["current_player"] == 0:
            a.send(json.dumps({"type": "move", "version": state["version"], "action": state["legal"][0]["action"]}))
        state = next_state(a)
    assert state["terminal"]
    actors = {(e["seat"], e["actor"]) for e in state["log"]}  # the log's newest entries
    assert (1, "away") in actors and (1, "seat") not in actors and (0, "seat") in actors
    assert state["seats"][1]["away"] is True or state["terminal"]
    # seat 1 comes back: its view is restored as of now
    again = open_seat(server, table["id"], tokens[1])
    restored = next_state(again)
    assert restored["seat"] == 1 and restored["version"] == state["version"] and restored["terminal"]
    assert restored["observation"]["seat"] == 1
    a.close()
    again.close()


def test_a_seat_that_returns_in_time_keeps_its_turn(server: ServerThread) -> None:
    spec = {"game": "fools_errand", "grace": 5, "bot_delay": 0.0,
            "seats": [{"kind": "human"}, {"kind": "human"}]}
    table = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
    tokens = seat_tokens(table)
    first = open_seat(server, table["id"], tokens[0])
    seen = next_state(first)
    first.close()
    time.sleep(0.3)
    back = open_seat(server, table["id"], tokens[0])
    restored = next_state(back)
    assert restored["version"] == seen["version"] and restored["observation"] == seen["observation"]
    assert restored["seats"][0]["away"] is False
    back.close()
