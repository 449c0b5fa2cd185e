"""Card helpers shared by the games: parsing code lists and checking deals."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from motley.core.errors import DealError


def split_codes(text: str) -> list[str]:
    """Card codes of a move or deal string, upper-cased (``"9s 9h"`` -> ``["9S", "9H"]``).

    Commas and runs of white space both separate codes (rules/README.md: codes are case-insensitive).
    """
    return text.replace(",", " ").upper().split()


def cards_from_codes(codes: Any, index: Mapping[str, int], what: str) -> list[int]:
    """Card ids of a list of codes, checked.

    Args:
        codes: a list of code strings.
        index: code -> card id for the game's pack.
        what: names the list in errors ("deck of seat 0").
    Raises:
        DealError: if ``codes`` is not a list of strings, or holds an unknown code.
    """
    if not isinstance(codes, (list, tuple)) or not all(isinstance(c, str) for c in codes):
        raise DealError(f"{what} must be a list of card codes")
    cards = []
    for code in codes:
        card = index.get(code.strip().upper())
        if card is None:
            raise DealError(f"{what} holds unknown card code {code!r}")
        cards.append(card)
    return cards


def check_no_duplicates(cards: Sequence[int], names: Sequence[str], what: str, allow: Sequence[int] = ()) -> None:
    """Raise DealError naming the first card that appears twice in ``cards`` (ids in ``allow`` may repeat)."""
    seen: set[int] = set()
    for card in cards:
        if card in seen and card not in allow:
            raise DealError(f"{what} holds {names[card]} twice")
        seen.add(card)


def shuffle(items: list[Any], rng: random.Random) -> None:
    """Shuffle ``items`` in place, uniformly: Fisher-Yates on ``rng.random()``.

    For search, which samples worlds thousands of times a decision: about twice as fast as
    ``random.shuffle`` (one Python call per index drawn), at a bias below 2**-46 per swap for lists of
    fewer than 128 items (a 53-bit float scaled to the index range). Deals that records must replay keep
    ``random.shuffle``, so a seed gives the same deal in every version.
    """
    draw = rng.random
    for i in range(len(items) - 1, 0, -1):
        j = int(draw() * (i + 1))
        items[i], items[j] = items[j], items[i]
