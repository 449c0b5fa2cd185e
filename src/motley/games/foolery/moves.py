"""Every play of Foolery as a fixed action table: ids, card sets, shapes and strengths, and the fast
generators of trump sets and 5-card hands that legal move generation reads (rules/foolery.md).

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

The table is built once, at import. What makes a play -- its shape and strength (FY-R3, FY-R4, FY-R5's
order, FY-D1..D5, and FY-D23's J-C-Q-K-A) -- is here; when a play is legal (the table to beat, the phase,
the options in force) is the rules' business (``rules.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from motley.games.foolery.cards import (
    CODES,
    FOOL,
    FOOL_BIT,
    NUM_CARDS,
    SUIT_MASK,
    TRUMP_MASK,
    TRUMP_SHIFT,
    Action,
    Card,
    cards_of,
    is_trump,
    mask_of,
)

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
#: FY-R6: the rank of a single or a pair (an equal one skips the next player), -1 for every other action.
SKIP_RANK: tuple[int, ...] = tuple(A_STR[a] if A_KIND[a] == K_NORMAL and A_SIZE[a] <= 2 else -1
                                   for a in range(NUM_ACTIONS))
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
#: ``BYTE_TABLES[k][i][byte]``: ids of the k-card plays of one rank (k = 1..4; k = 0: all of them) in ranks ``2 i``
#: and ``2 i + 1`` whose 8 card bits are ``byte`` (byte ``i`` of a hand, ``hand.to_bytes(7, "little")[i]``),
#: ascending.
BYTE_TABLES: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(tuple(NSUB[_k][32 * _i + (_b & 15)] + NSUB[_k][32 * _i + 16 + (_b >> 4)] for _b in range(256))
          for _i in range(7))
    for _k in range(5))
#: ``REPLY_PLAYS[a]`` for a play ``a`` of 1-4 cards of one rank (else None): what a reply of the same count
#: reads (FY-R5, FY-R7): the ``BYTE_TABLES`` of that count, the hand's cards from that rank up (``SUIT_MASK``
#: from the rank's nibble), and the number of trumps that beat it (1 on 1-2 cards, 2 on 3-4).
REPLY_PLAYS: tuple[tuple[tuple[tuple[tuple[int, ...], ...], ...], int, int] | None, ...] = tuple(
    (BYTE_TABLES[A_SIZE[a]], SUIT_MASK >> 4 * (A_STR[a] - 1) << 4 * (A_STR[a] - 1), 1 if A_SIZE[a] <= 2 else 2)
    if A_KIND[a] == K_NORMAL else None
    for a in range(NUM_ACTIONS))
_SUBSETS_3 = [[s for s in _TRIPLES if s & m == s] for m in range(16)]
_SUBSETS_2 = [[s for s in _PAIRS if s & m == s] for m in range(16)]

# ---- per-rank counts of a hand, all ranks at once (one 4-bit counter per rank nibble) ----------------
#: Bit 0 of every rank nibble (the spade of each rank); ``k * NIB_LOW`` adds ``k`` to every rank's counter.
NIB_LOW = sum(1 << 4 * r for r in range(14))
#: Bit 2 of every rank nibble: set in ``counts + (4 - k) * NIB_LOW`` exactly where a rank has ``k`` or more cards.
NIB_HIGH = NIB_LOW << 2
#: ``AT_LEAST[k]`` (k = 1..4): ``(counts + AT_LEAST[k]) & NIB_HIGH`` marks the ranks holding ``k`` or more cards.
AT_LEAST = (0, 3 * NIB_LOW, 2 * NIB_LOW, NIB_LOW, 0)
_AT_LEAST_1, _AT_LEAST_3 = AT_LEAST[1], AT_LEAST[3]
#: ``FROM_RANK[r]``: the nibbles of ranks ``r`` .. 13.
FROM_RANK = tuple(SUIT_MASK >> 4 * r << 4 * r for r in range(14))
#: ``TRUMP_ABOVE[a]``: the trumps numbered above action ``a``'s top trump (``A_TOP``; every trump when 0).
TRUMP_ABOVE: tuple[int, ...] = tuple(TRUMP_MASK >> (TRUMP_SHIFT + 1 + t) << (TRUMP_SHIFT + 1 + t) for t in A_TOP)
#: ``TRUMP_ABOVE[a] >> HIGH_SHIFT``: the same trumps as bits of a hand's high part (``hand >> HIGH_SHIFT``), small ints.
HIGH_ABOVE: tuple[int, ...] = tuple(m >> (TRUMP_SHIFT + 1) for m in TRUMP_ABOVE)
#: ``hand >> HIGH_SHIFT``: a hand's trumps (trump ``n`` at bit ``n - 1``; I..XI in ``SINGLES_LOW``'s index, XII..XXI
#: in ``SINGLES_HIGH``'s from bit 11) and the Fool (bit 21).
HIGH_SHIFT = TRUMP_SHIFT + 1
_BIT_PAIRS = int("5" * 14, 16)  # 0101... over the 56 suit-card bits
_BIT_QUADS = int("3" * 14, 16)  # 0011...
#: Bits ``4 s + 2`` for straight starts ``s`` = 0 (A-2-3-4-5) .. 9 (10-J-C-Q-K).
_RUN_STARTS = sum(4 << 4 * s for s in range(10))
#: Rank bits (at ``4 r + 2``) of J, C, Q, K and A: the J-C-Q-K-A set of ``ace_high_straight`` (FY-D23).
_ACE_HIGH_RANKS = sum(4 << 4 * r for r in (10, 11, 12, 13, 0))
_SUITS = tuple(NIB_LOW << su for su in range(4))  # the 14 cards of each suit
_TRUMP_CACHE: tuple[dict[int, list[int]], ...] = ({}, {}, {}, {})  # by set size 2, 3
_STRAIGHT_CACHE: dict[int, list[int]] = {}
_FLUSH_CACHE: dict[tuple[int, bool], list[int]] = {}
_FLUSH_OFFSETS: dict[int, tuple[int, ...]] = {}
_FULL_HOUSE_CACHE: dict[int, list[int]] = {}


def rank_counts(hand: int) -> int:
    """How many suit cards of each rank ``hand`` holds: rank ``r``'s count 0..4 in bits ``4 r .. 4 r + 3``.

    Read with :func:`ranks_with` (or ``(counts >> 4 * r) & 15``); computed in a few integer operations
    for all 14 ranks at once (a per-nibble population count).
    """
    s = hand & SUIT_MASK
    s -= (s >> 1) & _BIT_PAIRS
    return (s & _BIT_QUADS) + ((s >> 2) & _BIT_QUADS)


def ranks_with(counts: int, k: int) -> int:
    """Bits ``4 r + 2`` of the ranks ``r`` holding at least ``k`` (1..4) suit cards, from :func:`rank_counts`."""
    return (counts + AT_LEAST[k]) & NIB_HIGH


def _trump_runs(bits: int, first: int) -> tuple[int, ...]:
    """Single-trump ids of the trumps ``first + i`` for the set bits ``i`` of ``bits``, ascending."""
    return tuple(TRUMP_BASE + first + i - 1 for i in range(bits.bit_length()) if bits >> i & 1)


#: Single-trump ids of a hand's trumps I..XI (``(hand >> 56) & 0x7FF``) and XII..XXI (``hand >> 67``).
SINGLES_LOW = tuple(_trump_runs(b, 1) for b in range(1 << 11))
SINGLES_HIGH = tuple(_trump_runs(b, 12) for b in range(1 << 10))
#: Bounds the caches of 2- and 3-trump sets (a hand holds one of 2**21 trump sets); past it they start over.
_CACHE_LIMIT = 1 << 16


#: ``_PAIR_ROW[a] + b``: the id of the 2-trump set of trumps ``a < b`` (numbers 1..21, FY-R7).
_PAIR_ROW: tuple[int, ...] = tuple(
    MASK_TO_ACTION[1 << TRUMP_SHIFT + a | 1 << TRUMP_SHIFT + 21] - 21 if 1 <= a < 21 else 0 for a in range(22))
#: ``_TRIPLE_ROW[a][b] + c``: the id of the 3-trump set of trumps ``a < b < c``.
_TRIPLE_ROW: tuple[tuple[int, ...], ...] = tuple(
    tuple(MASK_TO_ACTION[1 << TRUMP_SHIFT + a | 1 << TRUMP_SHIFT + b | 1 << TRUMP_SHIFT + 21] - 21
          if 1 <= a < b < 21 else 0 for b in range(22)) for a in range(22))


def trump_sets(trumps: int, k: int) -> list[int]:
    """Action ids of the ``k``-trump sets (k = 1, 2, 3; FY-R7, FY-R8) in a hand's trump bits
    (``hand & TRUMP_MASK``), ascending. A new list for ``k = 1``; for 2 and 3 a cached one the caller must
    not change."""
    if k == 1:
        t = trumps >> 56
        return [*SINGLES_LOW[t & 0x7FF], *SINGLES_HIGH[t >> 11]]
    cache = _TRUMP_CACHE[k]
    hit = cache.get(trumps)
    if hit is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        numbers = [c - TRUMP_SHIFT for c in cards_of(trumps)]  # ascending, so the sets come out in id order
        if k == 2:
            row = _PAIR_ROW
            hit = [row[a] + b for a, b in itertools.combinations(numbers, 2)]
        else:
            rows = _TRIPLE_ROW
            hit = [rows[a][b] + c for a, b, c in itertools.combinations(numbers, 3)]
        cache[trumps] = hit
    return hit


#: ``_RUN_HEAD[byte]``: for the nibbles of a run's first two ranks (8 bits), ``256 su0 + 64 su1`` for every
#: suit ``su0`` held in the first and ``su1`` in the second, ascending (a straight's id within its run's
#: block of 1024 is ``256 su0 + 64 su1 + 16 su2 + 4 su3 + su4``, as the table above orders them).
_RUN_HEAD: tuple[tuple[int, ...], ...] = tuple(
    tuple(256 * a + 64 * b for a in range(4) if byte >> a & 1 for b in range(4) if byte >> 4 + b & 1)
    for byte in range(256))
#: ``_RUN_TAIL[bits]``: the same for the run's last three ranks (12 bits): ``16 su2 + 4 su3 + su4``, ascending.
_RUN_TAIL: tuple[tuple[int, ...], ...] = tuple(
    tuple(16 * a + 4 * b + c for a in range(4) if t >> a & 1 for b in range(4) if t >> 4 + b & 1
          for c in range(4) if t >> 8 + c & 1)
    for t in range(1 << 12))


def _straights(start: int, chunk: int) -> list[int]:
    """Straight ids over the 5 ranks from ``start`` (10: J-C-Q-K-A) given their 5 nibbles (20 bits), ascending,
    cached."""
    key = start << 20 | chunk
    hit = _STRAIGHT_CACHE.get(key)
    if hit is None:
        base, tail = FIVE_BASE + 1024 * start, _RUN_TAIL[chunk >> 8]
        hit = _STRAIGHT_CACHE[key] = [base + h + t for h in _RUN_HEAD[chunk & 255] for t in tail]
    return hit


#: Flushes per suit in the table: every 5 ranks of 14 but the 11 runs of ``_RUNS``.
_FLUSHES_PER_SUIT = 2002 - len(_RUNS)
#: ``_FLUSH_OFFSET[ranks]``: the place of the flush of those 5 ranks (a 14-bit rank mask) in its suit's block,
#: -1 for a run (a straight flush, or J-C-Q-K-A) and for every mask of other than 5 ranks.
_FLUSH_OFFSET: list[int] = [-1] * (1 << 14)
_FLUSH_SUIT_BASE = tuple(MASK_TO_ACTION[sum(1 << 4 * r + _su for r in (0, 1, 2, 3, 5))] for _su in range(4))
for _i, _ranks in enumerate(_r for _r in itertools.combinations(range(14), 5) if frozenset(_r) not in _RUN_SETS):
    _FLUSH_OFFSET[sum(1 << r for r in _ranks)] = _i
#: ``_SUBSETS_7[j][m]``: the ``j``-element subsets (j = 0..5) of a 7-bit mask ``m``.
_SUBSETS_7: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(s for s in range(128) if s & m == s and s.bit_count() == j) for m in range(128)) for j in range(6))
#: The J-C-Q-K-A rank mask, and its same-suit set's id (a K-high flush with the Ace low, FY-D2) per suit.
_ACE_HIGH_RUN = sum(1 << r for r in _RUNS[10])
_ACE_HIGH_FLUSH = tuple(MASK_TO_ACTION[sum(1 << 4 * r + _su for r in _RUNS[10])] for _su in range(4))


def _flush_offsets(ranks: int) -> tuple[int, ...]:
    """The places in a suit's block of the flushes (not straight flushes) among the 14-bit rank mask
    ``ranks``: its 5-rank subsets, split into ranks A..7 and 8..K, cached (one entry per rank mask)."""
    hit = _FLUSH_OFFSETS.get(ranks)
    if hit is None:
        low, high = _SUBSETS_7, tuple(_SUBSETS_7[5 - j][ranks >> 7] for j in range(6))
        lo, off = ranks & 127, _FLUSH_OFFSET
        hit = _FLUSH_OFFSETS[ranks] = tuple(
            o for j in range(6) if high[j] for a in low[j][lo] for b in high[j] if (o := off[a | b << 7]) >= 0)
    return hit


def _flushes(bits: int, ace_high: bool) -> list[int]:
    """Flush ids (not straight flushes, which ``_straights`` yields) within one suit's cards ``bits`` (5 or
    more of them), unsorted, cached."""
    key = (bits, ace_high)
    hit = _FLUSH_CACHE.get(key)
    if hit is None:
        suit = (bits & -bits).bit_length() - 1 & 3
        ranks = sum(1 << (c >> 2) for c in cards_of(bits))
        base = _FLUSH_SUIT_BASE[suit]
        hit = [base + o for o in _flush_offsets(ranks)]
        if not ace_high and ranks & _ACE_HIGH_RUN == _ACE_HIGH_RUN:
            hit.append(_ACE_HIGH_FLUSH[suit])
        _FLUSH_CACHE[key] = hit
    return hit


def _full_houses(rank: int, triple: int, pair_rank: int, pair: int) -> list[int]:
    """Full house ids with three of ``rank``'s cards (nibble ``triple``) and two of ``pair_rank``'s (nibble
    ``pair``), cached."""
    key = (rank << 4 | triple) << 8 | pair_rank << 4 | pair
    hit = _FULL_HOUSE_CACHE.get(key)
    if hit is None:
        hit = [MASK_TO_ACTION[t << 4 * rank | p << 4 * pair_rank]
               for t in _SUBSETS_3[triple] for p in _SUBSETS_2[pair]]
        _FULL_HOUSE_CACHE[key] = hit
    return hit


def five_card_plays(hand: int, ace_high: bool, any_trump: bool) -> list[int]:
    """Every 5-card hand (FY-R4, FY-D1..D5) in ``hand`` allowed by the options, as action ids (unsorted).

    Built from the per-rank counts (:func:`rank_counts`) and cached per-rank tables, never by enumerating
    subsets of the hand; a hand with no run of 5 ranks, no 5 cards of a suit and no triple answers at once.
    """
    suit_cards = hand & SUIT_MASK
    held = suit_cards.bit_count()
    if held < 4:  # five of a kind takes 4 suit cards, every other 5-card hand 5 (FY-R4)
        return []
    suit_cards -= (suit_cards >> 1) & _BIT_PAIRS  # rank_counts(hand), without the call
    counts = (suit_cards & _BIT_QUADS) + ((suit_cards >> 2) & _BIT_QUADS)
    present = (counts + _AT_LEAST_1) & NIB_HIGH
    runs = present & present >> 4 & present >> 8 & present >> 12 & present >> 16 & _RUN_STARTS
    triples = (counts + _AT_LEAST_3) & NIB_HIGH
    out: list[int] = []
    while runs:
        low = runs & -runs
        s = low.bit_length() >> 2
        chunk = (hand >> 4 * s) & 0xFFFFF
        out += _STRAIGHT_CACHE.get(s << 20 | chunk) or _straights(s, chunk)
        runs ^= low
    if ace_high and present & _ACE_HIGH_RANKS == _ACE_HIGH_RANKS:
        out.extend(_straights(10, ((hand >> 40) & 0xFFFF) | (hand & 15) << 16))
    if held >= 5:
        for suit in _SUITS:
            bits = hand & suit
            if bits.bit_count() >= 5:
                out += _FLUSH_CACHE.get((bits, ace_high)) or _flushes(bits, ace_high)
    if triples:
        pairs = (counts + AT_LEAST[2]) & NIB_HIGH
        while triples:
            low = triples & -triples
            triples ^= low
            r = low.bit_length() >> 2
            nib = (hand >> 4 * r) & 15
            others = pairs ^ low
            while others:
                low2 = others & -others
                others ^= low2
                pr = low2.bit_length() >> 2
                pair = (hand >> 4 * pr) & 15
                out += _FULL_HOUSE_CACHE.get((r << 4 | nib) << 8 | pr << 4 | pair) or _full_houses(r, nib, pr, pair)
            if nib == 15:  # five of a kind (FY-R4, FY-D3)
                if any_trump:
                    for c in cards_of(hand & TRUMP_MASK):
                        out.append(FIVE_KIND_BASE + 21 * r + c - 56)
                elif hand >> (TRUMP_SHIFT + r + 1) & 1:
                    out.append(FIVE_KIND_BASE + 21 * r + r)
    return out


def play_kind(action: Action) -> str:
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


def shape_problem(cards: Sequence[Card]) -> str:
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
