"""Inference from play in Foolery (motley.core.inference; the game's part in games/foolery/sample.py and policy.py).

As for Fool! (tests/core/test_inference.py): a world's hand replays from its deal to the same position; the move
scores rank the heuristic's move first; the swap proposal keeps every hard constraint the observer knows of
(the exchange of FY-R13 / FY-D15, trump leads of FY-R8, hand sizes, the cards out) and is symmetric; against a
known deterministic opponent the inferred worlds fit its plays where uniform ones do not; a seed fixes them.
Positions cover 3 to 7 players and later hands, where the exchange happens.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import motley
from motley.bots import make_bot
from motley.core import State
from motley.core.inference import (
    InferenceSupport,
    InferredChain,
    InferredSampler,
    PlayerModel,
    disagreements,
    log_likelihood,
)
from motley.core.registry import game_spec
from motley.games.foolery import cards as fyc
from motley.games.foolery import game as fy
from motley.games.foolery import policy
from motley.games.foolery import sample as fy_sample
from motley.games.foolery.moves import A_KIND, K_TRUMP
from tests.games.test_foolery_properties import FULL, exchange_breaches, pack, reachable_states
from tests.support import flat_chain_gap, play_random

SUIT_CARDS = (1 << 56) - 1


def support() -> InferenceSupport:
    found = game_spec("foolery").inference
    assert found is not None
    return found


def foolery(world: State) -> fy.FooleryState:
    """A world a sampler returned, as the Foolery state it is."""
    assert isinstance(world, fy.FooleryState)
    return world


def live(state: fy.FooleryState) -> fy.FooleryState:
    """``state`` if a seat is to move in it (inference is asked inside a hand)."""
    assume(not state.is_terminal())
    return state


def later_positions(players: int, seed: int, count: int = 8) -> list[fy.FooleryState]:
    """Positions of the second hand of a match (the exchange and the play), random and heuristic moves mixed."""
    game = motley.load_game("foolery", players=players, hands=2)
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, fy.FooleryState)
    rng = random.Random(seed)
    while state.hand_number == 1:
        play_random(state, rng, 1)
    out: list[fy.FooleryState] = []
    while not state.is_terminal() and len(out) < count:
        if state.phase == fyc.EXCHANGE or rng.random() < 0.08:
            out.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))] if rng.random() < 0.5 else policy.move(state))
    return out


def observers(state: fy.FooleryState) -> list[int]:
    """The seats a world is sampled for: the seat to move during the exchange (as search asks; the
    determinizer's worlds for the other seats may lack the tie that makes an upward giver choose, its
    documented limitation), every seat in the play."""
    if state.phase == fyc.EXCHANGE:
        return [state.current_player()]
    return list(range(state.game.num_players))


def without_give_order(obs: Mapping[str, Any]) -> dict[str, Any]:
    """An observation with its own exchange records as sets: a sampled world may lack the tie that made the
    giver choose the order of an upward give, so its replay gives the tied cards in the rules' own order."""
    out = dict(obs)
    exchange = dict(out["exchange"])
    exchange["gave"], exchange["received"] = sorted(exchange["gave"]), sorted(exchange["received"])
    out["exchange"] = exchange
    return out


def trump_leaders(state: fy.FooleryState) -> list[int]:
    """The seats that led trumps this hand, read from the log (FY-R8: they held no suit card then)."""
    seats, lead = [], True
    for kind, seat, value in state.log:
        if kind == fyc.EV_PLAY:
            if lead and A_KIND[value] == K_TRUMP:
                seats.append(seat)
            lead = False
        elif kind == fyc.EV_TRICK:
            lead = True
    return seats


def hard_constraint_breaches(state: fy.FooleryState, seat: int, world: fy.FooleryState) -> list[str]:
    """What ``world`` breaks of what ``seat`` knows in ``state``: its observation, the pack, the exchange
    (``exchange_breaches``), trump leads (FY-R8) and a leader left with the Fool alone (FY-D13)."""
    out = list(exchange_breaches(state, seat, world))
    if world.observation(seat) != state.observation(seat):
        out.append("observation differs")
    if pack(world) != FULL or [h.bit_count() for h in world.hands] != state.sizes:
        out.append("pack or sizes differ")
    out += [f"seat {q} led trumps but holds suit cards" for q in trump_leaders(state)
            if world.hands[q] & SUIT_CARDS]
    if world.phase == fyc.PLAY and world.top < 0 and world.hands[world.to_move] == fyc.FOOL_BIT:
        out.append("the leader holds the Fool alone")
    return out


def heuristic_position(seed: int, moves: int, players: int = 5) -> fy.FooleryState:
    """A one-hand Foolery game of heuristic players (``policy.move`` for every seat), ``moves`` moves in."""
    game = motley.load_game(f"foolery(players={players},hands=1)")
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, fy.FooleryState)
    for _ in range(moves):
        state.apply_action(policy.move(state))
    assert not state.is_terminal()
    return state


# ---- the game's part: replaying a world's hand, the move scores, the swap proposal -------------------------

@settings(max_examples=150, deadline=None)
@given(reachable_states())
def test_rewind_replays_the_hand_to_the_same_position(state: fy.FooleryState) -> None:
    state = live(state)
    start, actions = support().rewind(state)
    assert isinstance(start, fy.FooleryState) and not start.log and start.hand_number == state.hand_number
    assert start.played == 0
    for action in actions:
        start.apply_action(action)  # checked: every move is legal in turn
    for seat in range(state.game.num_players):
        assert start.observation(seat) == state.observation(seat)
    assert start.hands == state.hands and start.gave == state.gave and start.received == state.received
    assert start.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_rewind_replays_sampled_worlds_for_the_observer(players: int) -> None:
    """In a sampled world the exchange between two other seats is not recorded: the replay invents one
    history, and still comes back to the world's hands and the observer's observation (its own gives as a set)."""
    for seed in range(3):
        for state in later_positions(players, seed):
            for seat in observers(state):
                obs = state.observation(seat)
                draw = state.game.determinizer(obs)
                for i in range(3):
                    world = draw(random.Random(i))
                    start, actions = support().rewind(world)
                    for action in actions:
                        start.apply_action(action)
                    assert foolery(start).hands == world.hands
                    assert without_give_order(start.observation(seat)) == without_give_order(obs)


@settings(max_examples=200, deadline=None)
@given(reachable_states())
def test_move_scores_cover_the_legal_actions_and_rank_the_heuristic_move_first(state: fy.FooleryState) -> None:
    state = live(state)
    scores = policy.move_scores(state)
    assert sorted(scores) == state.legal_actions()
    best = policy.move(state)
    assert all(score < scores[best] for action, score in scores.items() if action != best)
    assert all(math.isfinite(score) for score in scores.values())


@settings(max_examples=150, deadline=None)
@given(reachable_states(), st.integers(0, 2**16))
def test_the_model_on_a_full_state_is_the_heuristic_bot_on_the_observation(state: fy.FooleryState,
                                                                            seed: int) -> None:
    state = live(state)
    observation = state.observation(state.current_player())
    legal = state.legal_actions()
    assert policy.heuristic(state.game, observation, legal, random.Random(seed)) == policy.move(state)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_perturb_swaps_two_hidden_cards_within_the_hard_constraints(players: int) -> None:
    perturb = support().perturb
    assert perturb is not None
    swaps = 0
    for seed in range(2):
        positions = later_positions(players, seed) + [heuristic_position(seed, 20 + 7 * seed, players)]
        for state in positions:
            for seat in observers(state):
                world = state.game.sample_state(state.observation(seat), random.Random(seed))
                before = list(world.hands)
                rng = random.Random(seed)
                for _ in range(15):
                    new = perturb(world, seat, rng)
                    if new is None:
                        continue
                    swaps += 1
                    assert isinstance(new, fy.FooleryState)
                    changed = [q for q in range(players) if new.hands[q] != world.hands[q]]
                    assert seat not in changed and len(changed) == 2
                    first, second = changed
                    assert (new.hands[first] ^ world.hands[first]).bit_count() == 2  # one card each way
                    assert new.hands[first] ^ world.hands[first] == new.hands[second] ^ world.hands[second]
                    assert new.sizes == world.sizes and pack(new) == FULL
                    assert hard_constraint_breaches(state, seat, new) == []
                    # symmetric: the reverse swap is as likely (each seat's movable cards keep their number)
                    # and allowed
                    fixed = fyc.mask_of(world.gave[seat])
                    assert [(h & ~fixed).bit_count() for h in new.hands] == [(h & ~fixed).bit_count()
                                                                             for h in world.hands]
                    back = [(first, c) for c in fyc.cards_of(world.hands[first] & ~new.hands[first])]
                    back += [(second, c) for c in fyc.cards_of(world.hands[second] & ~new.hands[second])]
                    assert fy_sample._swap_allowed(new, seat, world.hands, back)
                assert world.hands == before  # the world is unchanged
    assert swaps > 100


def test_perturb_refuses_swaps_that_break_what_the_observer_knows() -> None:
    """The King knows the Peasant gave its highest cards (FY-R13, FY-D15): no swap hands the Peasant a hidden
    card above them."""
    perturb = support().perturb
    assert perturb is not None
    state = next(s for s in later_positions(5, 11, 30) if s.phase == fyc.PLAY)
    king, peasant = state.titles.index(fyc.KING), state.titles.index(fyc.PEASANT)
    keys = fy_sample.exchange_keys(state.game)
    cap = min(keys[c] for c in state.received[king])
    world = state.game.sample_state(state.observation(king), random.Random(0))
    rng = random.Random(1)
    refused = 0
    for _ in range(300):
        new = perturb(world, king, rng)
        if new is None:
            refused += 1
            continue
        hidden = foolery(new).hands[peasant] & ~fyc.mask_of(state.gave[king])
        assert all(keys[c] <= cap for c in fyc.cards_of(hidden))
    assert refused > 0


def test_perturb_and_the_chain_accept_a_single_hidden_hand() -> None:
    """With one other seat holding cards nothing can be swapped: perturb refuses, the chain stays."""
    state = later_positions(3, 4)[-1]
    me = state.current_player()
    world = state.game.sample_state(state.observation(me), random.Random(0))
    keeper = next(q for q in range(3) if q != me and world.hands[q])
    for q in range(3):
        if q not in (me, keeper):
            world.hands[keeper] |= world.hands[q]
            world.hands[q] = 0
    world.sizes = [h.bit_count() for h in world.hands]
    perturb = support().perturb
    assert perturb is not None
    rng = random.Random(1)
    assert all(perturb(world, me, rng) is None for _ in range(10))
    chain = InferredChain(lambda _rng: world.clone(), me, PlayerModel(support()), 3)
    assert all(foolery(chain(rng)).hands == world.hands for _ in range(5))


# ---- the player model on Foolery ----------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(reachable_states(), st.sampled_from([0.0, 0.3, 2.0]), st.sampled_from([0.01, 0.2]))
def test_player_model_is_a_distribution_over_the_legal_moves(state: fy.FooleryState, temperature: float,
                                                              epsilon: float) -> None:
    state = live(state)
    model = PlayerModel(support(), temperature, epsilon)
    legal = state.legal_actions()
    probs = {a: math.exp(model.log_prob(state, a)) for a in legal}
    assert sum(probs.values()) == pytest.approx(1.0)
    if len(legal) > 1:
        best = policy.move(state)
        assert all(p < probs[best] for a, p in probs.items() if a != best)


def test_disagreements_count_the_moves_that_are_not_the_heuristic_s() -> None:
    """Heuristic players where one seat once plays another move: only the other seats' views see it."""
    game = motley.load_game("foolery(players=4,hands=1)")
    state = game.new_initial_state(seed=5)
    assert isinstance(state, fy.FooleryState)
    deviant = -1
    for _ in range(30):
        move = policy.move(state)
        legal = state.legal_actions()
        if deviant < 0 and state.top >= 0 and len(legal) > 1:  # once, following
            deviant = state.current_player()
            move = next(a for a in legal if a != move)
        state.apply_action(move)
    assert deviant >= 0
    for observer in range(4):
        assert disagreements(state, observer, support()) == (0 if observer == deviant else 1)


# ---- the property of the issue: the posterior concentrates on the worlds that fit the plays -----------------

#: (seed, moves) of five-heuristic one-hand Foolery games, each at a decision several tricks in.
POSITIONS = [(0, 30), (1, 40), (2, 50), (3, 35), (4, 45), (5, 55)]


def fit_draws(model: PlayerModel, resampled_too: bool = True) -> tuple[list[int], list[int], list[int]]:
    """:func:`disagreements` of worlds at :data:`POSITIONS`: 40 of the game's sampler, 20 of importance resampling
    (32 candidates; none unless ``resampled_too``) and 40 of a chain (4 steps a world, after 300 of burn-in)."""
    uniform, resampled, chained = [], [], []
    for seed, moves in POSITIONS:
        state = heuristic_position(seed, moves)
        me = state.current_player()
        sample = state.game.determinizer(state.observation(me))
        rng = random.Random(seed)
        uniform += [disagreements(sample(rng), me, support()) for _ in range(40)]
        if resampled_too:
            sir = InferredSampler(sample, me, model, 32)
            resampled += [disagreements(sir(rng), me, support()) for _ in range(20)]
        chain = InferredChain(sample, me, model, 4)
        for _ in range(300):  # burn-in
            chain(rng)
        chained += [disagreements(chain(rng), me, support()) for _ in range(40)]
    return uniform, resampled, chained


def test_inferred_worlds_fit_a_deterministic_opponent_where_uniform_ones_do_not() -> None:
    uniform, resampled, chained = fit_draws(PlayerModel(support(), 0.0, 0.01))  # a near-deterministic model
    fit = [sum(1 for m in found if m == 0) / len(found) for found in (uniform, resampled, chained)]
    mean = [sum(found) / len(found) for found in (uniform, resampled, chained)]
    # the uniform sampler's worlds nearly never fit every play; the chain's often do, and miss by little
    assert fit[0] <= 0.1 and fit[2] >= 0.5, fit
    assert mean[2] < mean[0] / 5 and mean[1] < 0.8 * mean[0], mean


def test_the_per_seat_model_s_worlds_fit_a_table_of_heuristics_too() -> None:
    """The per-seat player model (each seat's share of moves off the heuristic learned from its plays, replayed
    through the engine in Foolery) still concentrates the chain on worlds that fit a table of heuristics."""
    uniform, _, chained = fit_draws(PlayerModel(support(), trust="per_seat"), resampled_too=False)
    assert sum(1 for m in chained if m == 0) / len(chained) >= 0.25
    assert sum(chained) < sum(uniform) / 5


def later_heuristic_position(seed: int, moves: int) -> fy.FooleryState:
    """The second hand of a five-heuristic Foolery match, ``moves`` moves after its deal (the exchange in them)."""
    game = motley.load_game("foolery(players=5,hands=2)")
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, fy.FooleryState)
    while state.hand_number == 1:
        state.apply_action(policy.move(state))
    for _ in range(moves):
        state.apply_action(policy.move(state))
    assert state.phase == fyc.PLAY
    return state


def test_inferred_worlds_fit_the_plays_and_the_unseen_exchange_in_a_later_hand() -> None:
    """In the second hand the seats outside an exchange do not see its cards: the replay of their worlds
    finds a history the heuristic would have made where the hands allow one, so a chain's worlds fit every
    move (the exchange included) where uniform ones do not; the true world fits for every seat."""
    model = PlayerModel(support(), 0.0, 0.01)
    uniform, chained = [], []
    titles = set()
    for seed, moves in [(0, 20), (1, 25), (2, 30), (3, 20), (4, 25)]:
        state = later_heuristic_position(seed, moves)
        me = state.current_player()
        titles.add(state.titles[me])
        for seat in range(5):  # the true world: every seat's view of it fits, its exchange records or not
            assert disagreements(state, seat, support()) == 0
            draw = state.game.determinizer(state.observation(seat))
            disagreements(draw(random.Random(0)), seat, support())  # raises unless a world of any seat replays
        sample = state.game.determinizer(state.observation(me))
        rng = random.Random(seed)
        uniform += [disagreements(sample(rng), me, support()) for _ in range(30)]
        chain = InferredChain(sample, me, model, 4)
        for _ in range(300):
            chain(rng)
        chained += [disagreements(chain(rng), me, support()) for _ in range(30)]
    assert fyc.NOBLE in titles  # a seat outside both exchanges among them
    fit = [sum(1 for m in found if m == 0) / len(found) for found in (uniform, chained)]
    assert fit[0] <= 0.1 and fit[1] >= 0.5, fit
    assert sum(chained) < sum(uniform) / 5


def test_with_a_likelihood_that_weighs_every_world_alike_the_chain_draws_the_sampler_s_worlds() -> None:
    """The swap proposal is symmetric (within the hard constraints): a chain whose likelihood is flat has the
    game's sampler's distribution, here each hidden card's chance of being in each seat's hand."""
    state = heuristic_position(0, 30)
    me = state.current_player()

    def holdings(world: State) -> list[tuple[int, int]]:
        return [(seat, card) for seat, hand in enumerate(foolery(world).hands) if seat != me
                for card in range(fyc.NUM_CARDS) if hand >> card & 1]

    assert flat_chain_gap(state, me, support(), holdings) < 0.1


def test_the_chain_worlds_vary() -> None:
    state = heuristic_position(0, 30)
    me = state.current_player()
    chain = InferredChain(state.game.determinizer(state.observation(me)), me, PlayerModel(support()), 4)
    rng = random.Random(0)
    worlds = {tuple(foolery(chain(rng)).hands) for _ in range(150)}
    assert len(worlds) > 20 and chain.accepted > 20


# ---- hard constraints and seeds -----------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_inferred_worlds_keep_every_hard_constraint(players: int) -> None:
    for seed in range(2):
        for state in later_positions(players, seed, 5):
            for seat in observers(state)[:2]:
                obs = state.observation(seat)
                sample = state.game.determinizer(obs)
                for temperature in (0.0, 0.5):
                    model = PlayerModel(support(), temperature)
                    samplers: list[Callable[[random.Random], State]] = [
                        InferredSampler(sample, seat, model, 4),
                        InferredChain(InferredSampler(sample, seat, model, 2), seat, model, 3)]
                    rng = random.Random(seed)
                    for sampler in samplers:
                        for _ in range(3):
                            world = sampler(rng)
                            assert isinstance(world, fy.FooleryState)
                            assert hard_constraint_breaches(state, seat, world) == []
                            assert pack(world) == FULL
                            assert log_likelihood(world, seat, model) <= 0.0


def test_trump_leaders_hold_no_suit_cards_in_sampled_and_perturbed_worlds() -> None:
    """FY-R8: a seat that led trumps this hand held no suit card then, nor since; the determinizer's worlds
    and the swaps keep that (a replay would otherwise hold an illegal lead)."""
    perturb = support().perturb
    assert perturb is not None
    found = 0
    for seed in range(40):
        game = motley.load_game("foolery(players=4,hands=1)")
        state = game.new_initial_state(seed=seed)
        assert isinstance(state, fy.FooleryState)
        rng = random.Random(seed)
        while not state.is_terminal():
            leaders = [q for q in trump_leaders(state) if state.sizes[q]]
            me = state.current_player()
            if any(q != me for q in leaders):
                found += 1
                draw = game.determinizer(state.observation(me))
                for i in range(5):
                    world = draw(random.Random(i))
                    assert hard_constraint_breaches(state, me, foolery(world)) == []
                    start, actions = support().rewind(world)
                    for action in actions:
                        start.apply_action(action)
                    assert foolery(start).hands == foolery(world).hands
                    for _ in range(10):
                        new = perturb(world, me, rng)
                        assert new is None or hard_constraint_breaches(state, me, foolery(new)) == []
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))] if rng.random() < 0.2 else policy.move(state))
    assert found > 5


def test_inferred_worlds_are_fixed_by_the_seed() -> None:
    state = later_positions(5, 2)[-1]
    me = state.current_player()
    model = PlayerModel(support(), 0.5)

    def draws(seed: int) -> list[tuple[int, ...]]:
        sample = state.game.determinizer(state.observation(me))
        rng = random.Random(seed)
        sir, chain = InferredSampler(sample, me, model, 8), InferredChain(sample, me, model, 3)
        return [tuple(foolery(sir(rng)).hands) for _ in range(5)] + [tuple(foolery(chain(rng)).hands) for _ in range(5)]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


# ---- ISMCTS with inference plays Foolery ---------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["ismcts(simulations=50,infer=4)", "ismcts(simulations=50,infer_chain=2)",
                                  "ismcts(simulations=50,infer_chain=2,infer_trust=per_seat)"])
def test_ismcts_with_inference_plays_a_later_hand_and_is_fixed_by_the_seed(spec: str) -> None:
    """The bot (seat 0) plays the second hand of a match, exchange included, the others the heuristic."""
    game = motley.load_game("foolery(players=4,hands=2)")
    make_bot(spec, game)  # Foolery has inference support (with perturb): accepted

    def play(seed: int) -> list[int]:
        state = game.new_initial_state(seed=seed)
        assert isinstance(state, fy.FooleryState)
        while state.hand_number == 1:
            state.apply_action(policy.move(state))
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
