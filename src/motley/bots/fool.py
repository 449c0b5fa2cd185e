"""Heuristic card play for Fool! (rules/fool.md).

Reasoning. A round ends when somebody plays their last card (FL-R12); everybody else then loses the
value of the cards still in hand, a W1 costing 5 (FL-R13), and the player who went out gets +10. So every
trick a player sits out (being the Fool, FL-R10) is a card they could not shed: not being the worst card
is what matters most. From the observation alone the bot reasons:

* **Safety.** A card is *safe* when at least as many cards already in the trick are worse than it as there
  are Fools this trick (FL-R9, FL-D3: a discard is worse than any lead-colour card, lower is worse, a tie
  goes against the later card -- which is ours). Players still to come can only add worse cards for us or
  better ones, so a safe card can never be fooled.
* **Following, safe.** Dump a W1 if it is safe (it is the lowest lead-colour card later and costs 5 at the
  end); otherwise play the lowest safe card, keeping high cards as protection for later tricks.
* **Following, at risk.** Play the highest lead-colour card (least likely to be the lowest).
* **Void.** A W1 counts as lead colour (FL-R7), so it beats every discard for safety: play it if a discard
  is not already safe. A safe discard sheds the highest-value card; an unsafe one does too (if we are fooled
  anyway, at least the most expensive card is gone).
* **Leading.** Lead the card with the fewest unseen higher cards of its colour (a card no unseen card beats
  cannot be the worst: everybody else plays lower or discards), preferring higher values on ties; a W1 is led
  only when nothing else is in hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from motley.bots.base import Bot, register_heuristic
from motley.core import Observation
from motley.games.fool import CODE_INDEX, COLOUR, COLOUR_LETTERS, COLOUR_NAMES, TOPS, VALUE, W1, W


def _badness(card: int, lead: int, index: int) -> int:
    """Smaller = worse (FL-R9, FL-D3, FL-D4); the same ranking the engine uses."""
    col = COLOUR[card]
    follows = col in (lead, W)
    return ((100 if follows else 0) + VALUE[card]) * 16 + 15 - index


def _unseen_higher(card: int, observation: Observation, gone: set[int]) -> int:
    """Cards of ``card``'s colour, higher than it, in the deck and neither in my hand nor played."""
    col = COLOUR[card]
    top = int(observation["deck"][COLOUR_LETTERS[col]])
    base = CODE_INDEX[f"{COLOUR_LETTERS[col]}2"]
    return sum(1 for v in range(VALUE[card] + 1, min(top, TOPS[col]) + 1) if base + v - 2 not in gone)


@register_heuristic("fool")
class FoolHeuristic(Bot):
    """Avoids the worst card, dumps W1s and low cards when safe, leads its strongest card (module docstring)."""

    name = "heuristic"

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        trick = observation["trick"]
        plays = [CODE_INDEX[p["card"]] for p in trick["plays"]]
        lead = -1 if trick["lead"] is None else COLOUR_NAMES.index(trick["lead"])
        if lead < 0:
            return self._lead(observation, legal_actions)
        fools = int(observation["num_fools"])
        me = len(plays)

        def worse_than(card: int) -> int:
            mine = _badness(card, lead, me)
            return sum(1 for i, c in enumerate(plays) if _badness(c, lead, i) < mine)

        safe = [a for a in legal_actions if worse_than(a) >= fools]
        following = [a for a in legal_actions if COLOUR[a] == lead]
        if following:
            if W1 in safe:
                return W1
            if safe:
                return min(safe, key=lambda a: VALUE[a])
            return max(following, key=lambda a: VALUE[a])
        discards = [a for a in legal_actions if a != W1]
        safe_discards = [a for a in safe if a != W1]
        if safe_discards:
            return max(safe_discards, key=lambda a: VALUE[a])
        if W1 in legal_actions:
            return W1
        return max(discards, key=lambda a: VALUE[a])

    def _lead(self, observation: Observation, legal_actions: Sequence[int]) -> int:
        coloured = [a for a in legal_actions if COLOUR[a] != W]
        if not coloured:
            return legal_actions[0]
        gone = {CODE_INDEX[c] for c in observation["hand"]}
        for t in observation["tricks"]:
            gone.update(CODE_INDEX[p["card"]] for p in t["plays"])
        gone.update(CODE_INDEX[p["card"]] for p in observation["trick"]["plays"])
        return min(coloured, key=lambda a: (_unseen_higher(a, observation, gone), -VALUE[a]))
