"""SVG of The Fool's Errand, drawn from one observation (a seat's, or the spectator view): the scale as a
balance beam, the cards in play, each side's deck, Joker and pile; and the French card faces with the Joker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from motley.core.svg import (
    SEAT_COLOURS,
    WIDTH,
    Observation,
    card_back,
    card_face,
    card_row,
    frame,
    names_of,
    seat_name,
    star_face,
    suit_face,
    text,
)


def face(code: str, w: float, h: float) -> str:
    """A face of the French pack (``"10H"``) or the Joker (``"JK"``)."""
    if code == "JK":
        return star_face("JOKER", w, h)
    return suit_face(code[:-1], code[-1:], w, h)


def draw(obs: Observation) -> str:
    """The Fool's Errand: the scale as a balance beam, the cards in play, each side's deck, Joker and pile."""
    viewer = obs.get("seat")
    names = ("A", "B")
    bottom = 0 if viewer is None else int(viewer)
    top = 1 - bottom
    scale = int(obs["scale"])  # seat 0's (A's) point of view: positive means A is ahead (FE-R3)
    body: list[str] = []

    def side(seat: int, y: float) -> None:
        colour = SEAT_COLOURS[seat]
        named = names_of(obs)
        if named:  # a replay of a table: its players' names, and "you" for the viewer's own seat
            label = f"{names[seat]}: {named[seat]}" + (" (you)" if seat == viewer else "")
        else:
            label = f"{names[seat]} ({seat_name(seat, viewer)})" if viewer is not None else names[seat]
        body.append(text(40, y + 18, label, 18, colour, weight="bold"))
        if obs["current_player"] == seat:
            body.append(text(40, y + 40, "to move", 13, "#ffeb3b", weight="bold"))
        size = int(obs["deck_sizes"][seat])
        for k in range(min(3, size)):
            body.append(card_back(170 + 3 * k, y - 2 * k, 54, 76))
        body.append(text(200, y + 96, f"deck {size}", 12, "#e8f5e9", "middle"))
        joker = obs["jokers"][seat]
        body.append(text(300, y + 14, "Joker", 12, "#e8f5e9", "middle"))
        if joker == "deck":
            body.append(text(300, y + 40, "in deck", 12, "#c8e6c9", "middle"))
        else:
            body.append(card_face("JK", face, 273, y + 20, 54, 76, "#ffeb3b" if joker == "drawn" else None))
            body.append(text(300, y + 110, "drawn!" if joker == "drawn" else "set aside", 12, "#ffeb3b", "middle"))
        pile = obs["piles"][seat]
        body.append(text(420, y + 14, f"score pile: {len(pile)} cards", 13, "#e8f5e9"))
        body.append(text(420, y + 36, f"{obs['pile_points'][seat]} points", 20, "#fff", weight="bold"))
        if pile:
            body.append(card_row(list(pile[-8:]), face, 580, y, 340, 44, 62))

    side(top, 50)
    # the balance beam: A's end on the left, B's on the right; the beam tips down toward the side ahead
    cx, cy = WIDTH / 2, 235
    angle = max(-8.0, min(8.0, -scale * 0.5))
    body.append(f'<polygon points="{cx - 18},{cy + 40} {cx + 18},{cy + 40} {cx},{cy + 4}" fill="#a1887f"/>')
    body.append(f'<g transform="rotate({angle:.1f} {cx} {cy})">'
                f'<rect x="{cx - 300}" y="{cy - 6}" width="600" height="12" rx="6" fill="#d7ccc8"/>'
                f'<circle cx="{cx - 300}" cy="{cy}" r="16" fill="{SEAT_COLOURS[0]}"/>'
                f'<circle cx="{cx + 300}" cy="{cy}" r="16" fill="{SEAT_COLOURS[1]}"/>'
                f'{text(cx - 300, cy + 5, "A", 14, "#fff", "middle", "bold")}'
                f'{text(cx + 300, cy + 5, "B", 14, "#fff", "middle", "bold")}</g>')
    lead = "level" if scale == 0 else f"{abs(scale)} toward {'A' if scale > 0 else 'B'}"
    body.append(f'<g class="scale" data-scale="{scale}">'
                f'{text(cx, cy - 26, f"scale {lead}", 18, "#fff59d", "middle", "bold")}</g>')
    recent = [event_line(e, names) for e in obs.get("log", [])[-5:] if e.get("event") != "joker_back"]
    if recent:
        body.append(text(40, 562, "latest:", 12, "#a5d6a7"))
    for i, line in enumerate(recent[-4:]):
        body.append(text(100 + 215 * i, 562, line, 11, "#e8f5e9"))
    in_play = obs["in_play"]
    body.append(text(40, 300, "in play", 13, "#c8e6c9"))
    if in_play:
        body.append(card_row([e["card"] for e in in_play], face, 40, 308, 880,
                             highlight=[SEAT_COLOURS[int(e["seat"])] for e in in_play]))
    else:
        body.append(text(40, 340, "(no cards in play)", 13, "#a5d6a7"))
    side(bottom, 420)
    if obs.get("unclaimed"):
        body.append(text(WIDTH - 30, 30, f"unclaimed: {len(obs['unclaimed'])} cards", 13, "#e8f5e9", "end"))
    if obs.get("terminal"):
        a, b = obs["pile_points"]
        verdict = "a draw" if a == b else f"{'A' if a > b else 'B'} wins"
        body.append(text(cx, 300, f"Game over: A {a}, B {b} - {verdict}", 22, "#ffeb3b", "middle", "bold"))
    return frame(580, body, "The Fool's Errand")


def event_line(event: dict[str, Any], names: Sequence[str]) -> str:
    """One event of The Fool's Errand's public log (FE-R9 announcements) in a few words."""
    seat = event.get("seat")
    who = names[int(seat)] if isinstance(seat, int) and 0 <= seat < len(names) else ""
    kind, card = event.get("event"), event.get("card")
    if kind in ("play", "reveal"):
        return f"{who} {'reveals' if kind == 'reveal' else 'plays'} {card}, says {event.get('scale')}"
    if kind == "scoop":
        return f"{who} scoops {event.get('value')} cards ({event.get('scale')} points)"
    if kind == "set_aside":
        return f"{who} sets a Joker aside"
    if kind == "end":
        return "the decks are out"
    return f"{who} {kind}"
