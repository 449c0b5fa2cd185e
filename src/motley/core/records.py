"""Game records: a finished (or unfinished) match as JSON, replayable move by move.

A record holds the game name, all its params, the seed, the explicit first deal if any, the moves as
strings (each with the seat that made it) and the result. :func:`load` replays the moves from the
initial state (:func:`motley.core.play.replay`) and checks the result, so a record that does not replay is
refused with the move that breaks it (docs/design.md, Principles 5); :func:`read` checks a record's shape and builds
its game without replaying it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from motley.core import jsonsafe
from motley.core.errors import MotleyError, RecordError
from motley.core.game import Game, State, load_json_object
from motley.core.play import MoveHook, replay
from motley.core.registry import load_recorded_game

FORMAT = "motley-record/1"


def dump(state: State) -> str:
    """The record of ``state`` as JSON text.

    Raises:
        MotleyError: for a determinization (``sample_state``), which has no seed or deal to replay.
    """
    if state.origin is None:
        raise MotleyError("a sampled state (determinization) has no seed or deal, so it has no record")
    game, seed, deal = state.game, state.origin["seed"], state.origin["deal"]
    moves: list[dict[str, Any]] = []
    # Each move is written from the position it is played in: the replay's own state, which on_move
    # hands over after every move (the first move is written from a fresh initial state).
    position = game.new_initial_state(seed=seed, deal=deal)

    def written() -> Iterator[tuple[int, str]]:
        for action in state.history():
            seat, move = position.current_player(), position.action_to_string(action)
            moves.append({"seat": seat, "move": move})
            yield seat, move

    def moved(after: State, seat: int, action: int) -> None:
        nonlocal position
        position = after

    replay(game, seed, deal, written(), on_move=moved)
    record = {
        "format": FORMAT,
        "game": game.name,
        "params": game.params,
        "seed": seed,
        "deal": deal,
        "moves": moves,
        "result": _result(state),
    }
    return json.dumps(record, indent=1)


def _result(state: State) -> dict[str, Any]:
    return {"terminal": state.is_terminal(), "scores": state.scores(), "returns": state.returns()}


@dataclass(frozen=True)
class Record:
    """A record read but not replayed (:func:`read`).

    Attributes:
        game: the game with the record's params.
        seed, deal: the start of the match as recorded (the game checks them when the match starts).
        moves: ``(seat, move string)`` per move, in order, as :func:`motley.core.play.replay` takes them;
            the seat is None for a move written as a plain string (its seat is not checked).
        result: the recorded result, or None when the record gives none.
    """

    game: Game
    seed: Any
    deal: Any
    moves: list[tuple[int | None, str]]
    result: dict[str, Any] | None


def read(text: str) -> Record:
    """Check the shape of a record and build its game, without replaying it (:func:`load` replays).

    A move is an object ``{"seat": .., "move": ..}`` (``seat``, a whole number, may be left out) or a plain
    move string. ``text`` is parsed by :func:`motley.core.jsonsafe.loads` (at most 8 MB, nested at most 64
    deep, numbers of at most 100 digits, finite).

    Raises:
        RecordError: for malformed JSON or JSON over those limits, missing fields, a game name, params, moves
            or result of the wrong type, an unknown game or option; never anything else, for any input.
    """
    data = load_json_object(text, "record")
    for key in ("game", "params", "seed", "moves"):
        if key not in data:
            raise RecordError(f"record has no {key!r} field")
    if not isinstance(data["game"], str):
        raise RecordError(f"record 'game' must be a game name; got {data['game']!r}")
    if not isinstance(data["params"], dict) or not isinstance(data["moves"], list):
        raise RecordError("record 'params' must be an object and 'moves' a list")
    try:
        game = load_recorded_game(data["game"], data["params"])
    except MotleyError as exc:
        raise RecordError(f"record does not start a game: {exc}") from None
    moves: list[tuple[int | None, str]] = []
    for number, entry in enumerate(data["moves"], start=1):
        move = entry.get("move") if isinstance(entry, dict) else entry
        if not isinstance(move, str):
            raise RecordError(f"move {number} must be a move string; got {move!r}")
        seat = entry.get("seat") if isinstance(entry, dict) else None
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise RecordError(f"move {number} has seat {seat!r}; a seat is a whole number")
        moves.append((seat, move))
    result = data.get("result")
    if result is not None and not isinstance(result, dict):
        raise RecordError(f"record 'result' must be an object; got {result!r}")
    return Record(game, data["seed"], data.get("deal"), moves, result)


def read_file(path: str | os.PathLike[str]) -> str:
    """The text of a record file, read no further than :data:`motley.core.jsonsafe.MAX_BYTES` (so a file such
    as ``/dev/zero`` ends at once); pass it to :func:`read` or :func:`load`.

    Raises:
        RecordError: when the file cannot be opened or read, is larger than the limit, or is not UTF-8 text.
    """
    try:
        with open(path, "rb") as stream:
            raw = stream.read(jsonsafe.MAX_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read record {path}: {exc}") from None
    if len(raw) > jsonsafe.MAX_BYTES:
        raise RecordError(f"record {path} is larger than {jsonsafe.MAX_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"cannot read record {path}: {exc}") from None


def load(text: str, on_move: MoveHook | None = None) -> State:
    """Replay a record and return its final state; ``on_move(state, seat, action)`` runs after each move
    (:func:`motley.core.play.replay`).

    Raises:
        RecordError: for malformed JSON (or JSON over the limits of :func:`read`), missing fields, an unknown
            game or option, a move that does not replay (naming its number and the reason), or a result that
            differs from the replay; never another error for any text (one raised by ``on_move`` passes through).
    """
    record = read(text)
    try:
        state = replay(record.game, record.seed, record.deal, record.moves, on_move)
    except RecordError:
        raise
    except MotleyError as exc:
        raise RecordError(f"record does not replay: {exc}") from None
    if record.result is not None and record.result != _result(state):
        raise RecordError(f"record result {record.result!r} differs from the replayed result {_result(state)!r}")
    return state
