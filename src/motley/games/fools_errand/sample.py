"""The Fool's Errand's determinizer: full states consistent with an observation, for search.

``FoolsErrand.sample_state`` (the core API) delegates to :func:`sample_state`: the public fields of the
observation are read into a new state (``observe.read_observation``) and the unseen cards are dealt into
the two decks.
"""

from __future__ import annotations

import random

from motley.core.errors import MotleyError
from motley.core.game import Observation
from motley.games.fools_errand.cards import IN_DECK, JOKER_A
from motley.games.fools_errand.observe import read_observation
from motley.games.fools_errand.rules import FoolsErrand, FoolsErrandState


def sample_state(game: FoolsErrand, observation: Observation, rng: random.Random) -> FoolsErrandState:
    """The body of :meth:`FoolsErrand.sample_state`: the unseen cards dealt at random into the two decks
    (FE-R1: decks are face down), a Joker still in its deck at a random place in it (FE-D4).

    Raises:
        MotleyError: for an observation of another game or with inconsistent counts.
    """
    if observation.get("game") != game.name:
        raise MotleyError(f"not a {game.name} observation")
    state = FoolsErrandState(game, None)
    read_observation(state, observation)
    seen = {c for q in range(2) for c in state.piles[q]} | {t & 63 for t in state.table}
    seen |= set(state.unclaimed)
    unseen = [c for c in range(52) if c not in seen]
    rng.shuffle(unseen)
    counts = [observation["deck_sizes"][q] - (state.joker[q] == IN_DECK) for q in range(2)]
    if counts[0] + counts[1] != len(unseen) or min(counts) < 0:
        raise MotleyError("observation deck sizes do not match the unseen cards")
    decks = [unseen[: counts[0]], unseen[counts[0]:]]
    for q in range(2):
        if state.joker[q] == IN_DECK:
            decks[q].insert(rng.randrange(len(decks[q]) + 1), JOKER_A + q)
    state.decks = decks
    state.use_seed(rng.getrandbits(64))
    return state
