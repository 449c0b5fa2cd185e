"""OpenSpiel adapter: pyspiel.random_sim_test with serialization for every game, and OpenSpiel's ISMCTS bot.

Full matches of the longer configurations take minutes in random_sim_test (every step checks every
seat's information-state string, whose length grows with the match), so CI runs those on one deal
(``rounds=1`` / ``hands=1``); set ``MOTLEY_SLOW_TESTS=1`` to run every configuration on full matches.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import random

import numpy as np
import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import motley
from motley.envs import openspiel
from tests.support import game_configs

#: Options that shorten a match to one deal, per game.
ONE_DEAL = {"fool": "rounds=1", "foolery": "hands=1"}
#: Configurations cheap enough to run on full matches in CI.
FULL_MATCH_IN_CI = {("fools_errand", 2), ("fool", 4), ("fool", 5), ("foolery", 3)}
SLOW = os.environ.get("MOTLEY_SLOW_TESTS") == "1"


CONFIGS = game_configs()


def spiel_string(name: str, players: int, short: bool = False) -> str:
    extra = f",{ONE_DEAL[name]}" if short and name in ONE_DEAL else ""
    return f"{openspiel.short_name(name)}(players={players}{extra})"


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    openspiel.register()


def test_register_lists_every_game_and_is_idempotent() -> None:
    names = openspiel.register()
    assert sorted(names) == sorted(openspiel.short_name(n) for n in motley.registered_games())
    assert openspiel.register() == names
    assert set(names) <= set(pyspiel.registered_names())


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_random_sim_test_with_serialization(name: str, players: int) -> None:
    full = SLOW or (name, players) in FULL_MATCH_IN_CI or name not in ONE_DEAL
    game = pyspiel.load_game(spiel_string(name, players, short=not full))
    pyspiel.random_sim_test(game, num_sims=2 if (name, players) == ("fools_errand", 2) or not full else 1,
                            serialize=True, verbose=False)


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_game_and_state_mirror_motley(name: str, players: int) -> None:
    game = pyspiel.load_game(spiel_string(name, players))
    mgame = motley.load_game(name, players=players)
    assert game.num_players() == players
    assert game.num_distinct_actions() == mgame.num_distinct_actions()
    assert tuple(game.observation_tensor_shape()) == mgame.observation_tensor_shape()
    game_type = game.get_type()
    assert game_type.provides_observation_string and game_type.provides_observation_tensor
    assert not game_type.provides_information_state_string and not game_type.provides_information_state_tensor
    assert pyspiel.load_game(str(game)) is not None  # the full game string (JSON options escaped) parses back
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == openspiel.NUM_SEEDS
    state.apply_action(77)
    mstate = mgame.new_initial_state(seed=77)  # the chance outcome is the match seed
    rng = random.Random(0)
    for _ in range(30):
        if mstate.is_terminal():
            break
        p = mstate.current_player()
        assert state.current_player() == p and state.legal_actions() == mstate.legal_actions()
        assert state.observation_string(p) == json.dumps(mstate.observation(p), sort_keys=True,
                                                          separators=(",", ":"))
        for seat in range(players):
            assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32),
                                  mstate.observation_tensor(seat))
        a = rng.choice(mstate.legal_actions())
        assert state.action_to_string(p, a) == mstate.action_to_string(a)
        state.apply_action(a)
        mstate.apply_action(a)


def test_no_perfect_recall_information_state_is_claimed() -> None:
    game = pyspiel.load_game("motley_fool(players=4)")
    with pytest.raises(ValueError, match="perfect-recall"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    state = game.new_initial_state()
    state.apply_action(5)
    assert state.observation_string(state.current_player()).startswith("{")


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_resample_from_infostate_keeps_the_observation_along_random_matches(name: str, players: int) -> None:
    """OpenSpiel's ResampleInfostateTest, with the observation (what these games declare): along random
    trajectories, every resampled world gives the seat to move the same observation and legal moves, and
    the hidden cards vary."""
    game = pyspiel.load_game(spiel_string(name, players))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    varied = 0
    for seed in range(3):
        rng = random.Random(seed)
        np.random.seed(seed)
        state = game.new_initial_state()
        state.apply_action(seed)
        for _ in range(40 + 60 * seed):
            if state.is_terminal():
                break
            p = state.current_player()
            worlds = [state.resample_from_infostate(p, sampler) for _ in range(3)]
            for world in worlds:
                assert world.current_player() == p
                assert world.observation_string(p) == state.observation_string(p)
                assert world.legal_actions() == state.legal_actions()
            varied += len({str(w) for w in worlds}) > 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert varied > 0  # hidden cards do vary


def test_clone_and_pickle_go_through_motley() -> None:
    game = pyspiel.load_game("motley_fools_errand")
    state = game.new_initial_state()
    state.apply_action(9)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(clone) != str(state)  # independent copies
    holder = pickle.loads(pickle.dumps(state._m))
    assert holder.state.serialize() == state.motley_state.serialize()
    assert copy.deepcopy(state._m).state is not state.motley_state
    text = pyspiel.serialize_game_and_state(game, state)
    _, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state) and state2.history() == state.history() == [9]


def test_json_option_escaping_round_trips() -> None:
    value = {"a": [1, 2], "b": "x,(y)=%"}
    text = openspiel.encode_json(value)
    assert not set(text) & set(",()=")
    assert json.loads(openspiel.decode_json(text)) == value


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_openspiel_ismcts_bot_plays(name: str, players: int) -> None:
    game = pyspiel.load_game(spiel_string(name, players, short=True))
    random_state = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=random_state,
                           use_observation_string=True)  # these games declare the observation only
    state = game.new_initial_state()
    state.apply_action(5)
    for _ in range(3 if (name, players) == ("fools_errand", 2) else 2):
        if state.is_terminal():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_spiel_game_string_loads_the_same_game(name: str, players: int) -> None:
    mgame = motley.load_game(name, players=players)
    game = pyspiel.load_game(openspiel.spiel_game_string(mgame, num_seeds=10))
    assert game.motley_game == mgame and game.max_chance_outcomes() == 10
