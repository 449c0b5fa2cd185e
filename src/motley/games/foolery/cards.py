"""The Foolery pack (FY-R1, FY-R2): card ids and codes, hands as bitmasks, and the typed aliases; with the
numbers a position keeps its titles, phases, exchange steps and log events as, and their names.

Cards (ids 0..77): suit cards ``4 * rank + suit`` (rank 0 = Ace .. 13 = King, value ``rank + 1``, FY-R2;
suits S H D C, unordered), trumps ``55 + n`` for trump ``n`` = 1..21 (ids 56..76), the Fool 77. A hand is
a bitmask over those ids, so the four suit cards of a rank are one nibble: ``(hand >> 4 * rank) & 15``.

The plays these cards make, and the action ids, are in ``moves.py``; which title a place gives (FY-R11),
the phases' order and the events' meaning are the rules' business (``rules.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeAlias, TypeVar

_T = TypeVar("_T")

#: A card id 0..77 (see above).
Card: TypeAlias = int
#: An action id 0..``moves.NUM_ACTIONS - 1``: pass, the Fool, ``give CARD`` or a play (see ``moves.py``).
Action: TypeAlias = int
#: A seat 0..players-1, in turn order.
Seat: TypeAlias = int

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


def card_rank(card: Card) -> int:
    """Rank index 0 (Ace) .. 13 (King) of a suit card id 0..55 (FY-R2)."""
    return card >> 2


def is_trump(card: Card) -> bool:
    """True for trump ids 56..76."""
    return 56 <= card < FOOL


def cards_of(mask: int) -> list[Card]:
    """Card ids of a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


#: ``BIT[c] == 1 << c``.
BIT: tuple[int, ...] = tuple(1 << c for c in range(NUM_CARDS))
#: ``_WIDTH[n] == n.bit_length()``: the bits drawn per try for a number below ``n``.
_WIDTH: tuple[int, ...] = tuple(n.bit_length() for n in range(NUM_CARDS + 1))
#: The steps of the shuffle: position ``i`` from 77 down to 1, the ``n = i + 1`` places to draw among, and
#: ``_WIDTH[n]``.
_SHUFFLE_STEPS: tuple[tuple[int, int, int], ...] = tuple((i, i + 1, _WIDTH[i + 1]) for i in range(NUM_CARDS - 1, 0, -1))


def shuffled_pack(rng: random.Random) -> list[Card]:
    """The 78 card ids in the order ``cards = list(range(78)); rng.shuffle(cards)`` leaves them, drawing the same
    numbers from ``rng`` (:func:`shuffle_as_random`). ``rng`` must be a plain ``random.Random``.
    """
    return shuffle_as_random(list(range(NUM_CARDS)), rng)


def shuffle_as_random(items: list[_T], rng: random.Random) -> list[_T]:
    """Shuffle the 78 ``items`` in place as ``rng.shuffle(items)`` does, drawing the same numbers from ``rng`` (the
    Fisher-Yates loop of ``random.Random.shuffle`` with its rejection sampling by ``getrandbits``, written out: a
    deal costs about half as much); returns ``items``. ``rng`` must be a plain ``random.Random``.
    """
    getrandbits = rng.getrandbits
    for i, n, k in _SHUFFLE_STEPS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]
    return items


def mask_of(cards: Sequence[Card]) -> int:
    """Bitmask of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# ---- titles, phases, exchange steps, events: as a state keeps them, and their names ----------------
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


RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "cavalier", "queen", "king")
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


def card_info(code: str) -> dict[str, object]:
    """How card ``code`` is shown and read out (``GameSpec.card_info``): suit cards ``{"name": "7 of spades",
    "short": "7", "suit": "spades", "rank": 1..14}``, trumps ``{"name": "trump XXI", "short": "XXI", "suit":
    "trump", "rank": 1..21}``, the Fool ``{"name": "the Fool", "short": "Fool", "suit": "fool", "rank": 0}``;
    ``order`` sorts suit by suit (S H D C) then rank, trumps after the suits, the Fool last (FY-R2).

    Raises:
        KeyError: for a code that is not in the pack.
    """
    card = CODE_INDEX[code]
    if card == FOOL:
        return {"name": "the Fool", "short": "Fool", "suit": "fool", "rank": 0, "order": 1000}
    if is_trump(card):
        n = card - TRUMP_SHIFT
        return {"name": f"trump {code}", "short": code, "suit": "trump", "rank": n, "order": 500 + n}
    rank, suit = card_rank(card), card & 3
    return {"name": f"{RANK_NAMES[rank]} of {SUIT_NAMES[suit]}", "short": RANK_CODES[rank], "suit": SUIT_NAMES[suit],
            "rank": rank + 1, "order": suit * 100 + rank + 1}
