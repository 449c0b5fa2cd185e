"""The Fool's Errand's determinizer: full states consistent with an observation, for search.

``FoolsErrand.sample_state`` and ``FoolsErrand.determinizer`` (the core API) delegate to :func:`sample_state`
and :func:`determinizer`: the public fields of the observation are read into a state once
(``observe.read_observation``), and each world deals the unseen cards into the two decks.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from motley.core.errors import MotleyError
from motley.core.game import Observation
from motley.games.fools_errand.cards import IN_DECK, JOKER_A
from motley.games.fools_errand.observe import read_observation
from motley.games.fools_errand.rules import FoolsErrandGameRules, FoolsErrandRules


def sample_state(game: FoolsErrandGameRules, observation: Observation, rng: random.Random) -> FoolsErrandRules:
    """The body of :meth:`FoolsErrand.sample_state`: the unseen cards dealt at random into the two decks
    (FE-R1: decks are face down), a Joker still in its deck at a random place in it (FE-D4).

    Raises:
        MotleyError: for an observation of another game or with inconsistent counts.
    """
    return determinizer(game, observation)(rng)


def determinizer(game: FoolsErrandGameRules, observation: Observation) -> Callable[[random.Random], FoolsErrandRules]:
    """A sampler of :func:`sample_state`'s worlds that reads ``observation`` once (search draws thousands of
    worlds from one observation): each call shuffles the unseen cards and deals them, nothing else.

    Raises:
        MotleyError: for an observation of another game or with inconsistent counts.
    """
    if observation.get("game") != game.name:
        raise MotleyError(f"not a {game.name} observation")
    template = game.state_class(game, None)
    read_observation(template, observation)
    seen = {c for q in range(2) for c in template.piles[q]} | {t & 63 for t in template.table}
    seen |= set(template.unclaimed)
    hidden = [c for c in range(52) if c not in seen]
    in_deck = [template.joker[q] == IN_DECK for q in range(2)]
    first = observation["deck_sizes"][0] - in_deck[0]
    if first + observation["deck_sizes"][1] - in_deck[1] != len(hidden) or min(first, len(hidden) - first) < 0:
        raise MotleyError("observation deck sizes do not match the unseen cards")

    def sample(rng: random.Random) -> FoolsErrandRules:
        unseen = list(hidden)
        rng.shuffle(unseen)
        decks = [unseen[:first], unseen[first:]]
        for q in range(2):
            if in_deck[q]:
                decks[q].insert(rng.randrange(len(decks[q]) + 1), JOKER_A + q)
        state = template.clone()
        state.decks = decks
        state.use_seed(rng.getrandbits(64))
        return state

    return sample
