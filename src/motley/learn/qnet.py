"""New Q networks for training: He-initialised weights of :class:`motley.bots.qnet.QNetwork`.

The network's format and NumPy forward pass live in :mod:`motley.bots.qnet` (the ``network`` bot plays with them);
training starts from :func:`random_network`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from motley.bots.qnet import QNetwork
from motley.core import Game
from motley.core.features import action_feature_table

__all__ = ["random_network"]


def random_network(game: Game, hidden: Sequence[int], seed: int, meta: Mapping[str, Any] | None = None,
                   hint: bool = True) -> QNetwork:
    """A network with He-initialised weights for ``game`` (the start of training, and tests)."""
    rng = np.random.default_rng(seed)
    obs_size = int(np.prod(game.observation_tensor_shape()))
    sizes = [obs_size + action_feature_table(game).shape[1] + int(hint), *hidden, 1]
    weights = []
    for a, b in itertools.pairwise(sizes):
        w = (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
        weights.append((w, np.zeros(b, dtype=np.float32)))
    return QNetwork(weights, obs_size, dict(meta or {}, game=str(game)), hint)
