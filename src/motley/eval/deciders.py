"""Facts of a finished match that need a little game knowledge: deals played, and "did the special card decide?".

Everything here reads only ``state.observation(0)`` of the *final* state (its public part: every field used
is the same from every seat) plus ``state.scores()`` (built once per game, see :func:`final_facts`), so the
eval layer never reaches into a game's internals (docs/design.md, Layers). What "the special card decides" means
is the game's own (its spec's ``special_card`` and ``decider``, in ``games/<name>/facts.py``); a game
without one gets ``None`` (no figure).
"""

from __future__ import annotations

from motley.core import MotleyError, State
from motley.core.registry import game_spec


def special_label(game_name: str) -> str | None:
    """The special card whose decisive matches are counted ("Joker", "Fool"), or None for no definition."""
    spec = game_spec(game_name)
    return spec.special_card if spec.decider is not None else None


def final_facts(state: State) -> tuple[int, bool | None]:
    """``(deals_played, special_decides)`` of a finished match, from one final observation.

    Raises:
        MotleyError: if ``state`` is not terminal.
    """
    if not state.is_terminal():
        raise MotleyError("these figures are defined for finished matches only")
    decider = game_spec(state.game.name).decider
    special = None if decider is None else bool(decider(state.observation(0), state.scores()))
    return deals_played(state), special


def special_decides(state: State) -> bool | None:
    """Whether the game's special card decided this finished match; None when the game defines no figure.

    Raises:
        MotleyError: if ``state`` is not terminal.
    """
    return final_facts(state)[1]


def deals_played(state: State) -> int:
    """Deals (rounds of Fool!, hands of Foolery) played in a finished match: ``state.deal_number() + 1``."""
    return state.deal_number() + 1
