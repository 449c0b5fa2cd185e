"""Action features: one fixed-size float32 row per legal action, aligned with the legal action list, telling
distinct moves apart, decoding back to the move, and blind to hidden cards; handed out by the PettingZoo and
Gymnasium environments; a game without a table gets the action id one-hot."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import motley
from motley.core import State, registry
from motley.core.features import action_feature_table
from motley.envs.gymnasium import SingleSeatEnv
from motley.envs.pettingzoo import env, raw_env
from motley.games.fool import cards as flc
from motley.games.foolery import cards as fyc
from motley.games.foolery import features as fyf
from motley.games.foolery import moves as fym
from tests import toy_game
from tests.support import PLAYER_COUNTS, game_configs

CONFIGS = game_configs()
#: Every game with each tested player count, plus option sets that change what the tables hold.
GAME_STRINGS = sorted({str(motley.load_game(name, players=n)) for name, counts in PLAYER_COUNTS.items()
                       for n in counts} | {"foolery(players=4,ace_high_straight=true)"})


@st.composite
def positions(draw: st.DrawFn) -> State:
    """A random reachable position (not over) of a random tested game configuration."""
    game = motley.load_game(draw(st.sampled_from(GAME_STRINGS)))
    state = game.new_initial_state(seed=draw(st.integers(0, 2**32)))
    rng = random.Random(draw(st.integers(0, 2**16)))
    for _ in range(draw(st.integers(0, 250))):
        after = state.clone()
        after.apply_action(rng.choice(state.legal_actions()))
        if after.is_terminal():
            break
        state = after
    return state


def legal_features(state: State) -> tuple[list[int], np.ndarray]:
    legal = state.legal_actions()
    return legal, action_feature_table(state.game)[np.array(legal, dtype=np.int64)]


@settings(max_examples=150, deadline=None)
@given(positions())
def test_features_are_fixed_size_float32_rows_that_tell_moves_apart(state: State) -> None:
    table = action_feature_table(state.game)
    assert table.dtype == np.float32 and table.shape[0] == state.game.num_distinct_actions()
    legal, features = legal_features(state)
    assert features.shape == (len(legal), table.shape[1]) and features.dtype == np.float32
    assert features.min() >= 0.0 and features.max() <= 1.0
    rows = {features[i].tobytes() for i in range(len(legal))}
    assert len(rows) == len(legal), "two distinct legal moves have the same features"


@settings(max_examples=150, deadline=None)
@given(positions())
def test_features_decode_back_to_the_move(state: State) -> None:
    legal, features = legal_features(state)
    for action, row in zip(legal, features, strict=True):
        move = state.action_to_string(action)
        if state.game.name == "foolery":
            codes = move.split()[1:] if move.startswith("give") else [] if move == "pass" else move.split()
            cards = np.flatnonzero(row[fyf.CARDS_AT:fyf.CARDS_AT + fyc.NUM_CARDS])
            assert sorted(fyc.CODES[c] for c in cards) == sorted(codes), move
            kind = fyf.KINDS[int(np.argmax(row[fyf.KIND_AT:fyf.KIND_AT + len(fyf.KINDS)]))]
            if move == "pass" or move == "FOOL" or move.startswith("give"):
                assert kind == {"pass": "pass", "FOOL": "fool"}.get(move, "give")
            assert row[fyf.SIZE_AT] == pytest.approx(len(codes) / 5)
        elif state.game.name == "fool":
            assert int(np.argmax(row[:flc.NUM_CARDS])) == action and flc.CODES[action] == move
            assert int(np.argmax(row[flc.NUM_CARDS:flc.NUM_CARDS + 5])) == flc.COLOUR[action]
        else:
            assert int(np.argmax(row)) == action and row.sum() == 1.0


@settings(max_examples=60, deadline=None)
@given(positions(), st.integers(0, 2**16))
def test_features_do_not_change_when_hidden_cards_are_permuted(state: State, seed: int) -> None:
    """As the privacy property of the observation tensors (test_envs_observation.py): the seat to move's
    features in a world with the cards hidden from it re-dealt are the same."""
    seat = state.current_player()
    legal, features = legal_features(state)
    rng = random.Random(seed)
    for _ in range(3):
        world = state.game.sample_state(state.observation(seat), rng)
        world_legal, world_features = legal_features(world)
        assert world_legal == legal and np.array_equal(world_features, features)


def test_foolery_rank_and_strength_follow_the_options() -> None:
    """J-C-Q-K-A mixed suits: no play with the Ace low (no kind), the top straight with ace_high_straight."""
    low = action_feature_table(motley.load_game("foolery", players=4))
    high = action_feature_table(motley.load_game("foolery", players=4, ace_high_straight=True))
    action = fym.MASK_TO_ACTION[fyc.mask_of([fyc.CODE_INDEX[code] for code in ("JS", "CH", "QD", "KC", "AS")])]
    kinds = slice(fyf.KIND_AT, fyf.KIND_AT + len(fyf.KINDS))
    assert not low[action, kinds].any() and low[action, fyf.STRENGTH_AT] == 0.0
    assert fyf.KINDS[int(np.argmax(high[action, kinds]))] == "straight"
    assert high[action, fyf.STRENGTH_AT] == pytest.approx(15 / 80) and high[action, fyf.RANK_AT] == 1.0


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_pettingzoo_infos_hold_the_legal_actions_and_their_features(name: str, players: int) -> None:
    e = env(name, players=players)
    e.reset(seed=4)
    table = action_feature_table(e.unwrapped.game)
    rng = random.Random(4)
    for agent in e.agent_iter(3000):
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = info["legal_actions"]
        assert legal.tolist() == e.game_state.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
        assert np.array_equal(info["action_features"], table[legal])
        assert e.unwrapped.action_features(agent) is info["action_features"]
        for other in e.agents:
            if other != agent:
                assert e.infos[other]["legal_actions"].size == 0
                assert e.infos[other]["action_features"].shape == (0, table.shape[1])
        e.step(int(legal[rng.randrange(len(legal))]))


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_gymnasium_info_holds_the_legal_actions_and_their_features(name: str, players: int) -> None:
    e = SingleSeatEnv(name, players=players, seat=None)
    _, info = e.reset(seed=6)
    table = action_feature_table(e.game)
    rng = random.Random(6)
    done = False
    while not done:
        assert e.state is not None
        legal = info["legal"].actions
        assert legal.tolist() == e.state.legal_actions() == np.flatnonzero(info["action_mask"]).tolist()
        assert np.array_equal(info["legal"].features, table[legal]) and info["num_legal"] == len(legal)
        _, _, done, _, info = e.step(int(legal[rng.randrange(len(legal))]))
    assert info["legal"].actions.size == 0 and info["legal"].features.shape == (0, table.shape[1])


@pytest.fixture
def high_card() -> Iterator[motley.Game]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._SPECS, toy_game.SPEC.name, toy_game.SPEC)
        yield motley.load_game("high_card(players=3)")


def test_a_game_without_a_table_gets_the_action_id_one_hot(high_card: motley.Game) -> None:
    assert toy_game.SPEC.action_features is None
    table = action_feature_table(high_card)
    assert np.array_equal(table, np.eye(high_card.num_distinct_actions(), dtype=np.float32))
    e = raw_env(high_card)
    e.reset(seed=1)
    agent = e.agent_selection
    assert np.array_equal(e.action_features(agent), table[e.infos[agent]["legal_actions"]])


def test_a_table_of_the_wrong_shape_is_refused(high_card: motley.Game) -> None:
    bad = dataclasses.replace(toy_game.SPEC, action_features=lambda game: np.zeros((2, 3), dtype=np.float32))
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._SPECS, bad.name, bad)
        game = motley.load_game("high_card(players=2)")
        with pytest.raises(ValueError, match="action feature table"):
            action_feature_table(game)
