"""The Fool's Errand: bad input gets a clear error naming the problem and changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest

import motley
from motley.games.fools_errand import cards as fec
from tests.games.test_fools_errand_rules import stacked
from tests.support import play_random


def decision_state() -> motley.State:
    state = motley.load_game("fools_errand").new_initial_state(seed=21)
    assert not state.is_terminal()
    return state


@pytest.mark.parametrize(
    ("move", "words"),
    [(7, "unknown action id"), (-1, "unknown action id"), ("draw", "whole number"), (True, "whole number"),
     (None, "whole number"), (2.0, "whole number")],
)
def test_bad_action_ids(move: Any, words: str) -> None:
    state = decision_state()
    before = state.serialize()
    with pytest.raises(motley.InvalidMoveError, match=words):
        state.apply_action(move)
    assert state.serialize() == before


def test_move_not_legal_in_this_phase_names_the_reason() -> None:
    state = decision_state()
    before = state.serialize()
    illegal = next(a for a in range(3) if a not in state.legal_actions())
    expected = "just drawn your Joker" if illegal == fec.DRAW else "not drawn your Joker"
    with pytest.raises(motley.IllegalMoveError, match=expected):
        state.apply_action(illegal)
    with pytest.raises(motley.IllegalMoveError, match=expected):
        state.string_to_action(fec.MOVES[illegal])
    assert state.serialize() == before


@pytest.mark.parametrize("text", ["dance", "", "draw two", "JK"])
def test_unknown_move_strings(text: str) -> None:
    state = decision_state()
    before = state.serialize()
    with pytest.raises(motley.InvalidMoveError, match="unknown move"):
        state.string_to_action(text)
    assert state.serialize() == before


def test_moves_after_the_end_are_refused() -> None:
    state = play_random(decision_state(), random.Random(1), 10_000)
    assert state.is_terminal()
    with pytest.raises(motley.IllegalMoveError, match="game is over"):
        state.apply_action(fec.DRAW)
    with pytest.raises(motley.IllegalMoveError, match="game is over"):
        state.string_to_action("draw")


def bad_deals() -> list[tuple[Any, str]]:
    good = stacked([], [])
    short = {"decks": [good["decks"][0][:-2] + ["JK"], good["decks"][1]]}
    unknown = {"decks": [["1Z", *good["decks"][0][1:]], good["decks"][1]]}
    dup = {"decks": [[good["decks"][1][0], *good["decks"][0][1:]], good["decks"][1]]}
    two_jokers = {"decks": [["JK", *good["decks"][0][1:]], good["decks"][1]]}
    return [
        ([1, 2], "deal is"),
        ({"hands": []}, "deal is"),
        ({"decks": [good["decks"][0]]}, "exactly 2 decks"),
        (short, "has 26 cards"),
        (unknown, "unknown card code '1Z'"),
        (dup, "twice"),
        (two_jokers, "exactly one Joker"),
        ({"decks": ["7S", good["decks"][1]]}, "list of card codes"),
    ]


@pytest.mark.parametrize(("deal", "words"), bad_deals())
def test_malformed_deals_name_the_problem(deal: Any, words: str) -> None:
    with pytest.raises(motley.DealError, match=words):
        motley.load_game("fools_errand").new_initial_state(seed=1, deal=deal)


def test_explicit_deal_is_case_insensitive_and_recorded() -> None:
    upper = stacked(["7S", "2C"], ["4C", "QD"])
    deal = {"decks": [[c.lower() for c in d] for d in upper["decks"]]}
    state = motley.load_game("fools_errand").new_initial_state(seed=1, deal=deal)
    assert state.observation(0)["log"][0]["card"] == "7S"
    assert motley.records.load(motley.records.dump(state)).serialize() == state.serialize()


def test_bad_seat_for_observation() -> None:
    state = decision_state()
    for seat in (2, -1):
        with pytest.raises(motley.MotleyError, match=r"seat must be 0\.\.1"):
            state.observation(seat)
        with pytest.raises(motley.MotleyError, match=r"seat must be 0\.\.1"):
            state.observation_tensor(seat)


def test_sample_state_refuses_other_games_and_inconsistent_observations() -> None:
    state = decision_state()
    obs = state.observation(0)
    with pytest.raises(motley.MotleyError, match="not a fools_errand observation"):
        state.game.sample_state({**obs, "game": "fool"}, random.Random(1))
    with pytest.raises(motley.MotleyError, match="deck sizes"):
        state.game.sample_state({**obs, "deck_sizes": [40, 40]}, random.Random(1))
