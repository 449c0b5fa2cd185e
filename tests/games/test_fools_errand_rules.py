"""The Fool's Errand: every worked case FE-T* and the rulings FE-D*, with stacked decks."""

from __future__ import annotations

import random
from typing import Any

import pytest

import motley
from motley.games.fools_errand import cards as fec
from motley.games.fools_errand import game as fe
from tests.support import play_out

ALL = [r + s for s in "CDHS" for r in fec.RANKS]


def stacked(a_top: list[str], b_top: list[str]) -> dict[str, Any]:
    """A deal whose decks start with the given cards (top first, "JK" allowed); the rest filled in.

    A Joker not placed in the top cards goes to the bottom of its deck.
    """
    rest = [c for c in ALL if c not in a_top + b_top]
    n_a = 26 - sum(c != "JK" for c in a_top)
    a, b = a_top + rest[:n_a], b_top + rest[n_a:]
    return {"decks": [a if "JK" in a else [*a, "JK"], b if "JK" in b else [*b, "JK"]]}


def events(state: motley.State, n: int | None = None) -> list[tuple[Any, ...]]:
    log = state.observation(0)["log"]
    return [(e["event"], e["seat"], e["card"], e["value"], e["scale"]) for e in log[:n]]


def start(a_top: list[str], b_top: list[str], spec: str = "fools_errand") -> motley.State:
    return motley.load_game(spec).new_initial_state(seed=1, deal=stacked(a_top, b_top))


def test_fe_t1_main_line_aces_count_11_or_1() -> None:
    """FE-T1 (FE-R3..R6, FE-R9): opening +3, B first; A's Ace counts 11 at -13, B's Ace counts 1."""
    state = start(["7S", "2C", "AH", "3D"], ["4C", "QD", "8H", "AC"])
    assert events(state, 8) == [
        ("reveal", 0, "7S", 7, 3),
        ("reveal", 1, "4C", 4, -3),
        ("play", 1, "QD", 10, 7),    # s = -7, B announces 7
        ("play", 0, "2C", 2, -5),    # A announces -5
        ("play", 1, "8H", 8, 13),    # s = -13
        ("play", 0, "AH", 11, -2),   # |s| >= 11 and A trails: Ace = 11
        ("play", 1, "AC", 1, 3),     # scale tips toward B: Ace = 1
        ("play", 0, "3D", 3, 0),     # FE-T8 follow-up: A brings the scale to 0
    ]
    # FE-T8: the Ace played as 11 counts 1 in the pile: 7+4+10+2+8+1+1+3 = 36.
    assert events(state)[8] == ("scoop", 0, None, 8, 36)


def test_fe_t2_rewind_line_scoop_and_next_player() -> None:
    """FE-T2 (FE-R7, FE-D2): A's 9 brings s to 0, A scoops 8 cards worth 38, B plays next."""
    state = start(["7S", "2C", "AH", "9D"], ["4C", "QD", "2H", "3S"])
    ev = events(state, 11)
    assert ev[:9] == [
        ("reveal", 0, "7S", 7, 3),
        ("reveal", 1, "4C", 4, -3),
        ("play", 1, "QD", 10, 7),
        ("play", 0, "2C", 2, -5),
        ("play", 1, "2H", 2, 7),
        ("play", 0, "AH", 1, -6),    # |s| = 7 < 11: Ace = 1
        ("play", 1, "3S", 3, 9),
        ("play", 0, "9D", 9, 0),
        ("scoop", 0, None, 8, 38),
    ]
    assert ev[9][0] == "play" and ev[9][1] == 1  # FE-D2: strict alternation, B plays onto an empty scale
    assert ev[9][4] == fec.PLAY_VALUE[fec.CODE_INDEX[str(ev[9][2])]]
    pile = state.observation(0)["piles"][0]
    assert sorted(pile[:8]) == sorted(["7S", "4C", "QD", "2C", "2H", "AH", "3S", "9D"])


def test_fe_t4_joker_play_scoops_and_returns_both_jokers() -> None:
    """FE-T4 (FE-R8, FE-D4, FE-D5): at s = -9 A plays the drawn Joker; B's set-aside Joker returns too."""
    state = start(["AC", "JK"], ["JK", "KD"])
    obs = state.observation(0)
    assert obs["scale"] == -9 and obs["current_player"] == 0
    assert obs["jokers"] == ["drawn", "set_aside"]  # B's Joker was set aside at the reveal (FE-D3)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["play joker", "keep joker"]
    n = len(obs["log"])
    state.apply_action(state.string_to_action("play joker"))
    after = events(state)[n:n + 4]
    assert after == [
        ("play", 0, "JK", 0, 0),
        ("scoop", 0, None, 2, 11),
        ("joker_back", 0, "JK", 0, 0),
        ("joker_back", 1, "JK", 0, 0),
    ]
    assert state.observation(0)["piles"][0][:2] == ["AC", "KD"]


def test_fe_t5_keep_joker_then_play_it_later() -> None:
    """FE-T5 (FE-R8): keep the Joker face up, play the next card at once; later play the kept Joker."""
    state = start(["2C", "JK", "9H"], ["5D", "4S"])
    assert state.observation(0)["scale"] == -3 and state.current_player() == 0
    n = len(state.observation(0)["log"])
    state.apply_action(fec.KEEP_JOKER)
    assert events(state)[n:n + 3] == [
        ("set_aside", 0, "JK", 0, 0),
        ("play", 0, "9H", 9, 6),
        ("play", 1, "4S", 4, -2),
    ]
    obs = state.observation(0)
    assert obs["jokers"][0] == "set_aside" and obs["current_player"] == 0
    assert state.legal_actions() == [fec.DRAW, fec.PLAY_JOKER]
    n = len(obs["log"])
    state.apply_action(state.string_to_action("PLAY JOKER"))
    assert events(state)[n:n + 3] == [("play", 0, "JK", 0, 0), ("scoop", 0, None, 4, 20), ("joker_back", 0, "JK", 0, 0)]


def position(a_deck: list[str], b_deck: list[str], spec: str = "fools_errand", scale: int = 0,
             to_move: int = 0, jokers: tuple[int, int] = (fec.IN_DECK, fec.IN_DECK),
             table: list[tuple[int, str]] | None = None) -> fe.FoolsErrandState:
    """A constructed position (decks top first), for rulings that arise only late in a game."""
    game = motley.load_game(spec)
    assert isinstance(game, fe.FoolsErrand)
    state = fe.FoolsErrandState(game, None)
    state.decks = [[fec.JOKER_A + q if c == "JK" else fec.CODE_INDEX[c] for c in reversed(d)]
                   for q, d in enumerate((a_deck, b_deck))]
    state.scale, state.to_move, state.joker = scale, to_move, list(jokers)
    state.table = [fec.CODE_INDEX[c] | q << 6 for q, c in (table or [])]
    return state


def test_fe_t7_only_the_joker_left_must_be_played() -> None:
    """FE-T7 (FE-D6, FE-D7): A's deck is [Joker]; A plays it every turn until B's deck is Joker-only."""
    state = position(["JK"], ["3C", "5D", "8H", "JK"], scale=4, table=[(0, "4S")])
    state.run()
    plays = [(e[1], e[2]) for e in events(state) if e[0] == "play"]
    assert plays == [(0, "JK"), (1, "3C"), (0, "JK"), (1, "5D"), (0, "JK"), (1, "8H")]
    assert state.is_terminal()
    assert state.scores() == [4 + 3 + 5, 0]  # each Joker play scooped what B had just played


def test_fe_d6_set_aside_joker_with_empty_deck_must_be_played() -> None:
    """FE-D6: deck empty, Joker set aside -> the Joker is played without a decision."""
    state = position([], ["3C", "JK"], scale=-2, jokers=(fec.SET_ASIDE, fec.IN_DECK), table=[(1, "2D")])
    state.run()
    assert events(state)[:2] == [("play", 0, "JK", 0, 0), ("scoop", 0, None, 1, 2)]


def test_fe_t8_pile_points() -> None:
    """FE-T8 (FE-R10): {Ace, King, 7} = 18."""
    state = position([], [])
    state.piles = [[fec.CODE_INDEX["AS"], fec.CODE_INDEX["KH"], fec.CODE_INDEX["7C"]], []]
    assert state.scores() == [18, 0]


def test_fe_t9_opening_tie_reveals_again_cards_stay() -> None:
    """FE-T9 (FE-D1 reveal_again): 5 v 5 -> s = 0, reveal again; the four cards stay and are scooped later."""
    state = start(["5S", "2C", "7D"], ["5H", "9C"])
    assert events(state, 6) == [
        ("reveal", 0, "5S", 5, 0), ("reveal", 1, "5H", 5, 0),
        ("reveal", 0, "2C", 2, -7), ("reveal", 1, "9C", 9, 7),
        ("play", 0, "7D", 7, 0), ("scoop", 0, None, 5, 28),
    ]


def test_fe_d1_leave_at_zero_a_first() -> None:
    state = start(["5S", "2C"], ["5H", "9C"], spec="fools_errand(opening_tie=leave_at_zero_A_first)")
    assert events(state, 4) == [
        ("reveal", 0, "5S", 5, 0), ("reveal", 1, "5H", 5, 0), ("play", 0, "2C", 2, 2), ("play", 1, "9C", 9, 7),
    ]


def test_fe_d2_simultaneous_reveal_after_scoop() -> None:
    state = start(["6S", "3C", "KD"], ["2H", "9C", "8C"], spec="fools_errand(after_scoop=simultaneous_reveal)")
    assert events(state, 7) == [
        ("reveal", 0, "6S", 6, 4), ("reveal", 1, "2H", 2, -4),
        ("play", 1, "9C", 9, 5), ("play", 0, "3C", 3, -2),
        ("play", 1, "8C", 8, 10), ("play", 0, "KD", 10, 0), ("scoop", 0, None, 6, 38),
    ]
    nxt = events(state, 9)[7:]
    assert [e[0] for e in nxt] == ["reveal", "reveal"]  # a new simultaneous reveal, not B alone


def test_fe_d3_reveal_joker_play_option() -> None:
    """FE-D3 "play": a Joker at a reveal resolves both cards, then s = 0 and its player scoops."""
    state = start(["JK", "4C"], ["9D"], spec="fools_errand(reveal_joker=play)")
    ev = events(state, 5)
    assert ev[0] == ("reveal", 0, "JK", 0, -9)
    assert ev[1] == ("reveal", 1, "9D", 9, 9)
    assert ev[2] == ("scoop", 0, None, 1, 9)
    assert ev[3] == ("joker_back", 0, "JK", 0, 0)
    assert ev[4][:2] == ("play", 1)  # FE-D2 alternate: the scooper's opponent plays next


def test_fe_d7_either_deck_ends_early_and_d8_to_player_ahead() -> None:
    state = position(["3C", "JK"], ["5D", "8H", "2S", "JK"], spec=(
        "fools_errand(end_when=either_deck_joker_only,unclaimed_at_end=to_player_ahead)"), scale=1, to_move=1,
        table=[(0, "4S")])
    state.run()
    assert state.is_terminal()
    plays = [(e[1], e[2]) for e in events(state) if e[0] == "play"]
    assert plays == [(1, "5D"), (0, "3C")]  # A's deck is Joker-only: the game ends at once
    # s = 1 - 5 + 3 = -1: B is ahead and takes the cards in play (FE-D8 option)
    assert sorted(state.observation(1)["piles"][1]) == sorted(["4S", "5D", "3C"])


def test_fe_d8_default_discards_cards_in_play() -> None:
    state = position(["3C", "JK"], ["5D", "JK"], scale=1, to_move=1, table=[(0, "4S")])
    state.run()
    assert state.is_terminal()
    assert sorted(state.observation(0)["unclaimed"]) == sorted(["4S", "5D", "3C"])
    assert state.scores() == [0, 0] and state.returns() == [0.0, 0.0]  # FE-D9: equal points draw


def test_fe_d10_joker_onto_empty_scale() -> None:
    state = position(["3C", "JK"], ["5D", "JK"], jokers=(fec.SET_ASIDE, fec.IN_DECK))
    state.decks[0] = [fec.CODE_INDEX["3C"]]
    state.run()
    assert state.legal_actions() == [fec.DRAW, fec.PLAY_JOKER]
    state.apply_action(fec.PLAY_JOKER)
    assert events(state, 3) == [("play", 0, "JK", 0, 0), ("scoop", 0, None, 0, 0), ("joker_back", 0, "JK", 0, 0)]


@pytest.mark.parametrize("seed", range(40))
def test_fe_t10_conservation_default_options(seed: int) -> None:
    """FE-T10: after any complete game, both piles + unclaimed cards = 340 points."""
    state = play_out(motley.load_game("fools_errand").new_initial_state(seed=seed), random.Random(seed))
    obs = state.observation(0)
    unclaimed = sum(fec.POINTS[fec.CODE_INDEX[c]] for c in obs["unclaimed"])
    assert sum(state.scores()) + unclaimed == fec.TOTAL_POINTS == 340
    assert obs["deck_sizes"][0] + obs["deck_sizes"][1] == sum(p == "deck" for p in obs["jokers"])


def test_result_follows_points() -> None:
    for seed in range(30):
        state = play_out(motley.load_game("fools_errand").new_initial_state(seed=seed), random.Random(seed))
        a, b = state.scores()
        assert state.returns() == ([1.0, -1.0] if a > b else [-1.0, 1.0] if b > a else [0.0, 0.0])
        assert state.current_player() == motley.TERMINAL and state.legal_actions() == []


# ---- FE-D12 .. FE-D15 ---------------------------------------------------------------------------------------
REVEAL = "fools_errand(after_scoop=simultaneous_reveal)"


def test_fe_d12_a_joker_only_deck_reveals_nothing_the_other_card_sets_the_scale() -> None:
    """FE-D12: at a reveal A's deck holds only its Joker: it is set aside (FE-D3), B's card alone sets s."""
    state = position(["9S", "JK"], ["2C", "5D", "7H", "JK"], spec=REVEAL, scale=-9, table=[(1, "9H")])
    state.run()
    assert events(state, 7) == [
        ("play", 0, "9S", 9, 0), ("scoop", 0, None, 2, 18),
        ("set_aside", 0, "JK", 0, 0),            # A reveals nothing
        ("reveal", 1, "2C", 2, 2),               # s = -2 from B's card alone
        ("play", 0, "JK", 0, 0),                 # A trails with an empty deck: the set-aside Joker (FE-D6)
        ("scoop", 0, None, 1, 2), ("joker_back", 0, "JK", 0, 0),
    ]
    assert state.is_terminal()  # B's 7H was the last card besides a Joker (FE-D7)
    assert events(state)[-3:] == [("set_aside", 0, "JK", 0, 0), ("reveal", 1, "7H", 7, 7), ("end", -1, None, 0, 0)]


def test_fe_d12_a_joker_only_deck_under_reveal_joker_play() -> None:
    """FE-D12 with ``reveal_joker=play``: the Joker drawn at the reveal is played; B's card alone is scooped."""
    state = position(["9S", "JK"], ["2C", "5D", "JK"], spec=REVEAL[:-1] + ",reveal_joker=play)", scale=-9,
                     table=[(1, "9H")])
    state.run()
    assert events(state, 6) == [
        ("play", 0, "9S", 9, 0), ("scoop", 0, None, 2, 18),
        ("reveal", 0, "JK", 0, -2), ("reveal", 1, "2C", 2, 2),
        ("scoop", 0, None, 1, 2), ("joker_back", 0, "JK", 0, 0),
    ]
    assert state.is_terminal() and state.scores() == [18 + 2 + 5, 0]


def test_fe_d12_an_empty_deck_with_the_joker_set_aside_reveals_nothing() -> None:
    """FE-D12: A's deck is empty and A's Joker lies set aside: A reveals nothing, B's card alone counts."""
    state = position([], ["4S", "2C", "5D", "JK"], spec=REVEAL, scale=4, to_move=1,
                     jokers=(fec.SET_ASIDE, fec.IN_DECK), table=[(0, "4H")])
    state.run()
    assert events(state, 4) == [
        ("play", 1, "4S", 4, 0), ("scoop", 1, None, 2, 8),
        ("reveal", 1, "2C", 2, 2),               # no "reveal" or "set_aside" event for A
        ("play", 0, "JK", 0, 0),                 # A trails: the set-aside Joker is played (FE-D6)
    ]


def test_fe_d12_no_reveal_when_neither_seat_has_a_card_to_show() -> None:
    """FE-D12, FE-D7: when neither deck holds a non-Joker card the game has already ended; nobody reveals."""
    state = position(["9S", "JK"], ["JK"], spec=REVEAL, scale=-9, table=[(1, "9H")])
    state.run()
    assert events(state) == [("play", 0, "9S", 9, 0), ("scoop", 0, None, 2, 18), ("end", -1, None, 0, 0)]
    assert state.observation(0)["jokers"] == ["deck", "deck"]


def test_fe_d13_a_returned_joker_is_inserted_at_a_uniform_position_other_cards_keep_their_order() -> None:
    """FE-D13 (FE-R8, FE-D4): the Joker goes to a uniformly random place; the rest of the deck is untouched."""
    a_deck = ["2C", "3C", "4C", "5C", "6C"]
    counts = [0] * (len(a_deck) + 1)
    for seed in range(1200):
        # B's next draw is B's Joker, a decision: A's deck is read right after its Joker went back.
        state = position(a_deck, ["JK", "8D"], scale=-9, jokers=(fec.SET_ASIDE, fec.IN_DECK), table=[(1, "9H")])
        state.use_seed(seed)
        state.run()
        assert state.legal_actions() == [fec.DRAW, fec.PLAY_JOKER]
        state.apply_action(fec.PLAY_JOKER)
        assert events(state) == [("play", 0, "JK", 0, 0), ("scoop", 0, None, 1, 9), ("joker_back", 0, "JK", 0, 0)]
        deck = state.decks[0]  # top card last
        assert [c for c in deck if c != fec.JOKER_A] == [fec.CODE_INDEX[c] for c in reversed(a_deck)]
        counts[deck.index(fec.JOKER_A)] += 1
    assert min(counts) > 150 and max(counts) < 250  # each of the 6 places about 200 times


def test_fe_d14_opening_tie_governs_a_reveal_after_a_scoop() -> None:
    """FE-D14, FE-D1: a post-scoop reveal at 0 is revealed again (the cards stay), like the opening."""
    state = position(["9S", "5C", "3D", "4S", "JK"], ["5H", "8D", "6C", "JK"], spec=REVEAL, scale=-9,
                     table=[(1, "9H")])
    state.run()
    assert events(state, 7) == [
        ("play", 0, "9S", 9, 0), ("scoop", 0, None, 2, 18),
        ("reveal", 0, "5C", 5, 0), ("reveal", 1, "5H", 5, 0),    # s = 0: nobody scoops, reveal again
        ("reveal", 0, "3D", 3, -5), ("reveal", 1, "8D", 8, 5),
        ("play", 0, "4S", 4, -1),                                 # A trails and plays first (FE-R6)
    ]
    assert events(state)[7:] == [("play", 1, "6C", 6, 7), ("end", -1, None, 0, 0)]
    # The tied cards stayed in play with the rest; the decks ran out, so all are discarded (FE-D8).
    assert state.observation(0)["unclaimed"] == ["5C", "5H", "3D", "8D", "4S", "6C"]


def test_fe_d14_leave_at_zero_after_a_scoop_too() -> None:
    """FE-D14, FE-D1 ``leave_at_zero_A_first``: a post-scoop reveal at 0 stays at 0 and A plays first."""
    state = position(["9S", "5C", "3D", "JK"], ["5H", "8D", "6C", "JK"],
                     spec=REVEAL[:-1] + ",opening_tie=leave_at_zero_A_first)", scale=-9, table=[(1, "9H")])
    state.run()
    assert events(state, 6) == [
        ("play", 0, "9S", 9, 0), ("scoop", 0, None, 2, 18),
        ("reveal", 0, "5C", 5, 0), ("reveal", 1, "5H", 5, 0),
        ("play", 0, "3D", 3, 3), ("play", 1, "8D", 8, 5),
    ]


def test_fe_d14_a_joker_onto_an_empty_table_is_a_scoop_and_a_reveal_follows() -> None:
    """FE-D14, FE-D10: under ``simultaneous_reveal`` a Joker played onto an empty table starts a new reveal."""
    state = position(["3C", "7S", "JK"], ["5D", "2H", "JK"], spec=REVEAL, jokers=(fec.SET_ASIDE, fec.IN_DECK))
    state.decks[0] = [fec.CODE_INDEX["7S"], fec.CODE_INDEX["3C"]]
    state.run()
    assert state.legal_actions() == [fec.DRAW, fec.PLAY_JOKER]
    state.apply_action(fec.PLAY_JOKER)
    assert events(state, 3) == [("play", 0, "JK", 0, 0), ("scoop", 0, None, 0, 0), ("joker_back", 0, "JK", 0, 0)]
    assert [e[0] for e in events(state, 5)[3:]] == ["reveal", "reveal"]


def test_fe_d15_to_player_ahead_at_zero_discards_the_cards_in_play() -> None:
    """FE-D15, FE-D8 ``to_player_ahead``: the game ends with s = 0 and cards in play: nobody is ahead."""
    state = position(["9S", "5C", "JK"], ["5H", "JK"], spec=REVEAL[:-1] + ",unclaimed_at_end=to_player_ahead)",
                     scale=-9, table=[(1, "9H")])
    state.run()
    assert state.is_terminal()
    assert events(state)[-3:] == [("reveal", 0, "5C", 5, 0), ("reveal", 1, "5H", 5, 0), ("end", -1, None, 0, 0)]
    obs = state.observation(0)
    assert obs["scale"] == 0 and sorted(obs["unclaimed"]) == ["5C", "5H"]
    assert state.scores() == [18, 0]
