"""The Fool's Errand (2 players): a tug-of-war on a shared scale; the Joker is the only decision.

The package, by what changes together:

* ``cards.py`` -- the pack: card ids and codes, play values and points, the three moves, where a Joker
  is, the log's events, and the typed aliases ``Card``, ``Action``, ``Seat``;
* ``rules.py`` -- the game (options, deals) and its State's rules: every FE-R / FE-D id of
  rules/fools-errand.md lives there once (reveals, the automatic plays, the Joker, scoops, the end, scores);
* ``observe.py`` -- what a seat sees: the observation dict, the observation tensor, and reading an
  observation back into a state (``FoolsErrandState.observation`` and ``observation_tensor`` call it);
* ``sample.py`` -- the determinizer: worlds consistent with an observation, for search
  (``FoolsErrand.sample_state`` calls it);
* ``features.py`` -- the action features of the RL environments (``SPEC.action_features``);
* ``policy.py`` -- the heuristic Joker policy (the ``heuristic`` bot);
* ``views.py`` -- the terminal view and log; ``drawing.py`` -- SVG of the table and the card faces;
* ``facts.py`` -- what decided a match ("the Joker decides"), for reports.

``SPEC`` is what the rest of motley knows of the game (:class:`motley.core.spec.GameSpec`).
"""

from motley.core.registry import register_spec
from motley.core.spec import GameSpec
from motley.games.fools_errand import cards, chance, drawing, facts, features, observe, policy, views
from motley.games.fools_errand.cards import CODES
from motley.games.fools_errand.game import FoolsErrand, FoolsErrandState

SPEC = register_spec(GameSpec(
    game=FoolsErrand,
    card_codes=frozenset(CODES),
    deal_model=chance.FoolsErrandDeals,
    observation_type=observe.FoolsErrandObservation,
    private_fields=(),  # everything in its observation is public (the decks never appear in it)
    public_move=lambda move: True,  # draw / play joker / keep joker are all seen (FE-R2, FE-R8)
    heuristic=policy.heuristic,
    model_policy=policy.MODEL_POLICY,
    special_card="Joker",
    decider=facts.joker_decides,
    terminal_view=views.render,
    log_lines=views.log_lines,
    drawing=drawing.draw,
    card_face=drawing.face,
    action_features=features.action_features,
    card_info=cards.card_info,
    end_reason=facts.end_reason,
    shown_steps=observe.shown_steps,
    tensor_layout=observe.tensor_layout,
    how_to_play=views.HOW_TO_PLAY,
    summary=views.SUMMARY,
    usual_players=2,
    typical_match=views.TYPICAL_MATCH,
    sample_moves=1,
    match_options=("end_when",),
))

__all__ = ["SPEC", "FoolsErrand", "FoolsErrandState"]
