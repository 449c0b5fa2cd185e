"""What search relies on besides the core API: the stop at the end of a deal, and the fast shuffle."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

import motley
from motley.core.cards import shuffle
from motley.core.search import SearchState
from tests.support import game_configs


def searchable(state: motley.State) -> SearchState:
    """``state`` as a :class:`SearchState` (every game of motley opts in to search support)."""
    assert isinstance(state, SearchState)
    return state


def _spec(name: str, players: int, single_deal: bool) -> str:
    deals = {"fool": "rounds", "foolery": "hands"}.get(name)
    if single_deal and deals is None:
        return ""
    extra = f",{deals}=1" if single_deal else ""
    return f"{name}(players={players}{extra})"


@pytest.mark.parametrize(("name", "players"), game_configs())
@pytest.mark.parametrize("single_deal", [False, True])
def test_a_state_stopped_at_deal_end_scores_the_deal_like_a_full_one(name: str, players: int,
                                                                       single_deal: bool) -> None:
    spec = _spec(name, players, single_deal)
    if not spec:
        pytest.skip("a game of one deal")
    game = motley.load_game(spec)
    for seed in range(4):
        full = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(40)):  # somewhere in the first deal
            if full.deal_number() != 0 or full.is_terminal():
                break
            legal = full.legal_actions()
            full.apply_action(legal[rng.randrange(len(legal))])
        if full.is_terminal() or full.deal_number() != 0:
            continue
        stopped = searchable(full.clone())
        stopped.stop_at_deal_end()
        assert searchable(stopped.clone()).stops_at_deal_end  # clones keep the mark
        while not full.is_terminal() and full.deal_number() == 0:
            legal = full.legal_actions()
            assert stopped.legal_actions() == legal
            action = legal[rng.randrange(len(legal))]
            full.apply_action(action)
            stopped.apply_action(action)
        assert stopped.deal_number() == full.deal_number()
        assert stopped.scores() == full.scores()
        assert stopped.is_terminal() == full.is_terminal()
        if full.is_terminal():  # a match that ends with the deal ends as usual
            assert stopped.returns() == full.returns()


def test_fools_errand_ignores_the_mark() -> None:
    game = motley.load_game("fools_errand")
    rng = random.Random(3)
    full = game.new_initial_state(seed=3)
    stopped = searchable(full.clone())
    stopped.stop_at_deal_end()
    while not full.is_terminal():
        legal = full.legal_actions()
        action = legal[rng.randrange(len(legal))]
        full.apply_action(action)
        stopped.apply_action(action)
    assert stopped.serialize() == full.serialize()


def test_shuffle_is_a_uniform_permutation() -> None:
    rng = random.Random(11)
    items = list(range(4))
    draws = 48_000
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(draws):
        shuffle(items, rng)
        counts[tuple(items)] += 1
    assert set(counts) == set(itertools.permutations(range(4)))
    expected = draws / 24
    chi2 = sum((counts[p] - expected) ** 2 / expected for p in counts)
    assert chi2 < 49.7  # the 0.999 quantile of chi-square with 23 degrees of freedom
    big = list(range(100))
    shuffle(big, rng)
    assert sorted(big) == list(range(100)) and big != list(range(100))


@pytest.mark.parametrize(("name", "players"), game_configs())
def test_clones_share_a_generator_until_one_draws(name: str, players: int) -> None:
    state = searchable(motley.load_game(name, players=players).new_initial_state(seed=5))
    expected = searchable(state.clone()).own_rng().random()  # what the state's generator yields next
    a, b = searchable(state.clone()), searchable(state.clone())
    assert a.rng is state.rng and b.rng is state.rng  # no copy at clone time
    first = [a.own_rng().random() for _ in range(3)]
    assert b.own_rng().random() == first[0] == expected  # b starts where the state was, untouched by a
    assert state.own_rng().random() == expected
    assert a.rng is not b.rng is not state.rng
    world = searchable(state.game.sample_state(state.observation(0), random.Random(1)))
    other = searchable(state.game.sample_state(state.observation(0), random.Random(2)))
    follow = searchable(state.clone()).own_rng().random()
    # a world gets a generator of its own (seeded at its first draw), independent of the state's ...
    assert world.own_rng() is not state.rng and not world._rng_shared
    assert world.own_rng().random() != other.own_rng().random()
    assert state.own_rng().random() == follow  # ... and drawing from it leaves the state's alone


@pytest.mark.parametrize(("name", "players"), game_configs())
def test_a_seeded_generator_is_made_at_the_first_draw_and_shared_until_then(name: str, players: int) -> None:
    state = searchable(motley.load_game(name, players=players).new_initial_state(seed=3))
    state.use_seed(11)
    twin = searchable(state.clone())
    expected = random.Random(11).random()
    assert twin.own_rng().random() == expected  # the clone starts from the seed ...
    assert state.own_rng().random() == expected  # ... and its draws did not advance the original
    assert twin.rng is not state.rng


@pytest.mark.parametrize(("name", "players"), game_configs())
def test_serializing_reads_the_generator_without_copying_or_seeding_it(name: str, players: int) -> None:
    state = searchable(motley.load_game(name, players=players).new_initial_state(seed=4))
    twin = searchable(state.clone())
    text = twin.serialize()
    assert twin.rng is state.rng and twin._rng_shared  # still shared after the read
    world = searchable(state.game.sample_state(state.observation(0), random.Random(5)))
    world.serialize()
    assert world._rng_seed is not None  # the pending seed was not turned into a generator ...
    assert state.game.deserialize_state(text).serialize() == text  # ... and the record still round-trips
    seeded = searchable(state.clone())
    seeded.use_seed(9)
    assert seeded.rng_json() == motley.core.game.rng_to_json(random.Random(9))
