"""RL environments over the core API: PettingZoo AEC, Gymnasium single-seat, OpenSpiel adapter, batch stepper.

Each adapter lives in its own module and imports its third-party library only there, so importing
``motley.envs`` costs nothing; import the one you need::

    from motley.envs.pettingzoo import env          # PettingZoo AEC environment (pettingzoo)
    from motley.envs.gymnasium import SingleSeatEnv # Gymnasium single-seat environment (gymnasium);
                                                    # the import also registers the ids "motley/<game>-v0"
    from motley.envs import openspiel; openspiel.register()   # pyspiel.load_game("motley_fool(players=5)")
    from motley.envs.vector import VectorEnv        # N matches stepped together as NumPy batches (gymnasium)
    from motley.envs.segments import segment_sample # softmax / sampling over ragged legal lists (NumPy, torch)

No environment hands an agent a seed or anything else that depends on a card hidden from it;
``privileged=True`` on each adds the match seed to its infos (for logging and replays).

The adapters use only the core API (``motley.load_game``, ``State.legal_actions``, ``observation_tensor``,
``returns``, ...) and the game's spec (its action feature table, read by
``motley.core.features.action_feature_table``), never a game's internals, so every registered game works with
each of them.
"""

from __future__ import annotations

import random
from typing import Any

from motley.core import Game, load_game

__all__ = ["MatchSeeds", "as_game", "match_seed"]


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


class MatchSeeds:
    """The generator of an environment's later match seeds: ``random.Random(seed)`` (``seed`` None: from the system's
    entropy), seeded at its first draw. Seeding a generator costs a few decisions' time, and a reset with a seed is
    often followed by another with a seed (a benchmark's, an evaluation's), which never draws from it."""

    __slots__ = ("_random", "_seed")

    def __init__(self, seed: int | None) -> None:
        self._seed = seed
        self._random: random.Random | None = None

    def randrange(self, stop: int) -> int:
        """``random.Random(seed).randrange(stop)``, then the generator's next draws."""
        if self._random is None:
            self._random = random.Random(self._seed)
        return self._random.randrange(stop)


def match_seed(rng: MatchSeeds | None, seed: int | None) -> tuple[MatchSeeds, int]:
    """The seed of an environment's next match and the generator of the matches after it.

    ``seed`` given: that match (``game.new_initial_state(seed=seed)``) and a generator seeded with it, so a
    seeded sequence of resets is reproducible; no seed: the next draw of ``rng`` (a generator seeded from
    the system's entropy when there is none yet). Shared by every environment, so a match in slot ``i``
    of :mod:`motley.envs.vector` reset with seed ``s`` is the match of a PettingZoo env reset with ``s``.

    Returns:
        ``(generator, match seed)``.
    """
    if seed is not None:
        return MatchSeeds(seed), int(seed)
    rng = MatchSeeds(None) if rng is None else rng
    return rng, rng.randrange(2**63)

