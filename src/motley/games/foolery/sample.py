"""Foolery's determinizer: full states consistent with one seat's observation, for search.

``Foolery.sample_state`` and ``Foolery.determinizer`` (the core API) delegate to :func:`determinizer`: the
observation is read once into a template state (``observe.read_observation``), and each sample deals the
cards the observer cannot see to the other seats by their public hand sizes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from motley.core.cards import shuffle
from motley.core.errors import MotleyError
from motley.core.game import Observation
from motley.games.foolery.cards import NUM_CARDS, mask_of
from motley.games.foolery.observe import read_observation
from motley.games.foolery.rules import Foolery, FooleryState


def determinizer(game: Foolery, observation: Observation) -> Callable[[random.Random], FooleryState]:
    """The body of :meth:`Foolery.determinizer`: parse ``observation`` once, return the sampler.

    Known: the observer's hand, every card played this hand (out), and the cards the observer gave in the
    exchange that it does not hold and that were not played: those are in the receiver's hand. The rest is
    shuffled and dealt by the public hand sizes. The receiver's exchange record mirrors the observer's;
    exchange records between two other seats are unknown and left empty.

    Raises:
        MotleyError: for an observation of another game, a malformed one, or one with inconsistent counts.
    """
    if not isinstance(observation, Mapping) or observation.get("game") != game.name:
        raise MotleyError(f"not a {game.name} observation")
    try:
        template = FooleryState(game, None)
        read_observation(template, observation)
        me = int(observation["seat"])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise MotleyError(f"malformed {game.name} observation: {exc!r}") from None
    n = game.num_players
    mine = template.hands[me]
    known = [0] * n
    partner = template.partner_of(me)
    if partner >= 0:
        for c in template.gave[me]:
            if not (mine >> c) & 1 and not (template.played >> c) & 1:
                known[partner] |= 1 << c
        template.received[partner] = list(template.gave[me])
        template.gave[partner] = list(template.received[me])
    taken = mine | template.played
    for q in range(n):
        taken |= known[q]
    pool = [c for c in range(NUM_CARDS) if not (taken >> c) & 1]
    need = [template.sizes[q] - known[q].bit_count() if q != me else 0 for q in range(n)]
    if min(need) < 0 or sum(need) != len(pool):
        raise MotleyError("observation hand sizes do not match the unseen cards")
    others = [q for q in range(n) if q != me]

    def sample(rng: random.Random) -> FooleryState:
        state = template.clone()
        shuffle(pool, rng)  # in place: a uniform shuffle whatever the order it starts from
        hands = state.hands
        pos = 0
        for q in others:
            hands[q] = known[q] | mask_of(pool[pos:pos + need[q]])
            pos += need[q]
        state.use_seed(rng.getrandbits(64))
        return state

    return sample
