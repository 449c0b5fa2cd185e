"""The ``best`` bot: the game's strongest bot as measured.

``best`` plays ``GameSpec.best_bot``, the bot measured strongest by win share against the heuristic and against
ISMCTS (its figures in the README's Strength section and docs/reports/; of two bots level within their 95% intervals
against both, the faster); a game that names none gets ISMCTS at 1,000 simulations (:data:`BEST_DEFAULT`). Its
budget stays within one second per decision on one core. A ``network`` best plays the network the game ships for the
configuration, and ISMCTS where it ships none (another player count, a whole match).
"""

from __future__ import annotations

from motley.bots.base import Bot
from motley.bots.network import shipped_network
from motley.bots.spec import make_bot, register_bot_kind
from motley.core import Game
from motley.core.registry import game_spec

__all__ = ["BEST_DEFAULT", "best_spec"]

#: The ``best`` bot of a game whose spec names none.
BEST_DEFAULT = "ismcts(simulations=1000)"


def best_spec(game: Game) -> str:
    """The bot spec ``best`` stands for in ``game``: ``GameSpec.best_bot``, else :data:`BEST_DEFAULT`, which also
    stands in for a ``network`` best where the game ships no network for this configuration."""
    spec = game_spec(game.name).best_bot or BEST_DEFAULT
    if spec == "network" and shipped_network(game) is None:
        return BEST_DEFAULT
    return spec


def _best(game: Game) -> Bot:
    bot = make_bot(best_spec(game), game)
    bot.name = "best"
    return bot


register_bot_kind("best", _best, doc="the game's strongest bot as measured (GameSpec.best_bot); it takes no options",
                  web=True)
