"""SVG drawings of cards and tables, from observations (pure functions returning SVG text).

Used by the web page (``motley serve``) and by Jupyter: importing this module registers
:func:`render_state` as the core's ``svg_renderer``, so ``State._repr_svg_`` shows the table.
"""

from __future__ import annotations

from typing import Any

from motley.core import display as _display
from motley.drawing.cards import card_back, card_codes, card_face, card_row, move_svg
from motley.drawing.tables import render


def render_state(state: Any) -> str:
    """SVG of a state as the seat to move sees it (seat 0 once the match is over)."""
    seat = state.current_player()
    if not 0 <= seat < state.game.num_players:
        seat = 0
    return render(state.observation(seat))


_display.svg_renderer = render_state

__all__ = ["card_back", "card_codes", "card_face", "card_row", "move_svg", "render", "render_state"]
