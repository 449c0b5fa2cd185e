"""The public game and State of Fool!, assembled from the package's parts.

``rules.py`` holds the rules (:class:`~motley.games.fool.rules.FoolGameRules`,
:class:`~motley.games.fool.rules.FoolRules`), ``observe.py`` what a seat sees and ``sample.py`` the
determinizer; each imports only the ones before it. This module binds them into the classes the package
registers, so no part needs an import that runs in a circle. The observation functions are bound as the
methods themselves (no call in between): the assembled State costs nothing over the rules' one. The tensor is
written by the compiled writer where it is built (``observe.NATIVE_WRITE``); without it, the tensor of a state
asked for again is kept up to date move by move (``batch.StateTensors``, one per game and thread).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from threading import get_ident
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from motley.core.game import Observation
from motley.games.fool import batch, observe, sample
from motley.games.fool.rules import FoolGameRules, FoolRules

#: The compiled tensor writer (``observe.NATIVE_WRITE``), the tensor's length by player count, and NumPy's
#: allocation, read once (``FoolState.observation_tensor``).
_NATIVE_WRITE = observe.NATIVE_WRITE
_SIZES = [observe.tensor_size(n) if n >= FoolGameRules.min_players else 0 for n in range(9)]
_empty = np.empty
_FLOAT32 = np.dtype(np.float32)


class FoolState(FoolRules):
    """A position of a Fool! match (:class:`FoolRules`) with what a seat sees (``observe.py``).

    ``observation(seat)``: the information state of ``seat``, its hand and everything public;
    ``observation_tensor(seat)``: a float32 vector of ``observe.tensor_size(players)`` from ``seat``'s view;
    ``voids()``: per seat a bitmask of colours (bit 0..3 = G R Y B) the seat is known to lack.
    """

    __slots__ = ()

    game: Fool

    observation = observe.observation
    voids = observe.voids

    def observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        """float32 (``observe.tensor_size(players)``,) from ``seat``'s view, a new array: byte for byte
        ``observe.observation_tensor`` (the reference), written by the compiled writer where it is built
        (``observe.NATIVE_WRITE``), else kept up to date move by move for a state asked again
        (``batch.StateTensors``).

        Raises:
            MotleyError: for a seat that is not one of the game's.
        """
        write = _NATIVE_WRITE
        if write is not None:  # the compiled writer (observe.NATIVE_WRITE): the same bytes
            out = _empty(_SIZES[len(self.sizes)], _FLOAT32)
            if not write(self, seat, out):  # not an int of 0..n-1: the game's own error, or a NumPy integer seat
                observe.native_write_refused(self, seat, out)
            return out
        caches = self.game.state_tensors
        tensors = caches.get(get_ident())
        if tensors is None:
            tensors = caches[get_ident()] = batch.StateTensors(self.game)
        return tensors.tensor(self, seat)


class Fool(FoolGameRules):
    """Fool! (:class:`FoolGameRules`), its states :class:`FoolState`.

    Raises (constructor):
        OptionError: as :class:`FoolGameRules`.
    """

    state_class = FoolState

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        #: The deck's block of the observation tensor (see ``observe.observation_tensor``).
        self.deck_block = observe.deck_block(self.deck)
        #: ``FoolState.observation_tensor``'s states kept up to date, by thread (left out of copies and pickles).
        self.state_tensors: dict[int, batch.StateTensors] = {}

    def __getstate__(self) -> dict[str, Any]:
        """The game's attributes for a copy or a pickle, without its states' tensors (a cache)."""
        return {**self.__dict__, "state_tensors": {}}

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (observe.tensor_size(self.num_players),)

    def sample_state(self, observation: Observation, rng: random.Random) -> FoolState:
        """A world consistent with ``observation``: the hidden cards dealt to the other seats at random.

        Hidden cards are the deck (FL-R3) minus the observer's hand minus every card played this round.
        They are dealt by the public hand sizes (FL-D11), respecting voids revealed by play: a seat that
        played a card of another colour (not a 1) after the lead colour was set holds no card of that
        colour (FL-R6); a W1 reveals nothing (FL-R7). A uniformly random deal is kept when it respects the
        voids; after a few misses the cards of void colours are placed one by one, each where the rest stays
        feasible (a Hall check over colour sets), so it never fails on a consistent observation (see
        ``sample._HiddenDeal``).

        Raises:
            MotleyError: for an observation of another game or player count, or with inconsistent counts.
        """
        return self.determinizer(observation)(rng)

    def determinizer(self, observation: Observation) -> Callable[[random.Random], FoolState]:
        """A sampler distributed as :meth:`sample_state`, parsing ``observation`` once (for search).

        Raises:
            MotleyError: as :meth:`sample_state`: a malformed or inconsistent observation.
        """
        # sample.py makes its worlds of ``state_class``, this module's FoolState
        return cast("Callable[[random.Random], FoolState]", sample.determinizer(self, observation))

