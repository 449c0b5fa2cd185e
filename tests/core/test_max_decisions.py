"""``Game.max_decisions()``: the bound on a match's decisions derived from the rules holds along random
matches and is not loose beyond reason; OpenSpiel's ``max_game_length`` is that bound."""

from __future__ import annotations

import random

import pytest

import motley
from tests.support import play_out

#: (spec, matches played): configurations whose rules bound the match, from short to long matches.
BOUNDED = [
    ("foolery(players=3)", 4),
    ("foolery(players=5,hands=1)", 20),
    ("foolery(players=7,hands=3,pass_locks_out=true,trump_variation=true)", 3),
    ("foolery(players=4,match_end=target,target_score=12)", 4),
    ("foolery(players=5,match_end=target,target_score=30,scoring=president,hands=4)", 3),
    ("fool(players=4)", 4),
    ("fool(players=8,end_total=-30,end_bonus_count=2)", 6),
    ("fool(players=5,rounds=2)", 10),
]
#: How much longer than the longest random match the bound may be.
SLACK = 100


def random_match_length(game: motley.Game, seed: int) -> int:
    """Decisions in a match of random legal play (its history: one action per decision)."""
    return len(play_out(game.new_initial_state(seed=seed), random.Random(seed)).history())


@pytest.mark.parametrize(("spec", "matches"), BOUNDED)
def test_random_matches_stay_within_the_bound(spec: str, matches: int) -> None:
    game = motley.load_game(spec)
    bound = game.max_decisions()
    assert bound is not None
    longest = max(random_match_length(game, seed) for seed in range(matches))
    assert longest <= bound <= SLACK * longest, (longest, bound)


def test_foolery_bound_follows_the_options() -> None:
    """More hands, more players, or a higher target give a longer bound; a cap on hands shortens it."""
    def bound(**options: object) -> int | None:
        return motley.load_game("foolery", **options).max_decisions()

    assert bound(players=5, hands=2) == 2 * bound(players=5, hands=1)  # type: ignore[operator]
    assert bound(players=6, hands=1) > bound(players=5, hands=1)  # type: ignore[operator]
    assert bound(match_end="target", target_score=60) > bound(match_end="target", target_score=30)  # type: ignore[operator]
    assert bound(match_end="target", target_score=1000, hands=3) == bound(hands=3)


def test_games_without_a_finite_bound_say_so() -> None:
    """The Fool's Errand (a Joker may come back on top of its deck again and again, FE-R8) and Foolery to a
    target with president scoring (a hand's points sum to 0, FY-D21) have none, unless ``hands`` caps it."""
    assert motley.load_game("fools_errand").max_decisions() is None
    assert motley.load_game("foolery", match_end="target", target_score=10, scoring="president").max_decisions() is None
    assert motley.load_game("foolery", match_end="target", target_score=10, scoring="president",
                            hands=3).max_decisions() is not None


def test_fool_bound_follows_the_match_end() -> None:
    """A lower ``end_total`` or more bonuses to collect allow more rounds; ``rounds`` caps them."""
    def bound(**options: object) -> int | None:
        return motley.load_game("fool", **options).max_decisions()

    assert bound(end_total=-160) > bound(end_total=-80) > bound(end_total=-40)  # type: ignore[operator]
    assert bound(end_bonus_count=8) > bound(end_bonus_count=6)  # type: ignore[operator]
    assert bound(players=5, rounds=3) == 3 * 5 * 12


def test_openspiel_declares_the_bound() -> None:
    pytest.importorskip("pyspiel")
    from motley.envs import openspiel as ms

    for spec in ("foolery(players=5,hands=1)", "fool(players=4)", "fools_errand"):
        game = motley.load_game(spec)
        expected = game.max_decisions() or ms.UNBOUNDED_GAME_LENGTH
        assert ms.max_game_length(game) == expected
    ms.register()
    spiel = ms.MotleySpielGame("foolery", {"players": 5, "hands": 1})
    assert spiel.max_game_length() == motley.load_game("foolery", players=5, hands=1).max_decisions()
