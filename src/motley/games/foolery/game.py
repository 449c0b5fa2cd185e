"""The public game and State of Foolery, assembled from the package's parts.

``rules.py`` holds the rules (:class:`~motley.games.foolery.rules.FooleryGameRules`,
:class:`~motley.games.foolery.rules.FooleryRules`), ``observe.py`` what a seat sees, ``policy.py`` the
heuristic and ``sample.py`` the determinizer; each imports only the ones before it. This module binds them
into the classes the package registers, so no part needs an import that runs in a circle. The observation
functions are bound as the methods themselves (no call in between): the assembled State costs nothing over
the rules' one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, cast

from motley.core.game import Observation, rng_from_json
from motley.games.foolery import observe, sample
from motley.games.foolery.rules import FooleryGameRules, FooleryRules


class FooleryState(FooleryRules):
    """A position of a Foolery match (:class:`FooleryRules`) with what a seat sees (``observe.py``).

    ``observation(seat)``: the information state of ``seat``, its hand and everything public;
    ``observation_tensor(seat)``: a float32 vector of ``observe.tensor_size(N)`` from ``seat``'s view.
    """

    __slots__ = ()

    game: Foolery

    observation = observe.observation
    observation_tensor = observe.observation_tensor


class Foolery(FooleryGameRules):
    """Foolery (:class:`FooleryGameRules`), its states :class:`FooleryState`.

    Raises (constructor):
        OptionError: as :class:`FooleryGameRules`.
    """

    state_class = FooleryState

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (observe.tensor_size(self.num_players),)

    def sample_state(self, observation: Observation, rng: random.Random) -> FooleryState:
        """A world consistent with ``observation``: the unseen cards dealt at random to the other seats,
        keeping every constraint the observer knows of the exchange (FY-R13, FY-D15, FY-D17, FY-D25).

        Known: the observer's hand, every card played this hand (out), and the cards the observer gave in
        the exchange that it does not hold and that were not played: those are in the receiver's hand. The
        rest is dealt by the public hand sizes such that every upward give was the giver's highest cards: a
        receiving King or Prince caps the giver's hidden cards at the lowest card it received; during the
        exchange, a third party's worlds are ones in which the upward give was possible (``sample.py`` says
        how, and its one documented limitation). The receiver's exchange record mirrors the observer's;
        exchange records between two other seats are unknown and left empty.

        Raises:
            MotleyError: for an observation of another game or with inconsistent counts.
        """
        return self.determinizer(observation)(rng)  # the sampler of sample.py

    def determinizer(self, observation: Observation) -> Callable[[random.Random], FooleryState]:
        """A sampler distributed as :meth:`sample_state`, parsing ``observation`` once (for search).

        Raises:
            MotleyError: as :meth:`sample_state`.
        """
        # sample.py makes its worlds of ``state_class``, this module's FooleryState
        return cast("Callable[[random.Random], FooleryState]", sample.determinizer(self, observation))

    def _state_from_dict(self, data: Mapping[str, Any]) -> FooleryState:
        state = FooleryState(self, None)
        observe.read_observation(state, data["observation"])
        state.origin = data["origin"]
        state.hands = [int(h) for h in data["hands"]]
        state.gave = [[int(c) for c in g] for g in data["gave"]]
        state.received = [[int(c) for c in r] for r in data["received"]]
        state._set_history(data["history"])
        state.use_rng(rng_from_json(data["rng"]))
        return state
