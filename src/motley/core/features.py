"""Action features of a game, read generically from its spec: the RL environments and the network bot use them.

A game's spec may give an action feature table (:data:`motley.core.spec.ActionFeatures`): row ``a`` is the
fixed-size float32 feature vector of action id ``a`` at the game's options. The environments and the network
bot read the rows of the legal actions, in the order of the legal action list (``table[legal]``, a gather). A game
without a table gets the action id one-hot (``F = num_distinct_actions``). Layouts per game:
docs/observation_tensors.md, "Action features".
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from motley.core.game import Game
from motley.core.registry import game_spec

__all__ = ["action_feature_table"]

_TABLES: dict[str, npt.NDArray[np.float32]] = {}


def action_feature_table(game: Game) -> npt.NDArray[np.float32]:
    """The (``num_distinct_actions``, F) float32 feature table of ``game`` (cached per game string; read-only).

    Raises:
        ValueError: if the game's table has another number of rows than the game has actions, or is not a
            2-dimensional float32 array.
    """
    key = str(game)
    table = _TABLES.get(key)
    if table is None:
        table = _build(game)
        _TABLES[key] = table
    return table


def _build(game: Game) -> npt.NDArray[np.float32]:
    build = game_spec(game.name).action_features
    num_actions = game.num_distinct_actions()
    if build is None:
        table = np.eye(num_actions, dtype=np.float32)
        table.setflags(write=False)
        return table
    table = build(game)
    if table.ndim != 2 or table.shape[0] != num_actions or table.dtype != np.float32:
        raise ValueError(f"{game.name}'s action feature table must be float32 of shape ({num_actions}, F); "
                         f"got {table.dtype} {table.shape}")
    return table
