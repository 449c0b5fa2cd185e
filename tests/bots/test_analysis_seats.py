"""The analysis's model of each seat learned from its play (issue 45): each seat's share of random moves, learned
from the record (:func:`motley.core.inference.random_share` through :func:`motley.bots.analysis.decisions`) and
used for that seat in the search (``ISMCTSBot.seat_epsilons``: the rollouts, the tree's model moves, and in The
Fool's Errand the other seat's tree moves)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

import motley
from motley.bots import make_bot
from motley.bots.analysis import SEAT_MODEL, _seat_model, decisions, evaluate, searcher_spec
from motley.bots.ismcts import ISMCTSBot, Node
from motley.bots.spec import BotSpec, parse_bot_spec
from motley.core import MotleyError
from motley.core.inference import random_share
from motley.core.play import play_match
from motley.core.registry import game_spec
from motley.core.search import roll_out_seats
from motley.games.fools_errand import policy as errand

SIMS = 60


def _record(game_text: str, seed: int, bots: list[str]) -> str:
    game = motley.load_game(game_text)
    return motley.records.dump(play_match(game, [make_bot(b, game) for b in bots], seed))


def with_seat_model(spec: str) -> str:
    """``spec`` with ``seat_model=learned``."""
    parsed = parse_bot_spec(spec)
    return str(BotSpec(parsed.kind, {**parsed.options, "seat_model": "learned"}))


def test_the_analysis_s_searcher_names_its_seat_model() -> None:
    """``seat_model`` is in the analysis's spec only where it is not the ISMCTS default (fixed), so the analysis
    of a record is the same bytes as before the learned model where it is off."""
    for name in ("fool", "foolery", "fools_errand"):
        options = parse_bot_spec(searcher_spec(motley.load_game(name), SIMS)).options
        assert options.get("seat_model", "fixed") == SEAT_MODEL and ("seat_model" in options) == (SEAT_MODEL != "fixed")


def test_a_heuristic_seat_learns_a_low_share_and_a_random_seat_a_high_one() -> None:
    rng = random.Random(1)
    heuristic = [(n, 0) for n in (rng.randrange(2, 8) for _ in range(30))]
    uniform = [(n, rng.randrange(n)) for n in (rng.randrange(2, 8) for _ in range(30))]
    assert random_share(heuristic) < 0.1
    assert random_share(uniform) > 0.6
    assert random_share([]) == pytest.approx(0.8 * 0.1 + 0.2 * 0.5, abs=0.01)  # the prior's mean
    # a player whose other moves are the heuristic's next best is less random than one whose are its worst
    assert random_share([(5, 0), (5, 1)] * 5) < random_share([(5, 0), (5, 4)] * 5)


def test_random_share_refuses_bad_plays() -> None:
    for plays in ([(1, 0)], [(3, 3)], [(3, -2)]):
        with pytest.raises(MotleyError):
            random_share(plays)
    with pytest.raises(MotleyError):
        random_share([], epsilon=0.0)


@pytest.mark.parametrize("game_text", ["fool(players=4,rounds=1)", "foolery(players=4,hands=1)", "fools_errand"])
def test_the_decisions_learn_each_seat_from_its_moves_before_them(game_text: str) -> None:
    game = motley.load_game(game_text)
    bots = (["heuristic", "random"] * 2)[:game.num_players]
    record = _record(game_text, 3, bots)
    _, found = decisions(record, 0, learn=True)
    last = found[-1].seats
    assert len(last) == game.num_players
    for seat, bot in enumerate(bots):
        assert (last[seat] > 0.4) if bot == "random" else (last[seat] < 0.1), (seat, bot, last)


def test_the_rollouts_play_each_seat_by_its_own_share() -> None:
    game = motley.load_game("fool(players=4,rounds=1)")
    move = game_spec(game.name).search_policy.move  # type: ignore[union-attr]
    off = [0, 0, 0, 0]
    for seed in range(20):
        state = game.new_initial_state(seed=seed)
        start = len(state.history())
        replay = state.clone()
        roll_out_seats(state, random.Random(seed), move, [0.0, 1.0, 0.0, 0.0])
        for action in state.history()[start:]:
            seat = replay.current_player()
            off[seat] += action != move(replay)
            replay.apply_action(action)
    assert off[0] == off[2] == off[3] == 0 and off[1] > 10


def test_the_fools_errand_heuristic_on_full_states_is_the_bot_on_the_observation() -> None:
    game = motley.load_game("fools_errand")
    bot = make_bot("heuristic", game)
    rng = random.Random(2)
    compared = 0
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert errand.move(state) == bot.act(state.observation(state.current_player()), legal, rng)
            compared += 1
            state.apply_action(legal[rng.randrange(len(legal))])
    assert compared > 100


@pytest.mark.parametrize("game_text", ["fool(players=4,rounds=1)", "fools_errand"])
def test_the_analysis_searches_with_the_seats_learned_and_is_the_same_for_a_seed(game_text: str) -> None:
    game = motley.load_game(game_text)
    bots = (["random", "heuristic"] * 2)[:game.num_players]
    _, found = decisions(_record(game_text, 4, bots), 0, learn=True)
    decision = min(found, key=lambda d: abs(d.so_far[0] - max(d.so_far[1:])))  # the closest: not yet decided
    fixed = searcher_spec(game, SIMS)
    spec = with_seat_model(fixed)
    learned = evaluate(game, decision, spec, 7, check=False)
    assert json.dumps(learned) == json.dumps(evaluate(game, decision, spec, 7, check=False))
    other = [1.0 - s for s in decision.seats]
    wins = {m["move"]: m["win"] for m in learned["moves"]}
    flipped = evaluate(game, replace(decision, seats=tuple(other)), spec, 7, check=False)
    assert wins != {m["move"]: m["win"] for m in flipped["moves"]}
    assert json.dumps(evaluate(game, replace(decision, seats=()), spec, 7, check=False)) != json.dumps(learned)
    assert json.dumps(evaluate(game, decision, fixed, 7, check=False)) == \
        json.dumps(evaluate(game, replace(decision, seats=()), fixed, 7, check=False))


def test_the_analysed_seat_s_own_moves_keep_the_searcher_s_epsilon() -> None:
    """The learned shares are the other seats': the analysed seat's later moves are searched (its best play), so
    its own entry is the searcher's epsilon, whatever its record."""
    _, found = decisions(_record("fool(players=4,rounds=1)", 6, ["random"] * 4), 2, learn=True)
    assert all(not d.seats for d in decisions(_record("fool(players=4,rounds=1)", 6, ["random"] * 4), 2,
                                                learn=False)[1])
    decision = found[-1]
    assert decision.seats[2] > 0.4  # a random seat, learned as one
    model = _seat_model(decision, {"epsilon": 0.1})
    assert model is not None and model[2] == 0.1
    assert [m for s, m in enumerate(model) if s != 2] == [m for s, m in enumerate(decision.seats) if s != 2]
    assert _seat_model(replace(decision, seats=()), {"epsilon": 0.1}) is None


def _shares_of_visits(root: Node, seat: int) -> list[float]:
    """At each node where ``seat`` chose among several moves, 30 times or more: the top child's share of visits."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        children = list(node.children.values())
        stack.extend(children)
        if len(children) > 1 and children[0].player == seat and sum(c.visits for c in children) >= 30:
            out.append(max(c.visits for c in children) / sum(c.visits for c in children))
    return out


def test_under_search_a_random_seat_s_tree_moves_are_random() -> None:
    """The Fool's Errand searches the other seat by UCB1: with a share of 1 its tree moves are uniform (its moves
    tried about as often), with 0 UCB1's (greedy here: one move nearly always)."""
    game = motley.load_game("fools_errand")
    _, found = decisions(_record("fools_errand", 5, ["heuristic", "heuristic"]), 0, learn=True)
    top = {}
    for share in (0.0, 1.0):
        shares = []
        for decision in found[:6]:
            bot = ISMCTSBot(game, simulations=600, uct_c=0.0, seat_model="learned")  # greedy: UCB1 keeps to one
            bot.seat_epsilons = [0.0, 0.0] if share == 0.0 else [0.0, 1.0]
            bot.act(decision.observation, list(decision.legal), random.Random(3))
            shares += _shares_of_visits(bot._root, 1)
        top[share] = shares
    mean = {share: sum(tops) / len(tops) for share, tops in top.items()}
    assert mean[0.0] > mean[1.0] + 0.15, mean
