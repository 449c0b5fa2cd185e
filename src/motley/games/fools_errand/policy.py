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
from collections.abc import Sequence

from motley.core import Game, Observation
from motley.games.fools_errand.cards import CODE_INDEX, DRAW, IS_ACE, KEEP_JOKER, PLAY_JOKER, PLAY_VALUE, POINTS

TYPICAL_POT = 16
DENIAL_BONUS = 6


def _non_joker_left(observation: Observation, seat: int) -> int:
    in_deck = int(observation["jokers"][seat] == "deck")
    return int(observation["deck_sizes"][seat]) - in_deck


def _hit_chance(observation: Observation) -> float:
    """Probability that the card I draw brings the scale to exactly 0 (FE-R4, FE-R7)."""
    x = int(observation["scale_for_you"])
    if x >= 0:
        return 0.0  # a draw only moves the scale towards me
    seen = {e["card"] for e in observation["in_play"]}
    for pile in observation["piles"]:
        seen.update(pile)
    unseen = [c for code, c in CODE_INDEX.items() if code not in seen]
    if not unseen:
        return 0.0
    need = -x
    hits = sum(1 for c in unseen if (11 if IS_ACE[c] and need >= 11 else PLAY_VALUE[c]) == need)
    return hits / len(unseen)


def heuristic(game: Game, observation: Observation, legal: Sequence[int], rng: random.Random) -> int:
    """Play the Joker when the pot is worth more than keeping it (see the module docstring)."""
    if len(legal) == 1:
        return legal[0]
    me = int(observation["seat"])
    pot = sum(POINTS[CODE_INDEX[e["card"]]] for e in observation["in_play"])
    now = pot + (DENIAL_BONUS if observation["jokers"][1 - me] == "set_aside" and pot > 0 else 0)
    mine = _non_joker_left(observation, me)
    keep = min(TYPICAL_POT, 2 * mine) + _hit_chance(observation) * (pot + 5)
    if now >= keep and pot > 0:
        return PLAY_JOKER
    return DRAW if DRAW in legal else KEEP_JOKER
