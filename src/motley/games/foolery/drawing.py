"""SVG of Foolery, drawn from one observation: the climbing pile (top play) in the middle, titles, places,
passes, the exchange, your hand; and the faces of the Tarot pack (suits with the Cavalier, trumps, the Fool)."""

from __future__ import annotations

from motley.core.svg import (
    CARD_W,
    SEAT_COLOURS,
    WIDTH,
    Observation,
    card_row,
    frame,
    hand_strip,
    label,
    names_of,
    rect,
    seat_colour,
    seat_name,
    seat_plate,
    seat_positions,
    star_face,
    suit_face,
    text,
)
from motley.games.foolery.cards import ROMAN


def face(code: str, w: float, h: float) -> str:
    """A Tarot face: a suit card (``"CH"`` the Cavalier of hearts), a trump (``"XXI"``) or the Fool."""
    if code == "FOOL":
        return star_face("FOOL", w, h)
    s = w / CARD_W
    if code in ROMAN:
        return (rect(3, 3, w - 6, h - 6, "#fff3e0", "#e65100")
                + label(5 * s, 16 * s, code, 11 * s, "#bf360c", anchor="start")  # corner index
                + label(w / 2, h * 0.62, code, (20 if len(code) < 4 else 15) * s, "#bf360c")
                + label(w / 2, h * 0.85, "trump", 8 * s, "#e65100", weight="normal"))
    rank = code[:-1]
    out = suit_face(rank, code[-1:], w, h)
    if rank == "C":
        out += label(w - 4 * s, h - 6 * s, "cav.", 8 * s, "#1b1b1b" if code[-1] in "CS" else "#c62828", anchor="end",
                     weight="normal")
    return out


def draw(obs: Observation) -> str:
    """Foolery: the climbing pile (top play) in the middle, titles, places, passes, the exchange, your hand."""
    n = len(obs["hand_sizes"])
    viewer = obs.get("seat")
    who = names_of(obs)
    pos = seat_positions(n, viewer, ry=150, cy=215)
    body: list[str] = []
    titles = obs.get("titles") or [None] * n
    places = obs.get("places") or [None] * n
    passed = set(obs.get("passed", []))
    for seat, (x, y) in enumerate(pos):
        colour = seat_colour(seat)
        body.append(seat_plate(x, y, 150, 56, seat, obs["current_player"] == seat))
        title = f" - {titles[seat]}" if titles[seat] else ""
        body.append(text(x, y - 10, seat_name(seat, viewer, who) + title, 13, colour, "middle", "bold"))
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
        line = ", ".join(f"{seat_name(q, viewer, who)} {p:+d}" for q, p in enumerate(last["points"]))
        body.append(text(WIDTH / 2, 300, f"last hand: {line}", 12, "#fff59d", "middle"))
    table = obs.get("table")
    if phase == "exchange":
        steps = obs.get("exchange", {}).get("steps", [])
        for i, st in enumerate(steps[:5]):
            giver = seat_name(int(st["giver"]), viewer, who)
            line = (f"{giver} give{'' if giver == 'You' else 's'} {st['cards']} ({st['rule']}) to "
                    f"{seat_name(int(st['receiver']), viewer, who)}: {st['given']}/{st['cards']} given")
            body.append(text(WIDTH / 2, 170 + 20 * i, line, 13, "#fff", "middle"))
        mine = obs.get("exchange", {})
        if mine.get("gave") or mine.get("received"):
            body.append(text(WIDTH / 2, 280, f"you gave {' '.join(mine.get('gave', []))} - you received "
                             f"{' '.join(mine.get('received', []))}", 12, "#fff59d", "middle"))
    elif table:
        cards = str(table["cards"]).split()
        width = min(len(cards) * (CARD_W + 6), 420)
        body.append(card_row(cards, face, WIDTH / 2 - width / 2, 160, width,
                             highlight=[SEAT_COLOURS[int(table["seat"]) % 8]] * len(cards)))
        top = seat_name(int(table["seat"]), viewer, who)
        body.append(text(WIDTH / 2, 262, f"top play by {top} ({table['kind']})", 12, "#e8f5e9", "middle"))
    else:
        body.append(text(WIDTH / 2, 200, "(the pile is empty: the leader plays anything)", 13, "#a5d6a7", "middle"))
    if obs.get("terminal"):
        order = obs.get("finishing_order", [])
        scores = obs.get("scores", [])
        best = max(range(n), key=lambda s: scores[s]) if scores else 0
        finish = ", ".join(seat_name(int(q), viewer, who) for q in order)
        body.append(text(WIDTH / 2, 300, f"Match over - {seat_name(best, viewer, who)} leads with {scores[best]} points"
                         + (f"; last hand finished {finish}" if order else ""), 18, "#ffeb3b", "middle", "bold"))
    body.append(hand_strip(obs, face, 430))
    return frame(540, body, "Foolery")
