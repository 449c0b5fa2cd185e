"""What decided a match of The Fool's Errand, for reports (``motley compare``'s "the Joker decides").

*The Joker decides* when taking away the points each player scooped with a Joker (a ``scoop`` event right
after that player's Joker ``play``/``reveal``, FE-R8) would change the result (A wins / B wins / draw). A
counterfactual on points only: without the Joker those cards would have stayed in play, so this measures how
much of the margin the Jokers carried. Reads only the final observation's public log and the scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from motley.core import Observation


def _result(a: float, b: float) -> int:
    return (a > b) - (a < b)


def joker_decides(obs: Observation, scores: Sequence[int]) -> bool:
    """Taking away the points scooped by Jokers changes the result (module docstring)."""
    log: list[dict[str, Any]] = obs["log"]
    joker_points = [0, 0]
    for i, event in enumerate(log):
        if event["event"] != "scoop":
            continue
        j = i - 1
        by_joker = False
        while j >= 0 and log[j]["event"] in ("play", "reveal"):
            if log[j]["card"] == "JK" and log[j]["seat"] == event["seat"]:
                by_joker = True
            if log[j]["event"] == "play":
                break
            j -= 1
        if by_joker:
            joker_points[event["seat"]] += int(event["scale"])  # a scoop event's "scale" holds its points
    a, b = scores
    return _result(a, b) != _result(a - joker_points[0], b - joker_points[1])
