"""Fool!'s determinizer: full states consistent with one seat's observation, for search.

``Fool.sample_state`` and ``Fool.determinizer`` (the core API) delegate to :func:`determinizer`: the public
fields of the observation become a template state (:func:`_public_state`), and :class:`_HiddenDeal` deals
the cards the observer cannot see to the other seats, respecting the voids shown by play.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from motley.core.cards import shuffle
from motley.core.errors import MotleyError
from motley.core.game import Observation, State
from motley.games.fool.cards import CODE_INDEX, CODES, COLOUR, COLOUR_NAMES, Card, Seat, W, split_hand
from motley.games.fool.observe import _copy_last, plays_voids, voids
from motley.games.fool.rules import FoolGameRules, FoolRules


def determinizer(game: FoolGameRules, observation: Observation) -> Callable[[random.Random], FoolRules]:
    """The body of :meth:`Fool.determinizer`: parse ``observation`` once, return the sampler.

    Raises:
        MotleyError: a malformed or inconsistent observation (see :meth:`Fool.sample_state`).
    """
    if not isinstance(observation, Mapping) or observation.get("game") != game.name:
        raise MotleyError(f"not a {game.name} observation")
    if observation.get("players") != game.num_players:
        raise MotleyError(f"observation is for {observation.get('players')} players; game has {game.num_players}")
    try:
        template = _public_state(game, observation)
        me = int(observation["seat"])
        mine = [CODE_INDEX[c] for c in observation["hand"]]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise MotleyError(f"malformed {game.name} observation: {exc!r}") from None
    pool = list(game.deck)
    played = [t & 127 for t in template.trick] + [t & 127 for tr in template.tricks for t in tr[0]]
    for c in mine + played:
        try:
            pool.remove(c)
        except ValueError:
            raise MotleyError(f"observation shows {CODES[c]} more often than the deck holds it") from None
    sizes = [int(x) for x in observation["hand_sizes"]]
    if sizes[me] != len(mine):
        raise MotleyError("observation hand size of the observer differs from its hand")
    others = [s for s in range(game.num_players) if s != me]
    if sum(sizes[s] for s in others) != len(pool):
        raise MotleyError("observation hand sizes do not match the hidden cards")
    deals = _HiddenDeal(pool, sizes, voids(template), me)
    my_hand = split_hand(mine)
    template.sizes = sizes
    template.hands = []

    def sample(rng: random.Random) -> FoolRules:
        hands = deals.deal(rng)
        hands[me] = [list(part) for part in my_hand]
        state = template.clone()
        state.hands = hands
        state.use_seed(rng.getrandbits(64))
        return state

    return sample


class _HiddenDeal:
    """Deals of the hidden cards of one observation, to be sampled many times (search determinizations).

    The hidden ``pool`` goes to the seats other than ``me`` by ``sizes``, no seat getting a colour it is
    void in (FL-R6: voids shown by play; a W1 shows none, FL-R7). A plain deal (the seats of the places
    shuffled) is uniform over all deals, so keeping it when it respects the voids gives the uniform
    distribution over consistent deals. Where that is unlikely (tight voids late in a round: ``TRIES``
    misses), the cards of void colours are placed one by one instead, each to a seat drawn in proportion to
    its free places among those that keep the rest feasible, and the other cards fill the remaining places:
    this never fails and stays close to uniform.

    Feasibility is Hall's condition over the sets of constrained colours: the cards of a set must fit in
    the places of the seats that accept one of its colours (a set with an unconstrained colour always fits,
    the totals being equal). It is kept as a slack per set: a card of colour ``col`` placed at a seat that
    accepts a set without ``col`` uses up one of that set's places.

    Raises (constructor):
        MotleyError: if no consistent deal exists (an inconsistent observation).
    """

    TRIES = 8

    def __init__(self, pool: Sequence[Card], sizes: Sequence[int], voids: Sequence[int], me: Seat) -> None:
        n = len(sizes)
        self.n, self.me = n, me
        self.pool = sorted(pool)  # dealt in this order, each hand comes out sorted by colour and value
        self.slots = [s for s in range(n) if s != me for _ in range(sizes[s])]  # the seat of each place
        self.voids = [0 if s == me else voids[s] for s in range(n)]
        self.others = [s for s in range(n) if s != me]
        constrained = 0
        for v in self.voids:
            constrained |= v
        self.constrained = constrained
        self.allowed = allowed = [0 if s == me else 15 & ~self.voids[s] | 16 for s in range(n)]
        self.cap = cap = [0 if s == me else sizes[s] for s in range(n)]
        subsets = [m for m in range(1, 16) if m & constrained == m]
        count = [0] * 5
        for c in pool:
            count[COLOUR[c]] += 1
        self.slack = {m: sum(cap[s] for s in range(n) if allowed[s] & m)
                      - sum(count[col] for col in range(4) if m >> col & 1) for m in subsets}
        if any(v < 0 for v in self.slack.values()):
            raise MotleyError("no deal of the hidden cards respects the voids shown by play")
        self.tight = sum(1 << m for m, v in self.slack.items() if not v)  # bit m: set m has no slack left
        #: the sets whose slack a card of colour ``col`` at seat ``s`` uses up: ``uses[s][col]``
        self.uses = [[tuple(m for m in subsets if not m >> col & 1 and allowed[s] & m) for col in range(4)]
                     for s in range(n)]
        #: the same sets as a bitmask (bit ``m`` for set ``m``), to test against the tight sets at once
        self.use_bits = [[sum(1 << m for m in uses) for uses in row] for row in self.uses]
        self.void_cards = [c for c in self.pool if constrained >> COLOUR[c] & 1]
        self.free_cards = [c for c in self.pool if not constrained >> COLOUR[c] & 1]
        self.cards = self.void_cards + self.free_cards  # the order of a plain deal: void colours first
        self.colours = [COLOUR[c] for c in self.cards]
        self.bits = [1 << COLOUR[c] for c in self.void_cards]  # against a seat's void bitmask

    def deal(self, rng: random.Random) -> list[list[list[int]]]:
        """Every seat's hand split by colour (G R Y B W), ``me``'s left empty."""
        for _ in range(self.TRIES if self.constrained else 1):
            hands = self._plain(rng)
            if hands is not None:
                return hands
        return self._placed(rng)

    def _plain(self, rng: random.Random) -> list[list[list[int]]] | None:
        """A uniformly random deal, or None if it gives a seat a colour it is void in.

        The places are shuffled forward (Fisher-Yates: place ``i`` gets a uniformly random one of the
        rest), the cards of void colours first, so a deal that breaks a void is dropped after a few draws.
        """
        slots, voids, bits = self.slots, self.voids, self.bits
        draw = rng.random
        n = len(slots)
        for i in range(len(bits)):
            j = i + int(draw() * (n - i))
            s = slots[j]
            slots[j] = slots[i]
            slots[i] = s
            if voids[s] & bits[i]:
                return None
        for i in range(len(bits), n - 1):
            j = i + int(draw() * (n - i))
            slots[i], slots[j] = slots[j], slots[i]
        hands: list[list[list[int]]] = [[[], [], [], [], []] for _ in range(self.n)]
        for c, col, s in zip(self.cards, self.colours, slots, strict=True):
            hands[s][col].append(c)
        return hands

    def _placed(self, rng: random.Random) -> list[list[list[int]]]:
        """A consistent deal built card by card (see the class docstring)."""
        cap, slack, allowed, uses, others = list(self.cap), dict(self.slack), self.allowed, self.uses, self.others
        use_bits, tight = self.use_bits, self.tight
        hands: list[list[int]] = [[] for _ in range(self.n)]
        cards = list(self.void_cards)
        shuffle(cards, rng)
        draw = rng.random
        for c in cards:
            col = COLOUR[c]
            seats = [s for s in others if cap[s] and allowed[s] >> col & 1 and not use_bits[s][col] & tight]
            x = draw() * sum(cap[s] for s in seats)  # seats is never empty: every slack stays >= 0
            for s in seats:
                x -= cap[s]
                if x < 0:
                    break
            cap[s] -= 1
            for m in uses[s][col]:
                slack[m] -= 1
                if not slack[m]:
                    tight |= 1 << m
            hands[s].append(c)
        free = list(self.free_cards)
        shuffle(free, rng)
        start = 0
        for s in others:
            hands[s].extend(free[start:start + cap[s]])
            start += cap[s]
        return [split_hand(h) for h in hands]


def rewind(state: State) -> tuple[FoolRules, list[int]]:
    """A Fool! world at the start of its round and the cards played since (``InferenceSupport.rewind``).

    The hands at the deal are the hands now plus each seat's cards in the round's tricks and the current
    trick (FL-R3); the round's first trick is set up as the deal sets it (FL-R5, FL-D7). Playing the
    returned cards in order from the returned state gives ``state``'s hands, tricks and trick again.

    Args:
        state: a Fool! state inside a round (not over).
    Returns:
        ``(start, cards)``: a new state, and card ids in play order (W1s as ``W1``, FL-D12).
    """
    state = cast("FoolRules", state)  # not isinstance: an ABC check is slow here
    plays = [t for trick in state.tricks for t in trick[0]] + list(state.trick)
    hands = [[c for col in hand for c in col] for hand in state.hands]
    for t in plays:
        hands[t >> 7].append(t & 127)
    start = state.clone()
    start.start_round(state.dealer, state.round_number, hands)
    return start, [t & 127 for t in plays]


def perturb(state: State, observer: int, rng: random.Random) -> FoolRules | None:
    """Two hidden cards swapped between two seats other than ``observer`` (``InferenceSupport.perturb``).

    Two such seats holding cards are drawn (an unordered pair, uniformly), then one card of each hand
    (uniformly); the swap is refused (``None``) when a card would go to a seat void in its colour (FL-R6;
    a W1 goes anywhere, FL-R7). Hand sizes do not change, so the reverse swap is exactly as likely: the
    proposal is symmetric. Late in a round fewer than two other seats may hold cards (the others went out
    in the current trick, FL-R12): then nothing can be swapped, and the answer is ``None`` every time.
    """
    state = cast("FoolRules", state)  # not isinstance: an ABC check is slow here
    seats = [s for s in range(len(state.hands)) if s != observer and state.sizes[s]]
    if len(seats) < 2:
        return None
    first, second = rng.sample(seats, 2)
    a = _nth_card(state.hands[first], rng.randrange(state.sizes[first]))
    b = _nth_card(state.hands[second], rng.randrange(state.sizes[second]))
    void = plays_voids(state)
    if (COLOUR[a] < W and void[second] >> COLOUR[a] & 1) or (COLOUR[b] < W and void[first] >> COLOUR[b] & 1):
        return None
    world = state.clone()
    hands = world.hands
    hands[first][COLOUR[a]].remove(a)
    insort(hands[first][COLOUR[b]], b)
    hands[second][COLOUR[b]].remove(b)
    insort(hands[second][COLOUR[a]], a)
    return world


def _nth_card(hand: Sequence[Sequence[Card]], index: int) -> Card:
    """The ``index``-th card of a hand split by colour (0-based, colour by colour)."""
    for cards in hand:
        if index < len(cards):
            return cards[index]
        index -= len(cards)
    raise IndexError("card index beyond the hand")


def _plays_from_json(plays: Sequence[Mapping[str, Any]]) -> list[int]:
    return [CODE_INDEX[p["card"]] | int(p["seat"]) << 7 for p in plays]


def _public_state(game: FoolGameRules, obs: Mapping[str, Any]) -> FoolRules:
    """A state holding every public field of an observation (hands left empty)."""
    state = game.state_class(game, None)
    state.dealer, state.round_number = int(obs["dealer"]), int(obs["round_number"])
    trick = obs["trick"]
    state.order = [int(s) for s in trick["order"]]
    state.trick = _plays_from_json(trick["plays"])
    state.pos = len(state.trick)
    state.lead = -1 if trick["lead"] is None else COLOUR_NAMES.index(trick["lead"])
    state.out = tuple(int(s) for s in obs["sitting_out"])
    state.tricks = [(tuple(_plays_from_json(t["plays"])), -1 if t["lead"] is None else COLOUR_NAMES.index(t["lead"]),
                     int(t["winner"]), tuple(int(f) for f in t["fools"])) for t in obs["tricks"]]
    state.totals = [int(x) for x in obs["scores"]]
    state.bonuses = [int(x) for x in obs["bonus_counts"]]
    state.last = _copy_last(obs["last_round"])
    state.rounds = tuple(tuple(int(x) for x in r) for r in obs["round_scores"])
    state.done = bool(obs["terminal"])
    return state
