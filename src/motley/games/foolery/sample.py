"""Foolery's determinizer: full states consistent with one seat's observation, for search.

``Foolery.sample_state`` and ``Foolery.determinizer`` (the core API) delegate to :func:`determinizer`: the
observation is read once into a template state (``observe.read_observation``), and each sample deals the
cards the observer cannot see to the other seats by their public hand sizes, keeping the exchange rule
that the Peasant and the Merchant give their highest cards (FY-R13, FY-D15, FY-D17, FY-D25, FY-D26).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from motley.core.cards import shuffle
from motley.core.errors import MotleyError
from motley.core.game import Observation
from motley.games.foolery.cards import ANY, EXCHANGE, EXCHANGE_VALUE, FOOL, FOOL_BIT, NUM_CARDS, cards_of, mask_of
from motley.games.foolery.observe import read_observation
from motley.games.foolery.rules import Foolery, FooleryState

#: Rejection tries for the exchange constraints between two hidden seats before a world is built instead.
TRIES = 8


def exchange_keys(game: Foolery) -> tuple[int, ...]:
    """The order the upward gives follow, as one key per card: a giver gives its cards of highest key.

    ``trumps_high`` (FY-D15): trumps above suit cards (``EXCHANGE_VALUE``). ``suit_cards_only`` (FY-D25):
    suit cards by rank above every trump, which is given only by a giver without suit cards. The Fool is
    never given: key -1. Equal keys are ties (FY-D26).
    """
    if game.params["exchange_order"] == "trumps_high":
        return EXCHANGE_VALUE
    return tuple(v + 200 if c < 56 else v for c, v in enumerate(EXCHANGE_VALUE[:FOOL])) + (-1,)


def _upward_progress(template: FooleryState, index: int) -> tuple[int, int]:
    """(cards given so far at exchange step ``index``, cards given so far at its downward step)."""
    giver, receiver, count, _ = template.steps[index]
    down = next((i for i, s in enumerate(template.steps) if s[0] == receiver and s[1] == giver), -1)

    def given(i: int, k: int) -> int:
        if template.phase != EXCHANGE or i < template.step_index:
            return k
        return template.step_given if i == template.step_index else 0

    return given(index, count), (given(down, count) if down >= 0 else count)


def determinizer(game: Foolery, observation: Observation) -> Callable[[random.Random], FooleryState]:
    """The body of :meth:`Foolery.determinizer`: parse ``observation`` once, return the sampler.

    Known: the observer's hand, every card played this hand (out), and the cards the observer gave in the
    exchange that it does not hold and that were not played: those are in the receiver's hand. The rest is
    dealt by the public hand sizes, uniformly among the deals that keep the upward gives of the exchange
    (Peasant to King, Merchant to Prince: the giver's highest cards, FY-R13, FY-D15, FY-D25, by
    :func:`exchange_keys`) possible from the observer's point of view:

    * **Observer receiving an upward give** (King, Prince): it knows the cards ``G`` received so far. When
      the giver gave them it held nothing of higher key (ties allowed, FY-D26); since then it received only
      the observer's own cards (every upward give precedes every downward one, FY-D17) and played in public.
      So the giver's hidden cards, which are the rest of its hand at the time of giving less what it played,
      hold no card (the Fool aside) of key above ``min G``. Exact: the giver's hidden cards are drawn
      uniformly from the allowed ones, the rest dealt uniformly to the others.
    * **Observer giving** (Peasant, Merchant): its own give says nothing about hidden cards.
    * **Third parties** (neither partner; they see only who gave how many to whom). Once the receiver has
      given its cards back, any hidden deal is possible: the receiver may have given the giver the giver's
      own highest cards, leaving its pre-exchange rest lowest (a ``D`` equal to the giver's top cards makes
      any ``G`` drawn from the receiver's hand legal). So no constraint in the play phase. During the
      exchange, after ``u`` cards went up and ``d`` came back (``d < u``): with ``M`` the highest key of the
      giver's hand less its ``d`` highest cards, the receiver must hold at least ``u - d`` cards of key
      ``>= M`` (the exact condition; the best ``D`` is the giver's ``d`` highest). Deals are drawn uniformly
      and kept when they meet it; after ``TRIES`` misses the two seats' cards are re-dealt as a history
      would make them: a uniform deal, the ``u`` highest cards go up, ``d`` uniformly random cards of the
      receiver's come back (always consistent, close to uniform).

    Limitation: while an upward giver is itself to choose (a tie, FY-D26), the observation tells the other
    seats that its highest cards are tied (more than it still has to give, or two or more under
    ``exchange_ties=ask``); that is not enforced on the other seats' samples (search samples only for the
    seat to move, which is then the giver itself). The records of an exchange between two other seats stay
    empty, as before.

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

    keys = exchange_keys(game)
    capped, cap = -1, 0  # the giver whose hidden cards the observer's received cards cap, and the cap
    pairs: list[tuple[int, int, int, int]] = []  # (giver, receiver, up, down) seen by a third party
    for i, (giver, receiver, _, rule) in enumerate(template.steps):
        if rule == ANY:
            continue
        up, down = _upward_progress(template, i)
        if receiver == me and up and template.received[me]:
            capped = giver
            cap = min(keys[c] for c in template.received[me])
        elif me not in (giver, receiver) and up > down:
            pairs.append((giver, receiver, up, down))

    allowed = [c for c in pool if keys[c] <= cap]  # the Fool's key is -1: always allowed
    barred = [c for c in pool if keys[c] > cap]
    rest_seats = [q for q in others if q != capped]
    take = need[capped] if capped >= 0 else 0
    if len(allowed) < take:
        raise MotleyError("no deal of the unseen cards respects the cards given in the exchange")

    def deal(rng: random.Random) -> list[int]:
        hands = [0] * n
        if capped < 0:
            shuffle(pool, rng)  # in place: a uniform shuffle whatever the order it starts from
            pos = 0
            for q in others:
                hands[q] = known[q] | mask_of(pool[pos:pos + need[q]])
                pos += need[q]
            return hands
        # uniform among the deals giving the capped giver only allowed cards: its cards first, then the rest
        shuffle(allowed, rng)
        hands[capped] = known[capped] | mask_of(allowed[:take])
        rest = allowed[take:] + barred
        shuffle(rest, rng)
        pos = 0
        for q in rest_seats:
            hands[q] = known[q] | mask_of(rest[pos:pos + need[q]])
            pos += need[q]
        return hands

    def sample(rng: random.Random) -> FooleryState:
        hands = deal(rng)
        if pairs:
            for _ in range(TRIES - 1):
                if all(_third_party_ok(hands, p, keys) for p in pairs):
                    break
                hands = deal(rng)
            else:
                for p in pairs:
                    if not _third_party_ok(hands, p, keys):
                        _replay_exchange(hands, p, keys, rng)
        state = template.clone()
        state.hands[:] = hands
        state.hands[me] = mine
        state.use_seed(rng.getrandbits(64))
        return state

    return sample


def _third_party_ok(hands: Sequence[int], pair: tuple[int, int, int, int], keys: Sequence[int]) -> bool:
    """Could ``up`` cards have gone from ``giver`` to ``receiver`` as the highest, ``down`` come back?

    The best cards to have come back are the giver's ``down`` highest; the rest of its hand, of highest key
    ``M``, must then lie below the ``up`` cards it gave: ``up - down`` of them still in the receiver's hand
    (during the exchange nobody plays)."""
    giver, receiver, up, down = pair
    own = [keys[c] for c in cards_of(hands[giver] & ~FOOL_BIT)]
    top = max(own) if not down else sorted(own, reverse=True)[down]
    return sum(1 for c in cards_of(hands[receiver] & ~FOOL_BIT) if keys[c] >= top) >= up - down


def _replay_exchange(hands: list[int], pair: tuple[int, int, int, int], keys: Sequence[int],
                     rng: random.Random) -> None:
    """Re-deal the two seats' cards as a history makes them: a uniform deal of their cards, the giver's ``up``
    highest cards (ties broken at random) to the receiver, ``down`` uniformly random cards (never the Fool)
    of the receiver's back. Sizes are kept."""
    giver, receiver, up, down = pair
    cards = cards_of(hands[giver] | hands[receiver])
    shuffle(cards, rng)
    first = hands[giver].bit_count() - down + up
    dealt = sorted(cards[:first], key=lambda c: keys[c], reverse=True)  # stable: ties stay in random order
    given = dealt[:up]
    g_hand = dealt[up:]
    r_hand = cards[first:] + given
    back = [c for c in r_hand if c != FOOL]
    shuffle(back, rng)
    back = back[:down]
    hands[giver] = mask_of(g_hand) | mask_of(back)
    hands[receiver] = mask_of(r_hand) & ~mask_of(back)
