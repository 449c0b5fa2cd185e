"""Foolery: every worked case FY-T*, the rulings it relies on, and bad input (explicit deals, constructed states)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

import motley
from motley.games.foolery import cards as fyc
from motley.games.foolery import moves as fym
from motley.games.foolery import rules as fy
from motley.games.foolery.game import FooleryState
from tests.support import play_out, play_random

ALL = list(fyc.CODES)


def deal(players: int, dealer: int, fixed: dict[int, list[str]]) -> dict[str, Any]:
    """An explicit deal (FY-R1 sizes for ``dealer``) where seat ``q`` holds ``fixed[q]``; the rest filled in."""
    sizes = fy.deal_sizes(players, dealer)
    used = {c for cards in fixed.values() for c in cards}
    rest = [c for c in ALL if c not in used]
    hands = []
    for q in range(players):
        hand = list(fixed.get(q, []))
        while len(hand) < sizes[q]:
            hand.append(rest.pop())
        hands.append(hand)
    return {"hands": hands, "dealer": dealer}


def start(players: int, fixed: dict[int, list[str]], dealer: int = 0, **params: Any) -> FooleryState:
    state = motley.load_game("foolery", players=players, **params).new_initial_state(
        seed=3, deal=deal(players, dealer, fixed))
    assert isinstance(state, FooleryState)
    return state


def set_hand(state: FooleryState, seat: int, codes: list[str]) -> None:
    """Constructed position: give ``seat`` exactly ``codes`` (the rest of the pack is irrelevant here)."""
    state.hands[seat] = fyc.mask_of([fyc.CODE_INDEX[c] for c in codes])
    state.sizes[seat] = len(codes)
    state._legal = None


def play(state: FooleryState, *moves: str) -> None:
    for move in moves:
        state.apply_action(state.string_to_action(move))


def _legal_text(state: FooleryState, move: str) -> bool:
    try:
        state.string_to_action(move)
    except motley.IllegalMoveError:
        return False
    return True


def beats(table: str, play_: str, players: int = 4, **params: Any) -> bool:
    """Seat 0 leads ``table``; may seat 1 (holding ``play_``) play ``play_`` on it?"""
    state = start(players, {0: table.split(), 1: play_.split()}, **params)
    play(state, table)
    assert state.current_player() == 1
    return _legal_text(state, play_)


def events(state: FooleryState) -> list[tuple[str, int]]:
    return [(e["event"], e["seat"]) for e in state.observation(0)["log"]]


# ---- FY-T1 .. FY-T5: ranks, skips, 5-card order ----------------------------------------------------------
def test_fy_t1_ranks_ace_low_and_suits_never_break_ties() -> None:
    """FY-T1 (FY-R2): A < 2 < ... < 10 < J < C < Q < K; an equal card of another suit is only equal."""
    ranks = fyc.RANK_CODES
    for low, high in itertools.pairwise(ranks):
        assert beats(f"{low}S", f"{high}S")
        assert not beats(f"{high}S", f"{low}S")
    for r in ranks:
        assert beats(f"{r}S", f"{r}H") and beats(f"{r}H", f"{r}S")  # equal, legal (FY-R5)


def test_fy_t2_equal_single_skips_the_next_player() -> None:
    """FY-T2 (FY-R6, FY-D6): P1 leads 7S, P2 plays 7H -> P3 is skipped, P4 is next."""
    state = start(4, {0: ["7S"], 1: ["7H"]})
    play(state, "7S", "7H")
    assert state.current_player() == 3
    assert events(state)[-1] == ("skip", 2)


def test_fy_t3_equal_pair_skips_the_next_player() -> None:
    """FY-T3 (FY-R6): P1 leads 9S 9H, P2 plays 9D 9C -> P3 skipped."""
    state = start(4, {0: ["9S", "9H"], 1: ["9D", "9C"]})
    play(state, "9S 9H", "9C 9D")
    assert state.current_player() == 3 and events(state)[-1] == ("skip", 2)


def test_no_skip_when_the_skip_rule_is_off() -> None:
    """FY-D6 option ``skip_rule=false``."""
    state = start(4, {0: ["9S", "9H"], 1: ["9D", "9C"]}, skip_rule=False)
    play(state, "9S 9H", "9C 9D")
    assert state.current_player() == 2


def test_fy_t4_equal_five_card_hand_does_not_skip() -> None:
    """FY-T4 (FY-D4): 3S 4S 5H 6D 7C then 3H 4D 5S 6C 7D is legal and P3 is not skipped."""
    state = start(4, {0: ["3S", "4S", "5H", "6D", "7C"], 1: ["3H", "4D", "5S", "6C", "7D"]})
    play(state, "3S 4S 5H 6D 7C", "3H 4D 5S 6C 7D")
    assert state.current_player() == 2 and ("skip", 2) not in events(state)


@pytest.mark.parametrize(("table", "higher"), [
    ("AS 2H 3D 4C 5S", "10S JH CD QC KS"),         # higher straight
    ("10S JH CD QC KS", "2H 4H 6H 8H 10H"),        # FY-T5: any flush beats any straight
    ("CH QH 9H 6H 2H", "7S 7H 7D KS KH"),          # full house beats flush
    ("7S 7H 7D KS KH", "8S 8H 8D 2S 2H"),          # FY-T5: 8-8-8-2-2 beats 7-7-7-K-K
    ("8S 8H 8D 2S 2H", "2D 3D 4D 5D 6D"),          # FY-T5: straight flush beats full house
    ("9C 10C JC CC QC", "7S 7H 7D 7C VII"),        # FY-T5: five 7s beat any straight flush
    ("7S 7H 7D 7C VII", "8S 8H 8D 8C VIII"),       # FY-T5: five 8s beat five 7s
])
def test_fy_t5_five_card_order(table: str, higher: str) -> None:
    """FY-T5 (FY-R4, FY-D4): each hand beats the one before it, never the reverse."""
    assert beats(table, higher)
    assert not beats(higher, table)


def test_five_card_equal_is_legal_and_straight_needs_ace_low() -> None:
    """FY-D2, FY-D4, FY-D23: same category and key is equal (legal); J-C-Q-K-A is a straight only with the option."""
    assert beats("2S 3H 4D 5C 6S", "2H 3D 4C 5S 6D")
    state = start(4, {0: ["JS", "CH", "QD", "KC", "AS"]})
    with pytest.raises(motley.IllegalMoveError, match="Ace is low"):
        state.string_to_action("JS CH QD KC AS")
    high = start(4, {0: ["JS", "CH", "QD", "KC", "AS"]}, ace_high_straight=True)
    assert _legal_text(high, "AS JS CH QD KC")
    assert beats("10S JH CD QC KS", "JS CH QD KC AS", ace_high_straight=True)


@pytest.mark.parametrize("wrap", ["QS KH AD 2C 3S", "CS QH KD AC 2S", "KS AH 2D 3C 4S"])
def test_fy_d2_ace_high_straight_never_wraps(wrap: str) -> None:
    """FY-D2: with ``ace_high_straight`` the Ace may stand above the King; Q-K-A-2-3 (a wrap) is never a straight."""
    assert fyc.mask_of([fyc.CODE_INDEX[c] for c in wrap.split()]) not in fym.MASK_TO_ACTION  # no such play at all
    for ace_high in (False, True):
        state = start(4, {0: wrap.split()}, ace_high_straight=ace_high)
        with pytest.raises(motley.IllegalMoveError, match="not a straight"):
            state.string_to_action(wrap)


def test_fy_d2_ace_high_straight_is_the_highest_straight_and_ace_low_stays() -> None:
    """FY-D2, FY-D23: J-C-Q-K-A is the highest straight (and straight flush); A-2-3-4-5 is still the lowest."""
    high = {"ace_high_straight": True}
    assert beats("10S JH CD QC KS", "JS CH QD KC AS", **high)
    assert not beats("JS CH QD KC AS", "10S JH CD QC KS", **high)
    assert beats("JS CH QD KC AS", "2H 5H 7H 9H JH", **high)            # a flush still beats any straight
    assert beats("AS 2H 3D 4C 5S", "2S 3H 4D 5C 6H", **high)            # A-2-3-4-5 is legal, the lowest
    assert not beats("2S 3H 4D 5C 6H", "AH 2D 3C 4S 5H", **high)
    assert beats("10H JH CH QH KH", "JS CS QS KS AS", **high)           # the highest straight flush
    assert not beats("JS CS QS KS AS", "10H JH CH QH KH", **high)
    # No wrap even in one suit: Q-K-A-2-3 of spades is a plain flush (K high, the Ace low, FY-D23).
    assert beats("QS KS AS 2S 3S", "8S 8H 8D 2H 2D", **high)            # a full house beats it
    assert beats("QS KS AS 2S 3S", "KH 9H 7H 5H 3H", **high)            # equal to a K-high flush


def test_five_of_a_kind_trump_option() -> None:
    """FY-D3: five 7s need trump VII unless ``five_kind_trump=any`` (then its trump is what must be beaten)."""
    state = start(4, {0: ["7S", "7H", "7D", "7C", "IX"]})
    with pytest.raises(motley.IllegalMoveError, match="needs trump VII"):
        state.string_to_action("7S 7H 7D 7C IX")
    assert beats("7S 7H 7D 7C IX", "II IV X", five_kind_trump="any")
    assert not beats("7S 7H 7D 7C IX", "II IV VIII", five_kind_trump="any")


# ---- FY-T7 .. FY-T12: trumps and the Fool ------------------------------------------------------------------
def test_fy_t7_trumping_counts() -> None:
    """FY-T7 (FY-R7, FY-D9): 1 trump on a single or pair, exactly 2 on a triple or four, exactly 3 on 5 cards."""
    assert beats("KS", "I")
    assert beats("KS KH", "II")
    assert not beats("KS", "I II")
    assert beats("5S 5H 5D", "I II") and not beats("5S 5H 5D", "III") and not beats("5S 5H 5D", "I II III")
    assert beats("5S 5H 5D 5C", "I II") and not beats("5S 5H 5D 5C", "IV")
    assert beats("AS 2H 3D 4C 5S", "I II III") and not beats("AS 2H 3D 4C 5S", "I II")


def test_trumps_on_trumps_need_the_count_and_a_higher_top() -> None:
    """FY-R7, FY-D8, FY-D9: 2 beat 3, 1 beats 2 or 1, the top must be higher; normal cards cannot follow."""
    state = start(4, {0: ["AS", "2H", "3D", "4C", "5S"], 1: ["I", "II", "X"], 2: ["XI", "XII", "XV"] + ["KS"]})
    play(state, "AS 2H 3D 4C 5S", "I II X")
    assert _legal_text(state, "XI XII") and not _legal_text(state, "XI XII XV")
    with pytest.raises(motley.IllegalMoveError, match="exactly 2 trump"):
        state.string_to_action("XI")
    with pytest.raises(motley.IllegalMoveError, match="normal cards cannot beat trumps"):
        state.string_to_action("KS")
    play(state, "XI XII")
    assert state.current_player() == 3


def test_fy_t8_trumps_on_five_of_a_kind_must_top_its_trump() -> None:
    """FY-T8 (FY-R7): on five 7s with VII, {II, IV, VI} is illegal, {II, IV, VIII} legal."""
    state = start(4, {0: ["7S", "7H", "7D", "7C", "VII"], 1: ["II", "IV", "VI", "VIII"]})
    play(state, "7S 7H 7D 7C VII")
    with pytest.raises(motley.IllegalMoveError, match="must exceed trump VII"):
        state.string_to_action("II IV VI")
    assert _legal_text(state, "II IV VIII")


def test_fy_t10_trump_variation() -> None:
    """FY-T10 (FY-R14): 3 trumps topped by XII need 3 trumps with a higher top; 2 need 2."""
    three = start(4, {0: ["AS", "2H", "3D", "4C", "5S"], 1: ["I", "II", "XII"], 2: ["III", "IV", "XIII", "XI"]},
                  trump_variation=True)
    play(three, "AS 2H 3D 4C 5S", "I II XII")
    assert _legal_text(three, "III IV XIII") and not _legal_text(three, "IV XIII")
    assert not _legal_text(three, "III IV XI")
    two = start(4, {0: ["5S", "5H", "5D"], 1: ["I", "VI"], 2: ["II", "VII", "V"]}, trump_variation=True)
    play(two, "5S 5H 5D", "I VI")
    assert _legal_text(two, "II VII") and not _legal_text(two, "VII") and not _legal_text(two, "II V")


def test_fy_t11_the_fool_ends_the_trick_at_once() -> None:
    """FY-T11 (FY-R9): 3 trumps on the table, P3 plays the Fool: P4 gets no turn, P3 leads next."""
    state = start(4, {0: ["AS", "2H", "3D", "4C", "5S"], 1: ["I", "II", "III"], 2: ["FOOL", "V"]})
    play(state, "AS 2H 3D 4C 5S", "I II III", "FOOL")
    assert state.current_player() == 2 and state.top == -1
    assert [e for e in events(state) if e[1] == 3] == []
    with pytest.raises(motley.IllegalMoveError, match="Fool is played alone"):
        state.string_to_action("V FOOL")
    set_hand(state, 2, ["FOOL", "V", "9S"])
    with pytest.raises(motley.IllegalMoveError, match="Fool cannot be led"):
        state.string_to_action("FOOL")


def test_fy_t12_leading_trumps() -> None:
    """FY-T12 (FY-R8, FY-D10): trumps lead only without suit cards; then 1, 2 or 3 of them; trumps + Fool too."""
    state = start(4, {})
    set_hand(state, 0, ["II", "IX", "XI", "4S"])
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["4S"]
    with pytest.raises(motley.IllegalMoveError, match="only when you hold no suit cards"):
        state.string_to_action("II")
    set_hand(state, 0, ["II", "IX", "XI"])
    moves = {state.action_to_string(a) for a in state.legal_actions()}
    assert moves == {"II", "IX", "XI", "II IX", "II XI", "IX XI", "II IX XI"}
    set_hand(state, 0, ["II", "FOOL"])
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["II"]


def test_fy_t13_stuck_with_the_fool_is_the_peasant() -> None:
    """FY-T13 (FY-R9, FY-D13): P2 wins a trick holding only the Fool -> P2 is the Peasant, P3 leads."""
    state = start(4, {0: ["2S"], 1: ["KS", "FOOL"]})
    set_hand(state, 1, ["KS", "FOOL"])
    play(state, "2S", "KS", "pass", "pass", "pass")
    assert state.places[1] == 3 and state.current_player() == 2 and state.top == -1
    assert ("stuck", 1) in events(state)
    assert state.observation(0)["places"][1] == 3


def test_fy_d12_lead_passes_on_when_the_winner_is_out() -> None:
    """FY-D12, FY-R11: the winner played its last card: it is first out and the next seat with cards leads."""
    state = start(4, {0: ["2S"], 1: ["KS"]})
    set_hand(state, 1, ["KS"])
    play(state, "2S", "KS")
    assert state.places[1] == 0
    play(state, "pass", "pass", "pass")
    assert state.current_player() == 2 and state.top == -1


def test_fy_d7_pass_does_not_lock_out_unless_the_option_says_so() -> None:
    """FY-D7: a seat that passed may play later in the trick; with ``pass_locks_out`` it may not."""
    for locks, expect in ((False, 1), (True, 2)):
        state = start(4, {0: ["2S", "5S"], 1: ["3S", "6S"], 2: ["4S"], 3: ["9S"]}, pass_locks_out=locks)
        play(state, "2S", "pass", "4S", "pass", "pass")
        assert state.current_player() == expect


def test_fy_t15_titles() -> None:
    """FY-T15 (FY-R11)."""
    names = {n: [fyc.TITLES[fy.title_of(p, n)] for p in range(n)] for n in (3, 4, 5, 7)}
    assert names[3] == ["King", "Noble", "Peasant"]
    assert names[4] == ["King", "Prince", "Merchant", "Peasant"]
    assert names[5] == ["King", "Prince", "Noble", "Merchant", "Peasant"]
    assert names[7] == ["King", "Prince", "Noble", "Noble", "Noble", "Merchant", "Peasant"]


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_fy_t17_deal_sizes(players: int) -> None:
    """FY-T17 (FY-R1, FY-D19): the sizes of FY-R1, extra cards from the dealer's left, 78 in all."""
    expected = {3: [26] * 3, 4: [20, 20, 19, 19], 5: [16, 16, 16, 15, 15], 6: [13] * 6, 7: [12] + [11] * 6}
    for seed in range(3):
        state = motley.load_game("foolery", players=players).new_initial_state(seed=seed)
        assert isinstance(state, FooleryState)
        d = state.dealer
        assert [state.sizes[(d + 1 + i) % players] for i in range(players)] == expected[players]
        assert sum(state.sizes) == 78 and state.current_player() == d  # FY-R1: the dealer leads


def test_fy_t18_positional_points() -> None:
    """FY-T18 (FY-D21): N=5, finishing order P3, P1, P5, P2, P4 scores 5, 4, 3, 2, 1."""
    order = [2, 0, 4, 1, 3]
    places = [order.index(q) for q in range(5)]
    assert dict(zip(order, [fy.hand_points(places, "positional")[q] for q in order], strict=True)) == {
        2: 5, 0: 4, 4: 3, 1: 2, 3: 1}
    assert fy.hand_points(places, "president") == [1, -1, 2, -2, 0]


def test_single_hand_scores_by_place_and_returns_rank() -> None:
    """``hands=1`` plays one hand (FY-D27); scores are FY-D21 points, returns FY-D28."""
    state = play_out(motley.load_game("foolery(hands=1)").new_initial_state(seed=5), random.Random(5))
    assert isinstance(state, FooleryState)
    places = state.results[0]
    assert sorted(places) == list(range(5)) and state.scores() == [5 - p for p in places]
    assert state.returns() == [1.0 - 0.5 * p for p in places]


@pytest.mark.parametrize("players", [3, 7])
def test_full_match_to_the_end(players: int) -> None:
    """FY-D22: 2 x N hands, totals add up, the Merchant (Peasant with 3) deals, the King leads."""
    game = motley.load_game("foolery", players=players)
    state = game.new_initial_state(seed=11)
    assert isinstance(state, FooleryState)
    rng = random.Random(11)
    seen_hands = 1
    while not state.is_terminal():
        hand_number = state.hand_number
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        if state.hand_number != hand_number and not state.is_terminal():
            seen_hands += 1
            last = state.results[-1]
            dealer_place = players - 2 if players >= 4 else players - 1
            assert last[state.dealer] == dealer_place  # FY-R12, FY-D18
            assert state.titles == [fy.title_of(p, players) for p in last]
    assert seen_hands == 2 * players == len(state.results)
    totals = [sum(players - r[q] for r in state.results) for q in range(players)]
    assert state.scores() == totals
    assert max(state.returns()) == 1.0 and state.returns()[state.ranking()[0]] == 1.0


def test_target_score_ends_the_match() -> None:
    """FY-D22/FY-D27: ``match_end=target`` ends after the hand where a total reaches the target."""
    state = play_out(motley.load_game("foolery(players=4,match_end=target,target_score=20)").new_initial_state(
        seed=2), random.Random(2))
    assert max(state.scores()) >= 20
    assert isinstance(state, FooleryState)
    assert max(sum(4 - r[q] for r in state.results[:-1]) for q in range(4)) < 20


# ---- the exchange (FY-R13, FY-D15, FY-D17, FY-D26) ---------------------------------------------------------
def first_exchange(seed: int, players: int = 5, **params: Any) -> FooleryState:
    state = motley.load_game("foolery", players=players, **params).new_initial_state(seed=seed)
    assert isinstance(state, FooleryState)
    rng = random.Random(seed)
    while state.hand_number == 1:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def test_exchange_highest_cards_go_up_and_the_king_gives_any_but_the_fool() -> None:
    """FY-R13, FY-D15, FY-D17: the Peasant's two highest reach the King; the King gives two of his choice."""
    for seed in range(6):
        state = first_exchange(seed)
        king, peasant = state.titles.index(fyc.KING), state.titles.index(fyc.PEASANT)
        while state.phase == fyc.EXCHANGE and state.steps[state.step_index][3] == fyc.HIGHEST:
            legal = state.legal_actions()
            state.apply_action(legal[0])
        up = state.received[king]
        assert len(up) == 2 and state.gave[peasant] == up
        left = [fyc.EXCHANGE_VALUE[c] for c in fyc.cards_of(state.hands[peasant])]
        assert max(left) <= min(fyc.EXCHANGE_VALUE[c] for c in up)
        assert state.current_player() == king
        assert fym.GIVE_BASE + fyc.FOOL not in state.legal_actions()
        before = state.serialize()
        with pytest.raises(motley.IllegalMoveError, match="Fool can never be passed"):
            state.apply_action(state._parse_move("give FOOL"))
        assert state.serialize() == before
        while state.phase == fyc.EXCHANGE:
            state.apply_action(state.legal_actions()[-1])
        assert len(state.received[peasant]) == 2 and state.current_player() == king  # FY-R12
        assert state.observation(king)["exchange"]["received"] == [fyc.CODES[c] for c in up]
        others = [q for q in range(5) if q not in (king, peasant, state.partner_of(king))]
        for q in others:
            if state.partner_of(q) < 0:
                assert state.observation(q)["exchange"]["gave"] == []


def test_exchange_ties_are_the_givers_choice() -> None:
    """FY-D15, FY-D26: with equal highest ranks the Peasant (Merchant) chooses among the tied cards."""
    for seed in range(200):
        state = first_exchange(seed)
        if state.phase == fyc.EXCHANGE and state.steps[state.step_index][3] == fyc.HIGHEST:
            giver = state.steps[state.step_index][0]
            tied = state.highest_candidates(giver)
            assert len(tied) > 1 and state.current_player() == giver
            assert state.legal_actions() == [fym.GIVE_BASE + c for c in tied]
            return
    pytest.fail("no tie found in 200 seeds")


def test_three_players_exchange_and_dealer_options() -> None:
    """FY-R11/FY-R13 with 3 players: only King and Peasant exchange; FY-D18/FY-D29 choose the dealer."""
    state = first_exchange(4, players=3)
    assert [(g, r, k) for g, r, k, _ in state.steps] == [
        (state.titles.index(fyc.PEASANT), state.titles.index(fyc.KING), 2),
        (state.titles.index(fyc.KING), state.titles.index(fyc.PEASANT), 2)]
    assert state.dealer == state.titles.index(fyc.PEASANT)
    other = first_exchange(4, players=3, dealer_3p="previous_dealer_left")
    first = motley.load_game("foolery(players=3)").new_initial_state(seed=4)
    assert isinstance(first, FooleryState)
    assert other.dealer == (first.dealer + 1) % 3



def exchange_with(hands: dict[int, list[str]], titles: list[int], **params: Any) -> FooleryState:
    """A later hand that starts at the exchange (FY-R13): ``titles`` in force, ``hands[q]`` held by seat ``q``.

    Seats not in ``hands`` share the rest of the pack (deal sizes do not matter to the exchange).
    """
    n = len(titles)
    state = start(n, {}, **params)
    used = {c for cards in hands.values() for c in cards}
    rest = [fyc.CODE_INDEX[c] for c in ALL if c not in used]
    masks = [fyc.mask_of([fyc.CODE_INDEX[c] for c in hands[q]]) if q in hands else 0 for q in range(n)]
    others = [q for q in range(n) if q not in hands]
    for i, c in enumerate(rest if others else []):
        masks[others[i % len(others)]] |= 1 << c
    state.titles = list(titles)
    state.hand_number = 2
    state.start_hand(masks, titles.index(fyc.MERCHANT) if n >= 4 else titles.index(fyc.PEASANT), first=False)
    return state


# Seats 0..3 are King, Prince, Merchant, Peasant.
TITLES_4 = [fyc.KING, fyc.PRINCE, fyc.MERCHANT, fyc.PEASANT]


def test_fy_d17_every_upward_give_before_any_downward_give() -> None:
    """FY-D17: Peasant to King and Merchant to Prince both happen before the King and the Prince give."""
    state = exchange_with({0: ["2S", "3S"], 1: ["2H"], 2: ["KS", "KH", "5D"], 3: ["QS", "QH", "QD", "4C"]},
                          TITLES_4)
    assert [(g, r, k, rule) for g, r, k, rule in state.steps] == [
        (3, 0, 2, fyc.HIGHEST), (2, 1, 1, fyc.HIGHEST), (0, 3, 2, fyc.ANY), (1, 2, 1, fyc.ANY)]
    order = []
    while state.phase == fyc.EXCHANGE:
        order.append(state.current_player())
        state.apply_action(state.legal_actions()[0])
    # The Peasant chooses twice (three Queens tied), the Merchant once (two Kings tied), then the King
    # twice and the Prince once: no downward give before the last upward one.
    assert order == [3, 3, 2, 0, 0, 1]
    assert state.gave[3] == [fyc.CODE_INDEX["QS"], fyc.CODE_INDEX["QH"]]
    assert state.gave[2] == [fyc.CODE_INDEX["KS"]]


def test_fy_d17_the_king_may_give_back_cards_just_received() -> None:
    """FY-D17: the King's two cards may include those the Peasant just gave him; never the Fool."""
    state = exchange_with({0: ["2S", "FOOL"], 3: ["XX", "XXI", "4C"]}, TITLES_4)
    assert state.current_player() == 0 and state.received[0] == [fyc.CODE_INDEX["XXI"], fyc.CODE_INDEX["XX"]]
    legal = {state.action_to_string(a) for a in state.legal_actions()}
    assert {"give XX", "give XXI", "give 2S"} <= legal and "give FOOL" not in legal


def test_fy_d17_tied_highest_cards_that_exactly_fill_the_give_go_up_without_asking() -> None:
    """FY-D17 (FY-D15, FY-D26): the Peasant's two tied Kings are the two highest: no choice, no decision."""
    state = exchange_with({2: ["JC", "2C"], 3: ["KS", "KH", "QD", "4C"]}, TITLES_4)
    assert sorted(state.gave[3]) == sorted([fyc.CODE_INDEX["KS"], fyc.CODE_INDEX["KH"]])
    assert state.received[0] == state.gave[3] and state.gave[2] == [fyc.CODE_INDEX["JC"]]
    assert state.current_player() == 0 and state.history() == []  # nobody was asked: the King gives now


def test_fy_d17_exact_fill_after_an_untied_highest_card() -> None:
    """FY-D17: one trump goes up, then two tied Kings for one place: a choice; a lone King: none."""
    choice = exchange_with({3: ["V", "KS", "KH", "4C"]}, TITLES_4)
    assert choice.gave[3] == [fyc.CODE_INDEX["V"]] and choice.current_player() == 3
    assert choice.legal_actions() == [fym.GIVE_BASE + fyc.CODE_INDEX["KS"], fym.GIVE_BASE + fyc.CODE_INDEX["KH"]]
    none = exchange_with({3: ["V", "KS", "QH", "4C"]}, TITLES_4)
    assert none.gave[3] == [fyc.CODE_INDEX["V"], fyc.CODE_INDEX["KS"]] and none.current_player() != 3


def test_fy_d17_more_tied_cards_than_places_is_the_givers_choice() -> None:
    """FY-D17, FY-D26: three tied Kings for two places, two tied Kings for the Merchant's one: choices."""
    state = exchange_with({2: ["JC", "JD", "2C"], 3: ["KS", "KH", "KD", "4C"]}, TITLES_4)
    assert state.current_player() == 3 and len(state.legal_actions()) == 3
    state.apply_action(state.string_to_action("give KH"))
    assert state.current_player() == 3 and len(state.legal_actions()) == 2  # two tied for the last place
    state.apply_action(state.string_to_action("give KD"))
    assert state.current_player() == 2 and len(state.legal_actions()) == 2  # the Merchant's two Jacks


def test_fy_d17_exact_fill_under_suit_cards_only() -> None:
    """FY-D17, FY-D25: with ``exchange_order=suit_cards_only`` the two Kings are the highest, trumps aside."""
    state = exchange_with({3: ["XXI", "KS", "KH", "4C"]}, TITLES_4, exchange_order="suit_cards_only")
    assert sorted(state.gave[3]) == sorted([fyc.CODE_INDEX["KS"], fyc.CODE_INDEX["KH"]])
    assert state.current_player() != 3


def test_fy_d17_exchange_ties_ask_is_the_engine_before_the_ruling() -> None:
    """``exchange_ties=ask`` keeps the giver's choice among tied cards that exactly fill the give."""
    state = exchange_with({2: ["JC", "2C"], 3: ["KS", "KH", "QD", "4C"]}, TITLES_4, exchange_ties="ask")
    assert state.current_player() == 3
    assert state.legal_actions() == [fym.GIVE_BASE + fyc.CODE_INDEX["KS"], fym.GIVE_BASE + fyc.CODE_INDEX["KH"]]
    assert motley.load_game("foolery").params["exchange_ties"] == "auto"  # FY-D17 is the default


def _exact_fill_decision(state: FooleryState) -> bool:
    """Is the giver to move asked among tied highest cards that exactly fill its give (what FY-D17 removed)?"""
    if state.phase != fyc.EXCHANGE:
        return False
    giver, _, count, rule = state.steps[state.step_index]
    ties = state.highest_candidates(giver)
    return rule == fyc.HIGHEST and 2 <= len(ties) <= count - state.step_given


def test_records_made_before_fy_d17_still_replay() -> None:
    """A record holds every option of its game; one made before ``exchange_ties`` existed lacks it and replays
    with the engine it was played with (the spec's legacy options), while today's default refuses it."""
    game = motley.load_game("foolery(players=4,hands=2,exchange_ties=ask)")
    seed = 737  # random play from this seed meets an exact-fill tie in the second hand's exchange
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    asked = False
    while not state.is_terminal():
        assert isinstance(state, FooleryState)
        asked = asked or _exact_fill_decision(state)
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    assert asked
    old = json.loads(motley.records.dump(state))
    del old["params"]["exchange_ties"]  # as written before the option existed
    assert motley.records.load(json.dumps(old)).scores() == state.scores()
    today = dict(old, params={**old["params"], "exchange_ties": "auto"})
    with pytest.raises(motley.RecordError, match=r"move \d+ \('give"):
        motley.records.load(json.dumps(today))

# ---- bad input ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("move", "words"), [
    ("9S", "do not hold 9S"),
    ("2S 3S", "of one rank, or form a 5-card hand"),
    ("2S 2S", "named twice"),
    ("ZZ", "unknown card code"),
    ("", "empty move"),
    ("I II III IV", "at most 3 trumps"),
    ("2S I", "trumps cannot be part of normal plays"),
    ("2S 3S 4S 5S 7H", "not a straight, flush"),
    ("2S 3S 4S 5S 6S 7S", "at most 5 cards"),
    ("FOOL", "cannot be led"),
    ("pass", "cannot pass"),
    ("give 2S", "no card exchange now"),
    ("give 2S 3S", "one card at a time"),
])
def test_bad_moves_name_the_problem_and_change_nothing(move: str, words: str) -> None:
    """Text that names no move (unknown codes, a card twice, nothing, two gives) is invalid; a move the rules
    refuse here (its shape, its cards, the phase) is illegal."""
    state = start(4, {0: ["2S", "3S", "4S", "5S", "6S", "7H", "FOOL"], 1: ["9S"]})
    before = state.serialize()
    unreadable = words in ("named twice", "unknown card code", "empty move", "one card at a time")
    with pytest.raises(motley.InvalidMoveError if unreadable else motley.IllegalMoveError, match=words):
        state.apply_action(state.string_to_action(move))
    assert state.serialize() == before


def test_following_errors_name_the_problem() -> None:
    state = start(4, {0: ["9S", "9H"], 1: ["2H", "2D", "KS", "KH", "KD", "I", "II"]})
    play(state, "9S 9H")
    before = state.serialize()
    for move, words in [("2H 2D", "does not beat"), ("KS", "play 2 card"), ("KS KH KD", "play 2 card"),
                        ("I II", "exactly 1 trump")]:
        with pytest.raises(motley.IllegalMoveError, match=words):
            state.string_to_action(move)
        with pytest.raises(motley.IllegalMoveError, match=words):
            state.apply_action(state._parse_move(move))
    assert state.serialize() == before
    for bad in (-1, fym.NUM_ACTIONS, True, "1"):
        with pytest.raises(motley.InvalidMoveError):
            state.apply_action(bad)  # type: ignore[arg-type]
    assert state.serialize() == before


@pytest.mark.parametrize(("mutate", "words"), [
    (lambda d: d["hands"][0].pop(), "seat 0 has 18 cards"),
    (lambda d: d["hands"][0].__setitem__(0, "ZZ"), "unknown card code"),
    (lambda d: d["hands"][0].__setitem__(0, d["hands"][1][0]), "twice"),
    (lambda d: d.__setitem__("dealer", 4), "dealer must be a seat"),
    (lambda d: d.__setitem__("dealer", 1), "seat 1 has 20 cards; with dealer 1"),
    (lambda d: d["hands"].pop(), "exactly 4 hands"),
    (lambda d: d.pop("dealer"), "foolery deal is"),
])
def test_malformed_deals(mutate: Any, words: str) -> None:
    """FY-R1, FY-D19: wrong sizes for the dealer, unknown or duplicate codes, bad dealer, wrong shape."""
    d = deal(4, 0, {})
    mutate(d)
    with pytest.raises(motley.DealError, match=words):
        motley.load_game("foolery(players=4)").new_initial_state(seed=1, deal=d)


@pytest.mark.parametrize(("spec", "words"), [
    ("foolery(players=8)", "at most 7"), ("foolery(players=2)", "at least 3"),
    ("foolery(match_end=target)", "positive 'target_score'"), ("foolery(target_score=5)", "match_end=target"),
    ("foolery(scoring=golf)", "must be one of"),
])
def test_bad_options(spec: str, words: str) -> None:
    with pytest.raises(motley.OptionError, match=words):
        motley.load_game(spec)


def test_action_strings_round_trip_and_any_order_parses() -> None:
    state = start(4, {0: ["9S", "9H", "CS", "CH", "CD"]})
    for a in state.legal_actions():
        assert state.string_to_action(state.action_to_string(a)) == a
    assert state.string_to_action("9h 9s") == state.string_to_action("9S 9H")
    assert state.action_to_string(state.string_to_action("ch  cs,cd")) == "CS CH CD"
    play_random(state, random.Random(1), 5)


def test_terminal_view_draws_the_seat_view() -> None:
    """The view shows the hand grouped, the table and who made it, titles, the exchange and scores."""
    from motley.games.foolery import views as view

    state = first_exchange(1)
    while state.phase == fyc.EXCHANGE:
        state.apply_action(state.legal_actions()[0])
    king = state.titles.index(fyc.KING)
    play(state, state.action_to_string(state.legal_actions()[0]))
    obs = state.observation(king)
    text = view.render(obs, ["pass"])
    assert "King" in text and "Exchange with seat" in text and "Table:" in text and "[cyan]pass[/]" in text
    for code in obs["hand"]:
        assert code in text
    lines, cursor = view.log_lines(obs, None)
    assert lines[0].startswith("You play ") and cursor == (2, len(obs["log"]))
