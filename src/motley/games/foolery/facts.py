"""What decided a match of Foolery, for reports (``motley compare``'s "the Fool decides").

*The Fool decides the final hand* when, in the last hand of the match, the seat that played the Fool (FY-R9)
finished first (King), or a seat was stuck with only the Fool and made Peasant (FY-D13). Only the last hand's
log is in the final observation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from motley.core import Observation


def fool_decides(obs: Observation, scores: Sequence[int]) -> bool:
    """In the last hand the Fool's player came first, or a seat was stuck with the Fool."""
    places: list[int | None] = obs.get("places") or []
    for event in obs.get("log") or []:
        if event["event"] == "stuck":
            return True
        if event["event"] == "play" and "FOOL" in str(event["cards"]).split():
            seat = event["seat"]
            if 0 <= seat < len(places) and places[seat] == 0:
                return True
    return False


def end_reason(state: Any) -> str:
    """Why the finished match ``state`` ended (FY-D22, FY-D27), one sentence with seats as ``{seat N}``: a total
    at the target score ("{seat 2} reached 30 points.") or the last hand of the match played."""
    game = state.game
    if game.params["match_end"] == "target":
        target = game.params["target_score"]
        reached = [f"{{seat {s}}} reached {t} point{'' if t == 1 else 's'}" for s, t in enumerate(state.totals)
                   if t >= target]
        if reached:
            return " and ".join(reached) + "."
    hands = game.hands_total
    return "The hand has been played." if hands == 1 else f"The last hand has been played ({hands} of {hands})."
