"""The server end to end over real WebSockets: play, tokens, and bad input that changes nothing (issue items 3, 5)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from motley.server.play.table import Table
from motley.server.web.testing import ServerThread

Message = dict[str, Any]


class Client:
    """A WebSocket viewer of a table that remembers the last state message."""

    def __init__(self, url: str) -> None:
        self.ws: ClientConnection = connect(url, max_size=None, open_timeout=10).__enter__()
        self.last: Message | None = None

    def recv(self, timeout: float = 10.0) -> Message:
        message: Message = json.loads(self.ws.recv(timeout=timeout))
        if message["type"] == "state":
            self.last = message
        return message

    def until(self, pred: Callable[[Message], bool], timeout: float = 10.0) -> Message:
        while True:
            message = self.recv(timeout)
            if pred(message):
                return message

    def state(self) -> Message:
        return self.until(lambda m: m["type"] == "state")

    def send(self, data: Any) -> None:
        self.ws.send(data if isinstance(data, (str, bytes)) else json.dumps(data))

    def error(self, data: Any) -> Message:
        self.send(data)
        return self.until(lambda m: m["type"] == "error")

    def close(self) -> None:
        self.ws.close()


@pytest.fixture(scope="module")
def server(module_store_url: str) -> Iterator[ServerThread]:
    with ServerThread(module_store_url, bot_delay=0.0, pace=0.0) as running:  # no pace: nothing waits to be shown
        yield running


def create(server: ServerThread, spec: Message) -> Message:
    response = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10)
    assert response.status_code == 200, response.text
    data: Message = response.json()
    return data


def ws_url(server: ServerThread, link: str, svg: bool = False) -> str:
    path, _, query = link.partition("?")
    table_id = path.rsplit("/", 1)[-1]
    params = "&".join(p for p in (query, "svg=1" if svg else "") if p)
    return f"{server.ws_base}/ws/{table_id}" + (f"?{params}" if params else "")


def table_of(server: ServerThread, table_id: str) -> Table:
    table: Table = server.app.state.service.tables[table_id].table
    return table


def play_to_end(client: Client, limit: int = 5000) -> Message:
    """Answer every turn with the first legal move until the match ends."""
    message = client.last or client.state()
    for _ in range(limit):
        if message["terminal"]:
            return message
        if message["legal"] and message["current_player"] == message["seat"]:
            client.send({"type": "move", "version": message["version"], "action": message["legal"][0]["action"]})
        message = client.state()
    raise AssertionError("match did not end")


def test_person_plays_a_whole_match_against_a_bot(server: ServerThread) -> None:
    table = create(server, {"game": "fools_errand",
                            "seats": [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}]})
    client = Client(ws_url(server, table["seats"][0]["link"], svg=True))
    first = client.state()
    assert first["seat"] == 0 and first["observation"]["seat"] == 0 and first["svg"].startswith("<svg")
    final = play_to_end(client)
    assert final["terminal"] and final["returns"] is not None
    assert sum(final["scores"]) <= 340
    # every move of the person's seat was the person's own (a deal may give it no decision at all)
    assert all(e["actor"] == "seat" for e in final["log"] if e["seat"] == 0)
    record = httpx.get(f"{server.base}/api/tables/{table['id']}/record", timeout=10)
    assert record.status_code == 200 and json.loads(record.text)["result"]["terminal"] is True
    replay = httpx.get(f"{server.base}/api/tables/{table['id']}/replay/1", timeout=10).json()
    assert replay["svg"].startswith("<svg") and replay["moves"] == final["version"]
    assert replay["step"] == min(1, final["version"])
    client.close()


def two_human_table(server: ServerThread) -> tuple[Message, Client, Client, Client]:
    table = create(server, {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "human"}]})
    a = Client(ws_url(server, table["seats"][0]["link"]))
    b = Client(ws_url(server, table["seats"][1]["link"]))
    watcher = Client(ws_url(server, table["spectate"]))
    for c in (a, b, watcher):
        c.state()
    return table, a, b, watcher


def test_a_token_acts_for_its_own_seat_only(server: ServerThread) -> None:
    table, a, b, watcher = two_human_table(server)
    assert a.last is not None and b.last is not None and watcher.last is not None
    assert (a.last["seat"], b.last["seat"], watcher.last["seat"]) == (0, 1, None)
    assert a.last["observation"]["seat"] == 0 and b.last["observation"]["seat"] == 1
    bad = Client(f"{server.ws_base}/ws/{table['id']}?token=not-a-token")
    assert bad.recv()["code"] == "bad_token"
    with pytest.raises(ConnectionClosed):  # the server closes a connection with a wrong token
        bad.recv(timeout=5)
    for c in (a, b, watcher):
        c.close()


BAD_MESSAGES: list[tuple[str, Callable[[Message], Any], str]] = [
    ("not json", lambda s: "{not json", "malformed"),
    ("a list", lambda s: "[1, 2]", "malformed"),
    ("bytes", lambda s: b"\x00\x01binary", "malformed"),
    ("no type", lambda s: {"version": s["version"], "action": 0}, "malformed"),
    ("unknown type", lambda s: {"type": "dance"}, "malformed"),
    ("no version", lambda s: {"type": "move", "action": 0}, "malformed"),
    ("bool version", lambda s: {"type": "move", "version": True, "action": 0}, "malformed"),
    ("float action", lambda s: {"type": "move", "version": s["version"], "action": 1.5}, "malformed"),
    ("both action and move", lambda s: {"type": "move", "version": s["version"], "action": 1, "move": "draw"},
     "malformed"),
    ("long move text", lambda s: {"type": "move", "version": s["version"], "move": "x" * 300}, "malformed"),
    ("oversized", lambda s: json.dumps({"type": "move", "version": s["version"], "move": "draw", "pad": "x" * 10000}),
     "too_large"),
    ("huge", lambda s: "x" * 500_000, "too_large"),
    ("illegal id", lambda s: {"type": "move", "version": s["version"], "action": 99}, "illegal"),
    ("negative id", lambda s: {"type": "move", "version": s["version"], "action": -1}, "illegal"),
    ("unknown move", lambda s: {"type": "move", "version": s["version"], "move": "banana"}, "illegal"),
    ("stale", lambda s: {"type": "move", "version": s["version"] - 1, "action": s["legal"][0]["action"]}, "stale"),
    ("future", lambda s: {"type": "move", "version": s["version"] + 3, "action": s["legal"][0]["action"]}, "stale"),
    ("other seat", lambda s: {"type": "move", "version": s["version"], "action": s["legal"][0]["action"],
                              "seat": 1 - s["seat"]}, "wrong_seat"),
]


def test_bad_input_gets_an_error_and_changes_nothing(server: ServerThread) -> None:
    table, a, b, watcher = two_human_table(server)
    live = table_of(server, table["id"])
    # make one real move first, so "stale" (an older version) exists
    mover, other = (a, b) if live.state.current_player() == 0 else (b, a)
    assert mover.last is not None and mover.last["legal"]
    mover.send({"type": "move", "version": mover.last["version"], "action": mover.last["legal"][0]["action"]})
    for c in (a, b, watcher):
        c.until(lambda m: m["type"] == "state" and m["version"] == 1)
    mover, other = (a, b) if live.state.current_player() == 0 else (b, a)
    before = (live.version, live.state.serialize(), len(live.log))
    assert mover.last is not None and other.last is not None
    for name, make, code in BAD_MESSAGES:
        reply = mover.error(make(mover.last))
        assert reply["code"] == code, name
        assert (live.version, live.state.serialize(), len(live.log)) == before, name
    # out of turn, and a spectator trying to move
    assert other.error({"type": "move", "version": other.last["version"], "action": 0})["code"] == "not_your_turn"
    assert watcher.error({"type": "move", "version": live.version, "action": 0})["code"] == "spectator"
    assert (live.version, live.state.serialize(), len(live.log)) == before
    # every connection still works: ping, and the mover's legal move is applied
    for c in (a, b, watcher):
        c.send({"type": "ping"})
        assert c.until(lambda m: m["type"] == "pong")["version"] == before[0]
    mover.send({"type": "move", "version": mover.last["version"], "move": mover.last["legal"][-1]["move"]})
    after = watcher.until(lambda m: m["type"] == "state" and m["version"] == before[0] + 1)
    assert after["log"][-1]["actor"] == "seat"
    for c in (a, b, watcher):
        c.close()


def test_create_refuses_bad_requests(server: ServerThread) -> None:
    bad_specs: list[Any] = [
        {"game": "chess"},
        {"game": "fools_errand", "options": {"after_scoop": "sometimes"}},
        {"game": "fools_errand", "options": {"no_such_option": 1}},
        {"game": "fools_errand", "seats": [{"kind": "human"}]},
        {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "external(cmd=rm -rf /)"}]},
        {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "ismcts", "strength": 10**9}]},
        {"game": "fools_errand", "move_time": -5},
        {"game": "fools_errand", "seed": "seven"},
        [1, 2, 3],
    ]
    for spec in bad_specs:
        response = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10)
        assert response.status_code == 400, spec
        assert response.json()["error"]["message"]
    response = httpx.post(f"{server.base}/api/tables", content=b"{oops", timeout=10,
                          headers={"content-type": "application/json"})
    assert response.status_code == 400


def test_lobby_lists_open_tables_and_a_free_seat_can_be_joined(server: ServerThread) -> None:
    table = create(server, {"game": "fools_errand", "seats": [{"kind": "human", "open": True},
                                                              {"kind": "human", "open": True}]})
    listed = {t["id"]: t for t in httpx.get(f"{server.base}/api/tables", timeout=10).json()}
    assert listed[table["id"]]["free_seats"] == 2
    assert "token" not in json.dumps(listed[table["id"]])
    joined = [httpx.post(f"{server.base}/api/tables/{table['id']}/join", timeout=10) for _ in range(3)]
    assert [r.status_code for r in joined] == [200, 200, 409]
    assert {r.json()["seat"] for r in joined[:2]} == {0, 1}
    assert not {r.json()["link"] for r in joined[:2]} & {s["link"] for s in table["seats"]}, "fresh links"
    for page in ("/", f"/table/{table['id']}", "/static/table.js", "/static/lobby.js", "/static/style.css"):
        assert httpx.get(server.base + page, timeout=10).status_code == 200
    assert httpx.get(f"{server.base}/static/..%2Fapp.py", timeout=10).status_code == 404
    assert httpx.get(f"{server.base}/api/tables/{table['id']}/record", timeout=10).status_code == 409


def test_unknown_table_is_refused(server: ServerThread) -> None:
    client = Client(f"{server.ws_base}/ws/nosuchtable")
    assert client.recv()["code"] == "no_table"


def test_reconnect_restores_the_view(server: ServerThread) -> None:
    table, a, b, watcher = two_human_table(server)
    assert a.last is not None
    seen = a.last
    a.close()
    again = Client(ws_url(server, table["seats"][0]["link"]))
    restored = again.state()
    assert restored["version"] == seen["version"] and restored["observation"] == seen["observation"]
    assert restored["legal"] == seen["legal"]
    for c in (again, b, watcher):
        c.close()


def test_games_api_lists_every_option_with_its_default(server: ServerThread) -> None:
    import motley
    from motley.core.registry import game_class

    games = {g["name"]: g for g in httpx.get(f"{server.base}/api/games", timeout=10).json()}
    assert set(games) == set(motley.registered_games())
    for name, info in games.items():
        declared = {o.name: o.default for o in game_class(name).options if o.name != "players"}
        assert {o["name"]: o["default"] for o in info["options"]} == declared
        assert "random" in info["bots"] and "ismcts" in info["bots"]




def test_bots_play_a_table_by_themselves_and_ismcts_runs_off_the_event_loop(server: ServerThread) -> None:
    spec = {"game": "fools_errand", "bot_delay": 0,
            "seats": [{"kind": "bot", "bot": "ismcts", "strength": 20}, {"kind": "bot", "bot": "random"}]}
    table = create(server, spec)
    watcher = Client(ws_url(server, table["spectate"]))
    final = watcher.until(lambda m: m["type"] == "state" and m["terminal"], timeout=60)
    assert final["version"] >= 1 and all(e["actor"] == "bot" for e in final["log"])
    assert final["seats"][0]["bot"] == "ismcts(simulations=20)"
    watcher.close()


def test_serve_command_is_registered() -> None:
    from typer.testing import CliRunner

    from motley.cli.main import app

    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--move-time", "--grace", "--bot-delay"):
        assert option in result.output
