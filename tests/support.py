"""Test helpers shared by every game's tests."""

from __future__ import annotations

import random

from motley.core import State


def play_random(state: State, rng: random.Random, steps: int) -> State:
    """Apply up to ``steps`` uniformly random legal actions (stops at the end of the match)."""
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def play_out(state: State, rng: random.Random, limit: int = 100_000) -> State:
    """Play random legal actions until the match ends; fails if it does not end within ``limit`` moves."""
    play_random(state, rng, limit)
    assert state.is_terminal(), f"match did not end within {limit} moves"
    return state
