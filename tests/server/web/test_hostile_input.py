"""Hostile input gets a 4xx or a clear error, never a 500 or a traceback: deeply nested JSON, numbers of
thousands of digits or out of float range, a NUL byte in a static path, a non-ASCII token, broken records,
and a record that never ends (``/dev/zero``)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import motley
from motley.cli.main import app
from motley.core import RecordError, jsonsafe
from motley.server.play import protocol
from motley.server.play.bodies import table_request
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings
from motley.server.web.testing import ServerThread

runner = CliRunner()
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 15_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "motley.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running


def finished_record(game: str = "fools_errand", seed: int = 8) -> dict[str, Any]:
    state = motley.load_game(game).new_initial_state(seed=seed)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    record: dict[str, Any] = json.loads(motley.records.dump(state))
    return record


# ---- 1. one guarded JSON parser -------------------------------------------------------------------
@pytest.mark.parametrize(("text", "reason"), [
    (DEEP, "too_deep"), ("[" * 65 + "]" * 65, "too_deep"), ('{"a":' * 70 + "1" + "}" * 70, "too_deep"),
    (HUGE, "number"), ("-" + "1" * 101, "number"), ("1e999", "number"), ("[-1e400]", "number"),
    ("NaN", "number"), ("Infinity", "number"), ("-Infinity", "number"), ("1" * 5000 + ".5", "number"),
    ("{not json", "syntax"), ("", "syntax"), (b"\xff\xfe", "encoding"), ("x" * 9_000_000, "too_large"),
])
def test_jsonsafe_refuses_every_hostile_text_with_its_one_error(text: str | bytes, reason: str) -> None:
    with pytest.raises(jsonsafe.JSONInputError) as caught:
        jsonsafe.loads(text, "input")
    assert caught.value.reason == reason and str(caught.value).startswith("input ")


def test_jsonsafe_takes_ordinary_json_and_brackets_inside_strings() -> None:
    text = json.dumps({"a": ["[" * 500, "{" * 500, '\\"[['], "n": 2**62, "f": 0.5, "deep": [[[[1]]]]})
    assert jsonsafe.loads(text) == json.loads(text)
    assert jsonsafe.loads(b'{"x": [1, 2]}') == {"x": [1, 2]}
    assert jsonsafe.loads("[" * 64 + "]" * 64, max_depth=64) is not None


def test_deserialize_state_refuses_hostile_json_with_record_error() -> None:
    game = motley.load_game("fool")
    for text in (DEEP, HUGE, '{"game": "fool", "params": {}, "state": 1e999}'):
        with pytest.raises(RecordError):
            game.deserialize_state(text)
    state = game.new_initial_state(seed=2**62)
    assert game.deserialize_state(state.serialize()).serialize() == state.serialize()


def test_json_options_refuse_hostile_text_with_option_error() -> None:
    for text in (DEEP, HUGE, "1e999"):
        with pytest.raises(motley.OptionError):
            motley.load_game("fool", deck_table=text)


# ---- HTTP bodies ----------------------------------------------------------------------------------
@pytest.mark.parametrize("body", [
    DEEP[:10_000] + DEEP[-10_000:], '{"game": "fool", "seed": ' + HUGE[:15_000] + "}",
    '{"game": "fool", "options": {"players": ' + "9" * 5000 + "}}", '{"game": "fool", "seed": 1e999}',
    '{"game": "fool", "options": {"players": NaN}}', b'{"game": "\xff"}', "[" * 19_000,
    json.dumps({"game": "fool", "options": {"deck_table": "[" * 19_000}}),
    json.dumps({"game": "fool", "options": {"deck_table": "9" * 5000}}),
])
def test_hostile_table_request_is_a_4xx_never_a_500(server: ServerThread, body: str | bytes) -> None:
    response = httpx.post(f"{server.base}/api/tables", content=body, timeout=10,
                          headers={"content-type": "application/json"})
    assert response.status_code in (400, 413, 422), (response.status_code, response.text[:200])
    assert "error" in response.json()


def test_oversized_table_request_is_413_even_without_a_length(server: ServerThread) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b"[" * 1000

    json_type = {"content-type": "application/json"}
    response = httpx.post(f"{server.base}/api/tables", content=chunks(), timeout=10, headers=json_type)
    assert response.status_code == 413
    response = httpx.post(f"{server.base}/api/tables", content=b" " * 30_000, timeout=10, headers=json_type)
    assert response.status_code == 413


# ---- 2. static paths ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", [
    "/static/a%00.js", "/static/lobby.js%00", "/static/%00", "/static/..%2Ftransport.py", "/static/..%2F__init__.js",
    "/static/%2E%2E.js", "/static/.js", "/static/index.html", "/static/nope.css", "/static/a%5Cb.js",
])
def test_bad_static_paths_are_404(server: ServerThread, path: str) -> None:
    response = httpx.get(f"{server.base}{path}", timeout=10)
    assert response.status_code == 404, (path, response.status_code)


def test_static_files_are_still_served(server: ServerThread) -> None:
    for name, kind in (("lobby.js", "text/javascript"), ("table.js", "text/javascript"), ("style.css", "text/css")):
        response = httpx.get(f"{server.base}/static/{name}", timeout=10)
        assert response.status_code == 200 and response.headers["content-type"].startswith(kind)


# ---- 3. tokens compared as bytes ------------------------------------------------------------------
def test_non_ascii_token_is_a_clean_bad_token_refusal(server: ServerThread) -> None:
    response = httpx.post(f"{server.base}/api/tables", json={"game": "fool"}, timeout=10)
    table_id = response.json()["id"]
    for token in ("%C3%A9", "%E2%82%AC" * 10, "%F0%9F%83%8F", "%ED%A0%80"):
        with connect(f"{server.ws_base}/ws/{table_id}?token={token}", open_timeout=10) as ws:
            message = json.loads(ws.recv(timeout=10))
            assert message["type"] == "error" and message["code"] == "bad_token"
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403


def test_seat_of_token_compares_any_text() -> None:
    request = table_request({"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4})
    table = Table(new_record(request, Settings(), 1))
    token = table.seats[1].token
    assert token is not None
    assert table.seat_of_token(token) == 1
    for wrong in ("é", "\ud800", token + "é", "", "\x00"):
        assert table.seat_of_token(wrong) is None


# ---- 4. records.load raises only RecordError ------------------------------------------------------
GOOD = finished_record()
LEAF = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=12) | st.sampled_from(["fool", "foolery", "fools_errand", "draw", "play joker"]))
VALUES = st.recursive(LEAF, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=16)
FIELDS = st.sampled_from(["format", "game", "params", "seed", "deal", "moves", "result"])


def mutated(changes: list[tuple[str, Any]], index: int, value: Any, part: str | None,
            drop: list[str]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(GOOD))
    for key, new in changes:
        data[key] = new
    for key in drop:
        data.pop(key, None)
    moves = data.get("moves")
    if part is not None and isinstance(moves, list) and index < len(moves) and isinstance(moves[index], dict):
        moves[index][part] = value
    elif part is None and isinstance(moves, list) and index < len(moves):
        moves[index] = value
    return data


@pytest.mark.parametrize("text", [
    DEEP, json.dumps({**GOOD, "seed": 0})[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}",
    json.dumps({**GOOD, "seed": 0}).replace('"seed": 0', '"seed": ' + HUGE), json.dumps(GOOD).replace("{", "[", 1),
    json.dumps({**GOOD, "game": ["fool"]}), json.dumps({**GOOD, "game": {"a": 1}}),
    json.dumps({**GOOD, "moves": [{"seat": [0], "move": "draw"}]}), json.dumps({**GOOD, "result": 1e300}) + "",
    json.dumps({**GOOD, "seed": 1.5}), '{"game": "fool", "params": {}, "seed": 1, "moves": [], "deal": 1e999}',
])
def test_records_load_refuses_hostile_records_with_record_error(text: str) -> None:
    with pytest.raises(RecordError):
        motley.records.load(text)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(FIELDS, VALUES), max_size=3), st.integers(0, 40), VALUES,
       st.sampled_from(["seat", "move", None]), st.lists(FIELDS, max_size=2))
def test_records_load_raises_nothing_but_record_error(changes: list[tuple[str, Any]], index: int, value: Any,
                                                      part: str | None, drop: list[str]) -> None:
    text = json.dumps(mutated(changes, index, value, part, drop))
    with contextlib.suppress(RecordError):
        motley.records.load(text)
    assert motley.records.load(json.dumps(GOOD)).scores() == GOOD["result"]["scores"]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=300) | st.binary(max_size=100).map(lambda b: b.decode("latin-1")))
def test_records_load_of_any_text_raises_nothing_but_record_error(text: str) -> None:
    with pytest.raises(RecordError):
        motley.records.load(text)


# ---- 5. motley replay -----------------------------------------------------------------------------
def test_replay_of_dev_zero_ends_quickly_with_a_clear_error() -> None:
    started = time.monotonic()
    result = runner.invoke(app, ["replay", "/dev/zero"])
    assert result.exit_code == 2 and "larger than" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("content", [
    DEEP, '{"game": "fool", "seed": ' + HUGE + "}", json.dumps({**GOOD, "moves": ["[bold]draw[/]"]}),
    json.dumps({**GOOD, "moves": [{"seat": "[/]", "move": "draw"}]}), json.dumps({**GOOD, "game": "[/x]"}),
    json.dumps({**GOOD, "result": "[/]"}), " " * 9_000_000,
])
def test_replay_refuses_broken_records_without_a_traceback(tmp_path: Path, content: str) -> None:
    path = tmp_path / "record.json"
    path.write_text(content)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2 and "error:" in result.output, result.output[-300:]
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(FIELDS, VALUES), max_size=2), st.integers(0, 40), VALUES,
       st.sampled_from(["seat", "move", None]), st.lists(FIELDS, max_size=1))
def test_replay_takes_exactly_what_load_takes(tmp_path_factory: pytest.TempPathFactory,
                                              changes: list[tuple[str, Any]], index: int, value: Any,
                                              part: str | None, drop: list[str]) -> None:
    text = json.dumps(mutated(changes, index, value, part, drop))
    try:
        motley.records.load(text)
        loads = True
    except RecordError:
        loads = False
    path = tmp_path_factory.mktemp("replay") / "record.json"
    path.write_text(text)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == (0 if loads else 2), result.output[-300:]
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


# ---- WebSocket messages ---------------------------------------------------------------------------
MESSAGE_VALUES = st.recursive(LEAF | st.integers(min_value=-(10**40), max_value=10**40),
                              lambda inner: st.lists(inner, max_size=3)
                              | st.dictionaries(st.sampled_from(["type", "version", "action", "move", "seat", "x"]),
                                                inner, max_size=5), max_leaves=12)


@pytest.mark.parametrize("text", [
    "[" * 4000, '{"type": "move", "version": ' + "1" * 4000 + ', "action": 1}', '{"type": "ping", "x": 1e999}',
    '{"type": "move", "version": NaN, "action": 1}', '{"type":' * 300 + '"ping"' + "}" * 300,
])
def test_protocol_parse_refuses_hostile_messages_as_malformed(text: str) -> None:
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.parse(text)
    assert caught.value.code == "malformed"


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(MESSAGE_VALUES.map(json.dumps) | st.text(max_size=200) | st.binary(max_size=50)
       | st.builds(lambda n, inner: "[" * n + inner + "]" * n, st.integers(0, 3000), st.sampled_from(["", "1", "{}"])))
def test_protocol_parse_and_table_check_raise_only_protocol_errors_and_change_nothing(message: Any) -> None:
    table = TABLE
    before = (table.version, table.state.serialize())
    try:
        parsed = protocol.parse(message)
        if parsed.kind == "move":
            table.check(table.state.current_player(), parsed)
    except protocol.ProtocolError as exc:
        assert exc.code in ("too_large", "malformed", "stale", "illegal", "over", "not_your_turn")
    assert (table.version, table.state.serialize()) == before


TABLE = Table(new_record(table_request({"game": "fools_errand", "seats": [{"kind": "human"}] * 2}), Settings(), 3))
