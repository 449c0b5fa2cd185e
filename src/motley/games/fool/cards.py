"""The Fool! pack (FL-R1): card ids and codes, colours, values, minus points, and the typed aliases.

Card ids (fixed, 88 cards, also the action ids -- an action is "play this card", FL-R6):

* ``0..25``  green  G2..G27  (id = value - 2)
* ``26..47`` red    R2..R23  (id = 26 + value - 2)
* ``48..67`` yellow Y2..Y21  (id = 48 + value - 2)
* ``68..81`` blue   B2..B15  (id = 68 + value - 2)
* ``82..87`` the six wild ones ``W1`` (FL-R1).

The six W1 cards are identical, so the engine keeps them interchangeable (ruling FL-D12): in hands and
tricks every W1 is held as id 82, and playing a W1 is always action 82 (``"W1"``), whoever holds it. Ids
83..87 name the other W1 cards of the pack but are never legal actions; this keeps an action meaning the
same thing in every determinization (``sample_state``), which search bots rely on.

Which of these cards a player count uses is the deck table's business (``rules.py``, FL-R3, FL-D1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

#: A card id 0..87 (see above); hands and tricks hold every W1 as id 82 (FL-D12).
Card: TypeAlias = int
#: An action id: the card id played (FL-R6), 0..87; a W1 is always played as 82 (FL-D12).
Action: TypeAlias = int
#: A seat 0..players-1, clockwise.
Seat: TypeAlias = int

COLOUR_LETTERS = ("G", "R", "Y", "B")
COLOUR_NAMES = ("green", "red", "yellow", "blue", "wild")
#: Highest printed value per colour in the full pack (FL-R1).
TOPS = (27, 23, 21, 15)
BASES = (0, 26, 48, 68)
W = 4  # colour index of the wild ones
W1 = 82  # the id every W1 is held and played as (FL-D12)
NUM_CARDS = 88
WILD_IDS = tuple(range(82, 88))

CODES: tuple[str, ...] = tuple(
    f"{COLOUR_LETTERS[c]}{v}" for c in range(4) for v in range(2, TOPS[c] + 1)) + ("W1",) * 6
CODE_INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES[:W1])} | {"W1": W1}
#: Colour index (0..3 = G R Y B, 4 = wild) and printed value of every card id (FL-R1, FL-R7: a 1 is 1).
COLOUR: tuple[int, ...] = tuple(c for c in range(4) for _ in range(2, TOPS[c] + 1)) + (W,) * 6
VALUE: tuple[int, ...] = tuple(v for c in range(4) for v in range(2, TOPS[c] + 1)) + (1,) * 6
#: Minus points of a card left in hand (FL-R13: the printed value, a 1 counts 5).
PENALTY: tuple[int, ...] = VALUE[:W1] + (5,) * 6


def split_hand(cards: Iterable[Card]) -> list[list[Card]]:
    """A hand as five sorted per-colour lists (G R Y B W); ``cards`` is not changed."""
    return split_sorted(sorted(cards))


def split_sorted(hand: Iterable[Card]) -> list[list[Card]]:
    """Cards sorted by id as five sorted per-colour lists (G R Y B W): each card appended to its colour's
    list (cheaper than finding the colours' bounds with ``bisect`` and slicing)."""
    colours: list[list[Card]] = [[], [], [], [], []]
    colour = COLOUR  # a local name: read once a card, and a local costs less than a global
    for card in hand:
        colours[colour[card]].append(card)
    return colours


def card_info(code: str) -> dict[str, object]:
    """How card ``code`` is shown and read out (``GameSpec.card_info``): ``{"name": "green 5" / "wild 1",
    "short": "5", "suit": colour name, "rank": printed value, "order": colour then value}``.

    Raises:
        KeyError: for a code that is not in the pack.
    """
    card = CODE_INDEX[code]
    colour, value = COLOUR[card], VALUE[card]
    return {"name": f"{COLOUR_NAMES[colour]} {value}", "short": str(value), "suit": COLOUR_NAMES[colour],
            "rank": value, "order": colour * 100 + value}
