"""The Bot protocol (docs/design.md, Bots), the random and heuristic bots.

A bot sees only what a player sees: ``act`` receives the seat's observation and the legal action ids,
never the State. The ``heuristic`` bot of a game plays the heuristic its package gives in its spec. The registry of
bot kinds and their declared options is :mod:`motley.bots.spec`, which registers these two.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Sequence
from typing import Any

from motley.core import Game, MotleyError, Observation
from motley.core.registry import game_spec
from motley.core.spec import Heuristic


class Bot(abc.ABC):
    """A player program.

    Attributes:
        game: the game it plays (for ``sample_state``, option values and move notation).
        name: a short label ("random", "heuristic", ...), used in tables and reports.
    """

    name = "bot"

    def __init__(self, game: Game) -> None:
        self.game = game

    @abc.abstractmethod
    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        """The action to play: one of ``legal_actions`` (non-empty, sorted).

        Args:
            observation: ``state.observation(seat)`` of the seat to move.
            legal_actions: ``state.legal_actions()``.
            rng: the only source of randomness a bot may use, so games are reproducible.
        """

    def explain(self) -> list[dict[str, Any]] | None:
        """For the last decision, each move considered with its figures (search bots); None otherwise."""
        return None


class RandomBot(Bot):
    """Plays a uniformly random legal action."""

    name = "random"
    reads_observation = False

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        return legal_actions[rng.randrange(len(legal_actions))]


class HeuristicBot(Bot):
    """Plays the game's heuristic (``GameSpec.heuristic``, written in the game's ``policy.py``).

    Raises (constructor):
        MotleyError: for a game without a heuristic.
    """

    name = "heuristic"

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        policy = game_spec(game.name).heuristic
        if policy is None:
            raise MotleyError(f"no heuristic bot for {game.name}")
        self.policy: Heuristic = policy

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        return self.policy(self.game, observation, legal_actions, rng)


__all__ = ["Bot", "HeuristicBot", "RandomBot"]
