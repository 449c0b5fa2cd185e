"""The Fool's Errand pack (FE-R1): card ids and codes, what a card is worth, the three moves, where a
Joker is, the log's events, and the typed aliases.

Cards are ints: 0..51 = ``suit * 13 + rank`` (rank 0 = Ace .. 12 = King, suits C D H S), 52 and 53 the
Jokers of seat 0 and seat 1 (both coded ``JK``).
"""

from __future__ import annotations

from typing import TypeAlias

#: A card id: 0..51 ``suit * 13 + rank``, 52 / 53 the Joker of seat 0 / seat 1.
Card: TypeAlias = int
#: An action id: ``DRAW``, ``PLAY_JOKER`` or ``KEEP_JOKER`` (FE-R2, FE-R8).
Action: TypeAlias = int
#: A seat: 0 = A, 1 = B.
Seat: TypeAlias = int

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
JOKER_A, JOKER_B = 52, 53
CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + ("JK", "JK")
CODE_INDEX = {code: i for i, code in enumerate(CODES[:52])}
#: Value a card tips the scale by (FE-R4); an Ace's 1 may become 11 at play time.
PLAY_VALUE: tuple[int, ...] = tuple(min(r + 1, 10) for _ in SUITS for r in range(13))
#: Points a card is worth in a score pile (FE-R10: Ace 1, number cards face value, J/Q/K 10).
POINTS: tuple[int, ...] = PLAY_VALUE
IS_ACE: tuple[bool, ...] = tuple(r == 0 for _ in SUITS for r in range(13))
TOTAL_POINTS = sum(POINTS)  # 340 (FE-R10)
DECK_SIZE = 27  # 26 cards and a Joker (FE-R1)

DRAW, PLAY_JOKER, KEEP_JOKER = 0, 1, 2
MOVES = ("draw", "play joker", "keep joker")

# Where a seat's Joker is.
IN_DECK, SET_ASIDE, DRAWN = 0, 1, 2
JOKER_PLACES = ("deck", "set_aside", "drawn")

# Log events: (kind, seat, card or -1, value, scale announced by that seat / points scooped).
Event = tuple[str, int, int, int, int]

RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def card_info(code: str) -> dict[str, object]:
    """How card ``code`` is shown and read out (``GameSpec.card_info``): ``{"name": "7 of spades", "short":
    "7", "suit": "spades", "rank": 1..13, "order": suit then rank}``; ``JK`` is ``{"name": "Joker", "suit":
    "joker", "rank": 0}``, sorted last.

    Raises:
        KeyError: for a code that is not in the pack.
    """
    if code == "JK":
        return {"name": "Joker", "short": "Joker", "suit": "joker", "rank": 0, "order": 1000}
    card = CODE_INDEX[code]
    rank, suit = card % 13, card // 13
    return {"name": f"{RANK_NAMES[rank]} of {SUIT_NAMES[suit]}", "short": RANKS[rank], "suit": SUIT_NAMES[suit],
            "rank": rank + 1, "order": suit * 100 + rank + 1}
