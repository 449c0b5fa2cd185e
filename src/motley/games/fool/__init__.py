"""Fool! (Friedemann Friese), 4-8 players: tricks where the worst card takes the Fool disc and sits out.

The package, by what changes together:

* ``cards.py`` -- the pack: card ids (also the action ids), codes, colours, values, ``split_hand``, and the
  typed aliases ``Card``, ``Action``, ``Seat``;
* ``rules.py`` -- the game (options, deck table, deals) and its State's rules: every FL-R / FL-D id of
  rules/fool.md lives there once (the worst card, trick and round ends, scoring, legal moves, the fast playout);
* ``observe.py`` -- what a seat sees: the observation dict, the observation tensor, the voids shown by play
  (``FoolState.observation``, ``observation_tensor`` and ``voids`` call it);
* ``sample.py`` -- the determinizer: worlds consistent with an observation, for search
  (``Fool.sample_state`` and ``Fool.determinizer`` call it);
* ``features.py`` -- the action features of the RL environments (``SPEC.action_features``);
* ``batch.py`` -- observation tensors of many states at once, kept up to date move by move, for the batch
  stepper (``SPEC.batch_observer``);
* ``policy.py`` -- the heuristic, written once: the ``heuristic`` bot and search rollouts both play it;
* ``views.py`` -- the terminal view and log; ``drawing.py`` -- SVG of the table and the card faces;
* ``facts.py`` -- what decided a match ("the Fool decides"), for reports;
* ``networks/`` -- the Q network of the ``network`` bot for one round at 5 players (docs/training/dmc.md).

``SPEC`` is what the rest of motley knows of the game (:class:`motley.core.spec.GameSpec`).
"""

from motley.core.inference import InferenceSupport
from motley.core.registry import register_spec
from motley.core.spec import GameSpec
from motley.games.fool import batch, cards, chance, drawing, facts, features, observe, policy, sample, views
from motley.games.fool.cards import CODES
from motley.games.fool.game import Fool, FoolState

SPEC = register_spec(GameSpec(
    game=Fool,
    card_codes=frozenset(CODES),
    deal_model=chance.FoolDeals,
    observation_type=observe.FoolObservation,
    private_fields=(("hand",),),
    public_move=lambda move: True,  # every card is played face up into the trick (FL-R6)
    heuristic=policy.heuristic,
    search_policy=policy.SEARCH_POLICY,
    inference=InferenceSupport(rewind=sample.rewind, move=policy.move, scores=policy.move_scores,
                               perturb=sample.perturb, log_likelihood=policy.play_log_likelihood),
    special_card="Fool",
    decider=facts.fool_decides,
    terminal_view=views.render,
    log_lines=views.log_lines,
    drawing=drawing.draw,
    card_face=drawing.face,
    action_features=features.action_features,
    batch_observer=batch.BatchTensors,
    card_info=cards.card_info,
    end_reason=facts.end_reason,
    tensor_layout=observe.tensor_layout,
    how_to_play=views.HOW_TO_PLAY,
    summary=views.SUMMARY,
    usual_players=5,
    typical_match=views.TYPICAL_MATCH,
    sample_moves=7,
    match_options=("end_total", "end_bonus_count", "rounds"),
    networks=GameSpec.shipped_networks(__name__, {"fool(rounds=1)": "fool-5-round.npz"}),  # docs/training/dmc.md
    best_bot="ismcts(simulations=4000,infer_chain=2,points=0.25,infer_trust=table)",  # docs/reports/README.md#fool-best
))

__all__ = ["SPEC", "Fool", "FoolState"]
