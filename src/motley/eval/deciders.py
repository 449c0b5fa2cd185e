"""Per-game facts of a finished match that need a little game knowledge: rounds, and "did the special card decide?".

Everything here reads only ``state.observation(0)`` of the *final* state (its public part: every
field used is the same from every seat) plus ``state.scores()`` (built once per game, see
:func:`final_facts`), so the eval layer never reaches into a
game's internals (DESIGN.md, Layers).

**The special card decides** (the "how often the Fool or a Joker decides" figure of ``motley compare``):

* ``fools_errand`` -- *the Joker decides* when taking away the points each player scooped with a Joker
  (a ``scoop`` event right after that player's Joker ``play``/``reveal``, FE-R8) would change the
  result (A wins / B wins / draw). A counterfactual on points only: without the Joker those cards would
  have stayed in play, so this measures how much of the margin the Jokers carried.
* ``fool`` -- *the Fool decides* when, in the final round, a player who went out was fooled in the
  final trick (FL-R13: 0 instead of +10) and giving those players their +10 would change the set of
  match winners (the seats with the highest total). Only the final round is visible in the final
  observation, so earlier rounds are not counted.
* ``foolery`` -- *the Fool decides the final hand* when, in the last hand of the match, the seat that
  played the Fool (FY-R9) finished first (King), or a seat was stuck with only the Fool and made
  Peasant (FY-D13). Only the last hand's log is in the final observation.

Extension point: register a function for a new game with :func:`register_decider`; a game without one
gets ``None`` (no figure) from :func:`special_decides`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from motley.core import MotleyError, Observation, State

#: ``fn(final observation, final scores) -> bool``; registered per game name with the card's label.
Decider = Callable[[Observation, Sequence[int]], bool]
_DECIDERS: dict[str, tuple[str, Decider]] = {}


def register_decider(game_name: str, label: str) -> Callable[[Decider], Decider]:
    """Decorator: ``fn(final_observation, scores) -> bool`` says whether ``label`` ("Joker") decided the match."""

    def wrap(fn: Decider) -> Decider:
        _DECIDERS[game_name] = (label, fn)
        return fn

    return wrap


def special_label(game_name: str) -> str | None:
    """The special card whose decisive matches are counted ("Joker", "Fool"), or None for no definition."""
    entry = _DECIDERS.get(game_name)
    return entry[0] if entry else None


def final_facts(state: State) -> tuple[int, bool | None]:
    """``(rounds_played, special_decides)`` of a finished match, from one final observation.

    Raises:
        MotleyError: if ``state`` is not terminal.
    """
    if not state.is_terminal():
        raise MotleyError("these figures are defined for finished matches only")
    obs = state.observation(0)
    entry = _DECIDERS.get(state.game.name)
    special = None if entry is None else bool(entry[1](obs, state.scores()))
    return rounds_played(state, obs), special


def special_decides(state: State) -> bool | None:
    """Whether the game's special card decided this finished match; None when the game defines no figure.

    Raises:
        MotleyError: if ``state`` is not terminal.
    """
    return final_facts(state)[1]


def rounds_played(state: State, obs: Observation | None = None) -> int:
    """Deals (rounds, hands) played in the match: from the final observation's ``round`` (Fool!) or
    ``hand_number`` (Foolery), else ``state.deal_number() + 1`` (1 for a game of one deal)."""
    obs = state.observation(0) if obs is None else obs
    for key in ("round", "hand_number"):
        value = obs.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return state.deal_number() + 1


def _winners(points: Sequence[float]) -> frozenset[int]:
    best = max(points)
    return frozenset(i for i, p in enumerate(points) if p == best)


def _result(a: float, b: float) -> int:
    return (a > b) - (a < b)


@register_decider("fools_errand", "Joker")
def joker_decides(obs: Observation, scores: Sequence[int]) -> bool:
    """fools_errand: taking away the points scooped by Jokers changes the result (module docstring)."""
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


@register_decider("fool", "Fool")
def fool_decides(obs: Observation, scores: Sequence[int]) -> bool:
    """fool: the +10 lost by players fooled while going out in the final round would change the winners."""
    last = obs.get("last_round") or {}
    fooled: list[int] = list(last.get("went_out_fooled") or [])
    if not fooled:
        return False
    totals = list(obs["scores"])
    changed = [t + (10 if seat in fooled else 0) for seat, t in enumerate(totals)]
    return _winners(totals) != _winners(changed)


@register_decider("foolery", "Fool")
def foolery_fool_decides(obs: Observation, scores: Sequence[int]) -> bool:
    """foolery: in the last hand the Fool's player came first, or a seat was stuck with the Fool."""
    places: list[int | None] = obs.get("places") or []
    for event in obs.get("log") or []:
        if event["event"] == "stuck":
            return True
        if event["event"] == "play" and "FOOL" in str(event["cards"]).split():
            seat = event["seat"]
            if 0 <= seat < len(places) and places[seat] == 0:
                return True
    return False
