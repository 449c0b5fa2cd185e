"""motley: the three "Fool" card games (The Fool's Errand, Fool!, Foolery) for play, study and training.

The core API (docs/design.md, The core API)::

    import motley
    game = motley.load_game("fools_errand")
    state = game.new_initial_state(seed=7)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
"""

from motley import drawing as _drawing  # noqa: F401  (registers State._repr_svg_, SVG of a table)
from motley import games as _games  # noqa: F401  (registers the games)
from motley.core import (
    TERMINAL,
    DealError,
    Game,
    GameOverError,
    GameSpec,
    IllegalMoveError,
    InvalidMoveError,
    MotleyError,
    MoveError,
    NotYourTurnError,
    Observation,
    OptionError,
    RecordError,
    State,
    game_spec,
    load_game,
    records,
    registered_games,
)

__version__ = "0.1.0"

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
    "OptionError",
    "RecordError",
    "State",
    "game_spec",
    "load_game",
    "records",
    "registered_games",
]
