"""Each game's heuristic on full states (``GameSpec.search_policy``) and ISMCTS with it: legal, faithful."""

from __future__ import annotations

import random

import pytest

import motley
from motley.bots import make_bot
from motley.bots.ismcts import ISMCTSBot, Node
from motley.core import game_spec
from motley.core.rewards import rollout_rewards
from motley.eval.simulate import play_game
from motley.games.fool import policy as fool_policy
from motley.games.foolery import policy as foolery_policy

FOOL_SPECS = ["fool(players=4)", "fool(players=5)", "fool(players=7)", "fool(players=8)"]
FOOLERY_SPECS = ["foolery(players=3)", "foolery(players=5)", "foolery(players=7)",
                 "foolery(players=4,ace_high_straight=true,five_kind_trump=any,trump_variation=true)"]


def _policy_move(state: motley.State, legal: list[int]) -> int:
    policy = game_spec(state.game.name).search_policy
    assert policy is not None
    return policy.move(state)


@pytest.mark.parametrize("spec", FOOL_SPECS + FOOLERY_SPECS)
def test_rollout_policy_is_legal_and_plays_like_the_heuristic(spec: str) -> None:
    """Over states of whole matches (a mix of heuristic and random play, so odd positions come up too), the
    fast policy picks a legal action, and the very action the heuristic bot picks from the observation."""
    game = motley.load_game(spec)
    heuristic = make_bot("heuristic", game)
    checked = 0
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            seat = state.current_player()
            move = _policy_move(state, legal)
            assert move in legal
            if len(legal) > 1:
                assert move == heuristic.act(state.observation(seat), legal, random.Random(0))
                checked += 1
            state.apply_action(legal[rng.randrange(len(legal))] if rng.random() < 0.3 else move)
    assert checked > 100


@pytest.mark.parametrize("spec", ["fool(players=5)", "fool(players=8)", "foolery(players=3)", "foolery(players=6)"])
@pytest.mark.parametrize("epsilon", [0.0, 0.2, 1.0])
def test_rollouts_stop_at_the_end_of_the_deal_in_sampled_worlds(spec: str, epsilon: float) -> None:
    """From determinizations of mid-deal observations the rollout plays only legal moves (``apply_action``
    would refuse others; the policy uses ``apply_legal``, so we replay its history) and stops at the deal end."""
    game = motley.load_game(spec)
    search_policy = game_spec(game.name).search_policy
    assert search_policy is not None
    policy = search_policy.rollout
    rng = random.Random(7)
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        for _ in range(rng.randrange(40)):
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        seat = state.current_player()
        world = game.sample_state(state.observation(seat), rng)
        check = world.clone()
        deal = world.deal_number()
        start = len(world.history())
        policy(world, rng, epsilon)
        assert world.is_terminal() or world.deal_number() == deal + 1
        for action in world.history()[start:]:
            check.apply_action(action)  # raises IllegalMoveError on an illegal move
        assert check.scores() == world.scores()


def test_rollout_policies_exist_only_for_their_games() -> None:
    fool, foolery = game_spec("fool").search_policy, game_spec("foolery").search_policy
    assert fool is not None and fool.rollout is fool_policy.rollout and fool.move is fool_policy.move
    assert foolery is not None and foolery.rollout is foolery_policy.rollout and foolery.move is foolery_policy.move
    assert game_spec("fools_errand").search_policy is None


@pytest.mark.parametrize("spec", ["fool(players=5)", "foolery(players=4)", "fools_errand"])
@pytest.mark.parametrize("options", ["rollout=random", "rollout=heuristic", "rollout=heuristic,epsilon=0,reward=rank",
                                     "opponents=search", "opponents=policy,reward=linear"])
def test_ismcts_plays_whole_matches_with_each_rollout(spec: str, options: str) -> None:
    game = motley.load_game(spec)
    bots = [make_bot(f"ismcts(simulations=12,{options})", game), make_bot("heuristic", game)]
    bots += [make_bot("heuristic", game) for _ in range(game.num_players - 2)]
    final = play_game(game, bots, seed=11)
    assert final.is_terminal()


@pytest.mark.parametrize("spec", ["fool(players=5)", "foolery(players=5)"])
@pytest.mark.parametrize("reward", ["spread", "linear", "rank"])
def test_ismcts_heuristic_rollouts_explain_consistently(spec: str, reward: str) -> None:
    game = motley.load_game(spec)
    bot = ISMCTSBot(game, simulations=300, rollout="heuristic", reward=reward)
    rng = random.Random(3)
    decisions = 0
    for seed in range(20):
        state = game.new_initial_state(seed=seed)
        for _ in range(rng.randrange(15)):
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        action = bot.act(state.observation(state.current_player()), legal, rng)
        explained = bot.explain()
        assert action in legal
        assert explained[0]["action"] == action  # the most visited move is played
        assert {e["action"] for e in explained} <= set(legal)
        assert sum(e["visits"] for e in explained) == 300  # every iteration's first move is a legal root move
        assert all(-1.0 <= e["mean"] <= 1.0 for e in explained)
        decisions += 1
        if decisions == 3:
            break
    assert decisions == 3


def test_rollout_rewards_spread_and_rank() -> None:
    game = motley.load_game("fool(players=4,rounds=2)")
    state = game.new_initial_state(seed=1)
    fool_policy.rollout(state, random.Random(0), 0.0)  # one round played, the match goes on
    assert not state.is_terminal()
    gains = state.scores()
    spread = rollout_rewards(state, [0, 0, 0, 0])
    rank = rollout_rewards(state, [0, 0, 0, 0], "rank")
    assert max(abs(r) for r in spread) == pytest.approx(1.0)
    assert sum(spread) == pytest.approx(0.0)
    assert sum(rank) == pytest.approx(0.0)
    best, worst = gains.index(max(gains)), gains.index(min(gains))
    if gains.count(max(gains)) == 1:
        assert rank[best] == pytest.approx(1.0)
    if gains.count(min(gains)) == 1:
        assert rank[worst] == pytest.approx(-1.0)
    for a in range(4):
        for b in range(4):
            assert (gains[a] > gains[b]) == (rank[a] > rank[b]) == (spread[a] > spread[b])


def test_ismcts_refuses_bad_rollout_options() -> None:
    game = motley.load_game("fool")
    with pytest.raises(motley.MotleyError, match="epsilon"):
        make_bot("ismcts(rollout=heuristic,epsilon=1.5)", game)
    with pytest.raises(motley.MotleyError, match="reward"):
        make_bot("ismcts(reward=score)", game)
    with pytest.raises(motley.MotleyError, match="rollout"):
        make_bot("ismcts(rollout=smart)", game)
    with pytest.raises(motley.MotleyError, match="opponents"):
        make_bot("ismcts(opponents=minimax)", game)
    with pytest.raises(motley.MotleyError, match="points"):
        make_bot("ismcts(points=1.5)", game)


def _finished_round(seed: int) -> motley.State:
    state = motley.load_game("fool(players=5,rounds=1)").new_initial_state(seed=seed)
    fool_policy.rollout(state, random.Random(seed), 0.1)
    assert state.is_terminal()
    return state


@pytest.mark.parametrize("seed", range(6))
def test_points_weigh_the_last_deals_gain_into_the_reward_at_the_end_of_the_match(seed: int) -> None:
    """``points=W``: (1 - W) * returns + W * the centred gain scaled by the decision's mean spread; among the seats
    that lose the match, more points is a larger reward; W = 0 is the match outcome alone."""
    state = _finished_round(seed)
    start = [0] * 5
    scores, returns = state.scores(), state.returns()
    assert ISMCTSBot(state.game)._rewards(state, start) == returns  # type: ignore[arg-type]
    bot = ISMCTSBot(state.game, points=0.5)
    mean = sum(scores) / 5
    spread = max(max(scores) - mean, mean - min(scores))
    got = bot._rewards(state, start)  # type: ignore[arg-type]
    assert got == pytest.approx([0.5 * r + 0.5 * (s - mean) / spread for r, s in zip(returns, scores, strict=True)])
    for a in range(5):
        for b in range(5):
            if returns[a] == returns[b] and scores[a] > scores[b]:
                assert got[a] > got[b]
    # the scale is the mean spread of the decision's rollouts so far, one scale for all of them
    other = _finished_round(seed + 100)
    bot._rewards(other, start)  # type: ignore[arg-type]
    o = other.scores()
    o_mean = sum(o) / 5
    scale = (2 * spread + max(max(o) - o_mean, o_mean - min(o))) / 3  # this rollout's spread counts too
    again = bot._rewards(state, start)  # type: ignore[arg-type]
    expected = [0.5 * r + 0.5 * max(-1.0, min(1.0, (s - mean) / scale)) for r, s in zip(returns, scores, strict=True)]
    assert again == pytest.approx(expected)


def test_opponent_model_defaults_to_the_policy_where_there_is_one() -> None:
    assert ISMCTSBot(motley.load_game("fool")).opponents == "policy"
    assert ISMCTSBot(motley.load_game("foolery")).opponents == "policy"
    assert ISMCTSBot(motley.load_game("fools_errand")).opponents == "search"
    assert ISMCTSBot(motley.load_game("fool"), rollout="random").opponents == "search"


def _tree_seats(node: Node) -> set[int]:
    seats = set()
    for child in node.children.values():
        seats |= {child.player} | _tree_seats(child)
    return seats


@pytest.mark.parametrize("spec", ["fool(players=5)", "foolery(players=4)"])
def test_policy_opponents_keep_only_the_observers_moves_in_the_tree(spec: str) -> None:
    """With ``opponents=policy`` the other seats move by the policy, so every tree node is the observer's;
    with ``opponents=search`` the tree also grows nodes for the other seats."""
    game = motley.load_game(spec)
    state = game.new_initial_state(seed=5)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    policy = ISMCTSBot(game, simulations=400, opponents="policy")
    policy.act(obs, legal, random.Random(1))
    assert _tree_seats(policy._root) == {seat}
    assert sum(e["visits"] for e in policy.explain()) == 400
    search = ISMCTSBot(game, simulations=400, opponents="search")
    search.act(obs, legal, random.Random(1))
    assert len(_tree_seats(search._root)) > 1
