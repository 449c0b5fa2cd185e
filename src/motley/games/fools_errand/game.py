"""The public game and State of The Fool's Errand, assembled from the package's parts.

``rules.py`` holds the rules (:class:`~motley.games.fools_errand.rules.FoolsErrandGameRules`,
:class:`~motley.games.fools_errand.rules.FoolsErrandRules`), ``observe.py`` what a seat sees and
``sample.py`` the determinizer; each imports only the ones before it. This module binds them into the
classes the package registers, so no part needs an import that runs in a circle. The observation
functions are bound as the methods themselves (no call in between): the assembled State costs nothing
over the rules' one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, cast

from motley.core.game import Observation, rng_from_json
from motley.games.fools_errand import observe, sample
from motley.games.fools_errand.rules import FoolsErrandGameRules, FoolsErrandRules


class FoolsErrandState(FoolsErrandRules):
    """A position of The Fool's Errand (:class:`FoolsErrandRules`) with what a seat sees (``observe.py``).

    ``observation(seat)``: the information state of ``seat`` (FE-R9 announcements in the log);
    ``observation_tensor(seat)``: a float32 vector of length 274 from ``seat``'s point of view.
    """

    __slots__ = ()

    game: FoolsErrand

    observation = observe.observation
    observation_tensor = observe.observation_tensor


class FoolsErrand(FoolsErrandGameRules):
    """The Fool's Errand (:class:`FoolsErrandGameRules`), its states :class:`FoolsErrandState`."""

    state_class = FoolsErrandState

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (observe.OBSERVATION_SIZE,)

    def sample_state(self, observation: Observation, rng: random.Random) -> FoolsErrandState:
        """A world consistent with ``observation``: the unseen cards dealt at random into the two decks.

        Every card not yet played is unseen by both players (decks are face down, FE-R1), so the unseen
        cards are shuffled and split by the public deck sizes; a Joker still in its deck goes to a random
        place in it (FE-D4).

        Raises:
            MotleyError: for an observation of another game or with inconsistent counts.
        """
        return cast(FoolsErrandState, sample.sample_state(self, observation, rng))

    def determinizer(self, observation: Observation) -> Callable[[random.Random], FoolsErrandState]:
        """A sampler distributed as :meth:`sample_state`, reading ``observation`` once (for search).

        Raises:
            MotleyError: as :meth:`sample_state`.
        """
        # sample.py makes its worlds of ``state_class``, this module's FoolsErrandState
        return cast("Callable[[random.Random], FoolsErrandState]", sample.determinizer(self, observation))

    def _state_from_dict(self, data: Mapping[str, Any]) -> FoolsErrandState:
        state = FoolsErrandState(self, None)
        observe.read_observation(state, data["observation"])
        state.origin = data["origin"]
        state.decks = [[int(c) for c in data["decks"][q]] for q in range(2)]
        state.use_rng(rng_from_json(data["rng"]))
        return state
