"""Foolery's determinizer: full states consistent with one seat's observation, for search.

``Foolery.sample_state`` and ``Foolery.determinizer`` (the core API) delegate to :func:`determinizer`: the
observation is read once into a template state (``observe.read_observation``), and each sample deals the
cards the observer cannot see to the other seats by their public hand sizes, keeping the exchange rule
that the Peasant and the Merchant give their highest cards (FY-R13, FY-D15, FY-D17, FY-D25, FY-D26).

For inference from play (:mod:`motley.core.inference`), :func:`rewind` replays a world's hand from its deal
and :func:`perturb` proposes a swap of two hidden cards within the same constraints.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import cast

from motley.core.cards import shuffle
from motley.core.errors import MotleyError
from motley.core.game import Observation, State
from motley.games.foolery.cards import (
    ANY,
    EV_PASS,
    EV_PLAY,
    EV_STUCK,
    EV_TRICK,
    EXCHANGE,
    EXCHANGE_VALUE,
    FOOL,
    FOOL_BIT,
    NUM_CARDS,
    PLAY,
    cards_of,
    mask_of,
)
from motley.games.foolery.moves import A_KIND, A_MASK, GIVE_BASE, K_TRUMP, PASS
from motley.games.foolery.observe import read_observation
from motley.games.foolery.policy import choose
from motley.games.foolery.rules import FooleryGameRules, FooleryRules

#: Rejection tries for the exchange constraints between two hidden seats before a world is built instead.
TRIES = 8


def exchange_keys(game: FooleryGameRules) -> tuple[int, ...]:
    """The order the upward gives follow, as one key per card: a giver gives its cards of highest key.

    ``trumps_high`` (FY-D15): trumps above suit cards (``EXCHANGE_VALUE``). ``suit_cards_only`` (FY-D25):
    suit cards by rank above every trump, which is given only by a giver without suit cards. The Fool is
    never given: key -1. Equal keys are ties (FY-D26).
    """
    if game.params["exchange_order"] == "trumps_high":
        return EXCHANGE_VALUE
    return tuple(v + 200 if c < 56 else v for c, v in enumerate(EXCHANGE_VALUE[:FOOL])) + (-1,)


def _upward_progress(template: FooleryRules, index: int) -> tuple[int, int]:
    """(cards given so far at exchange step ``index``, cards given so far at its downward step)."""
    giver, receiver, count, _ = template.steps[index]
    down = next((i for i, s in enumerate(template.steps) if s[0] == receiver and s[1] == giver), -1)

    def given(i: int, k: int) -> int:
        if template.phase != EXCHANGE or i < template.step_index:
            return k
        return template.step_given if i == template.step_index else 0

    return given(index, count), (given(down, count) if down >= 0 else count)


def determinizer(game: FooleryGameRules, observation: Observation) -> Callable[[random.Random], FooleryRules]:
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

    * **Trump leads** (FY-R8): a seat that led trumps this hand held no suit card then, nor since; when some
      hidden seat did, the deal gives such seats only trumps and the Fool (:func:`_deal_voided`), and is
      otherwise as above.

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
        template = game.state_class(game, None)
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

    voided = [q for q in others if _trump_leaders(template) >> q & 1 and need[q]]

    def deal(rng: random.Random) -> list[int]:
        if voided:
            return _deal_voided(rng, pool, known, need, voided, (capped, cap), keys)
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

    def sample(rng: random.Random) -> FooleryRules:
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


def _deal_voided(rng: random.Random, pool: Sequence[int], known: Sequence[int], need: Sequence[int],
                 voided: Sequence[int], capped: tuple[int, int], keys: Sequence[int]) -> list[int]:
    """A deal of the unseen cards when some other seats led trumps this hand (``voided``): they held no suit
    card then, nor since (FY-R8), so they get trumps and the Fool only. The most constrained seats are dealt
    first, each its ``need`` cards drawn uniformly from the cards it may hold (a voided seat that is also the
    capped giver, ``capped = (seat, cap)``, only trumps of key up to the cap), then the capped giver, then the
    rest uniformly: close to uniform over the consistent deals. Never fails: should the cards a seat may hold
    run short (never for a consistent observation in practice), it takes others."""
    seat_capped, cap = capped
    hands = [0] * len(need)
    left = list(pool)
    firsts = sorted(voided, key=lambda q: q != seat_capped)
    if seat_capped >= 0 and seat_capped not in voided:
        firsts.append(seat_capped)
    for q in firsts:
        ok = [c for c in left if (q not in voided or c >= 56) and (q != seat_capped or keys[c] <= cap)]
        shuffle(ok, rng)
        if len(ok) < need[q]:
            spare = [c for c in left if c not in set(ok)]
            shuffle(spare, rng)
            ok += spare
        mine = set(ok[:need[q]])
        hands[q] = known[q] | mask_of(list(mine))
        left = [c for c in left if c not in mine]
    shuffle(left, rng)
    pos = 0
    for q in range(len(need)):
        if q not in firsts:
            hands[q] = known[q] | mask_of(left[pos:pos + need[q]])
            pos += need[q]
    return hands


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


# ---- inference from play (motley.core.inference): replaying a world's hand, and the swap proposal ----------

#: How a giver's cards are chosen when a world's hand is replayed (:func:`rewind`): ``(cards, exact)``: the
#: recorded gives in order (``exact``), or a set of cards given in any order the rules allow; ``None``: the
#: upward giver gives the heuristic's choice and the receiver gives back what it received.
_Plan = tuple[list[int], bool] | None


def rewind(state: State) -> tuple[FooleryRules, list[int]]:
    """A Foolery world at the start of its hand and the moves since (``InferenceSupport.rewind``).

    The hands at the deal are the hands now plus every card each seat played this hand (the log, FY-R3; the
    Fool of a stuck leader, FY-D13), with the exchange undone (FY-R13). The returned state is set up as the
    deal sets it (:meth:`FooleryState.start_hand`: the first hand is led by the dealer; later ones run the
    exchange's forced gives up to its first decision, FY-D17); the moves are the exchange's decisions, then
    every play and pass of the log. Playing them gives ``state``'s hands, table, log and exchange progress.

    The exchange between two seats is known where the world records it (a played state; in a sampled
    world, the observer's own exchange): it is replayed as recorded, and every seat's observation comes
    back. A sampled world leaves the exchange between two other seats unrecorded (the observer never sees
    it); one history consistent with the world's hands is replayed instead. Once every card came back: the
    one the heuristic would have made where the hands allow it (:func:`_heuristic_history`: the receiver's
    highest cards went up, the heuristic's lowest came back), so a world that fits heuristic players fits
    in full, evidence a model of them weighs; else the giver gives its highest cards (the heuristic's
    choice among ties, FY-D26) and the receiver gives back the same cards. During the exchange (``u`` up,
    ``d < u`` back): the giver's ``d`` highest cards went up and came back and the receiver's ``u - d``
    highest cards came from the giver (the determinizer keeps such a history possible, FY-D15). The
    observer's observation comes back; the invented gives are moves of those seats like any other. One
    detail may differ: the order of the observer's own records of an upward give, when the world lacks the
    tie that made the giver choose it (the determinizer does not keep that tie; the rules then give the
    tied cards in their own order).

    Args:
        state: a Foolery state inside a hand (not over).
    Returns:
        ``(start, actions)``: a new state and action ids legal in turn from it.
    Raises:
        MotleyError: a world whose exchange no history of the rules explains: the determinizer's worlds for a
            seat that is not to move during the exchange may be one (its documented limitation); search
            samples for the seat to move, and :func:`perturb` keeps a world explained.
    """
    state = cast("FooleryRules", state)  # not isinstance: an ABC check is slow here
    hands = list(state.hands)
    plays: list[int] = []
    for kind, seat, value in state.log:
        if kind == EV_PLAY:
            hands[seat] |= A_MASK[value]
            plays.append(value)
        elif kind == EV_PASS:
            plays.append(PASS)
        elif kind == EV_STUCK:
            hands[seat] |= FOOL_BIT
    plans = _undo_exchange(state, hands)
    start = state.clone()
    start.start_hand(hands, state.dealer, first=state.hand_number == 1)
    replay = start.clone()
    gives: list[int] = []
    while replay.phase == EXCHANGE and (state.phase != EXCHANGE or (replay.step_index, replay.step_given)
                                        != (state.step_index, state.step_given)):
        action = _next_give(replay, plans)
        gives.append(action)
        replay.apply_legal(action)
    return start, gives + plays


def _undo_exchange(state: FooleryRules, hands: list[int]) -> dict[int, _Plan]:
    """Turn the hands after the exchange (``hands``, changed in place) into the hands of the deal, and say how
    each giver's cards are chosen on the replay (:data:`_Plan`, by giver). See :func:`rewind`."""
    keys = exchange_keys(state.game)
    plans: dict[int, _Plan] = {}
    for i, (giver, receiver, _, rule) in enumerate(state.steps):
        if rule == ANY:
            continue
        up, down = _upward_progress(state, i)
        if len(state.gave[giver]) == up and len(state.gave[receiver]) == down:  # recorded (or nothing given)
            back, went = mask_of(state.gave[receiver]), mask_of(state.gave[giver])
            hands[giver] &= ~back
            hands[receiver] |= back
            hands[receiver] &= ~went
            hands[giver] |= went
            plans[giver] = (list(state.gave[giver]), True)
            plans[receiver] = (list(state.gave[receiver]), True)
        elif up == down:
            found = _heuristic_history(hands, giver, receiver, up, keys)
            if found is None:
                plans[giver] = plans[receiver] = None
                continue
            ups, downs = found
            hands[giver] = hands[giver] & ~mask_of(downs) | mask_of(ups)
            hands[receiver] = hands[receiver] & ~mask_of(ups) | mask_of(downs)
            plans[giver], plans[receiver] = (ups, False), (downs, False)
        else:
            back_cards = _highest(hands[giver], down, keys)
            stayed = _highest(hands[receiver], up - down, keys)
            hands[giver] |= mask_of(stayed)
            hands[receiver] &= ~mask_of(stayed)
            plans[giver] = (back_cards + stayed, False)
            plans[receiver] = (back_cards, False)
    return plans


def _heuristic_history(hands: Sequence[int], giver: int, receiver: int, count: int,
                       keys: Sequence[int]) -> tuple[list[int], list[int]] | None:
    """An exchange of ``count`` cards each way between two other seats that the heuristic would have made, if
    the hands after it (``hands``) allow one: ``(up, back)``, else ``None``.

    The receiver's ``count`` highest cards went up (the giver's highest then, FY-D15: none of the giver's
    other cards is above them) and the cards that came back are ones of the giver's now that the heuristic
    gives from the receiver's hand after the upward give (its lowest, :func:`choose`). Only the giver's
    cards of exchange value up to the receiver's ``count``-th lowest can have come back.
    """
    went = _highest(hands[receiver], count, keys)
    if len(went) < count:
        return None
    low = min(keys[c] for c in went)
    own = cards_of(hands[receiver] & ~FOOL_BIT)
    bound = sorted(EXCHANGE_VALUE[c] for c in own)[count - 1] if len(own) >= count else 1 << 30
    mine = cards_of(hands[giver] & ~FOOL_BIT)
    candidates = [c for c in mine if EXCHANGE_VALUE[c] <= bound][:8]
    for back in combinations(candidates, count):
        rest = hands[giver] & ~FOOL_BIT & ~mask_of(back)
        if rest and max(keys[c] for c in cards_of(rest)) > low:
            continue  # a card left with the giver is above what went up
        hand = hands[receiver] | mask_of(back)
        gives = []
        for _ in range(count):
            legal = [GIVE_BASE + c for c in cards_of(hand & ~FOOL_BIT)]
            card = choose(hand, hand.bit_count(), -1, legal) - GIVE_BASE
            gives.append(card)
            hand &= ~(1 << card)
        if sorted(gives) == sorted(back):
            return went, gives
    return None


def _highest(hand: int, count: int, keys: Sequence[int]) -> list[int]:
    """The ``count`` cards of ``hand`` of highest key (never the Fool), highest first, ties by card id."""
    return sorted(cards_of(hand & ~FOOL_BIT), key=lambda c: (-keys[c], c))[:count]


def _next_give(replay: FooleryRules, plans: Mapping[int, _Plan]) -> int:
    """The ``give`` action of the seat to move in the exchange of a replay, by its plan (:func:`rewind`)."""
    seat = replay.to_move
    legal = replay.legal_actions()
    plan = plans.get(seat)
    done = replay.gave[seat]
    choice = choose(replay.hands[seat], replay.sizes[seat], -1, legal)
    if plan is None:
        if replay.steps[replay.step_index][3] != ANY:
            return choice  # an upward give: any legal card is one of the highest
        cards = [c for c in replay.received[seat] if c not in done]
    elif plan[1]:
        cards = plan[0][len(done):len(done) + 1]
    else:
        cards = [c for c in plan[0] if c not in done]
    options = [GIVE_BASE + c for c in cards if GIVE_BASE + c in legal]
    if not options:
        raise MotleyError("no history of the exchange explains this world (FY-R13, FY-D15)")
    return choice if choice in options else options[0]


def perturb(state: State, observer: int, rng: random.Random) -> FooleryRules | None:
    """Two hidden cards swapped between two seats other than ``observer`` (``InferenceSupport.perturb``).

    The cards that may move are the other seats' cards less the ones ``observer`` gave in the exchange (it
    knows where they are, FY-R13). Two seats holding such cards are drawn (an unordered pair, uniformly),
    then one such card of each (uniformly); the swap is refused (``None``) when it breaks a hard constraint
    the observer knows of (:func:`_swap_allowed`). Hand sizes and the movable cards per seat do not change,
    so the reverse swap is exactly as likely: the proposal is symmetric. ``state`` is unchanged.
    """
    state = cast("FooleryRules", state)  # not isinstance: an ABC check is slow here
    fixed = mask_of(state.gave[observer])
    movable = [state.hands[s] & ~fixed if s != observer else 0 for s in range(len(state.hands))]
    seats = [s for s, m in enumerate(movable) if m]
    if len(seats) < 2:
        return None
    first, second = rng.sample(seats, 2)
    a_cards, b_cards = cards_of(movable[first]), cards_of(movable[second])
    a, b = a_cards[rng.randrange(len(a_cards))], b_cards[rng.randrange(len(b_cards))]
    hands = list(state.hands)
    hands[first] ^= 1 << a | 1 << b
    hands[second] ^= 1 << a | 1 << b
    if not _swap_allowed(state, observer, hands, ((first, b), (second, a))):
        return None
    world = state.clone()
    world.hands = hands
    world._legal = None  # the seat to move may hold other cards
    return world


def _swap_allowed(state: FooleryRules, observer: int, hands: Sequence[int],
                  moves: Sequence[tuple[int, int]]) -> bool:
    """Do ``hands`` (``state``'s after a swap, ``moves`` = (seat, card it gets)) keep what ``observer`` knows?

    * the upward give it received (King, Prince): the giver holds no card (the Fool aside) of key above the
      lowest card it gave (FY-R13, FY-D15, FY-D25; :func:`determinizer`);
    * an upward give between two other seats during the exchange stays possible (:func:`_third_party_ok`);
    * a seat that led trumps this hand held no suit cards (FY-R8): it gets none;
    * the seat to lead does not hold the Fool alone (it would have been the Peasant at once, FY-D13).
    """
    keys = exchange_keys(state.game)
    for i, (giver, receiver, _, rule) in enumerate(state.steps):
        if rule == ANY:
            continue
        up, down = _upward_progress(state, i)
        if receiver == observer and up and state.received[observer]:
            cap = min(keys[c] for c in state.received[observer])
            if any(seat == giver and keys[card] > cap for seat, card in moves):
                return False
        elif observer not in (giver, receiver) and up > down and not _third_party_ok(hands, (giver, receiver, up,
                                                                                            down), keys):
            return False
    trump_leaders = _trump_leaders(state)
    if any(trump_leaders >> seat & 1 and card < 56 for seat, card in moves):
        return False
    leader = state.to_move
    return not (state.phase == PLAY and state.top < 0 and hands[leader] == FOOL_BIT)


def _trump_leaders(state: FooleryRules) -> int:
    """The seats (a bitmask) that led trumps this hand: they held no suit card then, nor since (FY-R8)."""
    seats, lead = 0, True
    for kind, seat, value in state.log:
        if kind == EV_PLAY:
            if lead and A_KIND[value] == K_TRUMP:
                seats |= 1 << seat
            lead = False
        elif kind == EV_TRICK:
            lead = True
    return seats
