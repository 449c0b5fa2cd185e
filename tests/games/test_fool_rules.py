"""Fool!: every worked case FL-T* and the rulings FL-D*, with explicit deals and constructed positions."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

import motley
from motley.games.fool import cards as flc
from motley.games.fool import rules as fl
from motley.games.fool.game import Fool, FoolState
from tests.support import play_out

#: A 4-player deck table holding the cards of the 1995 examples (B9, B10: FL-T1) and Y14 (FL-T7).
T1_TABLE = {"4": {"G": 15, "R": 13, "Y": 11, "B": 10, "W1": 3}}
T7_TABLE = {"4": {"G": 14, "R": 13, "Y": 14, "B": 8, "W1": 3}}


def make_deal(game: motley.Game, fixed: Sequence[Sequence[str]], dealer: int,
              lacking: dict[int, str] | None = None) -> dict[str, Any]:
    """A deal giving each seat its ``fixed`` cards, the rest of the deck filled in.

    ``lacking`` maps a seat to colour letters it must not receive (to make it void); restricted seats are
    filled first. Fails (assert) if the deck cannot satisfy the request.
    """
    assert isinstance(game, Fool)
    rest = [flc.CODES[c] for c in game.deck]
    for hand in fixed:
        for code in hand:
            rest.remove(code)
    lacking = lacking or {}
    hands = [list(h) for h in fixed]
    for seat in sorted(range(game.num_players), key=lambda s: s not in lacking):
        banned = lacking.get(seat, "")
        while len(hands[seat]) < game.hand_size:
            code = next(c for c in rest if c[0] not in banned)
            rest.remove(code)
            hands[seat].append(code)
    assert not rest
    return {"hands": hands, "dealer": dealer}


def dealt(fixed: Sequence[Sequence[str]], dealer: int, lacking: dict[int, str] | None = None,
          **params: Any) -> FoolState:
    game = motley.load_game("fool", **params)
    state = game.new_initial_state(seed=5, deal=make_deal(game, fixed, dealer, lacking))
    assert isinstance(state, FoolState)
    return state


def play(state: motley.State, *codes: str) -> None:
    for code in codes:
        state.apply_action(state.string_to_action(code))


def last_trick(state: motley.State, seat: int = 0) -> dict[str, Any]:
    trick: dict[str, Any] = state.observation(seat)["tricks"][-1]
    return trick


def position(hands: Sequence[Sequence[str]], leader: int, out: Sequence[int] = (),
             totals: Sequence[int] | None = None, bonuses: Sequence[int] | None = None,
             **params: Any) -> FoolState:
    """A constructed mid-round position: small hands, ``leader`` to lead, ``out`` sitting out."""
    game = motley.load_game("fool", players=len(hands), **params)
    assert isinstance(game, Fool)
    state = FoolState(game, None)
    state.hands = [flc.split_hand([flc.CODE_INDEX[c] for c in h]) for h in hands]
    state.sizes = [len(h) for h in hands]
    state.out = tuple(out)
    state.order = [s for s in game.rotations[leader] if s not in out]
    if totals is not None:
        state.totals = list(totals)
    if bonuses is not None:
        state.bonuses = list(bonuses)
    return state


def legal_codes(state: motley.State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


# ---- FL-T1, FL-T2: the 1995 examples (Anja 0, Bettina 1, Uwe 2, Ilja 3) -----------------------------
def t1_state() -> FoolState:
    # Trick 1 makes Ilja the Fool and Anja the winner, so FL-T1 starts as the source describes it.
    fixed = [["G15", "B9", "Y2"], ["G10", "B5"], ["G9", "B10", "Y11"], ["G2", "R5"]]
    state = dealt(fixed, dealer=3, lacking={3: "Y"}, players=4, deck_table=T1_TABLE)
    play(state, "G15", "G10", "G9", "G2")
    trick = last_trick(state)
    assert (trick["winner"], trick["fools"]) == (0, [3])
    assert state.observation(0)["sitting_out"] == [3] and state.current_player() == 0
    return state


def test_fl_t1_all_follow_lowest_is_fool() -> None:
    """FL-T1: Ilja sits out; Anja B9, Bettina B5, Uwe B10 -> winner Uwe, Fool Bettina, Ilja back, Uwe leads."""
    state = t1_state()
    play(state, "B9", "B5", "B10")
    trick = last_trick(state)
    assert [p["seat"] for p in trick["plays"]] == [0, 1, 2]  # Ilja played no card
    assert trick["lead"] == "blue" and trick["winner"] == 2 and trick["fools"] == [1]
    obs = state.observation(3)
    assert obs["sitting_out"] == [1] and obs["discs"] == [1]  # the disc went from Ilja to Bettina
    assert obs["current_player"] == 2 and obs["trick"]["order"] == [2, 3, 0]  # Ilja plays again


def test_fl_t2_only_discard_is_fool_though_higher() -> None:
    """FL-T2: Uwe Y11, Ilja R5 (void), Anja Y2; Bettina out -> Fool Ilja, winner Uwe, Bettina rejoins."""
    state = t1_state()
    play(state, "B9", "B5", "B10")
    play(state, "Y11", "R5", "Y2")
    trick = last_trick(state)
    assert [p["seat"] for p in trick["plays"]] == [2, 3, 0]
    assert trick["winner"] == 2 and trick["fools"] == [3]  # R5 > Y2, but R5 is the only discard
    obs = state.observation(0)
    assert obs["sitting_out"] == [3] and obs["trick"]["order"] == [2, 0, 1]
    assert obs["voids"][3] == ["yellow"]


def test_fl_t3_reporter_keeps_the_lead() -> None:
    """FL-T3: left sits out; Reporter B7, Opposite B3, Right G9 (void) -> winner Reporter, Fool Right."""
    # Reporter 0, Left 1, Opposite 2, Right 3. Trick 1 fools Left and lets the Reporter win.
    fixed = [["G17", "B7"], ["G2"], ["G10", "B3"], ["G11", "G9"]]
    state = dealt(fixed, dealer=3, lacking={3: "B"}, players=4)
    play(state, "G17", "G2", "G10", "G11")
    assert state.observation(0)["sitting_out"] == [1]
    play(state, "B7", "B3", "G9")
    trick = last_trick(state)
    assert trick["winner"] == 0 and trick["fools"] == [3]
    assert state.current_player() == 0 and state.observation(0)["sitting_out"] == [3]


def test_fl_t5_lowest_discard_whatever_its_colour() -> None:
    """FL-T5: P1 G12, P2 Y9 (void), P3 B3 (void), P4 G2 -> Fool P3, winner P1."""
    state = dealt([["G12"], ["Y9"], ["B3"], ["G2"]], dealer=3, lacking={1: "G", 2: "G"}, players=4)
    play(state, "G12", "Y9", "B3", "G2")
    trick = last_trick(state)
    assert trick["winner"] == 0 and trick["fools"] == [2]


def test_fl_t6_a_one_is_the_lowest_lead_card() -> None:
    """FL-T6: P1 R10, P2 W1, P3 R3, P4 R12 -> all red, Fool P2, winner P4."""
    state = dealt([["R10"], ["W1", "R2"], ["R3"], ["R12"]], dealer=3, players=4)
    play(state, "R10")
    assert legal_codes(state)[-1] == "W1" and "R2" in legal_codes(state)  # FL-R7: a 1 even when holding red
    play(state, "W1", "R3", "R12")
    trick = last_trick(state)
    assert trick["winner"] == 3 and trick["fools"] == [1]


def test_fl_t7_a_discard_is_worse_than_a_one() -> None:
    """FL-T7: P1 R10, P2 W1, P3 Y14 (void), P4 R3 -> Fool P3, winner P1."""
    state = dealt([["R10"], ["W1"], ["Y14"], ["R3"]], dealer=3, lacking={2: "R"}, players=4,
                  deck_table=T7_TABLE)
    play(state, "R10", "W1", "Y14", "R3")
    trick = last_trick(state)
    assert trick["winner"] == 0 and trick["fools"] == [2]


def test_fl_t8_led_one_then_first_regular_card_sets_the_colour() -> None:
    """FL-T8 (FL-R7, FL-D10): P1 leads W1, P2 G8 sets green, P3 G3, P4 Y2 (void) -> Fool P4, winner P2."""
    state = dealt([["W1"], ["G8", "R4"], ["G3"], ["Y2"]], dealer=3, lacking={3: "G"}, players=4)
    assert "W1" in legal_codes(state)  # FL-D10: a 1 may be led
    play(state, "W1")
    assert state.observation(1)["trick"]["lead"] is None
    assert "R4" in legal_codes(state)  # no lead colour yet: anything goes
    play(state, "G8")
    assert state.observation(2)["trick"]["lead"] == "green"
    play(state, "G3", "Y2")
    trick = last_trick(state)
    assert trick["winner"] == 1 and trick["fools"] == [3]
    assert state.current_player() == 1


def test_fl_t10_legality() -> None:
    """FL-T10 (FL-R6, FL-R7): lead red; {R7, W1, G5} -> R7, W1; void {W1, G6} -> W1, G6 (G5 is P2's)."""
    state = position([["R9", "G2"], ["R7", "W1", "G5"], ["W1", "G6"], ["R2", "G3"]], leader=0)
    play(state, "R9")
    assert legal_codes(state) == ["R7", "W1"]
    before = state.serialize()
    with pytest.raises(motley.IllegalMoveError, match="does not follow the lead colour red"):
        state.apply_action(flc.CODE_INDEX["G5"])
    assert state.serialize() == before
    play(state, "R7")
    assert legal_codes(state) == ["G6", "W1"]


def test_fl_t13_total_of_minus_81_ends_the_match() -> None:
    """FL-T13 (FL-R13, FL-R14): P1 ends the round at -81 -> game over, highest total wins."""
    state = position([["G11", "G2"], ["G5"], ["G6", "G3"], ["G7", "G4"]], leader=1, totals=[-70, 0, 0, 0])
    play(state, "G5", "G6", "G7", "G2")  # seat 1 goes out; seat 0's G2 is the worst card
    assert state.is_terminal()
    assert state.scores() == [-70 - 11, 10, -3, -4]
    assert state.observation(0)["bonus_counts"] == [0, 1, 0, 0]
    assert state.winners() == [1] and state.returns() == [-1.0, 1.0, -1.0, -1.0]


def test_fl_t13_sixth_bonus_ends_the_match() -> None:
    """FL-T13: P2 receives the +10 bonus for the 6th time -> game over at the end of that round."""
    state = position([["G11", "G2"], ["G5"], ["G6", "G3"], ["G7", "G4"]], leader=1, bonuses=[0, 5, 0, 0])
    play(state, "G5", "G6", "G7", "G2")
    assert state.is_terminal() and state.observation(0)["bonus_counts"] == [0, 6, 0, 0]


def test_fl_t13_going_out_fooled_scores_zero_and_no_bonus() -> None:
    """FL-T13, FL-R12, FL-R13: going out with the worst card scores 0 and does not count as a bonus."""
    state = position([["G11", "G9"], ["G2"], ["G6", "G3"], ["G7", "G4"]], leader=1, bonuses=[0, 5, 0, 0])
    play(state, "G2", "G6", "G7", "G9")
    obs = state.observation(0)
    assert not state.is_terminal()
    last = obs["last_round"]
    assert last is not None and last["scores"] == [-11, 0, -3, -4]
    assert last["went_out_fooled"] == [1] and last["bonus"] == []
    assert obs["bonus_counts"] == [0, 5, 0, 0] and obs["round_number"] == 2


def test_fl_t14_disc_flow_over_random_rounds() -> None:
    """FL-T14 (FL-R10): first trick has everybody; a Fool of trick t skips t+1 only and plays t+2."""
    for players in (4, 6, 7, 8):
        game = motley.load_game("fool", players=players, rounds=1)
        for seed in range(10):
            state = game.new_initial_state(seed=seed)
            rng = random.Random(seed)
            previous_out: list[int] = []
            while not state.is_terminal():
                obs = state.observation(0)
                if not obs["trick"]["plays"]:
                    assert obs["sitting_out"] == (previous_out if obs["tricks"] else [])
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                tricks = state.observation(0)["tricks"]
                if tricks:
                    previous_out = tricks[-1]["fools"]
            tricks = state.observation(0)["tricks"]
            assert {p["seat"] for p in tricks[0]["plays"]} == set(range(players))
            for t in range(1, len(tricks)):
                seats = [p["seat"] for p in tricks[t]["plays"]]
                assert sorted(seats) == sorted(set(range(players)) - set(tricks[t - 1]["fools"]))
                assert len(tricks[t]["fools"]) == (2 if players >= 7 else 1)


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_fl_t15_deal_sizes(players: int) -> None:
    """FL-T15 (FL-R3, FL-D1): 12 cards each at 4-7 players, 11 at 8; the whole deck is dealt."""
    game = motley.load_game("fool", players=players)
    state = game.new_initial_state(seed=players)
    size = 11 if players == 8 else 12
    assert state.observation(0)["hand_sizes"] == [size] * players
    entry = fl.DEFAULT_DECK_TABLE[str(players)]
    deck = sum(entry[c] - 1 for c in "GRYB") + entry["W1"]
    assert deck == size * players
    dealt_codes = sorted(c for s in range(players) for c in state.observation(s)["hand"])
    assert len(dealt_codes) == deck and dealt_codes.count("W1") == entry["W1"]


@pytest.mark.parametrize("players", [4, 5, 8])
def test_a_seed_deals_the_deck_sorted_by_one_draw_per_card(players: int) -> None:
    """FL-R3, FL-D7: the first deal of seed S is ``random.Random(S)``'s dealer draw, then the deck sorted by one
    draw per card (in the deck's order), cut into hands seat 0 first; each hand by colour G R Y B W, sorted.
    Records replay by seed, so the deal's definition must not move."""
    game = motley.load_game("fool", players=players)
    assert isinstance(game, Fool)
    for seed in range(20):
        rng = random.Random(seed)
        dealer = rng.randrange(players)
        order = sorted(game.deck, key=lambda _card: rng.random())
        state = game.new_initial_state(seed=seed)
        assert isinstance(state, FoolState)
        assert state.dealer == dealer
        for seat in range(players):
            cards = sorted(order[seat * game.hand_size:(seat + 1) * game.hand_size])
            assert state.hands[seat] == [[c for c in cards if flc.COLOUR[c] == colour] for colour in range(5)]


def test_split_hand_sorts_by_colour_and_leaves_its_input() -> None:
    """``split_hand``: five sorted lists G R Y B W holding exactly the cards given; the input list unchanged."""
    rng = random.Random(3)
    for _ in range(200):
        cards = rng.sample(range(flc.W1), rng.randrange(13)) + [flc.W1] * rng.randrange(3)
        rng.shuffle(cards)
        given = list(cards)
        hand = flc.split_hand(cards)
        assert cards == given
        assert hand == [sorted(c for c in cards if flc.COLOUR[c] == colour) for colour in range(5)]
        assert flc.split_sorted(sorted(cards)) == hand


# ---- other rules and rulings ---------------------------------------------------------------------------
def test_fl_r5_left_of_dealer_leads_and_fl_d7_rotation() -> None:
    """FL-R5, FL-D7: seat left of the dealer leads; next round the deal passes left, discs in the centre."""
    game = motley.load_game("fool", players=5, rounds=3)
    state = game.new_initial_state(seed=9, deal=make_deal(game, [[]] * 5, dealer=2))
    assert state.current_player() == 3
    obs = state.observation(0)
    assert obs["dealer"] == 2 and obs["round_number"] == 1
    rng = random.Random(1)
    while state.observation(0)["round_number"] == 1:
        state.apply_action(rng.choice(state.legal_actions()))
    obs = state.observation(0)
    assert obs["dealer"] == 3 and state.current_player() == 4 and obs["sitting_out"] == []
    assert obs["trick"]["order"] == [4, 0, 1, 2, 3]


def test_first_dealer_option() -> None:
    """FL-D7: ``first_dealer`` as a seat fixes the first dealer; "random" draws it from the seed."""
    assert motley.load_game("fool", first_dealer=1).new_initial_state(seed=3).current_player() == 2
    dealers = {motley.load_game("fool").new_initial_state(seed=s).observation(0)["dealer"] for s in range(30)}
    assert len(dealers) > 1


def test_first_dealer_names_seats_from_1_for_people_and_keeps_its_value() -> None:
    """FL-D7: the ``first_dealer`` choices a person reads count seats from 1 ("Seat 3"), as the table and the lobby
    number them, while the value chosen stays the seat's number from 0 (Seat 3 is seat 2, who deals first and
    so has seat 3 lead); a seat beyond the table is refused in both numberings."""
    from motley.core.registry import game_class

    option = next(o for o in game_class("fool").options if o.name == "first_dealer").describe()
    words = dict(zip(map(str, option["choices"]), option["choice_labels"], strict=True))
    assert words["random"] == "random"
    assert all(words[str(seat)] == f"Seat {seat + 1}" for seat in range(8))
    game = motley.load_game("fool", players=5, first_dealer=option["choices"][option["choice_labels"].index("Seat 3")])
    assert game.params["first_dealer"] == 2 and game.new_initial_state(seed=3).current_player() == 3
    with pytest.raises(motley.OptionError, match=r"seat 0\.\.3 \(Seat 1 to Seat 4 at 4 players\); got 5 \(Seat 6\)"):
        motley.load_game("fool", players=4, first_dealer=5)


def test_fl_r12_several_go_out_and_final_fool_takes_the_disc() -> None:
    """FL-R12, FL-R13: all go out in the final trick; its Fool scores 0 and holds the disc; W1 in hand is -5."""
    state = position([["G5"], ["G3"], ["G9"], ["G2"]], leader=0, rounds=1)
    play(state, "G5", "G3", "G9", "G2")
    obs = state.observation(0)
    last = obs["last_round"]
    assert last is not None and last["scores"] == [10, 10, 10, 0] and obs["sitting_out"] == [3]
    state = position([["G5"], ["G3", "W1", "R4"], ["G9", "W1"], ["G2", "B8"]], leader=0, rounds=1)
    play(state, "G5", "G3", "G9", "G2")
    last = state.observation(0)["last_round"]
    assert last is not None and last["scores"] == [10, -9, -5, -8]


def test_rounds_option_stops_after_n_rounds() -> None:
    """``rounds=1`` plays a single round, ``rounds=2`` two (unless FL-R14 ends the match first)."""
    for rounds in (1, 2):
        game = motley.load_game("fool", players=5, rounds=rounds)
        for seed in range(5):
            state = play_out(game.new_initial_state(seed=seed), random.Random(seed))
            obs = state.observation(0)
            assert obs["round_number"] <= rounds and obs["last_round"]["round_number"] == obs["round_number"]
            ended = min(obs["scores"]) <= -80 or max(obs["bonus_counts"]) >= 6
            assert obs["round_number"] == rounds or ended


def test_text_of_a_state_that_named_the_round_number_round_still_reads() -> None:
    """Older serialized states kept the round number (and the last round's) under ``round``."""
    game = motley.load_game("fool", players=5)
    state = game.new_initial_state(seed=4)
    rng = random.Random(4)
    while state.observation(0)["round_number"] == 1:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    data = json.loads(state.serialize())
    data["state"]["round"] = data["state"].pop("round_number")
    data["state"]["last"] = {("round" if key == "round_number" else key): value
                             for key, value in data["state"]["last"].items()}
    old = game.deserialize_state(json.dumps(data))
    assert old.serialize() == state.serialize()
    assert old.observation(2) == state.observation(2) and old.observation(2)["last_round"]["round_number"] == 1


def test_fl_d2_two_fools_from_seven_or_eight() -> None:
    """FL-D2, FL-R4, FL-R11: two discs at 7 and 8 by default; ``two_fools_from_players=8`` -> one at 7."""
    assert motley.load_game("fool", players=6).new_initial_state(seed=1).observation(0)["num_fools"] == 1
    assert motley.load_game("fool", players=7).new_initial_state(seed=1).observation(0)["num_fools"] == 2
    seven = motley.load_game("fool", players=7, two_fools_from_players=8)
    assert seven.new_initial_state(seed=1).observation(0)["num_fools"] == 1
    assert motley.load_game("fool", players=8, two_fools_from_players=8).new_initial_state(
        seed=1).observation(0)["num_fools"] == 2


def test_fl_d3_second_worst_card() -> None:
    """FL-D3: discards before lead cards, then lower value, then later-played; the two worst are fooled."""
    hands = [["G10", "G2"], ["Y5", "Y6"], ["G4", "G8"], ["B9", "B2"], ["G12", "G13"], ["R3", "R4"], ["G7", "G9"]]
    state = position(hands, leader=0)
    play(state, "G10", "Y5", "G4", "B9", "G12", "R3", "G7")  # discards Y5, B9, R3
    assert last_trick(state)["fools"] == [5, 1]  # R3 then Y5: the two lowest discards, worst first
    hands = [["G10", "G2"], ["G3", "G11"], ["G4", "G13"], ["B2", "B5"], ["G12", "G14"], ["G9", "G15"], ["G7", "G16"]]
    state = position(hands, leader=0)
    play(state, "G10", "G3", "G4", "B2", "G12", "G9", "G7")
    assert last_trick(state)["fools"] == [3, 1]  # the only discard, then the lowest green
    hands = [["G10", "G2"], ["G3", "G11"], ["G4", "G13"], ["W1", "B5"], ["G12", "G14"], ["G9", "G15"], ["W1", "G16"]]
    state = position(hands, leader=0)
    play(state, "G10", "G3", "G4", "W1", "G12", "G9", "W1")
    assert last_trick(state)["fools"] == [6, 3]  # both 1s; the later 1 is worse (FL-D4)


def test_fl_d4_equal_ones_later_is_worse() -> None:
    """FL-D4: P1 R10, P2 W1, P3 W1, P4 R3 -> the later W1 (P3) is the Fool."""
    state = position([["R10", "G2"], ["W1", "G3"], ["W1", "G4"], ["R3", "G5"]], leader=0)
    play(state, "R10", "W1", "W1", "R3")
    assert last_trick(state)["fools"] == [2] and last_trick(state)["winner"] == 0


def test_fl_d5_all_ones_first_wins() -> None:
    """FL-D5: every card a 1 -> the first-played 1 (the leader) wins and leads; the last 1 is the Fool."""
    hands = [["W1", "G2"], ["W1", "G3"], ["W1", "G4"], ["W1", "G5"], ["G6", "G7"]]
    state = position(hands, leader=1, out=[4])
    play(state, "W1", "W1", "W1", "W1")
    trick = last_trick(state)
    assert trick["lead"] is None and trick["winner"] == 1 and trick["fools"] == [0]
    assert state.current_player() == 1


def test_fl_d6_winner_who_is_a_fool_passes_the_lead() -> None:
    """FL-D6 (artificial: five seats out): two 1s at 7 players -> both fooled; lead passes clockwise."""
    hands = [["W1", "G2"], ["G3"], ["G4"], ["W1", "G5"], ["G6"], ["G7"], ["G8"]]
    state = position(hands, leader=0, out=[1, 2, 4, 5, 6])
    play(state, "W1", "W1")
    trick = last_trick(state)
    assert trick["winner"] == 0 and sorted(trick["fools"]) == [0, 3]
    assert state.current_player() == 1 and state.observation(0)["sitting_out"] == [3, 0]


@pytest.mark.parametrize(("players", "two_fools_from"), [(4, 7), (6, 7), (7, 8), (7, 7), (8, 7)])
def test_fl_r10_fl_d6_the_next_tricks_seats(players: int, two_fools_from: int) -> None:
    """FL-R10, FL-D6: after a trick the winner leads, or the next seat clockwise not sitting out when the winner
    is a Fool; every seat but the Fools plays, clockwise. With one Fool a trick the table read by the trick's end
    (``one_fool_orders``) holds the same lists as ``next_order``."""
    game = motley.load_game("fool", players=players, two_fools_from_players=two_fools_from)
    assert isinstance(game, Fool)
    fool_sets = ([(f,) for f in range(players)] if game.num_fools == 1
                 else [(f, g) for f in range(players) for g in range(players) if f != g])
    for winner in range(players):
        for fools in fool_sets:
            clockwise = [(winner + i) % players for i in range(players)]
            leader = next(s for s in clockwise if s not in fools)
            expected = [(leader + i) % players for i in range(players) if (leader + i) % players not in fools]
            assert game.next_order(winner, fools) == expected
            if game.num_fools == 1:
                assert game.one_fool_orders[winner][fools[0]] is game.next_order(winner, fools)
    assert game.one_fool_orders == [] or game.num_fools == 1


@pytest.mark.parametrize(("tie_break", "winners"), [("shared", [0, 1, 2]), ("most_bonuses", [2])])
def test_fl_d8_tie_break(tie_break: str, winners: list[int]) -> None:
    """FL-D8: equal top totals share the win, or the one with more +10 bonuses wins."""
    state = position([["G11", "G2"], ["G5"], ["G6", "G3"], ["G7", "G4"]], leader=1, totals=[21, 0, 13, -79],
                     bonuses=[1, 0, 2, 0], tie_break=tie_break)
    play(state, "G5", "G6", "G7", "G2")  # round scores -11, +10, -3, -4; seat 3 falls to -83
    assert state.is_terminal() and state.scores() == [10, 10, 10, -83]
    assert state.observation(0)["bonus_counts"] == [1, 1, 2, 0]
    assert state.winners() == winners
    assert state.returns() == [1.0 if s in winners else -1.0 for s in range(4)]


def test_fl_d9_end_total_is_inclusive() -> None:
    """FL-D9: a total of exactly ``end_total`` ends the match; one point above does not."""
    for start, ends in ((-69, True), (-68, False)):
        state = position([["G11", "G2"], ["G5"], ["G6", "G3"], ["G7", "G4"]], leader=1, totals=[start, 0, 0, 0])
        play(state, "G5", "G6", "G7", "G2")
        assert state.is_terminal() == ends
    state = position([["G11", "G2"], ["G5"], ["G6", "G3"], ["G7", "G4"]], leader=1, totals=[-50, 0, 0, 0],
                     end_total=-60)
    play(state, "G5", "G6", "G7", "G2")
    assert state.is_terminal()


def test_deck_table_option_and_assumed_flag() -> None:
    """FL-D1: the default table is flagged assumed; a user table replaces the entry and is not."""
    assert motley.load_game("fool", players=4).new_initial_state(seed=1).observation(0)["deck_table_assumed"]
    state = motley.load_game("fool", players=4, deck_table=T1_TABLE).new_initial_state(seed=1)
    obs = state.observation(0)
    assert obs["deck_table_assumed"] is False and obs["deck"] == T1_TABLE["4"]
    codes = {c for s in range(4) for c in state.observation(s)["hand"]}
    assert "B10" in codes and "G16" not in codes
    text = motley.load_game('fool(players=4,deck_table={"4":{"g":15,"r":13,"y":11,"b":10,"w1":3}})')
    assert text.params["deck_table"]["4"] == T1_TABLE["4"]


# ---- bad input: a clear error naming the problem, and the state unchanged ----------------------------------
def started() -> FoolState:
    state = dealt([["G12", "G3"], ["G4", "R5"], ["B3"], ["G2"]], dealer=3, players=4, first_dealer=3)
    play(state, "G12", "G4", "B3", "G2")  # seat 2 discards B3 and sits out; seat 0 leads
    return state


@pytest.mark.parametrize(
    ("move", "words", "error"),
    [(88, "unknown action id", motley.InvalidMoveError), (-1, "unknown action id", motley.InvalidMoveError),
     ("G3", "whole number", motley.InvalidMoveError), (True, "whole number", motley.InvalidMoveError),
     (None, "whole number", motley.InvalidMoveError), (2.0, "whole number", motley.InvalidMoveError),
     (flc.CODE_INDEX["G4"], "you do not hold G4", motley.IllegalMoveError),
     (flc.CODE_INDEX["G20"], "G20 is not in the deck at 4 players", motley.IllegalMoveError)],
)
def test_bad_actions_name_the_problem(move: Any, words: str, error: type[motley.MoveError]) -> None:
    """An action that is no action of the game is invalid; a card id this state's rules refuse is illegal."""
    state = started()
    before = state.serialize()
    with pytest.raises(error, match=words):
        state.apply_action(move)
    assert state.serialize() == before


def test_not_following_colour_is_refused() -> None:
    state = started()
    play(state, "G3")
    before = state.serialize()
    with pytest.raises(motley.IllegalMoveError, match="R5 does not follow the lead colour green"):
        state.string_to_action("r5")
    assert state.serialize() == before


@pytest.mark.parametrize("text", ["G1", "X5", "", "G 3 G4", "pass", "W2"])
def test_unknown_card_codes(text: str) -> None:
    state = started()
    before = state.serialize()
    with pytest.raises(motley.InvalidMoveError, match="unknown card code"):
        state.string_to_action(text)
    assert state.serialize() == before


@pytest.mark.parametrize("players", range(4, 9))
def test_an_unknown_code_is_answered_with_the_codes_of_this_deck(players: int) -> None:
    """The error names each colour's run as this player count's deck has it (FL-R3, FL-D1), not the whole pack."""
    state = motley.load_game(f"fool(players={players})").new_initial_state(seed=players)
    with pytest.raises(motley.InvalidMoveError) as info:
        state.string_to_action("X5")
    deck = state.game.deck  # type: ignore[attr-defined]
    for colour, letter in enumerate("GRYB"):
        top = max(flc.VALUE[c] for c in deck if flc.COLOUR[c] == colour)
        assert f"{letter}2..{letter}{top}" in str(info.value)
    assert str(info.value).endswith("and W1")


def test_codes_are_case_insensitive_and_w1_is_one_action() -> None:
    state = position([["W1", "W1", "G2"], ["G3"], ["G4"], ["G5"]], leader=0)
    assert state.legal_actions() == [flc.CODE_INDEX["G2"], flc.W1]
    assert state.string_to_action("w1") == flc.W1 and state.string_to_action(" g2 ") == flc.CODE_INDEX["G2"]
    before = state.serialize()
    with pytest.raises(motley.IllegalMoveError, match="every W1 is played as action 82"):
        state.apply_action(85)
    assert state.serialize() == before


def test_a_seat_sitting_out_or_not_to_move_is_refused() -> None:
    state = started()
    before = state.serialize()
    with pytest.raises(motley.IllegalMoveError, match="seat 2 holds a Fool disc and sits out"):
        state.play(2, flc.CODE_INDEX["G3"])
    with pytest.raises(motley.IllegalMoveError, match="it is seat 0's turn, not seat 1's"):
        state.play(1, flc.CODE_INDEX["R5"])
    assert state.serialize() == before
    state.play(0, flc.CODE_INDEX["G3"])
    assert state.current_player() == 1


def test_moves_after_the_end_are_refused() -> None:
    """No card is played once the match is over, not even one of the cards still held (the engine finds no seat to
    play: the match's end empties the trick's seats)."""
    state = play_out(motley.load_game("fool", players=4, rounds=1).new_initial_state(seed=2), random.Random(2))
    before = state.serialize()
    assert state.legal_actions() == [] and state.current_player() == motley.TERMINAL
    assert isinstance(state, FoolState)
    held = [card for hand in state.hands for cards in hand for card in cards]
    assert held, "the hands left at the round's end hold cards"
    for card in held:
        with pytest.raises(motley.GameOverError):
            state.apply_action(card)
    with pytest.raises(motley.IllegalMoveError, match="game is over"):
        state.apply_action(0)
    with pytest.raises(motley.IllegalMoveError, match="game is over"):
        state.string_to_action("G2")
    assert state.serialize() == before


def bad_deals() -> list[tuple[Any, str]]:
    game = motley.load_game("fool", players=4)
    good = make_deal(game, [[]] * 4, dealer=0)
    hands = good["hands"]
    w1_seat = next(s for s, h in enumerate(hands) if "W1" in h)
    too_many_w1 = [list(h) for h in hands]
    swap = next(i for i, c in enumerate(too_many_w1[(w1_seat + 1) % 4]) if c != "W1")
    too_many_w1[(w1_seat + 1) % 4][swap] = "W1"
    return [
        ([1, 2], "a fool deal is"),
        ({"hands": hands}, "a fool deal is"),
        ({"hands": hands[:3], "dealer": 0}, "exactly 4 hands"),
        ({"hands": [hands[0][:-1], *hands[1:]], "dealer": 0}, "hand of seat 0 has 11 cards"),
        ({"hands": [["Q9", *hands[0][1:]], *hands[1:]], "dealer": 0}, "unknown card code 'Q9'"),
        ({"hands": [[hands[1][0], *hands[0][1:]], *hands[1:]], "dealer": 0}, "twice"),
        ({"hands": [["G27", *hands[0][1:]], *hands[1:]], "dealer": 0}, "G27, which is not in the deck"),
        ({"hands": too_many_w1, "dealer": 0}, "4 W1 but the deck at 4 players has 3"),
        ({"hands": hands, "dealer": 4}, "dealer must be a seat 0..3"),
        ({"hands": hands, "dealer": True}, "dealer must be a seat"),
        ({"hands": ["G2", *hands[1:]], "dealer": 0}, "list of card codes"),
    ]


@pytest.mark.parametrize(("deal", "words"), bad_deals())
def test_malformed_deals_name_the_problem(deal: Any, words: str) -> None:
    with pytest.raises(motley.DealError, match=words):
        motley.load_game("fool", players=4).new_initial_state(seed=1, deal=deal)


@pytest.mark.parametrize(
    ("table", "words"),
    [({"4": {"G": 17, "R": 13, "Y": 11, "B": 8, "W1": 2}}, "47 cards, which does not deal evenly"),
     ({"8": {"G": 27, "R": 23, "Y": 21, "B": 15, "W1": 5}}, "87 cards, which does not deal evenly: 8 players need 88"),
     ({"4": {"G": 17, "R": 13, "Y": 11, "P": 8, "W1": 3}}, "unknown colour 'P'"),
     ({"4": {"G": 28, "R": 2, "Y": 11, "B": 8, "W1": 3}}, "G is the highest value kept and must be 1..27"),
     ({"4": {"G": 17, "R": 13, "Y": 11, "B": 8, "W1": 7}}, "W1 must be 0..6"),
     ({"4": {"G": 17, "R": 13, "Y": 11, "B": 8}}, "lacks W1"),
     ({"4": {"G": "17", "R": 13, "Y": 11, "B": 8, "W1": 3}}, "must be a whole number"),
     ({"3": {"G": 17, "R": 13, "Y": 11, "B": 8, "W1": 3}}, "unknown player count"),
     ({"4": [17, 13]}, "must be an object"),
     ([1, 2], "must be an object"),
     ("{not json", "not valid JSON")],
)
def test_bad_deck_tables_name_the_problem(table: Any, words: str) -> None:
    with pytest.raises(motley.OptionError, match=words):
        motley.load_game("fool", deck_table=table)


@pytest.mark.parametrize(("params", "words"), [({"players": 3}, "at least 4"), ({"players": 9}, "at most 8"),
                                               ({"first_dealer": 5, "players": 4}, "seat 0..3"),
                                               ({"first_dealer": "left"}, "'random' or a seat number"),
                                               ({"two_fools_from_players": 6}, "must be one of 7, 8"),
                                               ({"tie_break": "coin"}, "must be one of shared"),
                                               ({"rounds": -1}, "at least 0")])
def test_bad_options_name_the_problem(params: dict[str, Any], words: str) -> None:
    with pytest.raises(motley.OptionError, match=words):
        motley.load_game("fool", **params)


def test_bad_seat_for_observation() -> None:
    state = started()
    for seat in (4, -1):
        with pytest.raises(motley.MotleyError, match=r"seat must be 0\.\.3"):
            state.observation(seat)
        with pytest.raises(motley.MotleyError, match=r"seat must be 0\.\.3"):
            state.observation_tensor(seat)


def test_the_observation_names_the_card_to_beat_and_the_trick_goes_to_it() -> None:
    """The current trick's ``winning`` seat (FL-R8: the card to beat) changes only to the seat that just played, and
    the trick goes to it unless the last card beats it."""
    import random as _random

    import motley as _motley

    game = _motley.load_game("fool", players=5)
    state = game.new_initial_state(11)
    rng = _random.Random(11)
    checked = 0
    while not state.is_terminal() and checked < 40:
        obs = state.observation(0)
        winning, tricks = obs["trick"]["winning"], len(obs["tricks"])
        assert (winning is None) == (not obs["trick"]["plays"])
        round_number, mover = obs["round_number"], obs["current_player"]
        state.apply_action(rng.choice(state.legal_actions()))
        after = state.observation(0)
        if after["round_number"] != round_number:
            continue
        if len(after["tricks"]) > tricks:
            assert after["tricks"][-1]["winner"] in (winning, mover)
            checked += 1
        else:
            assert after["trick"]["winning"] in (winning, mover)
    assert checked > 0


def test_the_observation_holds_every_finished_round_s_points_which_sum_to_the_totals() -> None:
    """FL-R13, FL-R14: ``round_scores`` is the match's score sheet, one row per finished round, for every
    seat (public), kept through clone and serialization."""
    game = motley.load_game("fool", players=5)
    rng = random.Random(11)
    state = game.new_initial_state(seed=11)
    assert isinstance(state, FoolState)
    rounds_seen = 0
    while not state.is_terminal():
        before = state.round_number
        state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal() or state.round_number != before:
            rounds_seen += 1
            obs = state.observation(rng.randrange(5))
            assert len(obs["round_scores"]) == rounds_seen
            last = obs["last_round"]
            assert last is not None and obs["round_scores"][-1] == last["scores"]
            assert [sum(col) for col in zip(*obs["round_scores"], strict=True)] == obs["scores"]
            again = game.deserialize_state(state.serialize())
            assert again.observation(0)["round_scores"] == state.clone().observation(0)["round_scores"]
    assert rounds_seen >= 1
