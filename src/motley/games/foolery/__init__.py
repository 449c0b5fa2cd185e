"""Foolery (Jared McComb), 3-7 players: a Tarot climbing game with trumps, the Fool, titles and card exchange.

The package, by what changes together:

* ``rules.py`` -- the game and its State: every FY-R / FY-D id of rules/foolery.md lives there once;
* ``policy.py`` -- the heuristic, written once: the ``heuristic`` bot and search rollouts both play it;
* ``views.py`` -- the terminal view and log; ``drawing.py`` -- SVG of the table and the card faces;
* ``facts.py`` -- what decided a match ("the Fool decides"), for reports.

``SPEC`` is what the rest of motley knows of the game (:class:`motley.core.spec.GameSpec`).
"""

from motley.core.registry import register_spec
from motley.core.spec import GameSpec
from motley.games.foolery import drawing, facts, policy, views
from motley.games.foolery.rules import CODES, Foolery, FooleryState


def _public_move(move: str) -> bool:
    """Every play and pass is seen; the cards given in the exchange are not (FY-R13)."""
    return not move.lower().startswith("give")


SPEC = register_spec(GameSpec(
    game=Foolery,
    card_codes=frozenset(CODES),
    private_fields=(("hand",), ("hand_groups",), ("exchange", "gave"), ("exchange", "received"),
                    ("exchange", "partner")),
    public_move=_public_move,
    heuristic=policy.heuristic,
    search_policy=policy.SEARCH_POLICY,
    special_card="Fool",
    decider=facts.fool_decides,
    terminal_view=views.render,
    log_lines=views.log_lines,
    drawing=drawing.draw,
    card_face=drawing.face,
))

__all__ = ["SPEC", "Foolery", "FooleryState"]
