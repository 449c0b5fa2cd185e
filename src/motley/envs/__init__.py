"""RL environments over the core API: PettingZoo AEC, Gymnasium single-seat, OpenSpiel adapter.

Each adapter lives in its own module and imports its third-party library only there, so importing
``motley.envs`` costs nothing; import the one you need::

    from motley.envs.pettingzoo import env          # PettingZoo AEC environment (pettingzoo)
    from motley.envs.gymnasium import SingleSeatEnv # Gymnasium single-seat environment (gymnasium);
                                                    # the import also registers the ids "motley/<game>-v0"
    from motley.envs import openspiel; openspiel.register()   # pyspiel.load_game("motley_fool(players=5)")

The adapters use only the core API (``motley.load_game``, ``State.legal_actions``, ``observation_tensor``,
``returns``, ...), never a game's internals, so every registered game works with each of them.
"""

from __future__ import annotations

from typing import Any

from motley.core import Game, load_game

__all__ = ["as_game"]


def as_game(game: Game | str, **params: Any) -> Game:
    """A :class:`motley.Game` from a Game, a name or a game string (``"fool(players=5)"``).

    Args:
        game: a Game (returned as is; ``params`` must then be empty) or a spec for ``motley.load_game``.
        params: options, e.g. ``players=5``.
    Raises:
        motley.OptionError: for an unknown game or option, or a bad value.
        TypeError: for params given with a Game object.
    """
    if isinstance(game, Game):
        if params:
            raise TypeError("options cannot be given with a Game object; load the game with them instead")
        return game
    return load_game(game, **params)
