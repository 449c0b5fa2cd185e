"""OpenSpiel adapter: pyspiel.random_sim_test with serialization for every game, and OpenSpiel's ISMCTS bot.

Full matches of the longer configurations take minutes in random_sim_test (every step checks every
seat's information-state string, whose length grows with the match), so CI runs those on one deal
(``rounds=1`` / ``hands=1``); set ``MOTLEY_SLOW_TESTS=1`` to run every configuration on full matches.
"""

from __future__ import annotations

import collections
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
    assert state.is_chance_node()
    openspiel.deal_from(state, random.Random(77))
    mstate = mgame.deserialize_state(state.motley_state.serialize())  # the deal drawn, then motley's moves
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
        if state.is_chance_node():  # a new deal or a Joker going back: drawn by the adapter's chance nodes
            openspiel.deal_from(state, rng)
            mstate = mgame.deserialize_state(state.motley_state.serialize())


def test_no_perfect_recall_information_state_is_claimed() -> None:
    game = pyspiel.load_game("motley_fool(players=4)")
    with pytest.raises(ValueError, match="perfect-recall"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    state = game.new_initial_state()
    assert state.observation_string(0) == "{}"  # nothing dealt yet
    openspiel.deal_from(state, random.Random(5))
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
        for _ in range(40 + 60 * seed):
            openspiel.deal_from(state, rng)
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
    openspiel.deal_from(state, random.Random(9))
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    openspiel.deal_from(clone, random.Random(9))
    assert str(clone) != str(state)  # independent copies
    holder = pickle.loads(pickle.dumps(state._m))
    assert holder.state.serialize() == state.motley_state.serialize()
    assert copy.deepcopy(state._m).state is not state.motley_state
    text = pyspiel.serialize_game_and_state(game, state)
    _, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state) and state2.history() == state.history()
    assert len(state.history()) >= 54  # 52 cards and 2 Joker places, then the moves and draws


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
    for _ in range(3 if (name, players) == ("fools_errand", 2) else 2):
        openspiel.deal_from(state, random.Random(5))
        if state.is_terminal():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_spiel_game_string_loads_the_same_game(name: str, players: int) -> None:
    mgame = motley.load_game(name, players=players)
    game = pyspiel.load_game(openspiel.spiel_game_string(mgame))
    assert game.motley_game == mgame


def _apply_checked(state: pyspiel.State, action: int) -> None:
    """Apply ``action``, checking first that it is a chance outcome of non-zero probability or a legal move."""
    if state.is_chance_node():
        assert dict(state.chance_outcomes()).get(action, 0.0) > 0.0, f"{action} has probability 0 here"
    else:
        assert action in state.legal_actions()
    state.apply_action(action)


def _draw_chance(state: pyspiel.State, rng: random.Random) -> None:
    """Draw chance outcomes by their probabilities until a decision or the end."""
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])


def _first_deal(game: pyspiel.Game, rng: random.Random) -> list[int]:
    state = game.new_initial_state()
    _draw_chance(state, rng)
    return list(state.history())


@pytest.mark.parametrize("spec", ["motley_fool(players=5)", "motley_foolery(players=5)"])
def test_a_seats_own_hand_does_not_fix_the_others(spec: str) -> None:
    """The deal is drawn card by card: the other seats' cards may be dealt otherwise around the same hand of
    seat 0, each way reachable through chance outcomes of non-zero probability."""
    game = pyspiel.load_game(spec)
    rng = random.Random(3)
    deal = _first_deal(game, rng)
    state = game.new_initial_state()
    texts = []
    for outcome in deal:
        texts.append(state.action_to_string(pyspiel.PlayerId.CHANCE, outcome))  # "dealer 2", "deal 7S"
        _apply_checked(state, outcome)
    own = json.loads(state.observation_string(0))["hand"]
    others = [i for i, text in enumerate(texts) if text.startswith("deal ") and text.split()[1] not in own]
    assert len(others) > 40  # the cards of seats 1..4
    seen = set()
    for _ in range(12):
        cards = [deal[i] for i in others]
        rng.shuffle(cards)
        other = list(deal)
        for i, card in zip(others, cards, strict=True):
            other[i] = card
        world = game.new_initial_state()
        for outcome in other:
            _apply_checked(world, outcome)
        assert not world.is_chance_node()
        assert json.loads(world.observation_string(0))["hand"] == own
        seen.add(tuple(tuple(json.loads(world.observation_string(q))["hand"]) for q in range(1, 5)))
    assert len(seen) == 12  # 12 reshuffles of the other seats' cards, 12 different deals to them


@pytest.mark.parametrize(("spec", "cards"), [("motley_fool(players=5,rounds=2)", 60),
                                             ("motley_foolery(players=5,hands=2)", 78), ("motley_fools_errand", 52)])
def test_chance_outcomes_are_the_cards_left_each_equally_likely(spec: str, cards: int) -> None:
    """Along random matches (every deal, not only the first), each node dealing a card offers the cards left,
    each physical card equally likely (Fool!'s identical W1 cards share one outcome): probabilities sum to 1,
    the pack shrinks by the card drawn; the other nodes (dealer, Joker places, draws) are uniform."""
    game = pyspiel.load_game(spec)
    rng = random.Random(11)
    state = game.new_initial_state()
    deals = 0
    left: collections.Counter[int] | None = None
    while not state.is_terminal():
        if not state.is_chance_node():
            left = None
            state.apply_action(rng.choice(state.legal_actions()))
            continue
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert all(0 <= a < game.max_chance_outcomes() for a, _ in outcomes)
        action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        if state.action_to_string(pyspiel.PlayerId.CHANCE, action).startswith("deal "):
            if left is None:  # the deal's first card: the whole pack
                total = round(1 / min(p for _, p in outcomes))
                left = collections.Counter({a: round(p * total) for a, p in outcomes})
                assert total == sum(left.values()) >= cards
                deals += 1
            remaining = sum(left.values())
            assert {a: p * remaining for a, p in outcomes} == pytest.approx({a: n for a, n in left.items() if n})
            left[action] -= 1
        else:
            assert len({p for _, p in outcomes}) == 1  # uniform
        state.apply_action(action)
    assert deals >= (1 if spec == "motley_fools_errand" else 2)


@pytest.mark.parametrize("spec", [
    "motley_fool(players=4,rounds=2)", "motley_foolery(players=3,hands=2)", "motley_foolery(players=5,hands=2)",
    "motley_foolery(players=4,hands=3,exchange_order=suit_cards_only,exchange_ties=ask)", "motley_fools_errand"])
def test_resampled_worlds_are_reachable_under_the_chance_model(spec: str) -> None:
    """Each resampled world's history replays on a fresh state through chance outcomes of non-zero
    probability and legal moves, to the same observation for the seat, and its hidden cards vary
    (worlds of the second deal included: Foolery's exchange between other seats)."""
    game = pyspiel.load_game(spec)
    rng = random.Random(4)
    np.random.seed(4)
    state = game.new_initial_state()
    checked = varied = 0
    step = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _draw_chance(state, rng)
            continue
        p = state.current_player()
        if step % 9 == 0:
            histories = set()
            for _ in range(2):
                world = state.resample_from_infostate(p, None)
                replay = game.new_initial_state()
                for action in world.history():
                    _apply_checked(replay, action)
                assert replay.observation_string(p) == state.observation_string(p)
                assert replay.legal_actions() == state.legal_actions()
                histories.add(tuple(world.history()))
                checked += 1
            varied += len(histories | {tuple(state.history())}) > 1
        state.apply_action(rng.choice(state.legal_actions()))
        step += 1
    assert checked >= 2 and varied >= 1


def test_a_chance_node_shows_nothing_of_the_deal_being_drawn() -> None:
    """At the chance nodes of a later deal, the observation is empty (``"{}"``, zeros) for every seat: the
    engine's own shuffle, replaced by the drawn cards, is never seen."""
    game = pyspiel.load_game("motley_fool(players=4,rounds=2)")
    rng = random.Random(2)
    state = game.new_initial_state()
    _draw_chance(state, rng)
    while not state.is_chance_node():
        state.apply_action(rng.choice(state.legal_actions()))
    assert not state.is_terminal()
    for seat in range(4):
        assert state.observation_string(seat) == "{}"
        assert not np.any(state.observation_tensor(seat))
    _draw_chance(state, rng)
    assert json.loads(state.observation_string(state.current_player()))["round_number"] == 2


@pytest.mark.parametrize("spec", ["motley_fool(players=4,rounds=2)", "motley_fools_errand"])
def test_a_state_in_the_middle_of_a_chance_event_serializes_and_clones(spec: str) -> None:
    """Half-way through a later deal (or a Joker's draws), a clone and a deserialized copy offer the same
    outcomes and go on alike."""
    game = pyspiel.load_game(spec)
    rng = random.Random(6)
    for _ in range(50):
        state = game.new_initial_state()
        _draw_chance(state, rng)
        while not state.is_terminal() and not state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_chance_node():
            break
    assert state.is_chance_node() and len(state.history()) > 54  # past the first deal
    for _ in range(5):  # a few outcomes into a deal (a Joker's draw is one node)
        if len(state.chance_outcomes()) < 30:
            break
        state.apply_action(state.chance_outcomes()[0][0])
    _, copy_ = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    clone = state.clone()
    for other in (copy_, clone):
        assert other.history() == state.history() and other.chance_outcomes() == state.chance_outcomes()
    seed = rng.randrange(10**6)
    for other in (state, copy_, clone):
        _draw_chance(other, random.Random(seed))
    assert str(copy_) == str(state) == str(clone)
    assert copy_.observation_string(0) == state.observation_string(0) == clone.observation_string(0)
