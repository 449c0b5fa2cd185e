"""The ``network`` bot: plays a learned Q(s, a) network (NumPy only, :mod:`motley.bots.qnet`).

``network(weights=PATH)`` plays the legal action of highest Q; without ``weights`` it plays the network the game
ships for its configuration (``GameSpec.networks``: files in the game's package, keyed by the game string, e.g.
``"fool(players=5,rounds=1)"``). It needs the seat's observation tensor,
and a bot is given only the seat's observation: it draws any world consistent with the observation
(``game.sample_state``) and reads the seat's tensor there. The tensor is a function of what the seat has seen
alone (tested for every game: it does not change when the hidden cards are dealt otherwise), so any world gives
the same tensor. ``explain()`` lists the legal moves with their Q values, best first. A network trained with the
heuristic's choice as an input (``hint``) asks the ``heuristic`` bot's policy for it, on the same observation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from motley.bots.base import Bot
from motley.bots.qnet import QNetwork, load
from motley.bots.spec import register_bot_kind
from motley.core import Game, MotleyError, Observation, State
from motley.core.features import action_feature_table
from motley.core.options import Option
from motley.core.registry import game_spec

__all__ = ["NetworkBot", "shipped_network"]


def shipped_network(game: Game) -> Path | None:
    """The network file the game's package ships for ``game``'s configuration (``GameSpec.networks``), or None."""
    shipped = game_spec(game.name).networks.get(str(game))
    return None if shipped is None else Path(str(shipped))


class NetworkBot(Bot):
    """Plays the legal action of highest Q (module docstring).

    Args:
        game: the game.
        weights: a network file (:func:`motley.bots.qnet.save`); default: the one the game ships.
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


register_bot_kind("network", NetworkBot, (
    Option("weights", None, "a network file; none: the one the game ships for its configuration"),
), doc="the legal move of highest Q of a learned network (NumPy)")
