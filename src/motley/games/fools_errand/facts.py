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
from motley.games.fools_errand.cards import IN_DECK


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


def end_reason(state: Any) -> str:
    """Why the finished match ``state`` ended (FE-D7), one sentence with seats as ``{seat N}``: the decks are
    empty (but for a Joker), or, where either deck ends the match, one player's deck is."""
    left = [len(deck) - (state.joker[s] == IN_DECK) for s, deck in enumerate(state.decks)]
    if state.game.either_deck_ends and any(left):
        empty = left.index(0)
        return f"{{seat {empty}}}'s deck is empty."
    return "The decks are empty."
