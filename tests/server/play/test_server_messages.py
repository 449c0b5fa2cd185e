"""The typed messages (motley.server.play.messages) and their JSON Schema: the committed schema and TypeScript
declarations are what the types make now, and what the server sends (state messages of every viewer over
whole matches, each game's observations, the answers to ``why``, refusals, and the HTTP answers the pages read)
is valid against that schema, with no key the types leave out."""

from __future__ import annotations

import json
import random
import time
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from motley.server.play import protocol, schema
from motley.server.play.bodies import table_request
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings
from motley.server.web.testing import ServerThread

GAMES = {"fool": {"players": 4}, "foolery": {"players": 4}, "fools_errand": {}}
OBSERVATIONS = {"fool": "FoolObservation", "foolery": "FooleryObservation", "fools_errand": "FoolsErrandObservation"}


@cache
def _document() -> dict[str, Any]:
    committed = schema.DIRECTORY / schema.SCHEMA_FILE
    document: dict[str, Any] = json.loads(committed.read_text(encoding="utf-8"))
    return document


def _problems(value: Any, name: str) -> list[str]:
    """What is wrong with ``value`` (sent as JSON) as the committed schema's ``$defs[name]``."""
    validator = jsonschema.Draft202012Validator({**_document(), "$ref": f"#/$defs/{name}"})
    sent = json.loads(protocol.encode(value))
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(sent)]


def test_the_committed_schema_and_declarations_are_current() -> None:
    assert schema.stale() == [], "run python -m motley.server.play.schema and commit what it writes"


def test_the_schema_names_every_message_and_observation() -> None:
    defs = _document()["$defs"]
    server = {ref["$ref"].rpartition("/")[2] for ref in defs["ServerMessage"]["anyOf"]}
    assert server == {"StateMessage", "SeatsMessage", "WhyMessage", "ErrorMessage", "PongMessage", "HintMessage",
                      "RematchMessage", "RematchDeclinedMessage", "ChatMessage", "ChatLogMessage"}
    assert set(OBSERVATIONS.values()) <= set(defs)
    assert defs["StateMessage"]["additionalProperties"] is False
    declarations = (schema.DIRECTORY / schema.TYPES_FILE).read_text(encoding="utf-8")
    for name in defs:
        assert f" {name} " in declarations, name


def test_a_wrong_message_is_caught_by_the_schema() -> None:
    """The check below can fail: a renamed key, a missing one and a wrong type are all reported."""
    good = {"type": "pong", "version": 3}
    assert _problems(good, "PongMessage") == []
    assert _problems({"type": "pong", "verison": 3}, "PongMessage")
    assert _problems({"type": "pong"}, "PongMessage")
    assert _problems({"type": "pong", "version": "3"}, "PongMessage")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_viewers_state_message_over_a_match_fits_the_schema(game: str) -> None:
    players = GAMES[game].get("players", 2)
    table = Table(new_record(table_request({"game": game, **GAMES[game], "seats": [{"kind": "human"}] * players}),
                             Settings(), seed=11))
    rng = random.Random(11)
    moves = 0
    while True:
        for viewer in [*range(players), None]:
            message = table.message(viewer)
            assert json.loads(protocol.encode(message)) == json.loads(json.dumps(message)), (game, viewer, moves)
            assert _problems(message, "StateMessage") == [], (game, viewer, moves)
            assert _problems(message["observation"], OBSERVATIONS[game]) == [], (game, viewer, moves)
        if table.state.is_terminal() or moves >= 150:
            break
        seat = table.state.current_player()
        assert _problems(table.why_answer(seat, "no such move"), "WhyMessage") == []
        table.apply(table.prepare(seat, rng.choice(table.state.legal_actions()), "seat"))
        moves += 1
    assert moves > 0


def test_the_sent_text_is_the_json_of_the_message_whatever_it_holds() -> None:
    """What :func:`protocol.encode` writes reads back as the message itself: non-ASCII names and chat as UTF-8
    (one JSON value with the escapes of :func:`json.dumps`), and an integer past 64 bits (which the fast encoder
    refuses) through the standard one; compact, as the standard one writes it with the same settings."""
    for message in ({"type": "chat", "name": "Zoë \u2028 \U0001f0a1", "text": "\"quoted\" \\ <b>", "at": 1.5},
                    {"type": "state", "seed": 2 ** 70, "scores": [-3, 0.25, None, True]},
                    {"type": "seats", "seats": [{"name": "é", "idle": None}], "nested": [[[]], {}]}):
        text = protocol.encode(message)
        assert json.loads(text) == message == json.loads(json.dumps(message))
        assert text == json.dumps(message, separators=(",", ":"), ensure_ascii=False), "not compact"


def test_refusals_fit_the_schema() -> None:
    assert _problems(protocol.error(4, "stale", "move made at version 3"), "ErrorMessage") == []
    assert _problems(protocol.error(4, "illegal", "x", "the Fool cannot be led (FY-R9)"), "ErrorMessage") == []


@pytest.mark.parametrize("message", [
    {"type": "move", "version": 3, "action": 1},
    {"type": "move", "version": 3, "move": "play joker", "seat": 0},
    {"type": "why", "move": "AH 4C"},
    *({"type": kind} for kind in protocol.BARE),
])
def test_what_the_protocol_accepts_fits_the_client_schema(message: dict[str, Any]) -> None:
    protocol.parse(json.dumps(message))
    assert _problems(message, "ClientMessage") == []


def test_the_http_answers_the_pages_read_fit_the_schema(tmp_path: Path) -> None:
    """``GET /api/games``, ``/api/tables``, a finished table's replay index and steps (public and a seat's), from
    a running server, are what GameInfo, TableLine, ReplayIndex and ReplayStep declare."""
    with ServerThread(f"sqlite:///{tmp_path / 'answers.db'}", bot_delay=0.0, pace=0.0) as server:
        games = httpx.get(f"{server.base}/api/games", timeout=30).json()
        assert {g["name"] for g in games} == set(GAMES)
        for game in games:
            assert _problems(game, "GameInfo") == [], game["name"]
        seats = [{"kind": "bot", "bot": "random"}] * 2
        made = httpx.post(f"{server.base}/api/tables", timeout=10,
                          json={"game": "fools_errand", "bot_delay": 0, "pace": 0, "seats": seats}).json()
        replay = f"{server.base}/api/tables/{made['id']}/replay"
        deadline = time.monotonic() + 60
        while (answer := httpx.get(replay, timeout=10)).status_code == 409 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert answer.status_code == 200, answer.text
        assert _problems(answer.json(), "ReplayIndex") == []
        lines = httpx.get(f"{server.base}/api/tables", timeout=10).json()
        assert lines and all(_problems(line, "TableLine") == [] for line in lines)
        for query in ("", "?view=1"):
            for number in (0, 3):
                step = httpx.get(f"{replay}/{number}{query}", timeout=10)
                assert step.status_code == 200 and _problems(step.json(), "ReplayStep") == [], (number, query)
