"""Inference from play (motley.core.inference): worlds weighted by how likely the other seats' plays are.

The property of the issue: against a known deterministic opponent (the heuristic), the inferred worlds are
nearly all ones in which the other seats' actual plays are what the heuristic plays in that world, while
the uniform sampler's are mostly not; every inferred world keeps the hard constraints; a seed fixes them.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import motley
from motley.bots import make_bot
from motley.core import MotleyError, State
from motley.core.inference import (
    InferenceSupport,
    InferredChain,
    InferredSampler,
    PlayerModel,
    disagreements,
    log_likelihood,
    replay_log_likelihood,
    resample,
)
from motley.core.registry import game_spec
from motley.games.fool import cards as flc
from motley.games.fool import game as fl
from motley.games.fool import observe, policy
from tests.games.test_fool_properties import deck_cards, reachable_states, world_cards
from tests.support import flat_chain_gap, play_random


def support() -> InferenceSupport:
    found = game_spec("fool").inference
    assert found is not None
    return found


def hands(world: State) -> list[list[list[int]]]:
    """A Fool! world's hands."""
    assert isinstance(world, fl.FoolState)
    return world.hands


def live(state: fl.FoolState) -> fl.FoolState:
    """``state`` if a seat is to move in it (inference is asked inside a round)."""
    assume(not state.is_terminal())
    return state


def mismatches(world: State, observer: int) -> int:
    """How many of the other seats' past decisions of this deal are not what the heuristic plays in ``world``."""
    return disagreements(world, observer, support())


def heuristic_position(seed: int, moves: int) -> fl.FoolState:
    """A Fool! round of five heuristic players (``policy.move`` for every seat), ``moves`` cards in."""
    game = motley.load_game("fool(players=5,rounds=1)")
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, fl.FoolState)
    for _ in range(moves):
        state.apply_action(policy.move(state))
    return state


# ---- the game's part: replaying a world's deal, the move scores, the swap proposal -------------------------

@settings(max_examples=150, deadline=None)
@given(reachable_states())
def test_rewind_replays_the_deal_to_the_same_position(state: fl.FoolState) -> None:
    start, cards = support().rewind(live(state))
    assert isinstance(start, fl.FoolState) and not start.trick and not start.tricks
    for card in cards:
        start.apply_action(card)  # checked: every card is legal in turn
    for seat in range(state.game.num_players):
        assert start.observation(seat) == state.observation(seat)
    assert start.legal_actions() == state.legal_actions()


@settings(max_examples=200, deadline=None)
@given(reachable_states())
def test_move_scores_cover_the_legal_cards_and_rank_the_heuristic_move_first(state: fl.FoolState) -> None:
    state = live(state)
    scores = policy.move_scores(state)
    assert sorted(scores) == state.legal_actions()
    best = policy.move(state)
    assert all(score < scores[best] for card, score in scores.items() if card != best)


@settings(max_examples=150, deadline=None)
@given(reachable_states(), st.integers(0, 2**16))
def test_the_model_on_a_full_state_is_the_heuristic_bot_on_the_observation(state: fl.FoolState, seed: int) -> None:
    """The deterministic player model (``policy.move`` on a world) predicts the ``heuristic`` bot exactly."""
    state = live(state)
    legal = state.legal_actions()
    observation = state.observation(state.current_player())
    assert policy.heuristic(state.game, observation, legal, random.Random(seed)) == policy.move(state)


@settings(max_examples=100, deadline=None)
@given(reachable_states(), st.integers(0, 7), st.integers(0, 2**16))
def test_perturb_swaps_two_hidden_cards_within_the_voids(state: fl.FoolState, seat: int, seed: int) -> None:
    state = live(state)
    seat %= state.game.num_players
    world = state.game.sample_state(state.observation(seat), random.Random(seed))
    assume(sum(1 for s in range(state.game.num_players) if s != seat and world.sizes[s]) >= 2)
    perturb = support().perturb
    assert perturb is not None
    before = [Counter(c for col in hand for c in col) for hand in world.hands]
    rng = random.Random(seed)
    for _ in range(20):
        new = perturb(world, seat, rng)
        if new is None:
            continue
        assert isinstance(new, fl.FoolState)
        after = [Counter(c for col in hand for c in col) for hand in new.hands]
        changed = [s for s in range(len(after)) if after[s] != before[s]]
        assert seat not in changed and len(changed) in (0, 2)  # two W1s swapped change nothing
        assert new.sizes == world.sizes and world_cards(new) == world_cards(world)
        assert new.observation(seat) == world.observation(seat)
        voids = world.voids()
        for s, hand in enumerate(new.hands):
            assert all(not hand[col] for col in range(4) if voids[s] >> col & 1)
        assert [Counter(c for col in hand for c in col) for hand in world.hands] == before  # world unchanged


def test_perturb_and_the_chain_accept_a_single_hidden_hand() -> None:
    """With one other seat holding cards nothing can be swapped: perturb refuses, the chain stays (it raised
    an error before, in a search late in a round)."""
    state = heuristic_position(4, 41)
    me = state.current_player()
    world = state.clone()
    keeper = (me + 1) % 5
    for seat in range(5):
        if seat not in (me, keeper):  # every other hidden card to one seat: one hidden hand
            for col, cards in enumerate(world.hands[seat]):
                world.hands[keeper][col] = sorted(world.hands[keeper][col] + cards)
                cards.clear()
    world.sizes = [sum(len(col) for col in hand) for hand in world.hands]
    perturb = support().perturb
    assert perturb is not None
    rng = random.Random(1)
    assert all(perturb(world, me, rng) is None for _ in range(10))
    chain = InferredChain(lambda _rng: world.clone(), me, PlayerModel(support()), 3)
    assert all(hands(chain(rng)) == world.hands for _ in range(5))


@settings(max_examples=150, deadline=None)
@given(reachable_states(), st.integers(0, 7), st.integers(0, 2**16), st.sampled_from([0.0, 0.7, "per_seat", "table"]),
       st.sampled_from([0.01, 0.2]))
def test_the_game_s_likelihood_is_the_replay_s_exactly(state: fl.FoolState, seat: int, seed: int,
                                                       temperature: float | str, epsilon: float) -> None:
    """``policy.play_log_likelihood`` (no replay, each seat's terms kept per hand) gives the very floats of
    ``replay_log_likelihood``: for a world, for worlds a swap away (two seats' terms new, the others kept), and
    for the true deal, from any seat's view, at 4-8 players and in later rounds; for the fixed models and the
    learned ones (trust per seat, or one for the table)."""
    state = live(state)
    seat %= state.game.num_players
    model = (PlayerModel(support(), 0.0, epsilon, trust=temperature) if isinstance(temperature, str)
             else PlayerModel(support(), temperature, epsilon))
    assert support().log_likelihood is policy.play_log_likelihood
    world = state.game.sample_state(state.observation(seat), random.Random(seed))
    perturb = support().perturb
    assert perturb is not None
    rng = random.Random(seed)
    worlds = [state, world] + [w for w in (perturb(world, seat, rng) for _ in range(6)) if w is not None]
    for w in worlds + worlds[::-1]:  # the second pass reads every seat's terms from what was kept
        assert log_likelihood(w, seat, model) == replay_log_likelihood(w, seat, model)


def test_the_game_s_likelihood_counts_only_the_other_seats_unforced_plays() -> None:
    """In a table of heuristics every other seat's play is the heuristic's: each unforced play adds log(1 - eps +
    eps / n), a forced one nothing, the observer's own nothing; a world in which two seats' cards differ may not
    fit at all."""
    state = heuristic_position(2, 33)
    me = state.current_player()
    model = PlayerModel(support(), 0.0, 0.05)
    start, cards = support().rewind(state)
    expected = 0.0
    for card in cards:
        n = len(start.legal_actions())
        if start.current_player() != me and n > 1:
            expected += math.log(1.0 - 0.05 + 0.05 / n)
        start.apply_action(card)
    assert policy.play_log_likelihood(state, me, model) == pytest.approx(expected)
    perturb = support().perturb
    assert perturb is not None
    rng = random.Random(3)
    swapped = [w for w in (perturb(state, me, rng) for _ in range(40)) if w is not None and hands(w) != hands(state)]
    assert swapped
    # a swap that makes some seat's play not the heuristic's costs about log(eps / n) there
    assert min(policy.play_log_likelihood(w, me, model) for w in swapped) < expected + math.log(0.05)


def test_the_chain_is_the_same_with_the_game_s_likelihood_and_with_the_replay() -> None:
    state = heuristic_position(1, 29)
    me = state.current_player()
    replayed = dataclasses.replace(support(), log_likelihood=None)
    chains = [InferredChain(state.game.determinizer(state.observation(me)), me, PlayerModel(s), 2)
              for s in (support(), replayed)]
    drawn = [[hands(chain(random_)) for _ in range(150)] for chain, random_ in
             zip(chains, (random.Random(7), random.Random(7)), strict=True)]
    assert drawn[0] == drawn[1]
    assert chains[0].accepted == chains[1].accepted > 10


@settings(max_examples=100, deadline=None)
@given(reachable_states())
def test_voids_read_from_the_plays_are_the_observed_voids(state: fl.FoolState) -> None:
    assert observe.plays_voids(state) == state.voids()
    assert observe.plays_voids(state.clone()) == state.voids()


# ---- the player model ---------------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(reachable_states(), st.sampled_from([0.0, 0.3, 2.0]), st.sampled_from([0.01, 0.2]))
def test_player_model_is_a_distribution_over_the_legal_moves(state: fl.FoolState, temperature: float,
                                                              epsilon: float) -> None:
    state = live(state)
    model = PlayerModel(support(), temperature, epsilon)
    legal = state.legal_actions()
    probs = {a: math.exp(model.log_prob(state, a)) for a in legal}
    assert sum(probs.values()) == pytest.approx(1.0)
    if len(legal) > 1:  # the heuristic's move is the most likely one
        best = policy.move(state)
        assert all(p < probs[best] for a, p in probs.items() if a != best)


def test_player_model_refuses_bad_parameters() -> None:
    for temperature, epsilon in ((-0.1, 0.05), (0.0, 0.0), (0.0, 1.0), (math.nan, 0.05)):
        with pytest.raises(MotleyError):
            PlayerModel(support(), temperature, epsilon)
    with pytest.raises(MotleyError, match="temperature"):
        PlayerModel(support(), 0.5, 0.05, trust="per_seat")
    with pytest.raises(MotleyError, match="trust"):
        PlayerModel(support(), trust="some")
    state = heuristic_position(0, 25)
    with pytest.raises(MotleyError, match="shared_log_likelihood"):  # no per-move probability: a seat's plays together
        PlayerModel(support(), trust="per_seat").log_prob(state, policy.move(state))
    with pytest.raises(MotleyError):
        InferredSampler(lambda rng: heuristic_position(0, 0), 0, PlayerModel(support()), 0)
    with pytest.raises(MotleyError):
        InferredChain(lambda rng: heuristic_position(0, 0), 0, PlayerModel(support()), 0)
    with pytest.raises(MotleyError):
        resample([], random.Random(0))


def test_disagreements_count_the_moves_that_are_not_the_heuristic_s() -> None:
    """A table of heuristics where one seat once plays another card: its own view shows no disagreement,
    every other seat's view of the true world shows exactly that one."""
    game = motley.load_game("fool(players=5,rounds=1)")
    state = game.new_initial_state(seed=11)
    assert isinstance(state, fl.FoolState)
    deviant = -1
    for _ in range(30):
        move = policy.move(state)
        legal = state.legal_actions()
        if deviant < 0 and len(state.trick) == 2 and len(legal) > 1:  # once, mid-trick
            deviant = state.current_player()
            move = next(a for a in legal if a != move)
        state.apply_action(move)
    assert deviant >= 0
    for observer in range(5):
        assert disagreements(state, observer, support()) == (0 if observer == deviant else 1)


def test_resample_draws_in_proportion_to_the_weights() -> None:
    rng = random.Random(3)
    weights = [math.log(1.0), math.log(3.0), -math.inf]
    counts = Counter(resample(weights, rng) for _ in range(4000))
    assert counts[2] == 0
    assert 0.70 < counts[1] / 4000 < 0.80


@pytest.mark.parametrize("epsilon", [0.01, 0.05, 0.3])
def test_the_per_seat_model_is_a_distribution_over_a_seat_s_plays(epsilon: float) -> None:
    """Summed over every way a seat can play a sequence of decisions (each the heuristic's move or one of the
    ``n - 1`` others), the per-seat likelihoods add up to 1: the prior over the seat's share is a distribution."""
    model = PlayerModel(support(), 0.0, epsilon, trust="per_seat")
    moves = [2, 3, 5, 4]  # legal moves at each of the seat's decisions
    total = 0.0
    for pattern in range(1 << len(moves)):  # bit i set: the i-th play is not the heuristic's move
        off = [n for i, n in enumerate(moves) if pattern >> i & 1]
        log_choices = -sum(math.log(n - 1) for n in off)
        likelihood = math.exp(model.shared_log_likelihood(len(moves) - len(off), len(off), log_choices))
        total += likelihood * math.prod(n - 1 for n in off)  # every other move of a play is as likely
    assert total == pytest.approx(1.0)
    assert model.shared_log_likelihood(0, 0, 0.0) == 0.0


def test_the_per_seat_model_trusts_a_seat_by_its_own_record() -> None:
    """One more play off the heuristic costs a seat that always played the heuristic's move about what the fixed
    model charges, and less the more often that seat played otherwise (a searching bot, a person): how far a
    seat's plays are read as the heuristic's is learned per seat."""
    per_seat, fixed = PlayerModel(support(), trust="per_seat"), PlayerModel(support(), 0.0, 0.05)

    def cost(agreements: int, disagreements: int) -> float:
        """The log-likelihood lost when one of the seat's heuristic plays (of 4 legal moves) is another move."""
        return (per_seat.shared_log_likelihood(agreements, disagreements, 0.0)
                - per_seat.shared_log_likelihood(agreements - 1, disagreements + 1, -math.log(3)))

    costs = [cost(10 - d, d) for d in range(6)]
    assert all(a > b for a, b in itertools.pairwise(costs)), costs
    fixed_cost = fixed.log_prob_given_move(4, 1, 1) - fixed.log_prob_given_move(4, 2, 1)
    assert costs[0] > 0.5 * fixed_cost and costs[5] < 0.25 * fixed_cost


def random_position(seed: int, moves: int) -> fl.FoolState:
    """A Fool! round of five seats playing uniformly random legal cards, ``moves`` cards in."""
    game = motley.load_game("fool(players=5,rounds=1)")
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, fl.FoolState)
    play_random(state, random.Random(seed), moves)
    return state


def chain_mismatches(state: fl.FoolState, model: PlayerModel, seed: int) -> list[int]:
    """:func:`mismatches` of 60 worlds of an inference chain at ``state`` (after a burn-in)."""
    me = state.current_player()
    chain = InferredChain(state.game.determinizer(state.observation(me)), me, model, 4)
    rng = random.Random(seed)
    for _ in range(300):
        chain(rng)
    return [mismatches(chain(rng), me) for _ in range(60)]


@pytest.mark.parametrize("trust", ["per_seat", "table"])
def test_a_learned_trust_follows_heuristics_and_does_not_read_random_players_as_heuristics(trust: str) -> None:
    """Against a table of heuristics the chain's worlds under a learned trust mostly fit the plays exactly, as the
    fixed model's do; against a table of random players the fixed model explains their plays away (its worlds
    have far fewer plays off the heuristic than the true deal), the learned trust's worlds stay near the true
    deal's count."""
    learned, fixed = PlayerModel(support(), trust=trust), PlayerModel(support(), 0.0, 0.05)
    fits: list[bool] = []
    gaps: dict[bool, list[int]] = {False: [], True: []}
    for seed, moves in POSITIONS:
        fits += [m == 0 for m in chain_mismatches(heuristic_position(seed, moves), learned, seed)]
        state = random_position(seed, moves)
        true = mismatches(state, state.current_player())
        assert true >= 5  # random players leave the heuristic often
        for is_learned, model in ((False, fixed), (True, learned)):
            gaps[is_learned] += [true - m for m in chain_mismatches(state, model, seed)]
    assert sum(fits) / len(fits) >= 0.7
    fixed_gap, learned_gap = (sum(gaps[k]) / len(gaps[k]) for k in (False, True))
    assert fixed_gap > 3.0 and learned_gap < fixed_gap / 2, (fixed_gap, learned_gap)


# ---- the property of the issue: the posterior concentrates on the worlds that fit the plays -----------------

#: (seed, cards played) of five-heuristic Fool! rounds, each at a decision several tricks in.
POSITIONS = [(0, 25), (1, 29), (2, 33), (3, 37), (4, 41), (5, 45)]


def test_inferred_worlds_fit_a_deterministic_opponent_where_uniform_ones_do_not() -> None:
    model = PlayerModel(support(), 0.0, 0.01)  # a near-deterministic model of a deterministic opponent
    uniform, resampled, chained = [], [], []
    for seed, moves in POSITIONS:
        state = heuristic_position(seed, moves)
        me = state.current_player()
        sample = state.game.determinizer(state.observation(me))
        rng = random.Random(seed)
        uniform += [mismatches(sample(rng), me) for _ in range(60)]
        sir = InferredSampler(sample, me, model, 32)
        resampled += [mismatches(sir(rng), me) for _ in range(60)]
        chain = InferredChain(sample, me, model, 4)
        for _ in range(300):  # burn-in
            chain(rng)
        chained += [mismatches(chain(rng), me) for _ in range(60)]
    fit = [sum(1 for m in found if m == 0) / len(found) for found in (uniform, resampled, chained)]
    # the chain's worlds are nearly all ones where every other seat played as the heuristic would
    assert fit[2] >= 0.9, fit
    # the uniform sampler's are mostly not; importance resampling is in between
    assert fit[0] <= 0.2 and fit[0] < fit[1] < fit[2], fit
    assert sum(resampled) < sum(uniform) / 2


def test_with_a_likelihood_that_weighs_every_world_alike_the_chain_draws_the_sampler_s_worlds() -> None:
    """The swap proposal is symmetric (within the voids): a chain whose likelihood is flat has the game's
    sampler's distribution, here each hidden card's chance of being in each seat's hand (a position with voids)."""
    state = heuristic_position(3, 37)
    me = state.current_player()
    assert any(state.voids())

    def holdings(world: State) -> list[tuple[int, int]]:
        return [(seat, card) for seat, hand in enumerate(hands(world)) if seat != me for col in hand for card in col]

    assert flat_chain_gap(state, me, support(), holdings) < 0.1


def test_the_chain_worlds_vary() -> None:
    """A chain that fits the plays still moves among the worlds that do (it does not freeze on one)."""
    state = heuristic_position(0, 25)
    me = state.current_player()
    chain = InferredChain(state.game.determinizer(state.observation(me)), me, PlayerModel(support()), 4)
    rng = random.Random(0)
    worlds = {repr(hands(chain(rng))) for _ in range(200)}
    assert len(worlds) > 20
    assert chain.accepted > 20


# ---- hard constraints and seeds -----------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(reachable_states(), st.integers(0, 7), st.integers(0, 2**16), st.sampled_from([0.0, 0.5]))
def test_inferred_worlds_keep_every_hard_constraint(state: fl.FoolState, seat: int, seed: int,
                                                    temperature: float) -> None:
    state = live(state)
    seat %= state.game.num_players
    obs = state.observation(seat)
    model = PlayerModel(support(), temperature)
    sample = state.game.determinizer(obs)
    samplers: list[Callable[[random.Random], State]] = [InferredSampler(sample, seat, model, 4)]
    if sum(1 for s in range(state.game.num_players) if s != seat and state.sizes[s]) >= 2:
        samplers.append(InferredChain(InferredSampler(sample, seat, model, 2), seat, model, 3))
    rng = random.Random(seed)
    for sampler in samplers:
        for _ in range(5):
            world = sampler(rng)
            assert isinstance(world, fl.FoolState)
            assert world.observation(seat) == obs
            assert world_cards(world) == deck_cards(state.game)
            for s, voids in enumerate(obs["voids"]):
                for colour in voids:
                    assert not world.hands[s][flc.COLOUR_NAMES.index(colour)]
            assert log_likelihood(world, seat, model) <= 0.0


def test_inferred_worlds_are_fixed_by_the_seed() -> None:
    state = heuristic_position(2, 33)
    me = state.current_player()
    model = PlayerModel(support(), 0.5)

    def draws(seed: int) -> list[str]:
        sample = state.game.determinizer(state.observation(me))
        rng = random.Random(seed)
        sir, chain = InferredSampler(sample, me, model, 8), InferredChain(sample, me, model, 3)
        return [repr(hands(sir(rng))) for _ in range(10)] + [repr(hands(chain(rng))) for _ in range(10)]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


# ---- ISMCTS options ------------------------------------------------------------------------------------

def test_ismcts_inference_options_refuse_bad_values() -> None:
    game = motley.load_game("fool(players=5)")
    for spec in ("ismcts(infer=-1)", "ismcts(infer=x)", "ismcts(infer=4,infer_temperature=-1)",
                 "ismcts(infer=4,infer_epsilon=0)", "ismcts(infer_chain=-2)", "ismcts(infer_chain=2,infer_trust=x)",
                 "ismcts(infer_chain=2,infer_trust=per_seat,infer_temperature=0.5)"):
        with pytest.raises(MotleyError):
            make_bot(spec, game)
    for name in ("foolery", "fools_errand"):  # games without inference support say so
        other = motley.load_game(name)
        if game_spec(name).inference is None:
            with pytest.raises(MotleyError, match="inference support"):
                make_bot("ismcts(infer=4)", other)
        make_bot("ismcts(infer=0)", other)  # off: fine for every game


def test_ismcts_with_inference_off_searches_as_before() -> None:
    """``infer=0`` and ``infer=1`` (one candidate) are the plain search: the same moves and statistics."""
    state = heuristic_position(1, 29)
    me = state.current_player()
    obs, legal = state.observation(me), state.legal_actions()
    explained = []
    for spec in ("ismcts(simulations=200)", "ismcts(simulations=200,infer=0)", "ismcts(simulations=200,infer=1)"):
        bot = make_bot(spec, state.game)
        move = bot.act(obs, legal, random.Random(5))
        explained.append((move, bot.explain()))
    assert explained[0] == explained[1] == explained[2]


@pytest.mark.parametrize("spec", ["ismcts(simulations=40,infer=3)", "ismcts(simulations=40,infer_chain=2)",
                                  "ismcts(simulations=40,infer=2,infer_chain=1,infer_temperature=0.5)",
                                  "ismcts(simulations=40,infer_chain=2,infer_trust=per_seat)",
                                  "ismcts(simulations=40,infer_chain=2,infer_trust=table)"])
def test_ismcts_with_inference_plays_a_round_and_is_fixed_by_the_seed(spec: str) -> None:
    game = motley.load_game("fool(players=5,rounds=1)")

    def play(seed: int) -> list[int]:
        state = game.new_initial_state(seed=seed)
        bot = make_bot(spec, game)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            seat = state.current_player()
            action = bot.act(state.observation(seat), legal, rng) if seat == 0 else policy.move(state)
            assert action in legal
            state.apply_action(action)
        return state.history()

    assert play(3) == play(3)
