"""The Fool's Errand: information-state properties of docs/design.md over random reachable states."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import motley
from motley.games.fools_errand import cards as fec
from motley.games.fools_errand import game as fe
from tests.support import play_random

OPTION_VALUES = {o.name: list(o.choices) for o in fe.FoolsErrand.options if o.choices and len(o.choices) > 1}


@st.composite
def reachable_states(draw: st.DrawFn) -> fe.FoolsErrandState:
    params = {name: draw(st.sampled_from(values)) for name, values in OPTION_VALUES.items()}
    game = motley.load_game("fools_errand", **params)
    state = game.new_initial_state(seed=draw(st.integers(0, 2**32)))
    play_random(state, random.Random(draw(st.integers(0, 2**16))), draw(st.integers(0, 12)))
    assert isinstance(state, fe.FoolsErrandState)
    return state


def all_cards(state: fe.FoolsErrandState) -> Counter[int]:
    cards: Counter[int] = Counter(state.decks[0] + state.decks[1] + state.piles[0] + state.piles[1] + state.unclaimed)
    cards.update(t & 63 for t in state.table)
    cards.update(fec.JOKER_A + q for q in range(2) if state.joker[q] != fec.IN_DECK)
    return cards


FULL_PACK = Counter(range(54))


@settings(max_examples=150, deadline=None)
@given(reachable_states(), st.integers(0, 1), st.integers(0, 2**16))
def test_sampled_world_matches_observation_and_holds_the_pack(state: fe.FoolsErrandState, seat: int,
                                                               seed: int) -> None:
    obs = state.observation(seat)
    sampled = state.game.sample_state(obs, random.Random(seed))
    assert isinstance(sampled, fe.FoolsErrandState)
    assert sampled.observation(seat) == obs
    assert np.array_equal(sampled.observation_tensor(seat), state.observation_tensor(seat))
    assert all_cards(sampled) == FULL_PACK == all_cards(state)


@settings(max_examples=100, deadline=None)
@given(reachable_states(), st.integers(0, 1), st.integers(0, 2**16))
def test_the_determinizer_draws_the_worlds_of_sample_state(state: fe.FoolsErrandState, seat: int, seed: int) -> None:
    """``determinizer(o)`` reads the observation once and then deals exactly as ``sample_state(o, rng)``."""
    if state.is_terminal():
        return
    obs = state.observation(seat)
    sampler = state.game.determinizer(obs)
    for k in range(3):
        world = sampler(random.Random(seed + k))
        assert world.serialize() == state.game.sample_state(obs, random.Random(seed + k)).serialize()
        assert world.observation(seat) == obs


@settings(max_examples=60, deadline=None)
@given(reachable_states(), st.integers(0, 1))
def test_hidden_cards_vary_across_samples(state: fe.FoolsErrandState, seat: int) -> None:
    hidden = sum(len(d) for d in state.decks) - sum(j == fec.IN_DECK for j in state.joker)
    obs = state.observation(seat)
    worlds = set()
    for i in range(20):
        sampled = state.game.sample_state(obs, random.Random(i))
        assert isinstance(sampled, fe.FoolsErrandState)
        worlds.add(tuple(map(tuple, sampled.decks)))
    assert len(worlds) > 1 or hidden <= 1


@settings(max_examples=150, deadline=None)
@given(reachable_states(), st.integers(0, 2**16))
def test_views_ignore_the_order_and_split_of_hidden_cards(state: fe.FoolsErrandState, seed: int) -> None:
    """Permuting the face-down cards among both decks (Jokers stay in their owner's deck) changes no view."""
    rng = random.Random(seed)
    hidden = [c for d in state.decks for c in d if c < fec.JOKER_A]
    rng.shuffle(hidden)
    other = state.clone()
    it = iter(hidden)
    other.decks = [[c if c >= fec.JOKER_A else next(it) for c in d] for d in state.decks]
    for seat in (0, 1):
        assert other.observation(seat) == state.observation(seat)
        assert np.array_equal(other.observation_tensor(seat), state.observation_tensor(seat))


@settings(max_examples=80, deadline=None)
@given(reachable_states(), st.integers(0, 2**16))
def test_serialize_and_clone_continue_identically(state: fe.FoolsErrandState, seed: int) -> None:
    copy = state.game.deserialize_state(state.serialize())
    twin = state.clone()
    assert copy.serialize() == state.serialize() == twin.serialize()
    for s in (state, copy, twin):
        play_random(s, random.Random(seed), 10_000)
    assert copy.serialize() == state.serialize() == twin.serialize()


@settings(max_examples=60, deadline=None)
@given(reachable_states())
def test_record_replays_to_the_same_state(state: fe.FoolsErrandState) -> None:
    assert motley.records.load(motley.records.dump(state)).serialize() == state.serialize()


@settings(max_examples=100, deadline=None)
@given(reachable_states())
def test_tensor_shape_range_and_legal_actions(state: fe.FoolsErrandState) -> None:
    for seat in (0, 1):
        tensor = state.observation_tensor(seat)
        assert tensor.shape == state.game.observation_tensor_shape() and tensor.dtype == np.float32
        assert float(tensor.min()) >= -1.0 and float(tensor.max()) <= 1.0
    legal = state.legal_actions()
    assert legal == sorted(legal) and all(0 <= a < state.game.num_distinct_actions() for a in legal)
    for a in legal:
        assert state.string_to_action(state.action_to_string(a)) == a
