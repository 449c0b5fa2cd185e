"""The core layer: Game / State base, errors, options, registry and records. Imports nothing else of motley."""

from motley.core.errors import (
    DealError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    MotleyError,
    MoveError,
    NotYourTurnError,
    OptionError,
    RecordError,
)
from motley.core.game import TERMINAL, Game, Observation, State
from motley.core.options import Option
from motley.core.registry import game_spec, load_game, register_spec, registered_games
from motley.core.spec import GameSpec

__all__ = [
    "TERMINAL",
    "DealError",
    "Game",
    "GameOverError",
    "GameSpec",
    "IllegalMoveError",
    "InvalidMoveError",
    "MotleyError",
    "MoveError",
    "NotYourTurnError",
    "Observation",
    "Option",
    "OptionError",
    "RecordError",
    "State",
    "game_spec",
    "load_game",
    "register_spec",
    "registered_games",
]
