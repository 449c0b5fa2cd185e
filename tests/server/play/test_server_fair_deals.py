"""Fair deals: the server alone chooses a table's seed, commits to it when the match starts, and reveals it
only in the record of the finished table, which ``motley verify`` checks against the commitment."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner
from websockets.sync.client import ClientConnection, connect

import motley
from motley.bots import RandomBot
from motley.cli.main import app
from motley.core.play import play
from motley.core.registry import game_spec
from motley.server.web.testing import ServerThread

runner = CliRunner()


@pytest.fixture(scope="module")
def server(module_store_url: str) -> Iterator[ServerThread]:
    with ServerThread(module_store_url, bot_delay=0.0, pace=0.0) as running:  # no pace: nothing waits to be shown
        yield running


class Recorder:
    """A WebSocket viewer that keeps the raw text of every message it gets."""

    def __init__(self, url: str) -> None:
        self.ws: ClientConnection = connect(url, max_size=None, open_timeout=10).__enter__()
        self.texts: list[str] = []
        self.saw_the_end = False  # a state message of the finished match has come

    def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.texts.append(text)
        message: dict[str, Any] = json.loads(text)
        if message["type"] == "state" and message["terminal"]:
            self.saw_the_end = True
        return message

    def state(self) -> dict[str, Any]:
        while True:
            message = self.recv()
            if message["type"] == "state":
                return message


def commit(table_id: str, seed: int) -> str:
    return hashlib.sha256(f"{table_id}:{seed}".encode()).hexdigest()


def test_a_table_request_cannot_choose_the_seed(server: ServerThread) -> None:
    for seed in (42, 0, "7", None):
        response = httpx.post(f"{server.base}/api/tables", json={"game": "fools_errand", "seed": seed}, timeout=10)
        assert response.status_code == 400
        assert "seed" in response.json()["error"]["message"]
    made = [httpx.post(f"{server.base}/api/tables", json={"game": "fools_errand"}, timeout=10).json()["id"]
            for _ in range(3)]
    seeds = {server.app.state.service.tables[t].table.record.seed for t in made}
    assert len(seeds) == 3  # drawn by the server, each its own


def play_match(server: ServerThread) -> tuple[str, int, Recorder, Recorder, list[str]]:
    """A whole match (a person against a bot), watched by a spectator; returns the table id, its seed, both
    viewers, and the text of every HTTP answer about the table while it was played."""
    spec = {"game": "fools_errand", "bot_delay": 0, "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]}
    created = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
    table_id = created["id"]
    seed = server.app.state.service.tables[table_id].table.record.seed
    token = created["seats"][0]["link"].split("token=")[1]
    seat = Recorder(f"{server.ws_base}/ws/{table_id}?token={token}&svg=1")
    watcher = Recorder(f"{server.ws_base}/ws/{table_id}")
    answers = [json.dumps(created)]
    message = seat.state()
    watcher.state()
    for _ in range(5000):
        answers.append(httpx.get(f"{server.base}/api/tables", timeout=10).text)
        record = httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10)
        if record.status_code == 200:  # only once the match is over (a bot may end it before this seat hears)
            assert server.app.state.service.tables[table_id].table.state.is_terminal()
        else:
            assert record.status_code == 409
            answers.append(record.text)
        if message["terminal"]:
            break
        if message["legal"] and message["current_player"] == message["seat"]:
            seat.ws.send(json.dumps({"type": "move", "version": message["version"],
                                     "action": message["legal"][0]["action"]}))
        message = seat.state()
    else:
        raise AssertionError("match did not end")
    # the spectator's messages up to the end, which may have been its first: the server draws the seed, and
    # a match can be played out by the bot and forced moves before the seat ever decides
    while not watcher.saw_the_end:
        watcher.state()
    return table_id, seed, seat, watcher, answers


@pytest.fixture(scope="module")
def finished(server: ServerThread) -> tuple[str, int, Recorder, Recorder, list[str]]:
    return play_match(server)


def test_the_seed_is_hidden_until_the_end_and_matches_the_commitment(
        server: ServerThread, finished: tuple[str, int, Recorder, Recorder, list[str]]) -> None:
    table_id, seed, seat, watcher, answers = finished
    for text in [*seat.texts, *watcher.texts, *answers]:
        assert str(seed) not in text
    firsts = [json.loads(viewer.texts[0]) for viewer in (seat, watcher)]
    assert all(first["type"] == "state" and first["commitment"] == commit(table_id, seed) for first in firsts)
    record = httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10)
    assert record.status_code == 200
    data = json.loads(record.text)
    assert data["seed"] == seed and data["table"] == table_id
    assert commit(data["table"], data["seed"]) == firsts[0]["commitment"] == data["commitment"]


def test_lobby_lists_the_commitment_and_never_the_seed(server: ServerThread) -> None:
    created = httpx.post(f"{server.base}/api/tables", json={"game": "fools_errand"}, timeout=10).json()
    seed = server.app.state.service.tables[created["id"]].table.record.seed
    listing = httpx.get(f"{server.base}/api/tables", timeout=10)
    line = {t["id"]: t for t in listing.json()}[created["id"]]
    assert line["commitment"] == commit(created["id"], seed) and str(seed) not in listing.text


def test_verify_passes_on_a_real_record_and_fails_on_a_tampered_one(
        server: ServerThread, finished: tuple[str, int, Recorder, Recorder, list[str]], tmp_path: Path) -> None:
    table_id, seed, seat, _, _ = finished
    promised = json.loads(seat.texts[0])["commitment"]
    text = httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10).text
    good = tmp_path / "good.json"
    good.write_text(text)
    result = runner.invoke(app, ["verify", str(good), "--table-id", table_id, "--commitment", promised])
    assert result.exit_code == 0, result.output
    assert "OK" in result.output
    assert runner.invoke(app, ["verify", str(good)]).exit_code == 0  # table and commitment from the record

    data = json.loads(text)
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps({**data, "seed": seed + 1}))
    result = runner.invoke(app, ["verify", str(tampered), "--table-id", table_id, "--commitment", promised])
    assert result.exit_code == 1 and "FAILED" in result.output
    # a record whose commitment was rewritten to fit another seed fails against the saved commitment
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({**data, "seed": seed + 1, "commitment": commit(table_id, seed + 1)}))
    assert runner.invoke(app, ["verify", str(forged), "--commitment", promised]).exit_code == 1
    result = runner.invoke(app, ["verify", str(good), "--table-id", "another", "--commitment", promised])
    assert result.exit_code == 1

    for bad in ("{oops", "[]", json.dumps({"table": table_id, "commitment": promised})):
        broken = tmp_path / "broken.json"
        broken.write_text(bad)
        assert runner.invoke(app, ["verify", str(broken)]).exit_code == 2
    assert runner.invoke(app, ["verify", str(tmp_path / "missing.json")]).exit_code == 2


def _forged_with_a_deal(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The forgery of the record ``data``: its seed, table and commitment kept, an explicit deal of the forger's
    and a whole new match played on it (the record replays and ends in its result)."""
    codes = sorted(game_spec("fools_errand").card_codes - {"JK"})  # 52 cards; each deck holds 26 and a Joker
    rng.shuffle(codes)
    decks = [codes[:26], codes[26:]]
    for deck in decks:
        deck.insert(rng.randrange(27), "JK")
    deal = {"decks": decks}
    game = motley.load_game("fools_errand", **data["params"])
    state = play(game.new_initial_state(deal=deal), [RandomBot(game), RandomBot(game)], rng)
    made = json.loads(motley.records.dump(state))
    return {**made, "seed": data["seed"], "table": data["table"], "commitment": data["commitment"]}


def test_verify_refuses_forgeries_that_keep_the_seed_and_the_commitment(
        server: ServerThread, finished: tuple[str, int, Recorder, Recorder, list[str]], tmp_path: Path) -> None:
    """An explicit deal, a match cut short, a record without its result: each is refused, with the commitment
    given and without it (motley verify checks the whole chain from the commitment to the result)."""
    table_id, _, seat, _, _ = finished
    promised = json.loads(seat.texts[0])["commitment"]
    data = json.loads(httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10).text)
    half = {k: v for k, v in data.items() if k != "result"} | {"moves": data["moves"][:len(data["moves"]) // 2]}
    forgeries = {"an explicit deal": (_forged_with_a_deal(data, random.Random(7)), "explicit deal"),
                 "half the moves, no result": (half, "no result"),
                 "no result": ({k: v for k, v in data.items() if k != "result"}, "no result")}
    for name, (forged, why) in forgeries.items():
        path = tmp_path / "forged.json"
        path.write_text(json.dumps(forged))
        for extra in ([], ["--commitment", promised]):
            result = runner.invoke(app, ["verify", str(path), *extra])
            assert result.exit_code == 1, (name, result.output)
            assert "FAILED" in result.output and why in result.output, (name, result.output)
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({**half, "result": data["result"]}))
    result = runner.invoke(app, ["verify", str(cut), "--commitment", promised])
    assert result.exit_code == 1, result.output


def test_verify_reads_a_commitment_in_any_case_and_spacing_and_says_what_it_checked(
        server: ServerThread, finished: tuple[str, int, Recorder, Recorder, list[str]], tmp_path: Path) -> None:
    table_id, _, seat, _, _ = finished
    promised = json.loads(seat.texts[0])["commitment"]
    good = tmp_path / "good.json"
    good.write_text(httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10).text)
    spaced = " ".join(promised[i:i + 8] for i in range(0, len(promised), 8)).upper()
    result = runner.invoke(app, ["verify", str(good), "--commitment", spaced])
    assert result.exit_code == 0 and "OK" in result.output and "own commitment only" not in result.output
    alone = runner.invoke(app, ["verify", str(good)])
    assert alone.exit_code == 0 and "own commitment only" in " ".join(alone.output.split())
