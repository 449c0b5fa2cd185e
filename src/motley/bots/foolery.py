"""Heuristic player for Foolery (rules/foolery.md): shed low cards, keep trumps and the Fool for when they pay.

Reasoning. The goal is to go out early (FY-R11, FY-D21). Low cards are the hard ones to get rid of, so a
lead sheds the lowest cards, as a whole rank group (never breaking a pair or triple) or as a low 5-card
hand that carries five cards away at once. Following, the bot plays the cheapest play that beats the
table without breaking a group. Trumps and the Fool win tricks (FY-R7, FY-R9), and winning a trick is
worth most near the end, when the lead lets us shed the rest: the bot spends them when the trick is worth
it (a high table, or few cards left), and always plays the Fool before it could be left holding only the
Fool at a lead (FY-D13, which makes it the Peasant). In the card exchange it gives its lowest cards, taking
them from ranks where they do not break a group (FY-R13).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from motley.bots.base import Bot, register_heuristic
from motley.core import Observation
from motley.core.cards import split_codes
from motley.games.foolery import (
    A_KIND,
    A_MASK,
    A_SIZE,
    A_STR,
    CODE_INDEX,
    EXCHANGE_VALUE,
    FOOL,
    GIVE_BASE,
    K_FIVE,
    K_FOOL,
    K_GIVE,
    K_NORMAL,
    K_TRUMP,
    MASK_TO_ACTION,
    PASS,
    cards_of,
)


def _rank_counts(hand: Sequence[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for c in hand:
        if c < 56:
            counts[c >> 2] = counts.get(c >> 2, 0) + 1
    return counts


def _breaks(action: int, counts: dict[int, int]) -> bool:
    """True if a normal play leaves part of its rank group behind."""
    rank = cards_of(A_MASK[action])[0] >> 2
    return counts.get(rank, 0) != A_SIZE[action]


def _play_of(text: str) -> int:
    """The action id of a play string from an observation (``"9S 9H"``)."""
    mask = 0
    for code in split_codes(text):
        mask |= 1 << CODE_INDEX[code]
    return MASK_TO_ACTION[mask]


def _top_value(action: int) -> int:
    """Highest rank value among the suit cards of a play."""
    return max((c >> 2) + 1 for c in cards_of(A_MASK[action]) if c < 56)


@register_heuristic("foolery")
class FooleryHeuristic(Bot):
    """Sheds low cards first; spends trumps and the Fool only when the trick pays (see the module docstring)."""

    name = "heuristic"

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        hand = [CODE_INDEX[c] for c in observation["hand"]]
        if A_KIND[legal_actions[0]] == K_GIVE:
            return self._give(hand, legal_actions)
        size = len(hand)
        for a in legal_actions:  # going out beats everything (FY-R11)
            if a != PASS and A_SIZE[a] == size:
                return a
        counts = _rank_counts(hand)
        if observation["table"] is None:
            return self._lead(legal_actions, counts)
        return self._follow(observation, legal_actions, counts, size, FOOL in hand)

    @staticmethod
    def _give(hand: Sequence[int], legal: Sequence[int]) -> int:
        """FY-R13: the lowest card, preferably one that breaks no group."""
        counts = _rank_counts(hand)
        return min(legal, key=lambda a: (EXCHANGE_VALUE[a - GIVE_BASE],
                                         counts.get((a - GIVE_BASE) >> 2, 9) if a - GIVE_BASE < 56 else 9))

    @staticmethod
    def _lead(legal: Sequence[int], counts: dict[int, int]) -> int:
        normals = [a for a in legal if A_KIND[a] == K_NORMAL and not _breaks(a, counts)]
        fives = [a for a in legal if A_KIND[a] == K_FIVE and A_STR[a] < 64]  # keep five of a kind
        low = min(normals, key=lambda a: A_STR[a], default=None)
        if fives:
            best = min(fives, key=lambda a: (_top_value(a), A_STR[a]))
            if _top_value(best) <= 10 or low is None or A_STR[low] > 10:
                return best
        if low is not None:
            return low
        # only trumps (FY-R8) or only breaking plays: the lowest single card
        return min(legal, key=lambda a: (A_STR[a] if A_KIND[a] != K_FIVE else 99, -A_SIZE[a]))

    @staticmethod
    def _follow(observation: Observation, legal: Sequence[int], counts: dict[int, int], size: int,
                has_fool: bool) -> int:
        table = observation["table"]
        top = _play_of(table["cards"])
        top_kind = A_KIND[top]
        if has_fool and size <= 3:
            return next(a for a in legal if A_KIND[a] == K_FOOL)  # never be left with only the Fool (FY-D13)
        plain = [a for a in legal if A_KIND[a] in (K_NORMAL, K_FIVE)]
        whole = [a for a in plain if A_KIND[a] == K_FIVE or not _breaks(a, counts)]
        if whole:
            return min(whole, key=lambda a: A_STR[a])
        if plain and size <= 6:
            return min(plain, key=lambda a: A_STR[a])
        trumps = [a for a in legal if A_KIND[a] == K_TRUMP]
        if trumps:
            high_table = top_kind in (K_TRUMP, K_FIVE) or A_STR[top] >= 12 or A_SIZE[top] >= 3
            trump_count = sum(1 for c in observation["hand"] if CODE_INDEX[c] >= 56 and CODE_INDEX[c] != FOOL)
            spend = min(trumps, key=lambda a: (A_SIZE[a], A_STR[a]))
            if size - A_SIZE[spend] <= 5 or (high_table and trump_count >= 4):
                return spend
        return PASS
