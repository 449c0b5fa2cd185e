"""Action features of Fool!: a fixed-size float32 vector per action id (the card played, FL-R6), for RL
agents that score the legal actions one by one (the RL environments hand them out aligned with the legal
action list).

Layout (``FEATURE_SIZE`` = 94 floats per action, every value in [0, 1]):

* ``[0:88]`` the card id played, one-hot (ids of ``cards.py``; a W1 is always played as id 82, FL-D12);
* ``[88:93]`` its colour one-hot: G R Y B, then W (the wild W1);
* ``[93]`` its printed value / 27 (a W1 is 1, FL-R7).

The table is the same for every option and player count: it depends on the action id alone.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from motley.games.fool.cards import COLOUR, NUM_CARDS, VALUE

if TYPE_CHECKING:
    from motley.core.game import Game

CARD_AT, COLOUR_AT, VALUE_AT = 0, NUM_CARDS, NUM_CARDS + 5
FEATURE_SIZE = NUM_CARDS + 5 + 1
MAX_VALUE = 27  # G27, the highest card of the pack (FL-R1)


def action_features(game: Game) -> npt.NDArray[np.float32]:
    """The (88, ``FEATURE_SIZE``) float32 table of every action's features (read-only, shared)."""
    return _table()


@cache
def _table() -> npt.NDArray[np.float32]:
    ids = np.arange(NUM_CARDS)
    out = np.zeros((NUM_CARDS, FEATURE_SIZE), dtype=np.float32)
    out[ids, CARD_AT + ids] = 1.0
    out[ids, COLOUR_AT + np.array(COLOUR)] = 1.0
    out[:, VALUE_AT] = np.array(VALUE) / MAX_VALUE
    out.setflags(write=False)
    return out
