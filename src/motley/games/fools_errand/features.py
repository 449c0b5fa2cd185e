"""Action features of The Fool's Errand: the decision (FE-R2, FE-R8) one-hot, a float32 vector per action
id, for RL agents that score the legal actions one by one (the RL environments hand them out aligned with
the legal action list).

Layout (``FEATURE_SIZE`` = 3 floats per action): one-hot over draw, play joker, keep joker (the action
ids of ``cards.MOVES``, in that order).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from motley.games.fools_errand.cards import MOVES

if TYPE_CHECKING:
    from motley.core.game import Game

FEATURE_SIZE = len(MOVES)


def action_features(game: Game) -> npt.NDArray[np.float32]:
    """The (3, 3) float32 identity table: the decision of each action id, one-hot (read-only, shared)."""
    return _table()


@cache
def _table() -> npt.NDArray[np.float32]:
    out = np.eye(len(MOVES), dtype=np.float32)
    out.setflags(write=False)
    return out
