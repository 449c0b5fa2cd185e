"""The core layer: Game / State base, errors, options, registry and records. Imports nothing else of motley."""

from motley.core.errors import DealError, IllegalMoveError, MotleyError, OptionError, RecordError
from motley.core.game import TERMINAL, Game, Observation, State
from motley.core.options import Option
from motley.core.registry import load_game, register_game, registered_games

__all__ = [
    "TERMINAL",
    "DealError",
    "Game",
    "IllegalMoveError",
    "MotleyError",
    "Observation",
    "Option",
    "OptionError",
    "RecordError",
    "State",
    "load_game",
    "register_game",
    "registered_games",
]
