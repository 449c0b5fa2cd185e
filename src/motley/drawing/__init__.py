"""SVG drawings of cards and tables, from observations (pure functions returning SVG text).

Each game draws its own table and card faces (its spec's ``drawing`` and ``card_face``); this module finds
them by the game's name. Used by the web page (``motley serve``) and by Jupyter: importing this module
registers :func:`render_state` as the core's ``svg_renderer``, so ``State._repr_svg_`` shows the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from motley.core import display as _display
from motley.core import svg
from motley.core.errors import OptionError
from motley.core.registry import game_spec
from motley.core.spec import GameSpec
from motley.core.svg import Observation, card_back


def _spec(game: str) -> GameSpec | None:
    try:
        return game_spec(game)
    except OptionError:
        return None


def _plain_face(code: str, w: float, h: float) -> str:
    """The face of a card of a game that draws none: its code."""
    return svg.label(w / 2, h * 0.6, code, 14 * w / svg.CARD_W, "#222")


def _face(game: str) -> svg.Face:
    spec = _spec(game)
    return spec.card_face if spec is not None and spec.card_face is not None else _plain_face


def card_codes(game: str) -> frozenset[str]:
    """Every card code of ``game``'s pack (rules/README.md); empty for an unknown game."""
    spec = _spec(game)
    return spec.card_codes if spec is not None else frozenset()


def card_face(code: str, game: str, x: float, y: float, w: float = svg.CARD_W, h: float = svg.CARD_H,
              highlight: str | None = None) -> str:
    """A face-up card ``code`` of ``game`` at (x, y); ``highlight`` colours its border (e.g. the seat colour)."""
    return svg.card_face(code, _face(game), x, y, w, h, highlight)


def card_row(codes: Sequence[str], game: str, x: float, y: float, max_width: float, w: float = svg.CARD_W,
             h: float = svg.CARD_H, highlight: Sequence[str | None] | None = None) -> str:
    """Cards of ``game`` side by side from (x, y), overlapping when they would not fit in ``max_width``."""
    return svg.card_row(codes, _face(game), x, y, max_width, w, h, highlight)


@lru_cache(maxsize=8192)
def move_svg(game: str, move: str, w: float = 34) -> str | None:
    """Small cards for a move string of ``game`` made of card codes (``"9S 9H"``), ``None`` for other moves."""
    return svg.move_svg(move, card_codes(game), _face(game), w)


def generic(obs: Observation) -> str:
    """A plain drawing for a game without its own: the hand (if any) and the scores."""
    body = [svg.text(30, 70, f"current player: {obs.get('current_player')}", 14)]
    if "scores" in obs:
        body.append(svg.text(30, 95, f"scores: {obs['scores']}", 14))
    body.append(svg.hand_strip(obs, _face(str(obs.get("game", ""))), 160))
    return svg.frame(300, body, str(obs.get("game", "game")))


def render(obs: Observation) -> str:
    """SVG text of the table as ``obs`` shows it (the drawing of the game ``obs["game"]``)."""
    spec = _spec(str(obs.get("game")))
    return spec.drawing(obs) if spec is not None and spec.drawing is not None else generic(obs)


def render_state(state: Any) -> str:
    """SVG of a state as the seat to move sees it (seat 0 once the match is over)."""
    seat = state.current_player()
    if not 0 <= seat < state.game.num_players:
        seat = 0
    return render(state.observation(seat))


_display.svg_renderer = render_state

__all__ = ["card_back", "card_codes", "card_face", "card_row", "move_svg", "render", "render_state"]
