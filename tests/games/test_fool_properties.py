"""Fool!: information-state properties of docs/design.md over random reachable states, persistence, whole matches."""

from __future__ import annotations

import random
from collections import Counter
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import motley
from motley.games.fool import cards as flc
from motley.games.fool import observe as flo
from motley.games.fool import rules as fl
from motley.games.fool import sample as fls
from motley.games.fool.game import Fool, FoolState
from tests.support import play_out, play_random


@st.composite
def reachable_states(draw: st.DrawFn, max_steps: int = 400) -> FoolState:
    players = draw(st.integers(4, 8))
    params = {
        "players": players,
        "two_fools_from_players": draw(st.sampled_from([7, 8])),
        "tie_break": draw(st.sampled_from(["shared", "most_bonuses"])),
        "rounds": draw(st.sampled_from([0, 1, 2])),
    }
    game = motley.load_game("fool", **params)
    state = game.new_initial_state(seed=draw(st.integers(0, 2**32)))
    play_random(state, random.Random(draw(st.integers(0, 2**16))), draw(st.integers(0, max_steps)))
    assert isinstance(state, FoolState)
    return state


def world_cards(state: FoolState) -> Counter[str]:
    """Every card of the round in a world: hands, completed tricks and the current trick."""
    cards: Counter[str] = Counter(flc.CODES[c] for hand in state.hands for col in hand for c in col)
    cards.update(flc.CODES[t & 127] for t in state.trick)
    cards.update(flc.CODES[t & 127] for plays, _, _, _ in state.tricks for t in plays)
    return cards


def deck_cards(game: motley.Game) -> Counter[str]:
    assert isinstance(game, Fool)
    return Counter(flc.CODES[c] for c in game.deck)


@settings(max_examples=200, deadline=None)
@given(reachable_states(), st.integers(0, 7), st.integers(0, 2**16))
def test_sampled_world_matches_observation_and_holds_the_deck(state: FoolState, seat: int, seed: int) -> None:
    seat %= state.game.num_players
    obs = state.observation(seat)
    sampled = state.game.sample_state(obs, random.Random(seed))
    assert sampled.observation(seat) == obs
    assert np.array_equal(sampled.observation_tensor(seat), state.observation_tensor(seat))
    assert world_cards(sampled) == deck_cards(state.game) == world_cards(state)
    # the sampled world respects the voids shown by play and can be played on
    for s, voids in enumerate(obs["voids"]):
        for colour in voids:
            assert not sampled.hands[s][flc.COLOUR_NAMES.index(colour)]
    play_random(sampled, random.Random(seed), 30)


@settings(max_examples=150, deadline=None)
@given(reachable_states(), st.integers(0, 7), st.integers(0, 2**16))
def test_card_by_card_deal_respects_voids(state: FoolState, seat: int, seed: int) -> None:
    """The deal used when plain deals keep missing the voids: consistent, conserving, every time."""
    seat %= state.game.num_players
    obs = state.observation(seat)
    with patch.object(fls._HiddenDeal, "TRIES", 0):
        sampled = state.game.sample_state(obs, random.Random(seed))
    assert isinstance(sampled, FoolState)
    assert sampled.observation(seat) == obs
    assert world_cards(sampled) == deck_cards(state.game)
    for s, voids in enumerate(obs["voids"]):
        for colour in voids:
            assert not sampled.hands[s][flc.COLOUR_NAMES.index(colour)]
        assert sampled.hands[s] == [sorted(col) for col in sampled.hands[s]]


@settings(max_examples=40, deadline=None)
@given(reachable_states(max_steps=30), st.integers(0, 7))
def test_hidden_cards_vary_across_samples(state: FoolState, seat: int) -> None:
    seat %= state.game.num_players
    obs = state.observation(seat)
    holders = [s for s in range(state.game.num_players) if s != seat and obs["hand_sizes"][s] > 0]
    hidden = Counter(c for s in holders for col in state.hands[s] for c in col)
    if any(obs["voids"]) or len(holders) < 2 or len(hidden) < 2:
        return  # a void can force the deal; the other cases have nothing to vary
    worlds = set()
    for i in range(20):
        sampled = state.game.sample_state(obs, random.Random(i))
        assert isinstance(sampled, FoolState)
        worlds.add(tuple(tuple(map(tuple, hand)) for hand in sampled.hands))
    assert len(worlds) > 1


@settings(max_examples=200, deadline=None)
@given(reachable_states(), st.integers(0, 7), st.integers(0, 2**16))
def test_views_ignore_how_hidden_cards_are_split(state: FoolState, seat: int, seed: int) -> None:
    """Permuting the other seats' cards among the other hands (sizes kept) changes none of ``seat``'s views."""
    seat %= state.game.num_players
    rng = random.Random(seed)
    others = [s for s in range(state.game.num_players) if s != seat]
    hidden = [c for s in others for col in state.hands[s] for c in col]
    rng.shuffle(hidden)
    other = state.clone()
    start = 0
    for s in others:
        size = state.sizes[s]
        other.hands[s] = flc.split_hand(hidden[start:start + size])
        start += size
    assert other.observation(seat) == state.observation(seat)
    assert np.array_equal(other.observation_tensor(seat), state.observation_tensor(seat))


@settings(max_examples=60, deadline=None)
@given(reachable_states(), st.integers(0, 2**16))
def test_serialize_and_clone_continue_identically(state: FoolState, seed: int) -> None:
    copy = state.game.deserialize_state(state.serialize())
    twin = state.clone()
    assert copy.serialize() == state.serialize() == twin.serialize()
    for s in (state, copy, twin):
        play_random(s, random.Random(seed), 200)
    assert copy.serialize() == state.serialize() == twin.serialize()


@settings(max_examples=30, deadline=None)
@given(reachable_states())
def test_record_replays_to_the_same_state(state: FoolState) -> None:
    assert motley.records.load(motley.records.dump(state)).serialize() == state.serialize()


@settings(max_examples=80, deadline=None)
@given(reachable_states())
def test_tensor_shape_range_and_legal_actions(state: FoolState) -> None:
    n = state.game.num_players
    for seat in range(n):
        tensor = state.observation_tensor(seat)
        assert tensor.shape == state.game.observation_tensor_shape() == (flo.tensor_size(n),)
        assert tensor.dtype == np.float32
        assert float(tensor.min()) >= -1.0 and float(tensor.max()) <= 1.0
    legal = state.legal_actions()
    assert legal == sorted(set(legal)) and all(0 <= a < state.game.num_distinct_actions() for a in legal)
    assert sum(1 for a in legal if a >= flc.W1) <= 1
    for a in legal:
        assert state.string_to_action(state.action_to_string(a)) == a


@settings(max_examples=80, deadline=None)
@given(reachable_states())
def test_apply_action_takes_exactly_the_legal_actions(state: FoolState) -> None:
    """``apply_action``'s check read from the hand (FL-R6, FL-R7, FL-D12) accepts exactly ``legal_actions()``,
    plays each as ``apply_legal`` does, a NumPy integer as the int, and refuses every other id unchanged: the
    W1 ids 83..87 (FL-D12), negative ids (as indexes they would wrap round the card tables) and ids past the pack."""
    legal = state.legal_actions()
    before = state.serialize()
    for action in (*range(-flc.NUM_CARDS - 2, flc.NUM_CARDS + 2), 2**40, -2**40):
        for given_action in (action, np.int64(action)):
            checked = state.clone()
            if action in legal:
                checked.apply_action(given_action)  # type: ignore[arg-type]
                unchecked = state.clone()
                unchecked.apply_legal(action)
                assert checked.serialize() == unchecked.serialize()
            else:
                with pytest.raises(motley.MoveError):
                    checked.apply_action(given_action)  # type: ignore[arg-type]
                assert checked.serialize() == before


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_tensor_shape_does_not_depend_on_other_options(players: int) -> None:
    shapes = {motley.load_game("fool", players=players, **extra).observation_tensor_shape()
              for extra in ({}, {"two_fools_from_players": 8}, {"rounds": 1}, {"end_total": -40},
                            {"tie_break": "most_bonuses"}, {"end_bonus_count": 2})}
    assert shapes == {(flo.tensor_size(players),)}


def test_observation_hides_other_hands() -> None:
    state = motley.load_game("fool", players=5).new_initial_state(seed=4)
    assert isinstance(state, FoolState)
    obs = state.observation(2)
    mine = sorted(flc.CODES[c] for col in state.hands[2] for c in col)
    assert sorted(obs["hand"]) == mine
    text = repr(obs)
    for s in (0, 1, 3, 4):
        for col in state.hands[s][:4]:
            for c in col:
                assert f"'{flc.CODES[c]}'" not in text


@pytest.mark.parametrize("players", [4, 8])
def test_full_matches_end_by_fl_r14(players: int) -> None:
    """FL-R14: a whole match (``rounds=0``) ends only when a total is <= -80 or someone has six bonuses."""
    game = motley.load_game("fool", players=players)
    for seed in range(8):
        state = play_out(game.new_initial_state(seed=seed), random.Random(seed))
        obs = state.observation(0)
        assert obs["terminal"] and (min(obs["scores"]) <= -80 or max(obs["bonus_counts"]) >= 6)
        assert sum(r > 0 for r in state.returns()) >= 1 and all(r in (-1.0, 1.0) for r in state.returns())
        assert motley.records.load(motley.records.dump(state)).serialize() == state.serialize()


def test_sample_state_refuses_other_games_and_inconsistent_observations() -> None:
    state = motley.load_game("fool", players=5).new_initial_state(seed=1)
    obs = state.observation(0)
    with pytest.raises(motley.MotleyError, match="not a fool observation"):
        state.game.sample_state({**obs, "game": "foolery"}, random.Random(1))
    with pytest.raises(motley.MotleyError, match="observation is for 5 players"):
        motley.load_game("fool", players=4).sample_state(obs, random.Random(1))
    with pytest.raises(motley.MotleyError, match="hand sizes do not match"):
        state.game.sample_state({**obs, "hand_sizes": [12, 12, 12, 12, 11]}, random.Random(1))


def test_observations_share_nothing_mutable_with_the_state() -> None:
    game = motley.load_game("fool", players=4, rounds=3)
    state = game.new_initial_state(seed=8)
    rng = random.Random(8)
    while state.observation(0)["round_number"] == 1:
        play_random(state, rng, 1)
    before = state.serialize()
    obs = state.observation(1)
    obs["last_round"]["scores"][0] = 999
    obs["last_round"]["final_trick"][0]["card"] = "G2"
    obs["hand"].clear()
    obs["scores"][0] = 5
    assert state.serialize() == before
    sampled = game.sample_state(state.observation(1), rng)
    twin = state.observation(1)
    sampled.observation(1)["last_round"]["scores"][1] = 7
    assert sampled.observation(1) == twin


def test_game_string_forms_round_trip() -> None:
    game = motley.load_game("fool(players=6,first_dealer=2,tie_break=most_bonuses,rounds=1)")
    assert game.params["first_dealer"] == 2 and game.num_players == 6
    assert motley.load_game(str(game)) == game
    assert game.new_initial_state(seed=1).current_player() == 3


def test_terminal_view_renders_every_position() -> None:
    from motley.games.fool.views import render

    state = motley.load_game("fool", players=5, rounds=2).new_initial_state(seed=6)
    rng = random.Random(6)
    while True:
        seat = state.current_player() if not state.is_terminal() else 0
        moves = [state.action_to_string(a) for a in state.legal_actions()]
        text = render(state.observation(seat), moves)
        assert "ASSUMED" in text and "Your hand:" in text
        if moves:
            assert "[bold underline" in text
        if state.is_terminal():
            assert "The match is over" in text and "Round 2 scores" in text
            break
        play_random(state, rng, 1)


def reference_playout(state: FoolState, rng: random.Random) -> None:
    """The generic loop with the draw rule of ``FoolState.playout``, every move checked by apply_action, to the
    end of the round (or of the match)."""
    deal = state.deal_number()
    while not state.is_terminal() and state.deal_number() == deal:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.random() * len(legal))])


@settings(max_examples=120, deadline=None)
@given(reachable_states(), st.integers(0, 2**16), st.booleans())
def test_fast_playout_plays_the_legal_moves_of_the_generic_loop(state: FoolState, seed: int, stop: bool) -> None:
    if stop:  # a search world: the next round is not dealt
        state.stop_at_deal_end()
    fast, slow = state.clone(), state.clone()
    fast.playout(random.Random(seed))
    reference_playout(slow, random.Random(seed))
    assert fast.history() == slow.history()
    assert fast.serialize() == slow.serialize()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list(range(flc.W1 + 1))), max_size=20))
def test_hand_penalty_sums_the_card_penalties(cards: list[int]) -> None:
    hand = flc.split_hand(sorted(cards))
    assert fl.hand_penalty(hand) == sum(flc.PENALTY[c] for c in cards)


def test_plain_deals_are_uniform_over_the_deals_that_respect_the_voids() -> None:
    # Seat 0 observes; seat 1 (2 places) is void in blue, seat 2 (3 places) in green, seat 3 (2 places) free.
    from itertools import combinations

    pool = [flc.CODE_INDEX[c] for c in ("G2", "G3", "R2", "R3", "B2", "B3", "Y2")]
    voids = [0, 1 << 3, 1 << 0, 0]
    deal = fls._HiddenDeal(pool, [0, 2, 3, 2], voids, 0)

    def fits(seat: int, cards: set[int]) -> bool:
        return not any(voids[seat] >> flc.COLOUR[c] & 1 for c in cards)

    consistent = [(frozenset(one), frozenset(two)) for one in combinations(pool, 2)
                  for two in combinations(sorted(set(pool) - set(one)), 3)
                  if fits(1, set(one)) and fits(2, set(two))]
    rng = random.Random(4)
    counts: Counter[tuple[frozenset[int], frozenset[int]]] = Counter()
    samples = 300 * len(consistent)
    while sum(counts.values()) < samples:
        hands = deal._plain(rng)
        if hands is not None:
            one, two = (frozenset(c for col in hands[s] for c in col) for s in (1, 2))
            counts[one, two] += 1
    assert len(consistent) > 10 and set(counts) == set(consistent)
    # each count is binomial(samples, 1/len): within 5 standard deviations of 300
    assert all(abs(n - 300) < 5 * 300 ** 0.5 for n in counts.values()), counts


def test_the_badness_table_is_the_plain_rule() -> None:
    """FL-R9, FL-D3, FL-D4: the table the trick end and the heuristic read is ``badness`` itself."""
    for lead in range(-1, 4):
        for card in range(flc.NUM_CARDS):
            for index in range(15):
                assert fl.BADNESS[lead + 1][card] - index == fl.badness(card, lead, index)
            for seat in range(8):  # the trick end's table, by trick entry ``card | seat << 7``
                assert fl.TRICK_BADNESS[lead][card | seat << 7] == fl.badness(card, lead, 0)  # -1: the last row


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([4, 5, 7, 8]), st.integers(0, 2**16))
def test_the_fools_of_each_trick_hold_the_worst_cards_by_the_plain_rule(players: int, seed: int) -> None:
    """Every completed trick of a random round: its Fools are the seats of the ``num_fools`` smallest
    ``badness`` (FL-R9, FL-R11, FL-D3, FL-D4), and its winner played the highest lead-colour card (FL-R8, FL-D5)."""
    game = motley.load_game("fool", players=players, rounds=1)
    state = play_out(game.new_initial_state(seed=seed), random.Random(seed))
    assert isinstance(state, FoolState)
    assert state.tricks
    for plays, lead, winner, fools in state.tricks:
        ranked = sorted(range(len(plays)), key=lambda i: fl.badness(plays[i] & 127, lead, i))
        assert set(fools) == {plays[i] >> 7 for i in ranked[:state.game.num_fools]}
        following = [t for t in plays if flc.COLOUR[t & 127] == lead]
        if following:
            top = max(flc.VALUE[t & 127] for t in following)
            assert winner == next(t >> 7 for t in following if flc.VALUE[t & 127] == top)
        else:
            assert winner == plays[0] >> 7  # FL-D5: only 1s played, the first-played 1 wins
