"""Heuristic Joker policy for The Fool's Errand (the only decision in the game, FE-R2, FE-R8).

Reasoning. Playing the Joker scoops every card in play (the *pot*) and also sends a set-aside Joker of
the opponent back into their deck (FE-D5), so it both wins points and denies the opponent's option.
Keeping it is worth roughly the pot it can take later: with many cards still to come that is about a
typical pot (~16 points); near the end it is worth little, because a Joker still set aside when the
decks run out scores nothing. Drawing (instead of playing a kept Joker) has one more upside: the drawn
card itself may bring the scale to exactly 0 and scoop (FE-R7), which we estimate from the unseen cards.

So the bot plays the Joker when ``pot (+ denial bonus) >= value of keeping``, where the value of keeping
is ``min(TYPICAL_POT, 2 * my cards left)`` plus the chance-weighted pot of the draw.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, cast

from motley.core import Game, Observation, State
from motley.core.search import SearchPolicy, roll_out_seats
from motley.games.fools_errand.cards import (
    CODE_INDEX,
    DRAW,
    IN_DECK,
    IS_ACE,
    KEEP_JOKER,
    PLAY_JOKER,
    PLAY_VALUE,
    POINTS,
    SET_ASIDE,
)

if TYPE_CHECKING:
    from motley.games.fools_errand.rules import FoolsErrandRules

TYPICAL_POT = 16
DENIAL_BONUS = 6


def _hit_chance(scale_for_me: int, seen: Iterable[int]) -> float:
    """Probability that the card I draw brings the scale (``scale_for_me``, from my side) to exactly 0 (FE-R4,
    FE-R7), the drawn card uniform over the cards not ``seen`` (in play or in a score pile)."""
    if scale_for_me >= 0:
        return 0.0  # a draw only moves the scale towards me
    seen = set(seen)
    unseen = [c for c in range(len(PLAY_VALUE)) if c not in seen]
    if not unseen:
        return 0.0
    need = -scale_for_me
    hits = sum(1 for c in unseen if (11 if IS_ACE[c] and need >= 11 else PLAY_VALUE[c]) == need)
    return hits / len(unseen)


def choose(legal: Sequence[int], scale_for_me: int, pot: int, opponent_set_aside: bool, mine: int,
           seen: Iterable[int]) -> int:
    """The heuristic's move (module docstring) from what the seat sees: the scale from its side, the points in
    play, whether the opponent's Joker is set aside, its own non-Joker cards left in its deck and the card ids in
    play or in a score pile."""
    if len(legal) == 1:
        return legal[0]
    now = pot + (DENIAL_BONUS if opponent_set_aside and pot > 0 else 0)
    keep = min(TYPICAL_POT, 2 * mine) + _hit_chance(scale_for_me, seen) * (pot + 5)
    if now >= keep and pot > 0:
        return PLAY_JOKER
    return DRAW if DRAW in legal else KEEP_JOKER


def heuristic(game: Game, observation: Observation, legal: Sequence[int], rng: random.Random) -> int:
    """Play the Joker when the pot is worth more than keeping it (see the module docstring)."""
    if len(legal) == 1:
        return legal[0]
    me = int(observation["seat"])
    in_play = [CODE_INDEX[e["card"]] for e in observation["in_play"]]
    seen = in_play + [CODE_INDEX[c] for pile in observation["piles"] for c in pile]
    mine = int(observation["deck_sizes"][me]) - int(observation["jokers"][me] == "deck")
    return choose(legal, int(observation["scale_for_you"]), sum(POINTS[c] for c in in_play),
                  observation["jokers"][1 - me] == "set_aside", mine, seen)


def move(state: State) -> int:
    """The heuristic for the seat to move of a full state, from what that seat sees of it (as :func:`heuristic`)."""
    rules = cast("FoolsErrandRules", state)  # not isinstance: an ABC check is slow here
    legal = rules.legal_actions()
    if len(legal) == 1:
        return legal[0]
    me = rules.to_move
    in_play = [t & 63 for t in rules.table]
    mine = len(rules.decks[me]) - int(rules.joker[me] == IN_DECK)
    return choose(legal, rules.scale if me == 0 else -rules.scale, sum(POINTS[c] for c in in_play),
                  rules.joker[1 - me] == SET_ASIDE, mine, in_play + rules.piles[0] + rules.piles[1])


def rollout(state: State, rng: random.Random, epsilon: float) -> None:
    """Play a state to the end of the match with :func:`move`, a uniformly random move with probability
    ``epsilon`` (every seat alike: :func:`motley.core.search.roll_out_seats`)."""
    roll_out_seats(state, rng, move, [epsilon] * state.game.num_players)


#: The heuristic on full states, for the model of each seat learned from play (``GameSpec.model_policy``; the
#: search's own rollouts stay random here: ``GameSpec.search_policy`` is None).
MODEL_POLICY = SearchPolicy(move=move, rollout=rollout)
