"""What the browser table is given to draw and read out: each card's spoken name and label, the cards each legal
move uses (so a selection of cards is matched to a move), bots named by their kind, and the static files of the
table client (vendored library, per-game views)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

import motley
from motley.core.registry import game_spec
from motley.server.play import protocol
from motley.server.play.bodies import table_request
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings
from motley.server.web.routes.games import card_table
from motley.server.web.testing import ServerThread

GAMES = {"fool": {"players": 4}, "foolery": {"players": 3}, "fools_errand": {}}


@pytest.mark.parametrize(("game", "spoken"), [
    ("fool", {"G5": "green 5", "W1": "wild 1", "B15": "blue 15"}),
    ("foolery", {"7S": "7 of spades", "CH": "cavalier of hearts", "XXI": "trump XXI", "FOOL": "the Fool",
                 "AD": "ace of diamonds"}),
    ("fools_errand", {"7S": "7 of spades", "JK": "Joker", "QH": "queen of hearts"}),
])
def test_every_card_has_a_spoken_name_label_and_sort_key(game: str, spoken: dict[str, str]) -> None:
    table = card_table(game)
    assert set(table) == set(game_spec(game).card_codes)
    for code, name in spoken.items():
        assert table[code]["name"] == name
    names = [info["name"] for info in table.values()]
    assert len(set(names)) == len(names), "each card of the pack has its own name"
    for info in table.values():
        assert info["short"] and isinstance(info["rank"], int) and isinstance(info["order"], int)
        assert info["short"].lower() in info["name"].lower(), "the label is part of the spoken name"
    orders = [info["order"] for info in table.values()]
    assert len(set(orders)) == len(orders), "sorting a hand never ties two different cards"


def test_a_move_uses_the_card_codes_it_names() -> None:
    assert game_spec("foolery").move_cards("II X XII") == ["II", "X", "XII"]
    assert game_spec("foolery").move_cards("give 7S") == ["7S"]
    assert game_spec("foolery").move_cards("pass") == []
    assert game_spec("fool").move_cards("w1") == ["W1"]
    assert game_spec("fools_errand").move_cards("play joker") == []


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_legal_move_carries_cards_from_the_movers_hand(game: str) -> None:
    """Over a random match: a legal move's cards are cards the mover holds (in the observation the message
    carries), and no two legal moves of one turn use the same cards (so a selection names one move)."""
    spec = {"game": game, **GAMES[game],
            "seats": [{"kind": "human"}] * (GAMES[game].get("players", 2))}
    table = Table(new_record(table_request(spec), Settings(), seed=7))
    rng = random.Random(7)
    checked = 0
    while not table.state.is_terminal() and checked < 200:
        seat = table.state.current_player()
        message = table.message(seat)
        held = message["observation"].get("hand", [])
        sets = [tuple(sorted(m["cards"])) for m in message["legal"] if m["cards"]]
        assert len(set(sets)) == len(sets)
        for move in message["legal"]:
            assert all(held.count(c) >= move["cards"].count(c) for c in move["cards"]), move
        action = rng.choice([m["action"] for m in message["legal"]])
        table.apply(table.prepare(seat, action, "seat"))
        checked += 1
    assert checked > 0


def test_bots_are_named_by_their_kind() -> None:
    one = new_record(table_request({"game": "fools_errand", "seats": [{"kind": "human", "name": "Ann"},
                                                                       {"kind": "bot", "bot": "heuristic"}]}),
                     Settings())
    assert [s["name"] for s in one.seats] == ["Ann", "Bot (heuristic)"]
    many = new_record(table_request({"game": "fool", "players": 4,
                                     "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"},
                                               {"kind": "bot", "bot": "heuristic"}, {"kind": "bot", "bot": "random"}]}),
                      Settings())
    assert [s["name"] for s in many.seats] == ["Player 1", "Bot 2 (random)", "Bot (heuristic)", "Bot 4 (random)"]


def test_the_table_client_files_are_served_and_nothing_else(tmp_path: Path) -> None:
    with ServerThread(f"sqlite:///{tmp_path / 'files.db'}") as server:
        for path in ("/static/table.js", "/static/vendor/preact-htm.js",
                     *(f"/static/games/{g}.js" for g in motley.registered_games())):
            answer = httpx.get(server.base + path, timeout=10)
            assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/javascript"), path
        for path in ("/static/other/table.js", "/static/vendor/LICENSE-htm.txt", "/static/vendor/..%2Ftable.js",
                     "/static/games/nothing.js", "/static/vendor/README.md"):
            assert httpx.get(server.base + path, timeout=10).status_code == 404, path
        games = httpx.get(server.base + "/api/games", timeout=10).json()
        assert all(g["cards"] == card_table(g["name"]) for g in games)
        page = httpx.get(server.base + "/table/abc", timeout=10).text
        assert '<meta name="viewport"' in page and "<script>" not in page and " on" not in page.split("<body")[1][:200]


def test_bots_wait_until_every_person_has_connected_or_a_seat_starts(store_url: str) -> None:
    seats = [{"kind": "bot", "bot": "random"}, {"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"},
             {"kind": "bot", "bot": "random"}]
    with ServerThread(store_url, bot_delay=0.0) as server:
        for _ in range(40):  # a table whose first move is a bot's
            table = httpx.post(f"{server.base}/api/tables", json={"game": "fool", "players": 4, "seats": seats},
                               timeout=10).json()
            live = server.app.state.service.tables[table["id"]]
            if seats[live.table.state.current_player()]["kind"] == "bot":
                break
        assert live.waiting_for() == [1, 2] and live.next_auto() is None, "the bot waits for Ann and Bob"
        ws = "ws" + server.base.removeprefix("http")
        with connect(f"{ws}/ws/{table['id']}") as spectator:
            assert next_of_type(spectator, "state")["waiting_for"] == [1, 2]
            spectator.send(json.dumps({"type": "start"}))
            assert next_of_type(spectator, "error")["code"] == "spectator"
        assert live.waiting_for() == [1, 2]
        with connect(f"{ws}/ws/{table['id']}?token={table['seats'][1]['link'].split('token=')[1]}") as ann:
            assert next_of_type(ann, "state")["waiting_for"] == [2]
            assert live.table.version == 0
            ann.send(json.dumps({"type": "start"}))
            deadline = time.monotonic() + 20
            while live.table.version == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert live.table.version > 0, "after Start the bot moved"
            assert live.waiting_for() == []
        storage = server.app.state.service.store.storage
        for _ in range(100):  # the Start is stored (written after the fact), so a restart does not wait again
            stored = storage.load(table["id"])
            if stored is not None and stored.settings["wait_for_people"] is False:
                break
            time.sleep(0.05)
        assert stored is not None and Table(stored).settings.wait_for_people is False


def test_a_table_stored_without_wait_for_people_does_not_wait() -> None:
    record = new_record(table_request({"game": "fools_errand"}), Settings())
    del record.settings["wait_for_people"]
    assert Table(record).settings.wait_for_people is False
    assert Settings().wait_for_people is True


def test_a_rematch_copies_the_table_and_sends_each_viewer_its_own_link(tmp_path: Path) -> None:
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "ismcts", "strength": 20}]
    with ServerThread(f"sqlite:///{tmp_path / 'rematch.db'}", bot_delay=0.0) as server:
        for _ in range(20):  # the server draws the seed, and a deal may be played out by forced moves alone
            table = httpx.post(f"{server.base}/api/tables", json={"game": "fools_errand", "seats": seats, "grace": 5,
                                                                   "options": {"tie_break": "draw"}}, timeout=10).json()
            token = table["seats"][0]["link"].split("token=")[1]
            url = f"{server.base}/api/tables/{table['id']}/rematch"
            refused = httpx.post(url, json={"token": token}, timeout=10)
            if refused.status_code != 200:
                break
        assert refused.status_code == 409 and "not over" in refused.json()["error"]["message"]
        ws = "ws" + server.base.removeprefix("http")
        with connect(f"{ws}/ws/{table['id']}?token={token}") as ann, connect(f"{ws}/ws/{table['id']}") as watcher:
            state = json.loads(ann.recv())
            while not state.get("terminal"):  # Ann keeps each Joker; the engine and the bot do the rest
                if state.get("legal"):
                    ann.send(json.dumps({"type": "move", "version": state["version"],
                                         "action": state["legal"][-1]["action"]}))
                state = json.loads(ann.recv())
            assert httpx.post(url, json={"token": "nope"}, timeout=10).status_code == 409
            made = httpx.post(url, json={"token": token}, timeout=10).json()
            again = httpx.post(url, json={"token": token}, timeout=10).json()
            assert again["id"] == made["id"], "asked twice, one rematch"
            message = next_of_type(ann, "rematch")
            assert message["link"] == made["link"] and message["table"] == made["id"]
            seen = next_of_type(watcher, "rematch")
            assert seen["link"] == f"/table/{made['id']}", "a spectator gets the spectator link"
            assert (message["offered_by"], message["you"], seen["you"]) == (0, 0, None)
            for body, status in (({"token": token, "seats": [{"kind": "human"}]}, 400),
                                 ({"token": token, "seats": [{"from": 1, "kind": "human"}, {"kind": "bot"}]}, 400),
                                 ({"token": token, "seats": [{"from": 0, "kind": "robot"}, {"kind": "bot"}]}, 400),
                                 ({"token": token, "seats": "all"}, 400),
                                 ({"token": token, "seats": [{"from": 0, "kind": "human"},
                                                             {"kind": "bot", "bot": "random"}]}, 409)):
                answer = httpx.post(url, json=body, timeout=10)
                assert answer.status_code == status and answer.json()["error"]["message"], (body, answer.text)
            decline = f"{server.base}/api/tables/{made['id']}/decline"
            assert httpx.post(decline, json={"token": token}, timeout=10).status_code == 409, "the old table's token"
            assert httpx.post(decline, json={"token": 7}, timeout=10).status_code == 400
            new_token = made["link"].split("token=")[1]
            assert httpx.post(decline, json={"token": new_token}, timeout=10).json()["seat"] == 0
            assert next_of_type(watcher, "rematch_declined") == {"type": "rematch_declined", "seat": 0, "name": "Ann"}
        old = server.app.state.service.tables[table["id"]].table
        new = server.app.state.service.tables[made["id"]].table
        assert new.seat_of_token(made["link"].split("token=")[1]) is None and new.open_seats() == [0], "declined"
        assert [(s.kind, s.bot, s.name) for s in new.seats] == [(s.kind, s.bot, s.name) for s in old.seats]
        assert new.game.params == old.game.params and new.settings == old.settings
        assert new.record.seed != old.record.seed or new.id != old.id


def next_of_type(ws: ClientConnection, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` on ``ws`` (messages of other types are skipped)."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv())
        if message["type"] == kind:
            return message


def test_why_a_move_is_not_legal_comes_from_the_engine() -> None:
    request = table_request({"game": "foolery", "players": 3, "seats": [{"kind": "human"}] * 3})
    table = Table(new_record(request, Settings(), seed=3))
    seat = table.state.current_player()
    hand = table.state.observation(seat)["hand"]
    legal = table.message(seat)["legal"]
    assert table.why(seat, legal[0]["move"]) is None
    singles = [m["cards"][0] for m in legal if len(m["cards"]) == 1]
    pair = next(f"{a} {b}" for a in singles for b in singles
                if a != b and not any({a, b} <= set(m["cards"]) for m in legal))
    with pytest.raises(motley.core.IllegalMoveError) as refused:
        table.state.string_to_action(pair)
    assert table.why(seat, pair) == str(refused.value)
    other = (seat + 1) % 3
    assert table.why(other, hand[0]) == f"it is seat {seat}'s turn, not seat {other}'s", "the core's words"
    assert table.version == 0, "asking changes nothing"
    assert protocol.parse('{"type": "why", "move": "AH 4C"}') == protocol.ClientMessage("why", move="AH 4C")
    with pytest.raises(protocol.ProtocolError):
        protocol.parse('{"type": "why", "move": 5}')
