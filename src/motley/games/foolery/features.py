"""Action features of Foolery: a fixed-size float32 vector per action id, for RL agents that score the
legal actions one by one (the RL environments hand them out aligned with the legal action list).

The table covers every action of ``moves.py`` (``NUM_ACTIONS`` = 25,741 rows) and is built once per
``ace_high_straight`` setting (the only option that changes a play's kind or strength, FY-D23), with
NumPy over the action table; the environments gather the rows of the legal actions from it.

Layout (``FEATURE_SIZE`` = 96 floats per action, every value in [0, 1]):

* ``[0:78]`` the cards the action moves, multi-hot over the card ids of ``cards.py`` (a play: its cards;
  the Fool: id 77; ``give CARD``: that card; pass: none);
* ``[78:93]`` the kind, one-hot in the order of :data:`KINDS` (pass, the Fool, give, 1-4 suit cards of a
  rank, 1-3 trumps, the five 5-card categories of FY-R4); all 0 for the few ids that are never legal
  (``give FOOL``, and J-C-Q-K-A sets that are no play without ``ace_high_straight``);
* ``[93]`` number of cards / 5;
* ``[94]`` rank within the kind: the rank value / 14 for 1-4 suit cards (A = 1 .. K = 14), the top trump's
  number / 21 for trump sets, the category key / 15 for 5-card hands (FY-D4; 15 = J-C-Q-K-A straight
  under FY-D23); 0 for pass, the Fool and gifts;
* ``[95]`` strength / 80 (FY-R5's order across kinds, ``16 * category + key`` for 5-card hands; 0 where
  strength does not apply).

Features depend on the action id and the game's options only, never on the position: what is legal
is the rules' business.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from motley.games.foolery.cards import FOOL, NUM_CARDS
from motley.games.foolery.moves import (
    A_CAT,
    A_KIND,
    A_MASK,
    A_SIZE,
    A_STR,
    A_TOP,
    CAT_ACE_HIGH,
    GIVE_BASE,
    K_FIVE,
    K_FOOL,
    K_GIVE,
    K_NORMAL,
    K_PASS,
    K_TRUMP,
    NUM_ACTIONS,
    STR_ACE_HIGH,
)

if TYPE_CHECKING:
    from motley.core.game import Game

#: Names of the kind one-hot, in order.
KINDS = ("pass", "fool", "give", "single", "pair", "triple", "four of a kind", "1 trump", "2 trumps",
         "3 trumps", "straight", "flush", "full house", "straight flush", "five of a kind")
CARDS_AT, KIND_AT = 0, NUM_CARDS
SIZE_AT = KIND_AT + len(KINDS)
RANK_AT, STRENGTH_AT = SIZE_AT + 1, SIZE_AT + 2
FEATURE_SIZE = SIZE_AT + 3
_MASK_BYTES = (NUM_CARDS + 7) // 8


def action_features(game: Game) -> npt.NDArray[np.float32]:
    """The (``NUM_ACTIONS``, ``FEATURE_SIZE``) float32 table of ``game``'s options (read-only, shared)."""
    return _table(bool(game.params["ace_high_straight"]))


@cache
def _table(ace_high: bool) -> npt.NDArray[np.float32]:
    strength = np.array(STR_ACE_HIGH if ace_high else A_STR, dtype=np.int64)
    category = np.array(CAT_ACE_HIGH if ace_high else A_CAT, dtype=np.int64)
    kind = np.array(A_KIND, dtype=np.int64)
    size = np.array(A_SIZE, dtype=np.int64)
    out = np.zeros((NUM_ACTIONS, FEATURE_SIZE), dtype=np.float32)
    raw = np.frombuffer(b"".join(m.to_bytes(_MASK_BYTES, "little") for m in A_MASK), dtype=np.uint8)
    out[:, CARDS_AT:CARDS_AT + NUM_CARDS] = np.unpackbits(raw.reshape(NUM_ACTIONS, _MASK_BYTES), axis=1,
                                                          bitorder="little")[:, :NUM_CARDS]
    slot = np.full(NUM_ACTIONS, -1, dtype=np.int64)
    slot[kind == K_PASS] = 0
    slot[kind == K_FOOL] = 1
    slot[(kind == K_GIVE) & (np.arange(NUM_ACTIONS) != GIVE_BASE + FOOL)] = 2
    slot[kind == K_NORMAL] = 2 + size[kind == K_NORMAL]
    slot[kind == K_TRUMP] = 6 + size[kind == K_TRUMP]
    five = (kind == K_FIVE) & (category >= 0)
    slot[five] = 10 + category[five]
    rows = np.flatnonzero(slot >= 0)
    out[rows, KIND_AT + slot[rows]] = 1.0
    out[:, SIZE_AT] = size / 5.0  # pass: 0 cards
    rank = np.zeros(NUM_ACTIONS, dtype=np.float64)
    rank[kind == K_NORMAL] = strength[kind == K_NORMAL] / 14.0
    rank[kind == K_TRUMP] = np.array(A_TOP)[kind == K_TRUMP] / 21.0
    rank[five] = (strength[five] - 16 * category[five]) / 15.0
    out[:, RANK_AT] = rank
    scored = (kind == K_NORMAL) | (kind == K_TRUMP) | five
    out[:, STRENGTH_AT] = np.where(scored, strength, 0) / 80.0
    out.setflags(write=False)
    return out
