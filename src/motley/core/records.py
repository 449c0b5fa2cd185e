"""Game records: a finished (or unfinished) match as JSON, replayable move by move.

A record holds the game name, all its params, the seed, the explicit first deal if any, the moves as
strings (each with the seat that made it) and the result. :func:`load` replays the moves from the
initial state and checks the result, so a record that does not replay is refused with the move that
breaks it (DESIGN principle 5).
"""

from __future__ import annotations

import json
from typing import Any

from motley.core.errors import MotleyError, RecordError
from motley.core.game import State, load_json_object
from motley.core.registry import load_game

FORMAT = "motley-record/1"


def dump(state: State) -> str:
    """The record of ``state`` as JSON text.

    Raises:
        MotleyError: for a determinization (``sample_state``), which has no seed or deal to replay.
    """
    if state.origin is None:
        raise MotleyError("a sampled state (determinization) has no seed or deal, so it has no record")
    replay = state.game.new_initial_state(seed=state.origin["seed"], deal=state.origin["deal"])
    moves: list[dict[str, Any]] = []
    for action in state.history():
        moves.append({"seat": replay.current_player(), "move": replay.action_to_string(action)})
        replay.apply_action(action)
    record = {
        "format": FORMAT,
        "game": state.game.name,
        "params": state.game.params,
        "seed": state.origin["seed"],
        "deal": state.origin["deal"],
        "moves": moves,
        "result": _result(state),
    }
    return json.dumps(record, indent=1)


def _result(state: State) -> dict[str, Any]:
    return {"terminal": state.is_terminal(), "scores": state.scores(), "returns": state.returns()}


def load(text: str) -> State:
    """Replay a record and return its final state.

    Raises:
        RecordError: for malformed JSON, missing fields, an unknown game or option, a move that does not
            replay (naming its number and the reason), or a result that differs from the replay.
    """
    data = load_json_object(text, "record")
    for key in ("game", "params", "seed", "moves"):
        if key not in data:
            raise RecordError(f"record has no {key!r} field")
    if not isinstance(data["params"], dict) or not isinstance(data["moves"], list):
        raise RecordError("record 'params' must be an object and 'moves' a list")
    try:
        game = load_game(data["game"], **data["params"])
        state = game.new_initial_state(seed=data["seed"], deal=data.get("deal"))
    except MotleyError as exc:
        raise RecordError(f"record does not start a game: {exc}") from None
    for number, entry in enumerate(data["moves"], start=1):
        move = entry.get("move") if isinstance(entry, dict) else entry
        if not isinstance(move, str):
            raise RecordError(f"move {number} must be a move string; got {move!r}")
        seat = entry.get("seat") if isinstance(entry, dict) else None
        if seat is not None and seat != state.current_player():
            raise RecordError(f"move {number} ({move!r}) is recorded for seat {seat}, "
                              f"but seat {state.current_player()} is to move")
        try:
            state.apply_action(state.string_to_action(move))
        except MotleyError as exc:
            raise RecordError(f"move {number} ({move!r}) does not replay: {exc}") from None
    result = data.get("result")
    if result is not None and result != _result(state):
        raise RecordError(f"record result {result!r} differs from the replayed result {_result(state)!r}")
    return state
