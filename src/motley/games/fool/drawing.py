"""SVG of Fool!, drawn from one observation: the trick in the middle, each seat with its hand size and score,
the Fool discs, your hand; and the faces of the Fool! pack (four colours and the wild 1)."""

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
    text,
)

FOOL_COLOURS = {"G": "#2e7d32", "R": "#c62828", "Y": "#d4a106", "B": "#1565c0"}


def face(code: str, w: float, h: float) -> str:
    """A card of the Fool! pack: a colour band with its value, or the four-colour wild 1 (``"W1"``)."""
    s = w / CARD_W
    if code == "W1":
        bands = "".join(rect(4 + i * (w - 8) / 4, 4, (w - 8) / 4, h - 8, col, col)
                        for i, col in enumerate(FOOL_COLOURS.values()))
        return bands + label(w / 2, h * 0.62, "1", 30 * s, "#fff") + label(w / 2, h * 0.9, "wild", 9 * s, "#fff")
    colour = FOOL_COLOURS.get(code[:1], "#777")
    value = code[1:]
    return (rect(4, 4, w - 8, h - 8, colour, colour) + label(w / 2, h * 0.62, value, 28 * s, "#fff")
            + label(7 * s, 17 * s, value, 11 * s, "#fff", anchor="start"))


def draw(obs: Observation) -> str:
    """Fool!: the trick in the middle, each seat with its hand size and score, the Fool discs, your hand."""
    n = int(obs["players"])
    viewer = obs.get("seat")
    who = names_of(obs)
    pos = seat_positions(n, viewer, ry=150, cy=215)
    body: list[str] = []
    discs = set(obs.get("discs", []))
    for seat, (x, y) in enumerate(pos):
        colour = seat_colour(seat)
        body.append(seat_plate(x, y, 140, 52, seat, obs["current_player"] == seat))
        label = seat_name(seat, viewer, who) + (" (dealer)" if obs.get("dealer") == seat else "")
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
    body.append(text(WIDTH / 2, 150, f"round {obs['round_number']} - trick" + (f" (lead {lead})" if lead else ""), 14,
                     "#c8e6c9", "middle"))
    plays = trick.get("plays", [])
    if plays:
        width = min(len(plays) * (CARD_W + 8), 600)
        x0 = WIDTH / 2 - width / 2
        body.append(card_row([p["card"] for p in plays], face, x0, 165, width,
                             highlight=[SEAT_COLOURS[int(p["seat"]) % 8] for p in plays]))
        for i, p in enumerate(plays):
            step = min(CARD_W + 6, (width - CARD_W) / max(1, len(plays) - 1)) if len(plays) > 1 else 0
            body.append(text(x0 + i * step + CARD_W / 2, 265, seat_name(int(p["seat"]), viewer, who), 10, "#e8f5e9",
                             "middle"))
    last = obs.get("last_round")
    if last:
        body.append(text(WIDTH / 2, 290, f"round {last['round_number']}: " + ", ".join(
            f"{seat_name(s, viewer, who)} {v:+d}" for s, v in enumerate(last["scores"])), 12, "#fff59d", "middle"))
    if obs.get("terminal"):
        winners = obs.get("winners") or []
        won = ", ".join(seat_name(int(w), viewer, who) for w in winners)
        body.append(text(WIDTH / 2, 310, f"Match over - winner: {won}", 20, "#ffeb3b", "middle", "bold"))
    if obs.get("deck_table_assumed"):
        body.append(text(WIDTH - 20, 30, "deck table assumed (FL-D1)", 11, "#a5d6a7", "end"))
    body.append(hand_strip(obs, face, 430))
    return frame(540, body, "Fool!")
