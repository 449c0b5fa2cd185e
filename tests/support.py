"""Test helpers shared by every game's tests."""

from __future__ import annotations

import random
from typing import Any

import pytest

import motley
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


#: Player counts under test per game; any other registered game is tested at its extremes.
PLAYER_COUNTS = {"fools_errand": [2], "fool": [4, 5, 8], "foolery": [3, 5, 7]}


def game_configs() -> list[Any]:
    """pytest params ``(game, players)`` for every registered game, ids like ``fool-5``."""
    table = dict(PLAYER_COUNTS)
    for name in motley.registered_games():
        if name not in table:
            cls = motley.core.registry.game_class(name)
            table[name] = sorted({cls.min_players, cls.max_players})
    return [pytest.param(name, n, id=f"{name}-{n}")
            for name, counts in table.items() if name in motley.registered_games() for n in counts]
