"""A new game is one package and one registry line: a small game (tests/toy_game.py), registered by its spec
alone, is loaded, played by every bot, recorded and replayed, simulated, drawn and served to a spectator
without any other change to motley."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import motley
from motley.bots import make_bot
from motley.core import play, registry
from motley.eval.simulate import simulate
from motley.server.play import privacy
from tests import toy_game


@pytest.fixture
def high_card(monkeypatch: pytest.MonkeyPatch) -> Iterator[motley.Game]:
    """The toy game, registered for this test only (the one line a new game adds, undone afterwards)."""
    monkeypatch.setitem(registry._SPECS, toy_game.SPEC.name, toy_game.SPEC)
    yield motley.load_game("high_card(players=3)")


def test_the_registry_offers_it(high_card: motley.Game) -> None:
    assert "high_card" in motley.registered_games()
    assert high_card.num_players == 3 and motley.game_spec("high_card") is toy_game.SPEC


@pytest.mark.parametrize("bot", ["random", "heuristic", "ismcts(simulations=20)"])
def test_every_bot_plays_it_and_its_record_replays(high_card: motley.Game, bot: str) -> None:
    bots = [make_bot(bot, high_card), make_bot("random", high_card), make_bot("heuristic", high_card)]
    final = play.play_match(high_card, bots, seed=5)
    assert final.is_terminal() and len(final.history()) == 9
    again = motley.records.load(motley.records.dump(final))
    assert again.scores() == final.scores() and again.history() == final.history()


def test_it_is_simulated_with_confidence_intervals(high_card: motley.Game) -> None:
    summary = simulate(high_card, ["heuristic", "random"], n=30, seed=1, workers=1)
    assert len(summary.results) == 30 and all(r.deals == 1 for r in summary.results)


def test_spectators_never_see_a_hand_and_it_is_drawn(high_card: motley.Game) -> None:
    state = high_card.new_initial_state(seed=2)
    view = privacy.spectator_view(state)
    assert "hand" not in view and view["seat"] is None
    assert all(code not in privacy.visible_tokens(view) for code in state.observation(0)["hand"])
    svg = motley.drawing.render(state.observation(0))
    assert svg.startswith("<svg") and "data-card" in svg


def test_bad_moves_are_refused_and_change_nothing(high_card: motley.Game) -> None:
    state = high_card.new_initial_state(seed=3)
    before = state.serialize()
    with pytest.raises(motley.IllegalMoveError):
        state.apply_action(state.string_to_action("0"))
    other = state.legal_actions()[0]
    with pytest.raises(motley.IllegalMoveError):
        state.play(1, other)
    assert state.serialize() == before
    world = high_card.sample_state(state.observation(0), random.Random(1))
    assert world.observation(0) == state.observation(0)
