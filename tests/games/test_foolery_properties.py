"""Foolery: information-state properties of docs/design.md over random reachable states, and persistence."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import motley
from motley.games.foolery import cards as fyc
from motley.games.foolery import game as fy
from motley.games.foolery import sample as fy_sample
from motley.games.foolery.moves import A_MASK
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
    # a seat's cards are all known to the observer when they are the cards the observer gave it in the exchange
    # and it still holds (FY-R13): then only the seats with an unknown card can swap, and one alone cannot
    known = [0] * state.game.num_players
    exchange = obs["exchange"]
    if (partner := exchange.get("partner")) is not None:
        gave = sum(1 << fyc.CODE_INDEX[code] for code in exchange.get("gave", []))
        known[partner] = (state.hands[partner] & gave).bit_count()
    others = sum(1 for q in range(state.game.num_players) if q != seat and state.sizes[q] > known[q])
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


# ---- the exchange in the determinizer's worlds (FY-R13, FY-D15, FY-D17, FY-D25, FY-D26) ----------------
def _given(state: fy.FooleryState, index: int) -> int:
    """Cards given so far at exchange step ``index``."""
    count = state.steps[index][2]
    if state.phase != fyc.EXCHANGE or index < state.step_index:
        return count
    return state.step_given if index == state.step_index else 0


def _gives_highest(probe: fy.FooleryState, giver: int, hand: int, given: list[int]) -> bool:
    """Could ``giver``, holding ``hand``, have given ``given`` one by one as its highest cards (in any order of
    the tied ones)? Asked of the rules' own ``highest_candidates``."""
    probe.hands[giver] = hand
    left = list(given)
    while left:
        cands = set(probe.highest_candidates(giver))
        card = next((c for c in left if c in cands), None)
        if card is None:
            return False
        left.remove(card)
        probe.hands[giver] &= ~(1 << card)
    return True


def exchange_breaches(state: fy.FooleryState, seat: int, world: fy.FooleryState) -> list[str]:
    """The upward gives of the exchange known to ``seat`` (from its observation of ``state``) that ``world``
    could not have come from.

    A receiving seat knows what it received and gave back: the giver's hand when giving is rebuilt from the
    world (its hand, plus what it played this hand, less what the seat gave it, plus what it gave) and the
    gives replayed against the rules. A third party during the exchange (``u`` cards up, ``d < u`` back)
    asks whether any ``d`` cards of the giver's could have come back and any ``u`` cards of the receiver's
    and of those have gone up (brute force). Once everything came back no world breaks a third party's
    knowledge (the receiver may have handed back the giver's top cards), so nothing is checked then."""
    out = []
    probe = world.clone()
    for i, (giver, receiver, _, rule) in enumerate(state.steps):
        if rule != fyc.HIGHEST or seat == giver:
            continue
        up = _given(state, i)
        down_index = next(j for j, s in enumerate(state.steps) if s[0] == receiver and s[1] == giver)
        down = _given(state, down_index)
        if not up:
            continue
        if seat == receiver:
            played = 0
            for kind, q, action in world.log:
                if kind == fyc.EV_PLAY and q == giver:
                    played |= A_MASK[action]
            back = fyc.mask_of(state.gave[seat])
            before = ((world.hands[giver] | played) & ~back) | fyc.mask_of(state.received[seat])
            if not _gives_highest(probe, giver, before, state.received[seat]):
                out.append(f"seat {giver} held a card above the ones it gave seat {seat}")
        elif up > down:
            mine, theirs = world.hands[giver], world.hands[receiver]
            if not any(_gives_highest(probe, giver, (mine & ~fyc.mask_of(back)) | fyc.mask_of(up_cards),
                                      list(up_cards))
                       for back in combinations(fyc.cards_of(mine & ~fyc.FOOL_BIT), down)
                       for up_cards in combinations(fyc.cards_of((theirs | fyc.mask_of(back)) & ~fyc.FOOL_BIT),
                                                    up)):
                out.append(f"no {up} cards of seat {receiver}'s could have come from seat {giver}")
    return out


def later_hand_positions(players: int, order: str, seed: int, ties: str = "auto") -> list[fy.FooleryState]:
    """Positions of the second and third hands: every exchange decision and some of the play."""
    game = motley.load_game("foolery", players=players, hands=3, exchange_order=order, exchange_ties=ties)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    assert isinstance(state, fy.FooleryState)
    while not state.is_terminal() and state.hand_number == 1:
        play_random(state, rng, 1)
    out: list[fy.FooleryState] = []
    while not state.is_terminal() and len(out) < 14:
        if state.phase == fyc.EXCHANGE or rng.random() < 0.06:
            out.append(state.clone())
        play_random(state, rng, 1)
    return out


@pytest.mark.parametrize("order", ["trumps_high", "suit_cards_only"])
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_sampled_worlds_keep_the_highest_cards_rule_of_the_exchange(players: int, order: str) -> None:
    """FY-R13, FY-D15, FY-D25: in hands 2+, no sampled world has an upward giver that held, when giving,
    a card above what it gave, as far as the observer knows; the worlds still vary."""
    for seed in range(3):
        for state in later_hand_positions(players, order, seed, "ask" if seed == 2 else "auto"):
            assert state.hand_number >= 2
            for seat in range(players):
                obs = state.observation(seat)
                draw = state.game.determinizer(obs)
                worlds = set()
                for i in range(6):
                    world = draw(random.Random(i))
                    assert world.observation(seat) == obs
                    assert pack(world) == FULL and [h.bit_count() for h in world.hands] == state.sizes
                    assert exchange_breaches(state, seat, world) == []
                    worlds.add(tuple(world.hands))
                assert exchange_breaches(state, seat, state) == []  # the true world passes the check
                hidden = sum(state.sizes) - state.sizes[seat]
                holders = sum(1 for q in range(players) if q != seat and state.sizes[q] > 0)
                assert len(worlds) > 1 or hidden <= 1 or holders <= 1


@pytest.mark.parametrize("order", ["trumps_high", "suit_cards_only"])
def test_exchange_worlds_built_without_rejection_are_consistent(order: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With one try, every third party's world that misses is rebuilt by replaying the exchange: still no
    breach, sizes kept."""
    monkeypatch.setattr(fy_sample, "TRIES", 1)
    for players in (4, 5, 7):
        for state in later_hand_positions(players, order, 7):
            if state.phase != fyc.EXCHANGE:
                continue
            for seat in range(players):
                obs = state.observation(seat)
                draw = state.game.determinizer(obs)
                for i in range(10):
                    world = draw(random.Random(i))
                    assert world.observation(seat) == obs
                    assert pack(world) == FULL and [h.bit_count() for h in world.hands] == state.sizes
                    assert exchange_breaches(state, seat, world) == []


def test_receiver_sees_the_givers_hidden_cards_capped() -> None:
    """FY-R13: the King's worlds never give the Peasant a card above the lowest it gave; the Peasant's
    hidden cards still vary among the allowed ones."""
    keys = fy_sample.exchange_keys
    for order in ("trumps_high", "suit_cards_only"):
        state = later_hand_positions(5, order, 11)[-1]
        king = state.titles.index(fyc.KING)
        peasant = state.titles.index(fyc.PEASANT)
        cap = min(keys(state.game)[c] for c in state.received[king])
        draw = state.game.determinizer(state.observation(king))
        seen = set()
        for i in range(30):
            world = draw(random.Random(i))
            hidden = world.hands[peasant] & ~fyc.mask_of(state.gave[king])
            assert all(keys(state.game)[c] <= cap for c in fyc.cards_of(hidden))
            seen.add(hidden)
        assert len(seen) > 1
