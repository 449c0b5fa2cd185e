"""Fool! (Friedemann Friese), 4-8 players: tricks where the worst card takes the Fool disc and sits out.

The package, by what changes together:

* ``rules.py`` -- the game and its State: every FL-R / FL-D id of rules/fool.md lives there once;
* ``policy.py`` -- the heuristic, written once: the ``heuristic`` bot and search rollouts both play it;
* ``views.py`` -- the terminal view and log; ``drawing.py`` -- SVG of the table and the card faces;
* ``facts.py`` -- what decided a match ("the Fool decides"), for reports.

``SPEC`` is what the rest of motley knows of the game (:class:`motley.core.spec.GameSpec`).
"""

from motley.core.registry import register_spec
from motley.core.spec import GameSpec
from motley.games.fool import drawing, facts, policy, views
from motley.games.fool.rules import CODES, Fool, FoolState

SPEC = register_spec(GameSpec(
    game=Fool,
    card_codes=frozenset(CODES),
    private_fields=(("hand",),),
    public_move=lambda move: True,  # every card is played face up into the trick (FL-R6)
    heuristic=policy.heuristic,
    search_policy=policy.SEARCH_POLICY,
    special_card="Fool",
    decider=facts.fool_decides,
    terminal_view=views.render,
    log_lines=views.log_lines,
    drawing=drawing.draw,
    card_face=drawing.face,
))

__all__ = ["SPEC", "Fool", "FoolState"]
