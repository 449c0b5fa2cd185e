"""Fair deals: the server alone chooses a table's seed, commits to it when the match starts, and reveals it
only in the record of the finished table, which ``motley verify`` checks against the commitment."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner
from websockets.sync.client import ClientConnection, connect

from motley.cli.main import app
from motley.server.testing import ServerThread

runner = CliRunner()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "motley.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0, pace=0.0) as running:  # no pace: nothing waits to be shown
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
        assert "seed" in response.json()["error"]
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
