"""Terminal views: one module per game, each with ``render(observation, legal_moves) -> str``.

A view draws a seat's information state (the observation dict, nothing else) as Rich console markup.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import cast

from motley.core import Observation

Renderer = Callable[[Observation, Sequence[str]], str]


def renderer(game_name: str) -> Renderer:
    """The ``render`` function of ``game_name``'s view module."""
    module = importlib.import_module(f"motley.cli.views.{game_name}")
    return cast(Renderer, module.render)


def render(observation: Observation, legal_moves: Sequence[str] = ()) -> str:
    """Rich markup of ``observation`` (its ``game`` key picks the view)."""
    return renderer(str(observation["game"]))(observation, legal_moves)
