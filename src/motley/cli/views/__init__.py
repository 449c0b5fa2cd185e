"""Terminal views: each game's ``render(observation, legal_moves) -> str`` and ``log_lines``, from its spec.

A view draws a seat's information state (the observation dict, nothing else) as Rich console markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from motley.core import MotleyError, Observation
from motley.core.registry import game_spec
from motley.core.spec import TerminalView


def renderer(game_name: str) -> TerminalView:
    """The terminal view of ``game_name``.

    Raises:
        OptionError: for an unknown game; MotleyError for a game without a terminal view.
    """
    view = game_spec(game_name).terminal_view
    if view is None:
        raise MotleyError(f"{game_name} has no terminal view")
    return view


def render(observation: Observation, legal_moves: Sequence[str] = ()) -> str:
    """Rich markup of ``observation`` (its ``game`` key picks the view)."""
    return renderer(str(observation["game"]))(observation, legal_moves)


def log_lines(game_name: str, observation: Observation, cursor: Any, neutral: bool = False) -> tuple[list[str], Any]:
    """What happened since ``cursor`` as Rich markup lines, and the new cursor (no lines for a game without a log)."""
    lines = game_spec(game_name).log_lines
    if lines is None:
        return [], cursor
    return lines(observation, cursor, neutral=neutral)
