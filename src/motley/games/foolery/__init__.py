"""Foolery (Jared McComb), 3-7 players: a Tarot climbing game with trumps, the Fool, titles and card exchange.

The package, by what changes together:

* ``cards.py`` -- the pack: card ids and codes, hands as bitmasks, the typed aliases ``Card``, ``Action``,
  ``Seat``, and the numbers a position keeps titles, phases, exchange steps and log events as;
* ``moves.py`` -- every play as a fixed action table (ids, card sets, shapes, strengths) and the fast
  generators of trump sets and 5-card hands that legal move generation reads;
* ``rules.py`` -- the game (options, deals, match end) and its State's rules (the exchange, turns, what
  beats the table, tricks, places and titles, scoring, legal moves): every FY-R / FY-D id of
  rules/foolery.md lives there once, but for the shapes and strengths of plays, which are ``moves.py``'s;
* ``observe.py`` -- what a seat sees: the observation dict, the observation tensor, and reading an
  observation back into a state (``FooleryState.observation`` and ``observation_tensor`` call it);
* ``sample.py`` -- the determinizer: worlds consistent with an observation, for search
  (``Foolery.sample_state`` and ``Foolery.determinizer`` call it), and the replay and swap proposal of
  inference from play (``SPEC.inference``);
* ``features.py`` -- the action features of the RL environments (``SPEC.action_features``);
* ``policy.py`` -- the heuristic, written once: the ``heuristic`` bot and search rollouts both play it;
* ``views.py`` -- the terminal view and log; ``drawing.py`` -- SVG of the table and the card faces;
* ``facts.py`` -- what decided a match ("the Fool decides"), for reports;
* ``networks/`` -- the Q network of the ``network`` bot for one hand at 5 players (docs/training/dmc.md).

``SPEC`` is what the rest of motley knows of the game (:class:`motley.core.spec.GameSpec`).
"""

from motley.core.inference import InferenceSupport
from motley.core.registry import register_spec
from motley.core.spec import GameSpec
from motley.games.foolery import cards, chance, drawing, facts, features, observe, policy, sample, views
from motley.games.foolery.cards import CODES
from motley.games.foolery.game import Foolery, FooleryState


def _public_move(move: str) -> bool:
    """Every play and pass is seen; the cards given in the exchange are not (FY-R13)."""
    return not move.lower().startswith("give")


SPEC = register_spec(GameSpec(
    game=Foolery,
    card_codes=frozenset(CODES),
    deal_model=chance.FooleryDeals,
    observation_type=observe.FooleryObservation,
    private_fields=(("hand",), ("hand_groups",), ("exchange", "gave"), ("exchange", "received"),
                    ("exchange", "partner")),
    public_move=_public_move,
    heuristic=policy.heuristic,
    search_policy=policy.SEARCH_POLICY,
    inference=InferenceSupport(rewind=sample.rewind, move=policy.move, scores=policy.move_scores,
                               perturb=sample.perturb),
    special_card="Fool",
    decider=facts.fool_decides,
    terminal_view=views.render,
    log_lines=views.log_lines,
    drawing=drawing.draw,
    card_face=drawing.face,
    action_features=features.action_features,
    card_info=cards.card_info,
    end_reason=facts.end_reason,
    tensor_layout=observe.tensor_layout,
    batch_observer=observe.BatchTensors,
    how_to_play=views.HOW_TO_PLAY,
    summary=views.SUMMARY,
    usual_players=5,
    typical_match=views.TYPICAL_MATCH,
    sample_moves=7,
    match_options=("match_end", "hands", "target_score"),
    networks=GameSpec.shipped_networks(__name__, {"foolery(hands=1)": "foolery-5-hand.npz"}),  # docs/training/dmc.md
    best_bot="ismcts(simulations=1000,infer_chain=2)",  # docs/reports/README.md#foolery-best
    legacy_options={"exchange_ties": "ask"},  # records made before FY-D17 asked for exact-fill tied gives
))

__all__ = ["SPEC", "Foolery", "FooleryState"]
