"""Foolery (Jared McComb): a Tarot climbing game for 3-7 players (rules/foolery.md).

Cards (ids 0..77): suit cards ``4 * rank + suit`` (rank 0 = Ace .. 13 = King, value ``rank + 1``, FY-R2;
suits S H D C, unordered), trumps ``55 + n`` for trump ``n`` = 1..21 (ids 56..76), the Fool 77. A hand is
a bitmask over those ids, so the four suit cards of a rank are one nibble: ``(hand >> 4 * rank) & 15``.

Action space (fixed, context-free, like OpenSpiel's dou_dizhu; ``NUM_ACTIONS`` ids):

* ``0`` pass (FY-R10); ``1`` the Fool (FY-R9);
* ``2 + card`` (2..79): ``give CARD`` in the card exchange (FY-R13; ``give FOOL`` exists only to be refused);
* ``80 + 15 * rank + (suits - 1)`` (80..289): 1-4 suit cards of one rank, ``suits`` a 4-bit suit mask (FY-R3);
* 290..1850: trump sets of 1, 2, 3 trumps (FY-R7, FY-R8), by size then lexicographic trump numbers;
* then every 5-card hand (FY-R4, FY-D1..D5) with concrete cards: straights (every start ``A..10`` and the
  J-C-Q-K-A set of ``ace_high_straight``, every suit assignment, straight flushes included), flushes that
  are not straights, full houses, and five of a kind (four suit cards of a rank + any one trump; only the
  matching trump is legal under ``five_kind_trump=matching``, FY-D3).

Move strings: the card codes of a play joined by spaces in ascending card id order (``"9S 9H"``,
``"II IX"``), ``pass``, and ``give 7S`` in the exchange. Codes and order are free on input.

Play strength (for FY-R5): 1-4 cards of a rank: the rank value; trump sets: the top trump's number;
5-card hands: ``16 * category + key`` (category straight 0, flush 1, full house 2, straight flush 3,
five of a kind 4; key the highest card, the triple's rank, or the rank, FY-D4).

Extra rulings (not in the rules file, FY-D23 onward):

* **FY-D23** ``ace_high_straight=true`` adds J-C-Q-K-A as the highest straight (key 15); A-2-3-4-5 stays the
  lowest; still no wrap (FY-D2: Q-K-A-2-3 is never a straight). The Ace is low in flushes either way (the
  option is about straights).
* **FY-D24** A skipped player (FY-R6, FY-D6) only loses that turn: under ``pass_locks_out`` a skip does not
  lock them out of the trick. The skip goes to the next player who would have had the turn.
* **FY-D25** ``exchange_order=suit_cards_only``: the "highest cards" are the highest suit cards; a giver
  with no suit card left gives their highest trump instead.
* **FY-D26** Ties among equal ranks in the exchange (FY-D15) are a real decision of the giver when more
  cards are tied than remain to give: the engine asks the Peasant (Merchant) for ``give CARD`` among the
  tied cards. An untied highest card, or tied highest cards that exactly fill the number to give, go up
  without asking (FY-D17).
* **FY-D27** Match end: ``match_end=hands`` plays ``hands`` hands (0 = 2 x players, FY-D22; ``hands=1`` is a
  single hand); ``match_end=target`` ends after the hand in which a total reaches ``target_score``
  (``hands``, if not 0, then caps the match length). The winner is the highest total, ties broken by the
  better place in the last hand (FY-D22).
* **FY-D28** ``returns()``: seats ranked as in FY-D27; rank ``i`` (0 = winner) gets ``1 - 2 i / (N - 1)``.
* **FY-D29** ``dealer_3p=previous_dealer_left``: with 3 players the next dealer is the previous dealer's
  left neighbour. The King always leads (FY-R12).
"""

from __future__ import annotations

import itertools
import random
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from motley.core.cards import cards_from_codes, check_no_duplicates, shuffle, split_codes
from motley.core.errors import DealError, IllegalMoveError, MotleyError, OptionError
from motley.core.game import TERMINAL, Game, Observation, rng_from_json
from motley.core.options import Option
from motley.core.search import SearchState

# ---- cards -----------------------------------------------------------------------------------------
RANK_CODES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K")
SUIT_CODES = ("S", "H", "D", "C")
ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI",
         "XVII", "XVIII", "XIX", "XX", "XXI")
NUM_CARDS = 78
FOOL = 77
FOOL_BIT = 1 << FOOL
SUIT_MASK = (1 << 56) - 1  # every suit card
TRUMP_SHIFT = 55  # trump n is card 55 + n
TRUMP_MASK = ((1 << 21) - 1) << 56
CODES: tuple[str, ...] = tuple(r + s for r in RANK_CODES for s in SUIT_CODES) + ROMAN + ("FOOL",)
CODE_INDEX = {code: i for i, code in enumerate(CODES)}
#: FY-D15 exchange value of a card under ``trumps_high`` (Fool -1: never passed).
EXCHANGE_VALUE: tuple[int, ...] = tuple(c // 4 + 1 for c in range(56)) + tuple(100 + n for n in range(1, 22)) + (-1,)


def card_rank(card: int) -> int:
    """Rank index 0 (Ace) .. 13 (King) of a suit card id 0..55 (FY-R2)."""
    return card >> 2


def is_trump(card: int) -> bool:
    """True for trump ids 56..76."""
    return 56 <= card < FOOL


def cards_of(mask: int) -> list[int]:
    """Card ids of a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Sequence[int]) -> int:
    """Bitmask of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# ---- the action table ------------------------------------------------------------------------------
PASS, PLAY_FOOL, GIVE_BASE, NORMAL_BASE = 0, 1, 2, 80
K_PASS, K_FOOL, K_GIVE, K_NORMAL, K_TRUMP, K_FIVE = 0, 1, 2, 3, 4, 5
STRAIGHT, FLUSH, FULL_HOUSE, STRAIGHT_FLUSH, FIVE_KIND = 0, 1, 2, 3, 4
CATEGORY_NAMES = ("straight", "flush", "full house", "straight flush", "five of a kind")

A_MASK: list[int] = []
A_KIND: list[int] = []
A_SIZE: list[int] = []
A_STR: list[int] = []  # strength with the Ace low (FY-D2); see STR_ACE_HIGH
A_TOP: list[int] = []  # top trump number of a trump set / the trump of a five of a kind, else 0
A_CAT: list[int] = []  # 5-card category or -1
MASK_TO_ACTION: dict[int, int] = {}
#: Actions whose card set is J-C-Q-K-A (only a straight under ``ace_high_straight``, FY-D23).
ACE_HIGH_SETS: set[int] = set()


def _add(mask: int, kind: int, size: int, strength: int, top: int = 0, cat: int = -1) -> int:
    a = len(A_MASK)
    A_MASK.append(mask)
    A_KIND.append(kind)
    A_SIZE.append(size)
    A_STR.append(strength)
    A_TOP.append(top)
    A_CAT.append(cat)
    if kind not in (K_PASS, K_GIVE):
        MASK_TO_ACTION[mask] = a
    return a


_add(0, K_PASS, 0, 0)
_add(FOOL_BIT, K_FOOL, 1, 0)
for _c in range(NUM_CARDS):
    _add(1 << _c, K_GIVE, 1, 0)
for _r in range(14):
    for _m in range(1, 16):
        _add(_m << (4 * _r), K_NORMAL, _m.bit_count(), _r + 1)
TRUMP_BASE = len(A_MASK)
for _k in (1, 2, 3):
    for _ns in itertools.combinations(range(1, 22), _k):
        _add(mask_of([TRUMP_SHIFT + n for n in _ns]), K_TRUMP, _k, max(_ns), max(_ns))
FIVE_BASE = len(A_MASK)
_RUNS = [tuple(range(s, s + 5)) for s in range(10)] + [(10, 11, 12, 13, 0)]
for _s, _ranks in enumerate(_RUNS):
    for _suits in itertools.product(range(4), repeat=5):
        _mask = mask_of([4 * r + su for r, su in zip(_ranks, _suits, strict=True)])
        _flush = len(set(_suits)) == 1
        if _s < 10:
            _cat = STRAIGHT_FLUSH if _flush else STRAIGHT
            _add(_mask, K_FIVE, 5, 16 * _cat + _s + 5, cat=_cat)
        else:  # J-C-Q-K-A: with the Ace low only a same-suit set is legal, as a K-high flush (FY-D2)
            ACE_HIGH_SETS.add(_add(_mask, K_FIVE, 5, 16 * FLUSH + 14 if _flush else -1, cat=FLUSH if _flush else -1))
_RUN_SETS = {frozenset(r) for r in _RUNS}
for _su in range(4):
    for _ranks in itertools.combinations(range(14), 5):
        if frozenset(_ranks) in _RUN_SETS:
            continue
        _add(mask_of([4 * r + _su for r in _ranks]), K_FIVE, 5, 16 * FLUSH + max(_ranks) + 1, cat=FLUSH)
_TRIPLES = [m for m in range(16) if m.bit_count() == 3]
_PAIRS = [m for m in range(16) if m.bit_count() == 2]
for _r in range(14):
    for _t in _TRIPLES:
        for _pr in range(14):
            if _pr != _r:
                for _p in _PAIRS:
                    _add((_t << 4 * _r) | (_p << 4 * _pr), K_FIVE, 5, 16 * FULL_HOUSE + _r + 1, cat=FULL_HOUSE)
FIVE_KIND_BASE = len(A_MASK)
for _r in range(14):
    for _n in range(1, 22):
        _add((15 << 4 * _r) | (1 << (TRUMP_SHIFT + _n)), K_FIVE, 5, 16 * FIVE_KIND + _r + 1, _n, FIVE_KIND)
NUM_ACTIONS = len(A_MASK)

#: Strengths with ``ace_high_straight`` (FY-D23): the J-C-Q-K-A sets become straights (flushes) with key 15.
STR_ACE_HIGH = list(A_STR)
CAT_ACE_HIGH = list(A_CAT)
for _a in ACE_HIGH_SETS:
    _flush = len({c & 3 for c in cards_of(A_MASK[_a])}) == 1
    CAT_ACE_HIGH[_a] = STRAIGHT_FLUSH if _flush else STRAIGHT
    STR_ACE_HIGH[_a] = 16 * CAT_ACE_HIGH[_a] + 15
#: Canonical move string of each action.
A_TEXT: tuple[str, ...] = tuple(
    "pass" if A_KIND[a] == K_PASS else f"give {CODES[a - GIVE_BASE]}" if A_KIND[a] == K_GIVE
    else " ".join(CODES[c] for c in cards_of(A_MASK[a])) for a in range(NUM_ACTIONS))

# Lookup tables for fast generation.
#: ``NSUB[k][16 * rank + nibble]``: ids of the k-card subsets (k = 1..4) of that rank's cards; k = 0: all.
NSUB: list[list[tuple[int, ...]]] = [[() for _ in range(224)] for _ in range(5)]
for _r in range(14):
    for _m in range(16):
        _subs = [s for s in range(1, 16) if s & _m == s]
        NSUB[0][16 * _r + _m] = tuple(NORMAL_BASE + 15 * _r + s - 1 for s in _subs)
        for _k in range(1, 5):
            NSUB[_k][16 * _r + _m] = tuple(NORMAL_BASE + 15 * _r + s - 1 for s in _subs if s.bit_count() == _k)
_SUBSETS_3 = [[s for s in _TRIPLES if s & m == s] for m in range(16)]
_SUBSETS_2 = [[s for s in _PAIRS if s & m == s] for m in range(16)]
_SUIT_BITS = sum(1 << 4 * r for r in range(14))
_TWO_PLUS = frozenset(m for m in range(16) if m.bit_count() >= 2)
_THREE_PLUS = frozenset(m for m in range(16) if m.bit_count() >= 3)  # one bit per rank in suit S; shift by the suit
_TRUMP_CACHE: dict[int, tuple[list[int], list[int], list[int]]] = {}
_STRAIGHT_CACHE: dict[int, list[int]] = {}
_FLUSH_CACHE: dict[tuple[int, bool], list[int]] = {}


def trump_sets(trumps: int) -> tuple[list[int], list[int], list[int]]:
    """Action ids of the 1-, 2- and 3-trump sets in a hand's trump bits (``hand & TRUMP_MASK``), cached."""
    hit = _TRUMP_CACHE.get(trumps)
    if hit is None:
        bits = [1 << c for c in cards_of(trumps)]
        ones, twos, threes = ([MASK_TO_ACTION[sum(combo)] for combo in itertools.combinations(bits, k)]
                              for k in (1, 2, 3))
        hit = _TRUMP_CACHE[trumps] = (ones, twos, threes)
    return hit


def _straights(start: int, chunk: int) -> list[int]:
    """Straight ids over the 5 ranks from ``start`` (10: J-C-Q-K-A) given their 5 nibbles (20 bits), cached."""
    key = start << 20 | chunk
    hit = _STRAIGHT_CACHE.get(key)
    if hit is None:
        ranks = _RUNS[start]
        options = [[1 << (4 * r + s) for s in range(4) if chunk >> (4 * i + s) & 1] for i, r in enumerate(ranks)]
        hit = sorted(MASK_TO_ACTION[sum(combo)] for combo in itertools.product(*options))
        _STRAIGHT_CACHE[key] = hit
    return hit


def _flushes(bits: int, ace_high: bool) -> list[int]:
    """Flush ids (not straight flushes, which ``_straights`` yields) within one suit's cards ``bits``, cached."""
    key = (bits, ace_high)
    hit = _FLUSH_CACHE.get(key)
    if hit is None:
        cards = cards_of(bits)
        hit = []
        for combo in itertools.combinations(cards, 5):
            ranks = frozenset(c >> 2 for c in combo)
            if ranks in _RUN_SETS and (ace_high or 0 not in ranks or 1 in ranks):
                continue  # a straight flush: generated with the straights
            hit.append(MASK_TO_ACTION[mask_of(combo)])
        hit.sort()
        _FLUSH_CACHE[key] = hit
    return hit


def five_card_plays(hand: int, ace_high: bool, any_trump: bool) -> list[int]:
    """Every 5-card hand (FY-R4, FY-D1..D5) in ``hand`` allowed by the options, as action ids (unsorted).

    Built rank by rank from the nibbles, never by enumerating subsets of the hand.
    """
    out: list[int] = []
    nib: list[int] = []
    pres = 0
    trips: list[int] = []
    pairs: list[int] = []
    h = hand
    for r in range(14):
        m = h & 15
        h >>= 4
        nib.append(m)
        if m:
            pres |= 1 << r
            if m in _TWO_PLUS:
                pairs.append(r)
                if m in _THREE_PLUS:
                    trips.append(r)
    runs = pres & pres >> 1 & pres >> 2 & pres >> 3 & pres >> 4 & 0x3FF  # starts of 5 present ranks
    while runs:
        low = runs & -runs
        s = low.bit_length() - 1
        out.extend(_straights(s, (hand >> 4 * s) & 0xFFFFF))
        runs ^= low
    if ace_high and pres & 0x3C01 == 0x3C01:
        out.extend(_straights(10, ((hand >> 40) & 0xFFFF) | (nib[0] << 16)))
    for su in range(4):
        bits = hand & (_SUIT_BITS << su)
        if bits.bit_count() >= 5:
            out.extend(_flushes(bits, ace_high))
    if trips:
        for r in trips:
            for t in _SUBSETS_3[nib[r]]:
                tm = t << 4 * r
                for pr in pairs:
                    if pr != r:
                        for p in _SUBSETS_2[nib[pr]]:
                            out.append(MASK_TO_ACTION[tm | p << 4 * pr])
            if nib[r] == 15:  # five of a kind (FY-R4, FY-D3)
                if any_trump:
                    for c in cards_of(hand & TRUMP_MASK):
                        out.append(FIVE_KIND_BASE + 21 * r + c - 56)
                elif hand >> (TRUMP_SHIFT + r + 1) & 1:
                    out.append(FIVE_KIND_BASE + 21 * r + r)
    return out


# ---- titles, phases, events ------------------------------------------------------------------------
KING, PRINCE, NOBLE, MERCHANT, PEASANT = 0, 1, 2, 3, 4
TITLES = ("King", "Prince", "Noble", "Merchant", "Peasant")
EXCHANGE, PLAY, OVER = 0, 1, 2
PHASES = ("exchange", "play", "over")
HIGHEST, ANY = 0, 1
EV_PLAY, EV_PASS, EV_SKIP, EV_TRICK, EV_OUT, EV_STUCK = 0, 1, 2, 3, 4, 5
EVENTS = ("play", "pass", "skip", "trick", "out", "stuck")
#: A log event: (kind, seat, value): the action of a play, the next leader of a trick, the place of an "out".
Event = tuple[int, int, int]
#: A pending exchange step: (giver, receiver, cards, HIGHEST or ANY).
Step = tuple[int, int, int, int]


def title_of(place: int, players: int) -> int:
    """FY-R11: title index of finishing ``place`` (0 = first out); 3 players have no Prince and no Merchant."""
    if place == 0:
        return KING
    if place == players - 1:
        return PEASANT
    if players >= 4 and place == 1:
        return PRINCE
    if players >= 4 and place == players - 2:
        return MERCHANT
    return NOBLE


def deal_sizes(players: int, dealer: int) -> list[int]:
    """FY-R1, FY-D19: cards per seat; the first ``78 % players`` seats after the dealer get one more."""
    base, extra = divmod(NUM_CARDS, players)
    sizes = [base] * players
    for i in range(extra):
        sizes[(dealer + 1 + i) % players] += 1
    return sizes


def hand_points(places: Sequence[int], scoring: str) -> list[int]:
    """FY-D21: points of one hand per seat from the finishing places (0 = first out).

    ``positional``: 1st scores N, 2nd N-1, ..., last 1. ``president``: King +2, Prince +1, Nobles 0,
    Merchant -1, Peasant -2.
    """
    n = len(places)
    if scoring == "positional":
        return [n - p for p in places]
    value = {KING: 2, PRINCE: 1, NOBLE: 0, MERCHANT: -1, PEASANT: -2}
    return [value[title_of(p, n)] for p in places]


OBS_CARD_BLOCKS = 5
SEAT_BLOCK = 13


def tensor_size(players: int) -> int:
    """Length of the observation tensor for ``players`` seats (see ``FooleryState.observation_tensor``)."""
    return OBS_CARD_BLOCKS * NUM_CARDS + players * (SEAT_BLOCK + 1) + 3 + 1 + 9 + 1


class Foolery(Game):
    """Foolery (FY-R1 to FY-R14, rulings FY-D1 to FY-D22 and the module's FY-D23..D29), 3-7 seats.

    Options: ``players`` (3-7), ``ace_high_straight`` (FY-D2), ``five_kind_trump`` (FY-D3), ``skip_rule``
    (FY-D6), ``pass_locks_out`` (FY-D7), ``trump_variation`` (FY-R14, FY-D9), ``exchange_order`` (FY-D15),
    ``dealer_3p`` (FY-D18), ``scoring`` (FY-D21), ``match_end`` / ``hands`` / ``target_score`` (FY-D22).

    Raises (constructor):
        OptionError: for a bad option, ``match_end=target`` without a positive ``target_score``, or a
            ``target_score`` given with ``match_end=hands``.
    """

    name = "foolery"
    title = "Foolery"
    rules_file = "foolery.md"
    min_players = 3
    max_players = 7
    options = (
        Option("players", 5, "number of players, 3-7 (FY-R1)", kind="int", minimum=3, maximum=7),
        Option("ace_high_straight", False, "J-C-Q-K-A is also a straight (FY-D2, FY-D23)", kind="bool"),
        Option("five_kind_trump", "matching", "trump completing five of a kind: the matching one or any (FY-D3)",
               choices=("matching", "any")),
        Option("skip_rule", True, "an equal single or pair skips the next player (FY-R6, FY-D6)", kind="bool"),
        Option("pass_locks_out", False, "a pass locks you out of the rest of the trick (FY-D7)", kind="bool"),
        Option("trump_variation", False, "3 trumps beat 3, 2 beat 2 (FY-R14, FY-D9)", kind="bool"),
        Option("exchange_order", "trumps_high", "which cards are 'highest' in the exchange (FY-D15, FY-D25)",
               choices=("trumps_high", "suit_cards_only")),
        Option("dealer_3p", "peasant", "3 players: who deals the next hand (FY-D18, FY-D29)",
               choices=("peasant", "previous_dealer_left")),
        Option("scoring", "positional", "points per hand (FY-D21)", choices=("positional", "president")),
        Option("match_end", "hands", "end after a number of hands, or at a target score (FY-D22, FY-D27)",
               choices=("hands", "target")),
        Option("hands", 0, "hands in the match; 0 = 2 x players (FY-D22); a cap with match_end=target",
               kind="int", minimum=0, maximum=10_000),
        Option("target_score", 0, "total that ends the match with match_end=target (FY-D27)",
               kind="int", minimum=0, maximum=1_000_000),
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        if p["match_end"] == "target" and p["target_score"] <= 0:
            raise OptionError("option 'match_end=target' needs a positive 'target_score'")
        if p["match_end"] == "hands" and p["target_score"] != 0:
            raise OptionError("option 'target_score' needs 'match_end=target'")
        self.hands_total: int = p["hands"] or (2 * self.num_players if p["match_end"] == "hands" else 0)
        self.ace_high: bool = p["ace_high_straight"]
        self.any_trump: bool = p["five_kind_trump"] == "any"
        self.skip_rule: bool = p["skip_rule"]
        self.locks_out: bool = p["pass_locks_out"]
        self.trump_variation: bool = p["trump_variation"]
        self.strength: list[int] = STR_ACE_HIGH if self.ace_high else A_STR
        self.category: list[int] = CAT_ACE_HIGH if self.ace_high else A_CAT

    def _new_state(self, seed: int, deal: Mapping[str, Any] | None) -> FooleryState:
        rng = random.Random(seed)
        state = FooleryState(self, {"seed": seed, "deal": None if deal is None else _deal_to_json(deal)}, rng)
        if deal is None:
            dealer = rng.randrange(self.num_players)  # FY-D20
            hands = state.shuffle_deal(dealer)
        else:
            hands, dealer = _hands_from_deal(deal, self.num_players)
        state.start_hand(hands, dealer, first=True)
        return state

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (tensor_size(self.num_players),)

    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def sample_state(self, observation: Observation, rng: random.Random) -> FooleryState:
        """A world consistent with ``observation``: the unseen cards dealt at random to the other seats.

        Known: the observer's hand, every card played this hand (out), and the cards the observer gave in
        the exchange that it does not hold and that were not played: those are in the receiver's hand. The
        rest is shuffled and dealt by the public hand sizes. The receiver's exchange record mirrors the
        observer's; exchange records between two other seats are unknown and left empty.

        Raises:
            MotleyError: for an observation of another game or with inconsistent counts.
        """
        return self.determinizer(observation)(rng)

    def determinizer(self, observation: Observation) -> Callable[[random.Random], FooleryState]:
        """A sampler distributed as :meth:`sample_state`, parsing ``observation`` once (for search).

        Raises:
            MotleyError: as :meth:`sample_state`.
        """
        if not isinstance(observation, Mapping) or observation.get("game") != self.name:
            raise MotleyError(f"not a {self.name} observation")
        try:
            template = _public_state(self, observation)
            me = int(observation["seat"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise MotleyError(f"malformed {self.name} observation: {exc!r}") from None
        n = self.num_players
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

    def _state_from_dict(self, data: Mapping[str, Any]) -> FooleryState:
        state = _public_state(self, data["observation"])
        state.origin = data["origin"]
        state.hands = [int(h) for h in data["hands"]]
        state.gave = [[int(c) for c in g] for g in data["gave"]]
        state.received = [[int(c) for c in r] for r in data["received"]]
        state._set_history(data["history"])
        state.use_rng(rng_from_json(data["rng"]))
        return state


def _deal_to_json(deal: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return {"hands": [[str(c).strip().upper() for c in hand] for hand in deal["hands"]], "dealer": deal["dealer"]}
    except (KeyError, TypeError):
        raise DealError('a foolery deal is {"hands": [[codes], ...], "dealer": seat}') from None


def _hands_from_deal(deal: Mapping[str, Any], players: int) -> tuple[list[int], int]:
    """Hand bitmasks and dealer from ``{"hands": [[codes], ...], "dealer": seat}`` (FY-R1, FY-D19).

    Raises:
        DealError: wrong shape, wrong number of hands, a hand of the wrong size for that dealer, an unknown
            or duplicate code, a card missing, or a bad dealer.
    """
    if not isinstance(deal, Mapping) or set(deal) != {"hands", "dealer"}:
        raise DealError('a foolery deal is {"hands": [[codes], ...], "dealer": seat}')
    dealer = deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise DealError(f"the dealer must be a seat 0..{players - 1}; got {dealer!r}")
    raw = deal["hands"]
    if not isinstance(raw, (list, tuple)) or len(raw) != players:
        raise DealError(f"a {players}-player foolery deal has exactly {players} hands")
    sizes = deal_sizes(players, dealer)
    hands: list[list[int]] = []
    for seat, codes in enumerate(raw):
        cards = cards_from_codes(codes, CODE_INDEX, f"hand of seat {seat}")
        if len(cards) != sizes[seat]:
            raise DealError(f"hand of seat {seat} has {len(cards)} cards; with dealer {dealer} the hands hold "
                            f"{', '.join(map(str, sizes))} cards (FY-R1, FY-D19)")
        hands.append(cards)
    every = [c for h in hands for c in h]
    check_no_duplicates(every, CODES, "the deal")
    return [mask_of(h) for h in hands], dealer


def _play_action(text: str) -> int:
    cards = [CODE_INDEX[c] for c in split_codes(text)]
    return MASK_TO_ACTION[mask_of(cards)]


def _public_state(game: Foolery, obs: Mapping[str, Any]) -> FooleryState:
    """A state holding every field of an observation; other seats' hands are left empty."""
    n = game.num_players
    state = FooleryState(game, None)
    me = int(obs["seat"])
    state.phase = PHASES.index(obs["phase"])
    state.to_move = int(obs["current_player"])
    state.hand_no = int(obs["hand_number"])
    state.dealer = int(obs["dealer"])
    state.sizes = [int(s) for s in obs["hand_sizes"]]
    state.hands = [0] * n
    state.hands[me] = mask_of([CODE_INDEX[c] for c in obs["hand"]])
    table = obs["table"]
    state.top = -1 if table is None else _play_action(table["cards"])
    state.top_seat = -1 if table is None else int(table["seat"])
    state.passed = mask_of([int(q) for q in obs["passed"]])
    state.places = [-1 if p is None else int(p) for p in obs["places"]]
    state.next_place = int(obs["next_place"])
    state.titles = [-1 if t is None else TITLES.index(t) for t in obs["titles"]]
    state.scores_ = [int(s) for s in obs["scores"]]
    state.results = [[int(p) for p in r["places"]] for r in obs["hand_results"]]
    log: list[Event] = []
    played = 0
    for e in obs["log"]:
        kind = EVENTS.index(e["event"])
        if kind == EV_PLAY:
            a = _play_action(e["cards"])
            played |= A_MASK[a]
            log.append((kind, int(e["seat"]), a))
        else:
            if kind == EV_STUCK:
                played |= FOOL_BIT
            log.append((kind, int(e["seat"]), int(e["value"])))
    state.log = log
    state.played = played
    ex = obs["exchange"]
    state.steps = [(int(s["giver"]), int(s["receiver"]), int(s["cards"]), 0 if s["rule"] == "highest" else 1)
                   for s in ex["steps"]]
    state.step_index = int(ex["step_index"])
    state.step_given = int(ex["step_given"])
    state.gave = [[] for _ in range(n)]
    state.received = [[] for _ in range(n)]
    state.gave[me] = [CODE_INDEX[c] for c in ex["gave"]]
    state.received[me] = [CODE_INDEX[c] for c in ex["received"]]
    return state


class FooleryState(SearchState):
    """A position of a Foolery match. See the module docstring for the card and action layout."""

    __slots__ = ("_legal", "dealer", "gave", "hand_no", "hands", "log", "next_place", "passed", "phase", "places",
                 "played", "received", "results", "scores_", "sizes", "step_given", "step_index", "steps",
                 "titles", "to_move", "top", "top_seat")

    def __init__(self, game: Foolery, origin: dict[str, Any] | None, rng: random.Random | None = None) -> None:
        super().__init__(game, origin, rng)  # the rng shuffles the later deals
        self.game: Foolery = game
        n = game.num_players
        self.hands: list[int] = [0] * n
        self.sizes: list[int] = [0] * n
        self.phase = PLAY
        self.to_move = 0
        self.top = -1  # action id of the play on the table (FY-R5), -1 for none
        self.top_seat = -1
        self.passed = 0  # seats that passed in this trick (bitmask)
        self.places: list[int] = [-1] * n  # finishing place this hand, 0 = first out (FY-R11)
        self.next_place = 0
        self.played = 0  # cards out this hand (bitmask)
        self.log: list[Event] = []
        self.hand_no = 1
        self.dealer = 0
        self.titles: list[int] = [-1] * n  # titles in force this hand (from the previous hand)
        self.scores_: list[int] = [0] * n
        self.results: list[list[int]] = []  # places of every finished hand
        self.steps: list[Step] = []
        self.step_index = 0
        self.step_given = 0
        self.gave: list[list[int]] = [[] for _ in range(n)]
        self.received: list[list[int]] = [[] for _ in range(n)]
        self._legal: list[int] | None = None

    # ---- dealing and the exchange -----------------------------------------------------------------
    def shuffle_deal(self, dealer: int) -> list[int]:
        """FY-R1, FY-D19: shuffle with the state's rng and deal one at a time from the dealer's left."""
        n = self.game.num_players
        cards = list(range(NUM_CARDS))
        self.own_rng().shuffle(cards)
        hands = [0] * n
        for i, c in enumerate(cards):
            hands[(dealer + 1 + i) % n] |= 1 << c
        return hands

    def start_hand(self, hands: list[int], dealer: int, first: bool) -> None:
        """Set up a hand: the first is led by the dealer (FY-R1); later ones start with the exchange
        (FY-R13, FY-D17) and are led by the King (FY-R12)."""
        n = self.game.num_players
        self.hands = hands
        self.sizes = [h.bit_count() for h in hands]
        self.dealer = dealer
        self.top, self.top_seat, self.passed = -1, -1, 0
        self.places = [-1] * n
        self.next_place = 0
        self.played = 0
        self.log = []
        self.gave = [[] for _ in range(n)]
        self.received = [[] for _ in range(n)]
        self.steps, self.step_index, self.step_given = [], 0, 0
        self._legal = None
        if first:
            self.phase, self.to_move = PLAY, dealer
            return
        seat_of = {t: q for q, t in enumerate(self.titles) if t in (KING, PRINCE, MERCHANT, PEASANT)}
        # FY-D17: every upward give (Peasant to King, Merchant to Prince) before any downward give.
        self.steps = [(seat_of[PEASANT], seat_of[KING], 2, HIGHEST)]
        if n >= 4:
            self.steps.append((seat_of[MERCHANT], seat_of[PRINCE], 1, HIGHEST))
        self.steps.append((seat_of[KING], seat_of[PEASANT], 2, ANY))
        if n >= 4:
            self.steps.append((seat_of[PRINCE], seat_of[MERCHANT], 1, ANY))
        self.phase = EXCHANGE
        self._run_exchange()

    def partner_of(self, seat: int) -> int:
        """The seat ``seat`` exchanges cards with this hand (FY-R13), or -1."""
        for giver, receiver, _, _ in self.steps:
            if giver == seat:
                return receiver
            if receiver == seat:
                return giver
        return -1

    def highest_candidates(self, seat: int) -> list[int]:
        """FY-D15, FY-D25: the cards tied for ``seat``'s highest card (never the Fool)."""
        hand = self.hands[seat] & ~FOOL_BIT
        if self.game.params["exchange_order"] == "suit_cards_only" and hand & SUIT_MASK:
            hand &= SUIT_MASK
        cards = cards_of(hand)
        best = max(EXCHANGE_VALUE[c] for c in cards)
        return [c for c in cards if EXCHANGE_VALUE[c] == best]

    def _run_exchange(self) -> None:
        """Advance the exchange: every upward give, then every downward one (FY-D17, the order of
        ``steps``). Highest cards go up without asking when there is no choice: an untied highest card,
        or tied highest cards that exactly fill the number still to give (FY-D15, FY-D17, FY-D26). Stop
        at a decision, or start play with the King's lead (FY-R12)."""
        while self.step_index < len(self.steps):
            giver, _, count, rule = self.steps[self.step_index]
            if self.step_given >= count:
                self.step_index += 1
                self.step_given = 0
                continue
            if rule == HIGHEST:
                cands = self.highest_candidates(giver)
                if len(cands) <= count - self.step_given:  # FY-D17: no choice (one card, or an exact fill)
                    for card in cands:
                        self._give(card)
                    continue
            self.to_move = giver
            return
        self.phase = PLAY
        self.to_move = self.titles.index(KING)

    def _give(self, card: int) -> None:
        giver, receiver, _, _ = self.steps[self.step_index]
        bit = 1 << card
        self.hands[giver] ^= bit
        self.hands[receiver] |= bit
        self.sizes[giver] -= 1
        self.sizes[receiver] += 1
        self.gave[giver].append(card)
        self.received[receiver].append(card)
        self.step_given += 1

    # ---- the move interface -------------------------------------------------------------------------
    def deal_number(self) -> int:
        """Index of the current hand from 0 (search stops its rollouts at the end of the hand)."""
        return self.hand_no - 1

    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.to_move

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._generate()
        return list(self._legal)

    def _is_legal(self, action: int) -> bool:
        """Is ``action`` legal now, read from the cached legal list."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return action in legal

    def _generate(self) -> list[int]:
        """Legal action ids, sorted, built from the hand by rank nibbles and cached trump/5-card tables."""
        if self.phase == OVER:
            return []
        p = self.to_move
        hand = self.hands[p]
        if self.phase == EXCHANGE:
            giver, _, _, rule = self.steps[self.step_index]
            cards = self.highest_candidates(giver) if rule == HIGHEST else cards_of(hand & ~FOOL_BIT)
            return [GIVE_BASE + c for c in cards]
        game = self.game
        top = self.top
        out: list[int]
        if top < 0:  # a lead (FY-R3, FY-R4, FY-R8, FY-R9)
            out = []
            if hand & SUIT_MASK:
                nsub = NSUB[0]
                h, base = hand & SUIT_MASK, 0
                while h:
                    m = h & 15
                    if m:
                        out.extend(nsub[base + m])
                    h >>= 4
                    base += 16
                fives = five_card_plays(hand, game.ace_high, game.any_trump)
                if fives:
                    fives.sort()
                    out.extend(fives)  # 5-card ids come after every other play's
            else:  # FY-R8, FY-D10: only trumps (and maybe the Fool) left
                ones, twos, threes = trump_sets(hand & TRUMP_MASK)
                out.extend(ones)
                out.extend(twos)
                out.extend(threes)
            return out
        out = [PASS]
        if hand & FOOL_BIT:
            out.append(PLAY_FOOL)  # FY-R9: on any turn but a lead
        kind = A_KIND[top]
        trumps = hand & TRUMP_MASK
        if kind == K_NORMAL:  # FY-R5: same count, equal or higher rank; FY-R7: 1 or 2 trumps
            size = A_SIZE[top]
            nsub = NSUB[size]
            r = A_STR[top] - 1
            h = (hand & SUIT_MASK) >> 4 * r
            while h:
                m = h & 15
                if m:
                    out.extend(nsub[16 * r + m])
                h >>= 4
                r += 1
            if trumps:
                out.extend(trump_sets(trumps)[0 if size <= 2 else 1])
            return out  # already ascending: pass, Fool, plays by rank, then trumps
        elif kind == K_FIVE:  # FY-D4; FY-R7: exactly 3 trumps, above a five of a kind's trump
            strength = game.strength
            need = strength[top]
            for a in five_card_plays(hand, game.ace_high, game.any_trump):
                if strength[a] >= need:
                    out.append(a)
            if trumps:
                above = A_TOP[top]
                out.extend(a for a in trump_sets(trumps)[2] if A_TOP[a] > above)
        elif trumps:  # trumps on the table (FY-R7, FY-R14, FY-D8, FY-D9)
            size = A_SIZE[top]
            want = size if game.trump_variation else (1 if size <= 2 else 2)
            above = A_TOP[top]
            sets = trump_sets(trumps)[want - 1]
            if want == 1:  # single trump ids rise with the trump's number
                out.extend(sets[bisect_left(sets, TRUMP_BASE + above):])
                return out
            out.extend(a for a in sets if A_TOP[a] > above)
        out.sort()
        return out

    def action_to_string(self, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise IllegalMoveError(action, f"unknown action id; actions are 0..{NUM_ACTIONS - 1}")
        return A_TEXT[action]

    def _parse_move(self, text: str) -> int:
        words = split_codes(text)
        if not words:
            raise IllegalMoveError(text, "empty move; play card codes joined by spaces, 'pass', or 'give CODE'")
        if words == ["PASS"]:
            return PASS
        if words[0] == "GIVE":
            if len(words) != 2:
                raise IllegalMoveError(text, "give one card at a time: 'give CODE' (FY-R13)")
            card = CODE_INDEX.get(words[1])
            if card is None:
                raise IllegalMoveError(text, f"unknown card code {words[1]!r}")
            return GIVE_BASE + card
        cards = []
        for w in words:
            card = CODE_INDEX.get(w)
            if card is None:
                raise IllegalMoveError(text, f"unknown card code {w!r} (suit cards like 7S, CH, 10D; trumps I..XXI; "
                                             "FOOL)")
            if card in cards:
                raise IllegalMoveError(text, f"{w} is named twice")
            cards.append(card)
        action = MASK_TO_ACTION.get(mask_of(cards))
        if action is None:
            raise IllegalMoveError(text, shape_problem(cards))
        return action

    def why_illegal(self, action: int) -> str:
        reason = self.problem(action)
        return reason if reason is not None else "not a legal move now"

    def problem(self, action: int) -> str | None:
        """Why ``action`` is illegal now, citing the rule, or None when it is legal (independent of the
        fast generator, which the tests check against it)."""
        if self.phase == OVER:
            return "the game is over"
        if not 0 <= action < NUM_ACTIONS:
            return f"unknown action id; actions are 0..{NUM_ACTIONS - 1}"
        p = self.to_move
        hand = self.hands[p]
        kind = A_KIND[action]
        game = self.game
        if self.phase == EXCHANGE:
            giver, receiver, _, rule = self.steps[self.step_index]
            if kind != K_GIVE:
                return (f"it is the card exchange: seat {giver} gives seat {receiver} a card with 'give CODE' "
                        "(FY-R13)")
            card = action - GIVE_BASE
            if card == FOOL:
                return "the Fool can never be passed (FY-R13)"
            if not (hand >> card) & 1:
                return f"you do not hold {CODES[card]}"
            if rule == HIGHEST and card not in self.highest_candidates(giver):
                names = " or ".join(CODES[c] for c in self.highest_candidates(giver))
                return f"you must give your highest card: {names} (FY-R13, FY-D15)"
            return None
        if kind == K_GIVE:
            return "there is no card exchange now: play cards or pass"
        top = self.top
        if kind == K_PASS:
            return "you lead this trick: you cannot pass (FY-R10)" if top < 0 else None
        missing = A_MASK[action] & ~hand
        if missing:
            return "you do not hold " + " ".join(CODES[c] for c in cards_of(missing))
        if kind == K_FOOL:
            return "the Fool cannot be led (FY-R9)" if top < 0 else None
        if kind == K_FIVE:
            shape = self._five_shape_problem(action)
            if shape:
                return shape
        strength = game.strength
        if top < 0:
            if kind == K_TRUMP and hand & SUIT_MASK:
                return "you may lead trumps only when you hold no suit cards (FY-R8)"
            return None
        table = f"the table ({A_TEXT[top]})"
        top_kind, top_size, size = A_KIND[top], A_SIZE[top], A_SIZE[action]
        if top_kind == K_TRUMP:
            if kind != K_TRUMP:
                return f"normal cards cannot beat trumps; {table} needs trumps, the Fool, or a pass (FY-D8)"
            want = top_size if game.params["trump_variation"] else (1 if top_size <= 2 else 2)
            if size != want:
                rid = "FY-R14" if game.params["trump_variation"] else "FY-R7"
                return f"to beat {top_size} trump(s) play exactly {want} trump(s) ({rid}, FY-D9)"
            if A_TOP[action] <= A_TOP[top]:
                return f"your highest trump must exceed {ROMAN[A_TOP[top] - 1]} on {table} (FY-R7)"
            return None
        if kind == K_TRUMP:
            want = 1 if top_size <= 2 else 2 if top_size <= 4 else 3
            if size != want:
                return f"to trump a {top_size}-card play use exactly {want} trump(s) (FY-R7, FY-D9)"
            if top_kind == K_FIVE and A_TOP[action] <= A_TOP[top]:
                return (f"your highest trump must exceed trump {ROMAN[A_TOP[top] - 1]} of the five of a kind on "
                        f"{table} (FY-R7)")
            return None
        if size != top_size:
            return f"{table} has {top_size} card(s): play {top_size} card(s), trumps, the Fool, or pass (FY-R5)"
        if strength[action] < strength[top]:
            return f"{A_TEXT[action]} does not beat {table} (FY-R5, FY-D4)"
        return None

    def _five_shape_problem(self, action: int) -> str | None:
        game = self.game
        if game.category[action] < 0:
            return "J C Q K A is not a straight: the Ace is low (FY-D2; option ace_high_straight)"
        if A_CAT[action] == FIVE_KIND and not game.any_trump:
            rank = (action - FIVE_KIND_BASE) // 21
            if A_TOP[action] != rank + 1:
                return (f"five of a kind of rank {RANK_CODES[rank]} needs trump {ROMAN[rank]} "
                        "(FY-D3; option five_kind_trump)")
        return None

    def _apply(self, action: int) -> None:
        self._legal = None
        if self.phase == EXCHANGE:
            self._give(action - GIVE_BASE)
            self._run_exchange()
            return
        p = self.to_move
        if action == PASS:  # FY-R10
            self.passed |= 1 << p
            self.log.append((EV_PASS, p, 0))
            self._advance(p, False)
            return
        cards = A_MASK[action]
        self.hands[p] ^= cards
        self.sizes[p] -= A_SIZE[action]
        self.played |= cards
        self.log.append((EV_PLAY, p, action))
        top = self.top
        if action == PLAY_FOOL:  # FY-R9: beats everything and ends the trick at once
            self.top, self.top_seat = action, p
            if self.sizes[p] == 0 and self._go_out(p):  # FY-D11
                return
            self._end_trick(p)
            return
        skip = (top >= 0 and self.game.skip_rule and A_KIND[action] == K_NORMAL and A_SIZE[action] <= 2
                and A_STR[action] == A_STR[top])  # FY-R6: equal single or pair (top is then the same shape)
        self.top, self.top_seat = action, p
        if self.sizes[p] == 0 and self._go_out(p):
            return
        self._advance(p, skip)

    def _advance(self, p: int, skip: bool) -> None:
        """Give the turn to the next seat that may act; end the trick when it comes back to the top play's
        seat (FY-D7); a skip takes the next turn (FY-R6, FY-D6, FY-D24)."""
        n = self.game.num_players
        locks = self.game.locks_out
        sizes, top_seat, passed = self.sizes, self.top_seat, self.passed
        q = p
        while True:
            q = q + 1 if q + 1 < n else 0
            if q == top_seat:
                self._end_trick(top_seat)
                return
            if sizes[q] == 0 or (locks and passed >> q & 1):
                continue
            if skip:
                skip = False
                self.log.append((EV_SKIP, q, 0))
                continue
            self.to_move = q
            return

    def _end_trick(self, winner: int) -> None:
        """FY-R10: the winner leads; FY-D12: or the next seat with cards; FY-D13: a leader holding only the
        Fool is the Peasant at once."""
        n = self.game.num_players
        self.top, self.top_seat, self.passed = -1, -1, 0
        leader = winner
        while True:
            while self.sizes[leader] == 0:
                leader = leader + 1 if leader + 1 < n else 0
            if self.hands[leader] != FOOL_BIT:
                break
            self.hands[leader] = 0
            self.sizes[leader] = 0
            self.played |= FOOL_BIT
            self.places[leader] = n - 1
            self.log.append((EV_STUCK, leader, n - 1))
            if self._check_hand_end():
                return
        self.log.append((EV_TRICK, winner, leader))
        self.to_move = leader

    def _go_out(self, p: int) -> bool:
        """FY-R11: ``p`` played its last card and takes the next place; True if the hand ended."""
        self.places[p] = self.next_place
        self.log.append((EV_OUT, p, self.next_place))
        self.next_place += 1
        return self._check_hand_end()

    def _check_hand_end(self) -> bool:
        """FY-D13, FY-D14: when one seat still holds cards it takes the last free place and the hand ends."""
        left = [q for q in range(self.game.num_players) if self.sizes[q] > 0]
        if len(left) > 1:
            return False
        if left:
            self.places[left[0]] = self.next_place
            self.log.append((EV_OUT, left[0], self.next_place))
        self._end_hand()
        return True

    def _end_hand(self) -> None:
        """FY-D21 points, FY-D22/FY-D27 match end, else the next deal (FY-R12, FY-D18, FY-D29)."""
        game = self.game
        n = game.num_players
        places = list(self.places)
        points = hand_points(places, game.params["scoring"])
        self.scores_ = [s + d for s, d in zip(self.scores_, points, strict=True)]
        self.results.append(places)
        total = game.hands_total
        if (game.params["match_end"] == "target" and max(self.scores_) >= game.params["target_score"]) or (
                total and self.hand_no >= total):
            self.phase = OVER
            self.to_move = TERMINAL
            self.top, self.top_seat, self.passed = -1, -1, 0
            return
        by_place = {pl: q for q, pl in enumerate(places)}
        if n >= 4:
            dealer = by_place[n - 2]  # FY-R12: the Merchant deals
        elif game.params["dealer_3p"] == "peasant":
            dealer = by_place[n - 1]  # FY-D18
        else:
            dealer = (self.dealer + 1) % n  # FY-D29
        self.titles = [title_of(pl, n) for pl in places]
        self.hand_no += 1
        if self.stops_at_deal_end:  # a search world: nobody looks at the next deal
            return
        self.start_hand(self.shuffle_deal(dealer), dealer, first=False)

    # ---- results ----------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == OVER

    def scores(self) -> list[int]:
        """Running match totals per seat (FY-D21)."""
        return list(self.scores_)

    def ranking(self) -> list[int]:
        """Seats best first: highest total, ties broken by the better place in the last hand (FY-D22)."""
        last = self.results[-1] if self.results else list(range(self.game.num_players))
        return sorted(range(self.game.num_players), key=lambda q: (-self.scores_[q], last[q]))

    def returns(self) -> list[float]:
        """FY-D28: 0 until the end; then rank ``i`` of :meth:`ranking` gets ``1 - 2 i / (N - 1)`` (winner +1)."""
        n = self.game.num_players
        if self.phase != OVER:
            return [0.0] * n
        out = [0.0] * n
        for i, q in enumerate(self.ranking()):
            out[q] = 1.0 - 2.0 * i / (n - 1)
        return out

    # ---- information ------------------------------------------------------------------------------
    def observation(self, seat: int) -> Observation:
        """The information state of ``seat``.

        Keys: ``game``, ``seat``, ``phase`` (``exchange``/``play``/``over``), ``current_player``,
        ``hand_number``, ``hands_total`` (0 with a target score), ``dealer``, ``hand`` (own codes, ascending),
        ``hand_groups`` (own cards grouped: one list per suit rank, then trumps, then the Fool),
        ``hand_sizes``, ``table`` (``None`` or ``{"seat", "cards", "kind"}``, the top play), ``passed`` (seats
        that passed in this trick), ``log`` (this hand's events ``{"event", "seat", "cards", "value"}``:
        play / pass / skip / trick (value: next leader) / out (value: place) / stuck), ``places`` (per seat,
        None until finished), ``next_place``, ``finishing_order``, ``titles`` (in force this hand, None in
        the first), ``scores``, ``hand_results`` (``{"places", "points"}`` per finished hand), ``exchange``
        (public ``steps`` with progress, and only this seat's own ``gave`` / ``received`` cards and
        partner), ``terminal``, ``returns``.
        """
        self.check_seat(seat)
        n = self.game.num_players
        hand = cards_of(self.hands[seat])
        groups: list[list[str]] = []
        last = -1
        for c in hand:
            key = c >> 2 if c < 56 else 100 if c < FOOL else 200  # a suit rank, the trumps, the Fool
            if key == last:
                groups[-1].append(CODES[c])
            else:
                groups.append([CODES[c]])
            last = key
        log = []
        for kind, q, value in self.log:
            if kind == EV_PLAY:
                log.append({"event": "play", "seat": q, "cards": A_TEXT[value], "value": 0})
            else:
                log.append({"event": EVENTS[kind], "seat": q, "cards": "FOOL" if kind == EV_STUCK else "",
                            "value": value})
        top = self.top
        order = sorted((p, q) for q, p in enumerate(self.places) if p >= 0)
        scoring = self.game.params["scoring"]
        steps = [{"giver": g, "receiver": r, "cards": k, "rule": "highest" if rule == HIGHEST else "any",
                  "given": k if i < self.step_index else (self.step_given if i == self.step_index else 0)}
                 for i, (g, r, k, rule) in enumerate(self.steps)]
        partner = self.partner_of(seat)
        return {
            "game": self.game.name,
            "seat": seat,
            "phase": PHASES[self.phase],
            "current_player": self.current_player(),
            "hand_number": self.hand_no,
            "hands_total": self.game.hands_total,
            "dealer": self.dealer,
            "hand": [CODES[c] for c in hand],
            "hand_groups": groups,
            "hand_sizes": list(self.sizes),
            "table": None if top < 0 else {"seat": self.top_seat, "cards": A_TEXT[top], "kind": play_kind(top)},
            "passed": [q for q in range(n) if self.passed >> q & 1],
            "log": log,
            "places": [None if p < 0 else p for p in self.places],
            "next_place": self.next_place,
            "finishing_order": [q for _, q in order],
            "titles": [None if t < 0 else TITLES[t] for t in self.titles],
            "scores": list(self.scores_),
            "hand_results": [{"places": list(r), "points": hand_points(r, scoring)} for r in self.results],
            "exchange": {"steps": steps, "step_index": self.step_index, "step_given": self.step_given,
                         "partner": None if partner < 0 else partner,
                         "gave": [CODES[c] for c in self.gave[seat]],
                         "received": [CODES[c] for c in self.received[seat]]},
            "terminal": self.phase == OVER,
            "returns": self.returns(),
        }

    def observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        """float32 vector of ``tensor_size(N)`` = 404 + 14 N, from ``seat``'s point of view.

        Layout (seats relative: index ``i`` is seat ``(seat + i) % N``, 0 = me):
        [0:78] my hand (card ids); [78:156] cards out this hand; [156:234] cards of the top play;
        [234:312] cards I gave in the exchange; [312:390] cards I received;
        then per relative seat a block of 13: hand size / 28, finished, place / (N - 1) (0 if not
        finished), title one-hot (none, King, Prince, Noble, Merchant, Peasant), passed this trick,
        made the top play, to move, dealer; then N scores / (2 N^2) clipped to [-1, 1]; phase one-hot
        (exchange, play, over); hand number / hands total (1 with a target score); top play kind one-hot
        (none, 1, 2, 3, 4 cards of a rank, 5-card hand, 1, 2, 3 trumps; the Fool never stays on the table);
        top play strength / 80.
        """
        self.check_seat(seat)
        n = self.game.num_players
        out = np.zeros(tensor_size(n), dtype=np.float32)
        for block, mask in enumerate((self.hands[seat], self.played, A_MASK[self.top] if self.top >= 0 else 0)):
            for c in cards_of(mask):
                out[block * NUM_CARDS + c] = 1.0
        for c in self.gave[seat]:
            out[3 * NUM_CARDS + c] = 1.0
        for c in self.received[seat]:
            out[4 * NUM_CARDS + c] = 1.0
        base = OBS_CARD_BLOCKS * NUM_CARDS
        for i in range(n):
            q = (seat + i) % n
            b = base + SEAT_BLOCK * i
            out[b] = self.sizes[q] / 28.0  # 26 dealt + 2 from the exchange at most
            if self.places[q] >= 0:
                out[b + 1] = 1.0
                out[b + 2] = self.places[q] / (n - 1)
            out[b + 3 + self.titles[q] + 1] = 1.0
            out[b + 9] = float(self.passed >> q & 1)
            out[b + 10] = float(self.top_seat == q)
            out[b + 11] = float(self.current_player() == q)
            out[b + 12] = float(self.dealer == q)
        b = base + SEAT_BLOCK * n
        for i in range(n):
            out[b + i] = max(-1.0, min(1.0, self.scores_[(seat + i) % n] / (2.0 * n * n)))
        b += n
        out[b + self.phase] = 1.0
        b += 3
        total = self.game.hands_total
        out[b] = min(1.0, self.hand_no / total) if total else 1.0
        b += 1
        top = self.top
        if top < 0:
            slot = 0
        elif A_KIND[top] == K_NORMAL:
            slot = A_SIZE[top]
        elif A_KIND[top] == K_FIVE:
            slot = 5
        else:
            slot = 5 + A_SIZE[top]
        out[b + slot] = 1.0
        out[b + 9] = self.game.strength[top] / 80.0 if top >= 0 else 0.0
        return out

    # ---- copies and persistence -----------------------------------------------------------------
    def clone(self) -> FooleryState:
        new = FooleryState.__new__(FooleryState)
        self._clone_base(new)
        new.hands, new.sizes = list(self.hands), list(self.sizes)
        new.phase, new.to_move, new.top, new.top_seat, new.passed = (self.phase, self.to_move, self.top,
                                                                     self.top_seat, self.passed)
        new.places, new.next_place, new.played = list(self.places), self.next_place, self.played
        new.log, new.hand_no, new.dealer = list(self.log), self.hand_no, self.dealer
        new.titles, new.scores_ = list(self.titles), list(self.scores_)
        new.results = [list(r) for r in self.results]
        new.steps, new.step_index, new.step_given = list(self.steps), self.step_index, self.step_given
        new.gave = [list(g) for g in self.gave]
        new.received = [list(r) for r in self.received]
        new._legal = self._legal
        return new

    def _to_dict(self) -> dict[str, Any]:
        return {"observation": self.observation(0), "origin": self.origin, "hands": list(self.hands),
                "gave": self.gave, "received": self.received, "history": self.history(),
                "rng": self.rng_json()}


def play_kind(action: int) -> str:
    """A short name of a play's shape: ``single``/``pair``/``triple``/``four``, the 5-card category, ``N trumps``,
    ``fool``, ``pass`` or ``give``."""
    kind = A_KIND[action]
    if kind == K_NORMAL:
        return ("single", "pair", "triple", "four of a kind")[A_SIZE[action] - 1]
    if kind == K_FIVE:
        cat = A_CAT[action] if action not in ACE_HIGH_SETS else CAT_ACE_HIGH[action]
        return CATEGORY_NAMES[cat]
    if kind == K_TRUMP:
        return f"{A_SIZE[action]} trump" + ("s" if A_SIZE[action] > 1 else "")
    return ("pass", "fool", "give")[kind]


def shape_problem(cards: Sequence[int]) -> str:
    """Why a set of card ids is not a Foolery play (FY-R3, FY-R4, FY-R9, FY-D1, FY-D5)."""
    if FOOL in cards:
        return "the Fool is played alone: it is no part of a trump set or a combination (FY-R9)"
    trumps = [c for c in cards if is_trump(c)]
    if len(cards) > 5:
        return "a play has at most 5 cards (FY-R3, FY-D1)"
    if len(trumps) == len(cards):
        return "at most 3 trumps are played together (FY-R7, FY-R8)"
    if trumps and len(cards) < 5:
        return "trumps cannot be part of normal plays, except in five of a kind (FY-R3)"
    if len(cards) < 5:
        return "cards played together must be of one rank, or form a 5-card hand (FY-R3)"
    return "these 5 cards are not a straight, flush, full house, straight flush or five of a kind (FY-R4, FY-D5)"
