"""SVG of single cards: faces for the three packs (rules/README.md card codes) and a back.

Every face is a ``<g data-card="CODE">`` so pages and tests can find which card is drawn. Pure functions
returning SVG text; sizes in SVG user units (pixels at scale 1).
"""

from __future__ import annotations

from functools import cache, lru_cache
from xml.sax.saxutils import escape

CARD_W = 60
CARD_H = 84

FRENCH_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
TAROT_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K")
ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI",
         "XVII", "XVIII", "XIX", "XX", "XXI")
SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
SUIT_COLOUR = {"C": "#1b1b1b", "S": "#1b1b1b", "D": "#c62828", "H": "#c62828"}
FOOL_COLOURS = {"G": ("#2e7d32", "green"), "R": ("#c62828", "red"), "Y": ("#d4a106", "yellow"),
                "B": ("#1565c0", "blue")}
FOOL_RANGES = {"G": 27, "R": 23, "Y": 21, "B": 15}


@cache
def card_codes(game: str) -> frozenset[str]:
    """Every card code of ``game``'s pack (rules/README.md): ``fools_errand``, ``fool`` or ``foolery``."""
    if game == "fools_errand":
        return frozenset([r + s for s in "CDHS" for r in FRENCH_RANKS] + ["JK"])
    if game == "fool":
        return frozenset([c + str(v) for c, top in FOOL_RANGES.items() for v in range(2, top + 1)] + ["W1"])
    if game == "foolery":
        return frozenset([r + s for s in "SHDC" for r in TAROT_RANKS] + list(ROMAN) + ["FOOL"])
    return frozenset()


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "#555", width: float = 1) -> str:
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{w * 0.1:.1f}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width:g}"/>')


def _text(x: float, y: float, text: str, size: float, fill: str, anchor: str = "middle", weight: str = "bold") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}" fill="{fill}" text-anchor="{anchor}" '
            f'font-weight="{weight}" font-family="DejaVu Sans, Arial, sans-serif">{escape(text)}</text>')


def card_back(x: float, y: float, w: float = CARD_W, h: float = CARD_H) -> str:
    """A face-down card at (x, y) (top-left corner)."""
    inner = _rect(x + 4, y + 4, w - 8, h - 8, "url(#motley-back)", "#f5f5f5")
    return f'<g class="card-back">{_rect(x, y, w, h, "#1a3d7c", "#0d2550")}{inner}</g>'


def card_face(code: str, game: str, x: float, y: float, w: float = CARD_W, h: float = CARD_H,
              highlight: str | None = None) -> str:
    """A face-up card ``code`` of ``game`` at (x, y); ``highlight`` colours its border (e.g. the seat colour)."""
    return f'<g transform="translate({x:.1f},{y:.1f})">{_face(code.upper(), game, w, h, highlight)}</g>'


@lru_cache(maxsize=4096)
def _face(code: str, game: str, w: float, h: float, highlight: str | None) -> str:
    """A card face at the origin (cached: a table draws the same faces again and again)."""
    x = y = 0.0
    parts = [f'<g class="card" data-card="{escape(code)}">',
             _rect(x, y, w, h, "#fffdf7", highlight or "#555", 3 if highlight else 1)]
    s = w / CARD_W
    if game == "fool":
        parts.append(_fool_face(code, x, y, w, h, s))
    elif code in ("JK", "FOOL"):
        parts.append(_rect(x + 3, y + 3, w - 6, h - 6, "#f3e5f5", "#8e24aa"))
        parts.append(_text(x + w / 2, y + h * 0.48, "\u2605", 26 * s, "#8e24aa"))
        parts.append(_text(x + w / 2, y + h * 0.82, "JOKER" if code == "JK" else "FOOL", 11 * s, "#6a1b9a"))
    elif code in ROMAN:
        parts.append(_rect(x + 3, y + 3, w - 6, h - 6, "#fff3e0", "#e65100"))
        parts.append(_text(x + 5 * s, y + 16 * s, code, 11 * s, "#bf360c", anchor="start"))  # corner index
        parts.append(_text(x + w / 2, y + h * 0.62, code, (20 if len(code) < 4 else 15) * s, "#bf360c"))
        parts.append(_text(x + w / 2, y + h * 0.85, "trump", 8 * s, "#e65100", weight="normal"))
    else:
        rank, suit = code[:-1], code[-1:]
        colour = SUIT_COLOUR.get(suit, "#333")
        symbol = SUIT_SYMBOL.get(suit, "?")
        parts.append(_text(x + 5 * s, y + 17 * s, rank, 14 * s, colour, anchor="start"))
        parts.append(_text(x + 5 * s, y + 31 * s, symbol, 13 * s, colour, anchor="start"))
        parts.append(_text(x + w * 0.58, y + h * 0.72, symbol, 30 * s, colour))
        if rank == "C":
            parts.append(_text(x + w - 4 * s, y + h - 6 * s, "cav.", 8 * s, colour, anchor="end", weight="normal"))
    parts.append("</g>")
    return "".join(parts)


def _fool_face(code: str, x: float, y: float, w: float, h: float, s: float) -> str:
    if code == "W1":
        bands = "".join(_rect(x + 4 + i * (w - 8) / 4, y + 4, (w - 8) / 4, h - 8, col, col)
                        for i, (col, _) in enumerate(FOOL_COLOURS.values()))
        return bands + _text(x + w / 2, y + h * 0.62, "1", 30 * s, "#fff") + \
            _text(x + w / 2, y + h * 0.9, "wild", 9 * s, "#fff")
    colour = FOOL_COLOURS.get(code[:1], ("#777", "?"))[0]
    value = code[1:]
    return (_rect(x + 4, y + 4, w - 8, h - 8, colour, colour)
            + _text(x + w / 2, y + h * 0.62, value, 28 * s, "#fff")
            + _text(x + 7 * s, y + 17 * s, value, 11 * s, "#fff", anchor="start"))


def defs() -> str:
    """The ``<defs>`` every drawing with card backs needs (the back's pattern)."""
    return ('<defs><pattern id="motley-back" width="8" height="8" patternUnits="userSpaceOnUse">'
            '<rect width="8" height="8" fill="#24508f"/><path d="M0 8L8 0" stroke="#7aa2e0" stroke-width="1.2"/>'
            "</pattern></defs>")


def card_row(codes: list[str], game: str, x: float, y: float, max_width: float, w: float = CARD_W,
             h: float = CARD_H, highlight: list[str | None] | None = None) -> str:
    """Cards side by side from (x, y), overlapping when they would not fit in ``max_width``."""
    if not codes:
        return ""
    step = min(w + 6, (max_width - w) / max(1, len(codes) - 1)) if len(codes) > 1 else 0
    out = []
    for i, code in enumerate(codes):
        colour = highlight[i] if highlight else None
        out.append(card_face(code, game, x + i * step, y, w, h, colour))
    return "".join(out)


@lru_cache(maxsize=8192)
def move_svg(game: str, move: str, w: float = 34) -> str | None:
    """Small cards for a move string made only of card codes (e.g. ``"9S 9H"``), ``None`` for other moves.

    A move like ``give 7S`` is drawn as its word plus the card, so buttons never need a typed code.
    """
    codes = card_codes(game)
    words = move.split()
    cards = [word for word in words if word.upper() in codes]
    if not cards:
        return None
    h = w * CARD_H / CARD_W
    words_before = [word for word in words if word.upper() not in codes]
    label_w = 9 * sum(len(word) + 1 for word in words_before)
    width = label_w + len(cards) * (w + 3)
    body = [_text(0, h * 0.6, " ".join(words_before), 13, "#222", anchor="start")] if words_before else []
    body += [card_face(c, game, label_w + i * (w + 3), 0, w, h) for i, c in enumerate(cards)]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{h:.0f}" '
            f'viewBox="0 0 {width:.0f} {h:.0f}">{"".join(body)}</svg>')
