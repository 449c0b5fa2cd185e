"""SVG building blocks shared by the games' drawings: card frames and backs, rows of cards, the felt table,
seats around an oval, text. Pure functions returning SVG text; sizes in SVG user units (pixels at scale 1).

A game draws its own card faces (a :data:`~motley.core.spec.CardFace`) and its own table from an observation
(``games/<name>/drawing.py``); this module holds what every drawing shares, so no game repeats it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

#: ``face(code, width, height) -> SVG elements`` of one card face at the origin.
Face = Callable[[str, float, float], str]

CARD_W = 60
CARD_H = 84
WIDTH = 960
SEAT_COLOURS = ("#1e88e5", "#fb8c00", "#43a047", "#8e24aa", "#e53935", "#00897b", "#6d4c41", "#3949ab")
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
SUIT_COLOUR = {"C": "#1b1b1b", "S": "#1b1b1b", "D": "#c62828", "H": "#c62828"}


def rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "#555", width: float = 1) -> str:
    """A rounded rectangle (a card's outline or an inner panel)."""
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{w * 0.1:.1f}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width:g}"/>')


def label(x: float, y: float, text: str, size: float, fill: str, anchor: str = "middle", weight: str = "bold") -> str:
    """Text on a card face (bold and centred unless told)."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}" fill="{fill}" text-anchor="{anchor}" '
            f'font-weight="{weight}" font-family="DejaVu Sans, Arial, sans-serif">{escape(text)}</text>')


def card_back(x: float, y: float, w: float = CARD_W, h: float = CARD_H) -> str:
    """A face-down card at (x, y) (top-left corner)."""
    inner = rect(x + 4, y + 4, w - 8, h - 8, "url(#motley-back)", "#f5f5f5")
    return f'<g class="card-back">{rect(x, y, w, h, "#1a3d7c", "#0d2550")}{inner}</g>'




def card_face(code: str, face: Face, x: float, y: float, w: float = CARD_W, h: float = CARD_H,
              highlight: str | None = None) -> str:
    """A face-up card ``code`` drawn by ``face`` at (x, y); ``highlight`` colours its border (the seat colour)."""
    return f'<g transform="translate({x:.1f},{y:.1f})">{_framed(code.upper(), face, w, h, highlight)}</g>'


@lru_cache(maxsize=4096)
def _framed(code: str, face: Face, w: float, h: float, highlight: str | None) -> str:
    """A card at the origin: its frame and ``face`` (cached: a table draws the same faces again and again)."""
    return "".join((f'<g class="card" data-card="{escape(code)}">',
                    rect(0, 0, w, h, "#fffdf7", highlight or "#555", 3 if highlight else 1), face(code, w, h), "</g>"))


def suit_face(rank: str, suit: str, w: float, h: float) -> str:
    """The face of a suited card (French or Tarot): rank and suit in the corner, a large pip in the middle."""
    s = w / CARD_W
    colour = SUIT_COLOUR.get(suit, "#333")
    symbol = SUIT_SYMBOL.get(suit, "?")
    return (label(5 * s, 17 * s, rank, 14 * s, colour, anchor="start")
            + label(5 * s, 31 * s, symbol, 13 * s, colour, anchor="start")
            + label(w * 0.58, h * 0.72, symbol, 30 * s, colour))


def star_face(word: str, w: float, h: float) -> str:
    """The face of a special card (the Joker, the Fool): a star and its name."""
    s = w / CARD_W
    return (rect(3, 3, w - 6, h - 6, "#f3e5f5", "#8e24aa") + label(w / 2, h * 0.48, "\u2605", 26 * s, "#8e24aa")
            + label(w / 2, h * 0.82, word, 11 * s, "#6a1b9a"))


def defs() -> str:
    """The ``<defs>`` every drawing with card backs needs (the back's pattern)."""
    return ('<defs><pattern id="motley-back" width="8" height="8" patternUnits="userSpaceOnUse">'
            '<rect width="8" height="8" fill="#24508f"/><path d="M0 8L8 0" stroke="#7aa2e0" stroke-width="1.2"/>'
            "</pattern></defs>")


def card_row(codes: Sequence[str], face: Face, x: float, y: float, max_width: float, w: float = CARD_W,
             h: float = CARD_H, highlight: Sequence[str | None] | None = None) -> str:
    """Cards side by side from (x, y), overlapping when they would not fit in ``max_width``."""
    if not codes:
        return ""
    step = min(w + 6, (max_width - w) / max(1, len(codes) - 1)) if len(codes) > 1 else 0
    return "".join(card_face(code, face, x + i * step, y, w, h, highlight[i] if highlight else None)
                   for i, code in enumerate(codes))


def move_svg(move: str, codes: frozenset[str], face: Face, w: float = 34) -> str | None:
    """Small cards for a move string made of card codes (``"9S 9H"``); ``None`` for a move with no card.

    Words that are not card codes (``give`` in ``give 7S``) are drawn as text before the cards, so buttons
    never need a typed code.
    """
    words = move.split()
    cards = [word for word in words if word.upper() in codes]
    if not cards:
        return None
    h = w * CARD_H / CARD_W
    words_before = [word for word in words if word.upper() not in codes]
    label_w = 9 * sum(len(word) + 1 for word in words_before)
    width = label_w + len(cards) * (w + 3)
    body = [label(0, h * 0.6, " ".join(words_before), 13, "#222", anchor="start")] if words_before else []
    body += [card_face(c, face, label_w + i * (w + 3), 0, w, h) for i, c in enumerate(cards)]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{h:.0f}" '
            f'viewBox="0 0 {width:.0f} {h:.0f}">{"".join(body)}</svg>')


# ---- the table ------------------------------------------------------------------------------------------
#: An observation as the drawings read it (the core's :data:`motley.core.game.Observation`; each game's own
#: ``TypedDict`` is one).
Observation = Mapping[str, Any]


def text(x: float, y: float, words: str, size: float = 14, fill: str = "#f5f5f5", anchor: str = "start",
         weight: str = "normal") -> str:
    """One line of SVG text (escaped)."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" fill="{fill}" text-anchor="{anchor}" '
            f'font-weight="{weight}" {FONT}>{escape(words)}</text>')


def frame(height: int, body: Sequence[str], title: str) -> str:
    """The outer ``<svg>`` with the felt background."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="motley-table" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}">{defs()}'
            f'<rect width="{WIDTH}" height="{height}" rx="18" fill="#1f5f3a"/>'
            f'<rect x="8" y="8" width="{WIDTH - 16}" height="{height - 16}" rx="14" fill="none" '
            f'stroke="#2f7d4f" stroke-width="3"/>{text(20, 30, title, 16, "#e8f5e9", weight="bold")}'
            f'{"".join(body)}</svg>')


def names_of(obs: Observation) -> list[str] | None:
    """The players' names a drawing may show: ``obs["names"]`` when whoever draws added one name per seat
    (a replay of a table), else None (the drawings then say "Seat N")."""
    names = obs.get("names")
    players = obs.get("players")
    if isinstance(names, list) and all(isinstance(n, str) for n in names) and (
            not isinstance(players, int) or len(names) == players):
        return names
    return None


def seat_name(seat: int, viewer: int | None, names: Sequence[str] | None = None) -> str:
    """``"You"`` for the viewer's own seat, else the seat's name (``names``) or ``"Seat N"``."""
    if viewer is not None and seat == viewer:
        return "You"
    if names is not None:
        return names[seat]
    return f"Seat {seat}"


def seat_positions(players: int, viewer: int | None, cx: float = WIDTH / 2, cy: float = 250,
                   rx: float = 380, ry: float = 190) -> list[tuple[float, float]]:
    """Where each seat sits: the viewer (or seat 0) at the bottom, the others clockwise around the oval."""
    base = 0 if viewer is None else viewer
    out = [(0.0, 0.0)] * players
    for seat in range(players):
        k = (seat - base) % players
        a = math.pi / 2 + 2 * math.pi * k / players
        out[seat] = (cx + rx * math.cos(a), cy + ry * math.sin(a))
    return out


def seat_colour(seat: int) -> str:
    """The colour of a seat (its cards' borders, its name)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def seat_plate(x: float, y: float, width: float, height: float, seat: int, turn: bool) -> str:
    """The plate a seat's facts sit on, centred at (x, y), outlined in the seat's colour (yellow on its turn)."""
    stroke, stroke_width = ("#ffeb3b", 3) if turn else (seat_colour(seat), 2)
    return (f'<rect x="{x - width / 2:.0f}" y="{y - height / 2:.0f}" width="{width:.0f}" height="{height:.0f}" '
            f'rx="10" fill="#14452a" stroke="{stroke}" stroke-width="{stroke_width}"/>')


def hand_strip(obs: Observation, face: Face, y: float) -> str:
    """The viewer's own hand along the bottom (nothing for a spectator)."""
    hand = obs.get("hand")
    if not hand:
        return ""
    return text(30, y - 8, f"your hand ({len(hand)})", 13, "#c8e6c9") + card_row(list(hand), face, 30, y, 900)


