"""What search needs of a game, behind one opt-in interface (DESIGN.md: search plumbing).

:class:`SearchPolicy` is a game's heuristic played on full states: search rolls sampled worlds out with it
and, in ISMCTS with a heuristic opponent model, moves the other seats by it. A game offers one through its
spec (``GameSpec.search_policy``); games without one are searched with uniformly random playouts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from motley.core.game import State


@dataclass(frozen=True)
class SearchPolicy:
    """A game's heuristic on full states.

    Attributes:
        move: ``move(state) -> action`` for the seat to move of a full state (a determinization).
        rollout: ``rollout(state, rng, epsilon)`` plays ``state`` on with ``move`` (a uniformly random legal
            action with probability ``epsilon``) until the match ends or the deal it was in on entry is over.
    """

    move: Callable[[State], int]
    rollout: Callable[[State, random.Random, float], None]
