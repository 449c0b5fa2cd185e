"""Bots of learned policies: ``network`` (a Q(s, a) network, NumPy only) and ``best`` (the strongest bot of a game).

``network(weights=PATH)`` plays the legal action of highest Q (:mod:`motley.learn.qnet`); without ``weights`` it
plays the network the game ships for its configuration (``GameSpec.networks``: file names under the game's
package, keyed by the game string, e.g. ``"fool(players=5,rounds=1)"``). It needs the seat's observation tensor,
and a bot is given only the seat's observation: it draws any world consistent with the observation
(``game.sample_state``) and reads the seat's tensor there. The tensor is a function of what the seat has seen
alone (tested for every game: it does not change when the hidden cards are dealt otherwise), so any world gives
the same tensor. ``explain()`` lists the legal moves with their Q values, best first. A network trained with the
heuristic's choice as an input (``hint``) asks the ``heuristic`` bot's policy for it, on the same observation.

``best`` is the game's strongest bot as measured by win share against the heuristic and against ISMCTS
(``GameSpec.best_bot``, with its figures in the README's Strength section and docs/reports/; of two bots level
within their 95% intervals against both, the faster); a game that names none gets ISMCTS at 1,000 simulations. Its
budget stays within one second per decision on one core. A ``network`` best plays the network the game ships for the
configuration, and ISMCTS where it ships none (another player count, a whole match).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from motley.bots.base import Bot, make_bot, register_bot_kind
from motley.core import Game, MotleyError, Observation, State
from motley.core.options import Option
from motley.core.registry import game_spec
from motley.envs.features import action_feature_table
from motley.learn.qnet import QNetwork, load

__all__ = ["BEST_DEFAULT", "NetworkBot", "best_spec", "shipped_network"]

#: The ``best`` bot of a game whose spec names none.
BEST_DEFAULT = "ismcts(simulations=1000)"


def shipped_network(game: Game) -> Path | None:
    """The network file the game's package ships for ``game``'s configuration, or None."""
    name = game_spec(game.name).networks.get(str(game))
    if name is None:
        return None
    path = resources.files(f"motley.games.{game.name}").joinpath("networks", name)
    return Path(str(path))


class NetworkBot(Bot):
    """Plays the legal action of highest Q (module docstring).

    Args:
        game: the game.
        weights: a network file (:func:`motley.learn.qnet.save`); default: the one the game ships.
    Raises (constructor):
        MotleyError: no weights given and none shipped for this configuration, or a file that is not a network
            for this game.
    """

    name = "network"

    def __init__(self, game: Game, weights: str | None = None) -> None:
        super().__init__(game)
        path = Path(weights) if weights else shipped_network(game)
        if path is None:
            shipped = ", ".join(game_spec(game.name).networks) or "none"
            raise MotleyError(f"no network for {game}: give network(weights=FILE) (shipped networks of "
                              f"{game.name}: {shipped})")
        self.net: QNetwork = load(path, game)
        self.table = action_feature_table(game)
        self.heuristic = game_spec(game.name).heuristic
        if self.net.hint and self.heuristic is None:
            raise MotleyError(f"{path}: the network reads the heuristic's choice, and {game.name} has no heuristic")
        self._last: list[dict[str, Any]] = []

    def tensor(self, observation: Observation) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The seat's observation tensor, read in a world drawn consistent with ``observation``."""
        return self._world(observation).observation_tensor(int(observation["seat"]))

    def _world(self, observation: Observation) -> State:
        return self.game.sample_state(observation, random.Random(0))

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        world = self._world(observation)
        choice = -1
        if self.heuristic is not None:
            choice = self.heuristic(self.game, observation, legal_actions, random.Random(0))
        hints = self.net.hints_for(legal_actions, choice)
        q = self.net.q_values(world.observation_tensor(int(observation["seat"])), legal_actions, self.table, hints)
        order = np.argsort(-q, kind="stable")
        self._last = [{"move": world.action_to_string(legal_actions[i]), "action": int(legal_actions[i]),
                       "q": float(q[i]), "heuristic": legal_actions[i] == choice} for i in order]
        return int(legal_actions[int(order[0])])

    def explain(self) -> list[dict[str, Any]]:
        """For the last decision: each legal move (``move`` its text, ``action`` its id) with its Q value ``q`` and
        whether it is the heuristic's choice (``heuristic``), best first."""
        return list(self._last)


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


register_bot_kind("network", NetworkBot, (
    Option("weights", None, "a network file; none: the one the game ships for its configuration"),
), doc="the legal move of highest Q of a learned network (NumPy)")
register_bot_kind("best", _best, doc="the game's strongest bot as measured (GameSpec.best_bot); it takes no options",
                  web=True)
