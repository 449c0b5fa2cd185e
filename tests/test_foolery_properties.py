"""Foolery: information-state properties of DESIGN.md over random reachable states, and persistence."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import motley
from motley.games.foolery import cards as fyc
from motley.games.foolery import rules as fy
from tests.support import play_random

OPTION_VALUES = {o.name: list(o.choices) for o in fy.Foolery.options if o.choices and len(o.choices) > 1}
OPTION_VALUES.update({name: [False, True] for name in ("ace_high_straight", "skip_rule", "pass_locks_out",
                                                        "trump_variation")})


@st.composite
def reachable_states(draw: st.DrawFn) -> fy.FooleryState:
    params = {name: draw(st.sampled_from(values)) for name, values in OPTION_VALUES.items()
              if name != "match_end"}
    game = motley.load_game("foolery", players=draw(st.integers(3, 7)), hands=3, **params)
    state = game.new_initial_state(seed=draw(st.integers(0, 2**32)))
    rng = random.Random(draw(st.integers(0, 2**16)))
    if draw(st.booleans()):  # stop in the second hand's exchange or early play (FY-R13)
        while not state.is_terminal() and state.observation(0)["hand_number"] == 1:
            play_random(state, rng, 1)
        play_random(state, rng, draw(st.integers(0, 8)))
    else:
        play_random(state, rng, draw(st.integers(0, 250)))
    assert isinstance(state, fy.FooleryState)
    return state


def pack(state: fy.FooleryState) -> int:
    """Every card of the hand being played: in a hand, or out. Raises if a card is in two places."""
    total = state.played
    for h in state.hands:
        assert total & h == 0
        total |= h
    return total


FULL = (1 << 78) - 1


@settings(max_examples=120, deadline=None)
@given(reachable_states(), st.integers(0, 6), st.integers(0, 2**16))
def test_sampled_world_matches_observation_and_holds_the_pack(state: fy.FooleryState, seat: int, seed: int) -> None:
    seat %= state.game.num_players
    obs = state.observation(seat)
    sampled = state.game.sample_state(obs, random.Random(seed))
    assert isinstance(sampled, fy.FooleryState)
    assert sampled.observation(seat) == obs
    assert np.array_equal(sampled.observation_tensor(seat), state.observation_tensor(seat))
    if not state.is_terminal():
        assert pack(sampled) == FULL == pack(state)
        assert [h.bit_count() for h in sampled.hands] == state.sizes
        assert sampled.legal_actions() == state.legal_actions() or sampled.current_player() != seat
        # cards this seat gave and still unplayed sit in the receiver's hand (FY-R13)
        partner = state.partner_of(seat)
        for c in state.gave[seat]:
            if not (state.played >> c) & 1 and not (state.hands[seat] >> c) & 1:
                assert sampled.hands[partner] >> c & 1


@settings(max_examples=50, deadline=None)
@given(reachable_states(), st.integers(0, 6))
def test_hidden_cards_vary_across_samples(state: fy.FooleryState, seat: int) -> None:
    seat %= state.game.num_players
    obs = state.observation(seat)
    worlds = set()
    for i in range(12):
        sampled = state.game.sample_state(obs, random.Random(i))
        assert isinstance(sampled, fy.FooleryState)
        worlds.add(tuple(sampled.hands))
    hidden = sum(state.sizes) - state.sizes[seat]
    others = sum(1 for q in range(state.game.num_players) if q != seat and state.sizes[q] > 0)
    assert len(worlds) > 1 or hidden <= 1 or others <= 1 or state.is_terminal()


@settings(max_examples=100, deadline=None)
@given(reachable_states(), st.integers(0, 6), st.integers(0, 2**16))
def test_views_ignore_where_hidden_cards_are(state: fy.FooleryState, seat: int, seed: int) -> None:
    """Permuting the cards hidden from ``seat`` among the other hands (sizes kept) changes none of its views."""
    seat %= state.game.num_players
    n = state.game.num_players
    hidden = [c for q in range(n) if q != seat for c in fyc.cards_of(state.hands[q])]
    random.Random(seed).shuffle(hidden)
    other = state.clone()
    pos = 0
    for q in range(n):
        if q != seat:
            k = state.hands[q].bit_count()
            other.hands[q] = fyc.mask_of(hidden[pos:pos + k])
            pos += k
    other._legal = None
    assert other.observation(seat) == state.observation(seat)
    assert np.array_equal(other.observation_tensor(seat), state.observation_tensor(seat))


@settings(max_examples=60, deadline=None)
@given(reachable_states(), st.integers(0, 2**16))
def test_serialize_and_clone_continue_identically(state: fy.FooleryState, seed: int) -> None:
    copy = state.game.deserialize_state(state.serialize())
    twin = state.clone()
    assert copy.serialize() == state.serialize() == twin.serialize()
    for s in (state, copy, twin):
        play_random(s, random.Random(seed), 400)
    assert copy.serialize() == state.serialize() == twin.serialize()


@settings(max_examples=40, deadline=None)
@given(reachable_states())
def test_record_replays_to_the_same_state(state: fy.FooleryState) -> None:
    assert motley.records.load(motley.records.dump(state)).serialize() == state.serialize()


@settings(max_examples=80, deadline=None)
@given(reachable_states())
def test_tensor_shape_range_and_action_strings(state: fy.FooleryState) -> None:
    for seat in range(state.game.num_players):
        tensor = state.observation_tensor(seat)
        assert tensor.shape == state.game.observation_tensor_shape() and tensor.dtype == np.float32
        assert float(tensor.min()) >= -1.0 and float(tensor.max()) <= 1.0
    legal = state.legal_actions()
    assert legal == sorted(legal) and all(0 <= a < state.game.num_distinct_actions() for a in legal)
    assert bool(legal) != state.is_terminal()
    for a in legal:
        assert state.string_to_action(state.action_to_string(a)) == a


@settings(max_examples=60, deadline=None)
@given(reachable_states(), st.integers(0, 6))
def test_observation_shows_only_own_exchange_cards(state: fy.FooleryState, seat: int) -> None:
    """FY-R13: a seat sees the exchange cards it gave and received, nobody else's."""
    seat %= state.game.num_players
    ex = state.observation(seat)["exchange"]
    assert ex["gave"] == [fyc.CODES[c] for c in state.gave[seat]]
    assert ex["received"] == [fyc.CODES[c] for c in state.received[seat]]
    if state.partner_of(seat) < 0:
        assert ex["gave"] == ex["received"] == []


def test_bad_state_text_and_observations_are_refused() -> None:
    game = motley.load_game("foolery")
    for text in ("", "{}", '{"game": "fools_errand"}'):
        try:
            game.deserialize_state(text)
        except motley.RecordError:
            continue
        raise AssertionError("accepted a bad serialized state")
    for obs in ({}, {"game": "fool"}, {"game": "foolery", "seat": 0}):
        try:
            game.sample_state(obs, random.Random(0))
        except motley.MotleyError:
            continue
        raise AssertionError("accepted a bad observation")
