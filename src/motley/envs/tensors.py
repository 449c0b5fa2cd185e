"""Observation tensors of a batch of states for the RL environments, read generically from the game's spec.

A game's spec may give a batch observer (:class:`motley.core.spec.BatchObserver`), which writes the tensors
of many states at once and may keep what it read of each slot's state between writes; a game without one
gets :class:`EachState`, which asks every state for its tensor (``state.observation_tensor(seat)``). Both
give the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from motley.core import Game, State
from motley.core.registry import game_spec
from motley.core.spec import BatchObserver

__all__ = ["EachState", "batch_observer", "game_observer", "one_state_observer"]


class EachState:
    """The generic batch observer: ``out[i] = states[i].observation_tensor(seats[i])``, one state at a time."""

    def __init__(self, game: Game, slots: int) -> None:
        self.game = game
        self.slots = slots

    def write(self, states: Sequence[State], seats: Sequence[int], out: npt.NDArray[np.float32]) -> None:
        """Set ``out[i]`` to ``states[i].observation_tensor(seats[i])`` for every i.

        Raises:
            motley.MotleyError: for a seat that is not a seat of the game.
        """
        for i, (state, seat) in enumerate(zip(states, seats, strict=True)):
            out[i] = state.observation_tensor(seat)


def game_observer(game: Game, slots: int) -> BatchObserver | None:
    """The game's own batch observer for ``slots`` slots (``GameSpec.batch_observer``), or None.

    None also for one slot when the observer keeps nothing between writes (its class sets ``keeps_state =
    False``) or the state's own ``observation_tensor`` keeps its tensor up to date itself (``one_slot_from_state
    = True``): ``state.observation_tensor(seat)`` then gives the same bytes one call shorter (the single-seat
    environments' path)."""
    factory = game_spec(game.name).batch_observer
    if factory is None or (slots == 1 and (getattr(factory, "keeps_state", True) is False
                                           or getattr(factory, "one_slot_from_state", False) is True)):
        return None
    return factory(game, slots)


def one_state_observer(game: Game) -> Callable[[State, int], npt.NDArray[np.float32]] | None:
    """``tensor(state, seat)``: ``state.observation_tensor(seat)`` (a new array) from the game's batch observer with
    one slot, kept up to date between calls for an environment that plays one state at a time, if the observer
    gives one (its optional ``tensor`` method, :class:`motley.core.spec.BatchObserver`); else None, also when the
    observer's class says the state's own tensor is faster (``state_is_fastest = True``: a compiled writer)."""
    factory = game_spec(game.name).batch_observer
    if factory is None or getattr(factory, "tensor", None) is None or getattr(factory, "state_is_fastest", False):
        return None
    observer: Any = factory(game, 1)  # a BatchObserver with the optional method
    tensor: Callable[[State, int], npt.NDArray[np.float32]] = observer.tensor
    return tensor


def batch_observer(game: Game, slots: int) -> BatchObserver:
    """The batch observer of ``game`` for ``slots`` slots: the game's own (:func:`game_observer`), else
    :class:`EachState`."""
    observer = game_observer(game, slots)
    return EachState(game, slots) if observer is None else observer
