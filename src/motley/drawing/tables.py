"""SVG of a whole table, drawn from one observation (a seat's information state or the spectator view).

``render(observation)`` picks the game's drawing from ``observation["game"]``; a spectator view has
``seat`` set to ``None`` and no private fields. Drawings use only the observation, so they can never show
more than the viewer may see.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any
from xml.sax.saxutils import escape

from motley.drawing.cards import CARD_W, card_back, card_face, card_row, defs

WIDTH = 960
SEAT_COLOURS = ("#1e88e5", "#fb8c00", "#43a047", "#8e24aa", "#e53935", "#00897b", "#6d4c41", "#3949ab")
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'

Observation = dict[str, Any]


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


def seat_name(seat: int, viewer: int | None, names: Sequence[str] | None = None) -> str:
    """``"You"`` for the viewer's own seat, else the seat's name (``names``) or ``"Seat N"``."""
    if viewer is not None and seat == viewer:
        return "You"
    if names is not None:
        return names[seat]
    return f"Seat {seat}"


# ---- The Fool's Errand ----------------------------------------------------------------------------------
def fools_errand(obs: Observation) -> str:
    """The Fool's Errand: the scale as a balance beam, the cards in play, each side's deck, Joker and pile."""
    viewer = obs.get("seat")
    names = ("A", "B")
    bottom = 0 if viewer is None else int(viewer)
    top = 1 - bottom
    scale = int(obs["scale"])  # seat 0's (A's) point of view: positive means A is ahead (FE-R3)
    body: list[str] = []

    def side(seat: int, y: float) -> None:
        colour = SEAT_COLOURS[seat]
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
            body.append(card_face("JK", "fools_errand", 273, y + 20, 54, 76, "#ffeb3b" if joker == "drawn" else None))
            body.append(text(300, y + 110, "drawn!" if joker == "drawn" else "set aside", 12, "#ffeb3b", "middle"))
        pile = obs["piles"][seat]
        body.append(text(420, y + 14, f"score pile: {len(pile)} cards", 13, "#e8f5e9"))
        body.append(text(420, y + 36, f"{obs['pile_points'][seat]} points", 20, "#fff", weight="bold"))
        if pile:
            body.append(card_row(list(pile[-8:]), "fools_errand", 580, y, 340, 44, 62))

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
        body.append(card_row([e["card"] for e in in_play], "fools_errand", 40, 308, 880,
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


# ---- seats around an oval (Fool!, Foolery) --------------------------------------------------------------
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


def hand_strip(obs: Observation, game: str, y: float) -> str:
    """The viewer's own hand along the bottom (nothing for a spectator)."""
    hand = obs.get("hand")
    if not hand:
        return ""
    return text(30, y - 8, f"your hand ({len(hand)})", 13, "#c8e6c9") + card_row(list(hand), game, 30, y, 900)


def fool(obs: Observation) -> str:
    """Fool!: the trick in the middle, each seat with its hand size and score, the Fool discs, your hand."""
    n = int(obs["players"])
    viewer = obs.get("seat")
    pos = seat_positions(n, viewer, ry=150, cy=215)
    body: list[str] = []
    discs = set(obs.get("discs", []))
    for seat, (x, y) in enumerate(pos):
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        turn = obs["current_player"] == seat
        body.append(f'<rect x="{x - 70:.0f}" y="{y - 26:.0f}" width="140" height="52" rx="10" fill="#14452a" '
                    f'stroke="{"#ffeb3b" if turn else colour}" stroke-width="{3 if turn else 2}"/>')
        label = seat_name(seat, viewer) + (" (dealer)" if obs.get("dealer") == seat else "")
        body.append(text(x, y - 8, label, 13, colour, "middle", "bold"))
        body.append(text(x, y + 10, f"{obs['hand_sizes'][seat]} cards - {obs['scores'][seat]} pts", 12,
                         "#e8f5e9", "middle"))
        if obs.get("bonus_counts") and obs["bonus_counts"][seat]:
            body.append(text(x, y + 22, f"+10 x{obs['bonus_counts'][seat]}", 10, "#fff59d", "middle"))
        if seat in discs:
            body.append(f'<g class="disc"><circle cx="{x + 80:.0f}" cy="{y - 12:.0f}" r="15" fill="#d81b60" '
                        f'stroke="#fff" stroke-width="2"/>{text(x + 80, y - 7, "F", 14, "#fff", "middle", "bold")}</g>')
    trick = obs["trick"]
    lead = trick.get("lead")
    body.append(text(WIDTH / 2, 150, f"round {obs['round']} - trick" + (f" (lead {lead})" if lead else ""), 14,
                     "#c8e6c9", "middle"))
    plays = trick.get("plays", [])
    if plays:
        width = min(len(plays) * (CARD_W + 8), 600)
        x0 = WIDTH / 2 - width / 2
        body.append(card_row([p["card"] for p in plays], "fool", x0, 165, width,
                             highlight=[SEAT_COLOURS[int(p["seat"]) % 8] for p in plays]))
        for i, p in enumerate(plays):
            step = min(CARD_W + 6, (width - CARD_W) / max(1, len(plays) - 1)) if len(plays) > 1 else 0
            body.append(text(x0 + i * step + CARD_W / 2, 265, seat_name(int(p["seat"]), viewer), 10, "#e8f5e9",
                             "middle"))
    last = obs.get("last_round")
    if last:
        body.append(text(WIDTH / 2, 290, f"round {last['round']}: " + ", ".join(
            f"{seat_name(s, viewer)} {v:+d}" for s, v in enumerate(last["scores"])), 12, "#fff59d", "middle"))
    if obs.get("terminal"):
        winners = obs.get("winners") or []
        who = ", ".join(seat_name(int(w), viewer) for w in winners)
        body.append(text(WIDTH / 2, 310, f"Match over - winner: {who}", 20, "#ffeb3b", "middle", "bold"))
    if obs.get("deck_table_assumed"):
        body.append(text(WIDTH - 20, 30, "deck table assumed (FL-D1)", 11, "#a5d6a7", "end"))
    body.append(hand_strip(obs, "fool", 430))
    return frame(540, body, "Fool!")


def foolery(obs: Observation) -> str:
    """Foolery: the climbing pile (top play) in the middle, titles, places, passes, the exchange, your hand."""
    n = len(obs["hand_sizes"])
    viewer = obs.get("seat")
    pos = seat_positions(n, viewer, ry=150, cy=215)
    body: list[str] = []
    titles = obs.get("titles") or [None] * n
    places = obs.get("places") or [None] * n
    passed = set(obs.get("passed", []))
    for seat, (x, y) in enumerate(pos):
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        turn = obs["current_player"] == seat
        body.append(f'<rect x="{x - 75:.0f}" y="{y - 28:.0f}" width="150" height="56" rx="10" fill="#14452a" '
                    f'stroke="{"#ffeb3b" if turn else colour}" stroke-width="{3 if turn else 2}"/>')
        title = f" - {titles[seat]}" if titles[seat] else ""
        body.append(text(x, y - 10, seat_name(seat, viewer) + title, 13, colour, "middle", "bold"))
        body.append(text(x, y + 7, f"{obs['hand_sizes'][seat]} cards - {obs['scores'][seat]} pts", 12,
                         "#e8f5e9", "middle"))
        status = f"out: place {places[seat] + 1}" if places[seat] is not None else ("passed" if seat in passed else "")
        if status:
            body.append(text(x, y + 22, status, 11, "#fff59d", "middle"))
    phase = obs.get("phase")
    total = obs.get("hands_total")
    number = min(int(obs.get("hand_number", 1)), int(total)) if total else int(obs.get("hand_number", 1))
    header = f"hand {number}" + (f" of {total}" if total else "")
    body.append(text(WIDTH / 2, 140, f"{header} - {phase}", 14, "#c8e6c9", "middle"))
    results = obs.get("hand_results") or []
    if results and phase != "over":
        last = results[-1]
        line = ", ".join(f"{seat_name(q, viewer)} {p:+d}" for q, p in enumerate(last["points"]))
        body.append(text(WIDTH / 2, 300, f"last hand: {line}", 12, "#fff59d", "middle"))
    table = obs.get("table")
    if phase == "exchange":
        steps = obs.get("exchange", {}).get("steps", [])
        for i, st in enumerate(steps[:5]):
            giver = seat_name(int(st["giver"]), viewer)
            line = (f"{giver} give{'' if giver == 'You' else 's'} {st['cards']} ({st['rule']}) to "
                    f"{seat_name(int(st['receiver']), viewer)}: {st['given']}/{st['cards']} given")
            body.append(text(WIDTH / 2, 170 + 20 * i, line, 13, "#fff", "middle"))
        mine = obs.get("exchange", {})
        if mine.get("gave") or mine.get("received"):
            body.append(text(WIDTH / 2, 280, f"you gave {' '.join(mine.get('gave', []))} - you received "
                             f"{' '.join(mine.get('received', []))}", 12, "#fff59d", "middle"))
    elif table:
        cards = str(table["cards"]).split()
        width = min(len(cards) * (CARD_W + 6), 420)
        body.append(card_row(cards, "foolery", WIDTH / 2 - width / 2, 160, width,
                             highlight=[SEAT_COLOURS[int(table["seat"]) % 8]] * len(cards)))
        body.append(text(WIDTH / 2, 262, f"top play by {seat_name(int(table['seat']), viewer)} ({table['kind']})", 12,
                         "#e8f5e9", "middle"))
    else:
        body.append(text(WIDTH / 2, 200, "(the pile is empty: the leader plays anything)", 13, "#a5d6a7", "middle"))
    if obs.get("terminal"):
        order = obs.get("finishing_order", [])
        scores = obs.get("scores", [])
        best = max(range(n), key=lambda s: scores[s]) if scores else 0
        finish = ", ".join(seat_name(int(q), viewer) for q in order)
        body.append(text(WIDTH / 2, 300, f"Match over - {seat_name(best, viewer)} leads with {scores[best]} points"
                         + (f"; last hand finished {finish}" if order else ""), 18, "#ffeb3b", "middle", "bold"))
    body.append(hand_strip(obs, "foolery", 430))
    return frame(540, body, "Foolery")


def generic(obs: Observation) -> str:
    """A plain drawing for a game without its own: the hand (if any) and the scores."""
    body = [text(30, 70, f"current player: {obs.get('current_player')}", 14)]
    if "scores" in obs:
        body.append(text(30, 95, f"scores: {obs['scores']}", 14))
    body.append(hand_strip(obs, str(obs.get("game", "")), 160))
    return frame(300, body, str(obs.get("game", "game")))


DRAWINGS: dict[str, Callable[[Observation], str]] = {"fools_errand": fools_errand, "fool": fool, "foolery": foolery}


def render(obs: Observation) -> str:
    """SVG text of the table as ``obs`` shows it (picks the drawing from ``obs["game"]``)."""
    return DRAWINGS.get(str(obs.get("game")), generic)(obs)



