"""Foolery: the fast legal-move generator against a slow reference that tries every subset of the hand.

The reference below is written from the rules text alone (FY-R3..R9, FY-R14, FY-D1..D10, FY-D23): it reads
card codes, classifies each subset of 1 to 5 cards of the hand, and keeps those the rules accept on the
current table. It shares no code with the engine's generator or its checker.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

import motley
from motley.games.foolery import cards as fyc
from motley.games.foolery import game as fy
from motley.games.foolery import moves as fym

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"]
ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI",
         "XVII", "XVIII", "XIX", "XX", "XXI"]

Shape = tuple[str, int, int, int]  # (kind, cards, strength, trump to beat)


def parse(code: str) -> tuple[str, int, str]:
    """("suit", rank value 1..14, suit) / ("trump", number, "") / ("fool", 0, "")."""
    if code == "FOOL":
        return ("fool", 0, "")
    if code in ROMAN:
        return ("trump", ROMAN.index(code) + 1, "")
    return ("suit", RANKS.index(code[:-1]) + 1, code[-1])


def classify(codes: tuple[str, ...], opts: dict[str, Any]) -> Shape | None:
    cards = [parse(c) for c in codes]
    n = len(cards)
    fools = [c for c in cards if c[0] == "fool"]
    trumps = sorted(c[1] for c in cards if c[0] == "trump")
    suits = [c for c in cards if c[0] == "suit"]
    if fools:
        return ("fool", 1, 0, 0) if n == 1 else None
    if not suits:
        return ("trumps", n, max(trumps), max(trumps)) if n <= 3 else None
    values = sorted(c[1] for c in suits)
    if n <= 4:
        return ("set", n, values[0], 0) if not trumps and len(set(values)) == 1 else None
    if n != 5:
        return None
    if trumps:
        if len(trumps) == 1 and len(set(values)) == 1 and (
                opts["five_kind_trump"] == "any" or trumps[0] == values[0]):
            return ("five", 5, 4 * 100 + values[0], trumps[0])
        return None
    flush = len({c[2] for c in suits}) == 1
    straight_top = 0
    if len(set(values)) == 5 and values[4] - values[0] == 4:
        straight_top = values[4]
    if opts["ace_high_straight"] and values == [1, 11, 12, 13, 14]:
        straight_top = 15
    if straight_top and flush:
        return ("five", 5, 3 * 100 + straight_top, 0)
    counts = sorted((values.count(v), v) for v in set(values))
    if [c for c, _ in counts] == [2, 3]:
        return ("five", 5, 2 * 100 + counts[1][1], 0)
    if flush:
        return ("five", 5, 1 * 100 + values[4], 0)
    if straight_top:
        return ("five", 5, straight_top, 0)
    return None


def accepts(play: Shape, table: Shape | None, hand: list[str], opts: dict[str, Any]) -> bool:
    kind, n, strength, trump = play
    if table is None:
        if kind == "fool":
            return False
        if kind == "trumps":
            return not any(parse(c)[0] == "suit" for c in hand)
        return True
    if kind == "fool":
        return True
    t_kind, t_n, t_strength, t_trump = table
    if t_kind == "trumps":
        if kind != "trumps":
            return False
        need = t_n if opts["trump_variation"] else {3: 2, 2: 1, 1: 1}[t_n]
        return n == need and trump > t_trump
    if kind == "trumps":
        need = {1: 1, 2: 1, 3: 2, 4: 2, 5: 3}[t_n]
        return n == need and trump > t_trump
    return n == t_n and strength >= t_strength


def reference(hand: list[str], table: list[str] | None, opts: dict[str, Any]) -> set[frozenset[str]]:
    t_shape = None if table is None else classify(tuple(table), opts)
    assert table is None or t_shape is not None
    out: set[frozenset[str]] = set()
    for k in range(1, 6):
        for combo in itertools.combinations(hand, k):
            shape = classify(combo, opts)
            if shape is not None and accepts(shape, t_shape, hand, opts):
                out.add(frozenset(combo))
    if table is not None:
        out.add(frozenset(["pass"]))
    return out


OPTION_SETS = [
    {},
    {"ace_high_straight": True, "five_kind_trump": "any"},
    {"trump_variation": True, "pass_locks_out": True, "skip_rule": False},
]


def positions(players: int, params: dict[str, Any], seed: int, count: int) -> list[fy.FooleryState]:
    """Reachable play positions (random play), every few moves, across hands."""
    game = motley.load_game("foolery", players=players, hands=2, **params)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    out: list[fy.FooleryState] = []
    step = 0
    while not state.is_terminal() and len(out) < count:
        legal = state.legal_actions()
        assert isinstance(state, fy.FooleryState)
        if state.phase == fyc.PLAY and step % 5 == 0:
            out.append(state.clone())
        # favour plays over passes so tables of every kind come up
        plays = [a for a in legal if a != fym.PASS]
        state.apply_action(rng.choice(plays if plays and rng.random() < 0.7 else legal))
        step += 1
    return out


@pytest.mark.parametrize("params", OPTION_SETS)
@pytest.mark.parametrize("players", [4, 5, 7])
def test_generator_matches_subset_reference(players: int, params: dict[str, Any]) -> None:
    opts = {"ace_high_straight": False, "five_kind_trump": "matching", "trump_variation": False, **params}
    checked = 0
    kinds: set[str] = set()
    for seed in range(3):
        for state in positions(players, params, 100 * players + seed, 12):
            obs = state.observation(state.current_player())
            table = None if obs["table"] is None else obs["table"]["cards"].split()
            expect = reference(obs["hand"], table, opts)
            legal = state.legal_actions()
            got = [frozenset(state.action_to_string(a).split()) for a in legal]
            assert len(got) == len(set(got)) == len(expect)
            assert set(got) == expect, (obs["hand"], table)
            top = obs["table"]
            kinds.add("lead" if top is None else top["kind"])
            checked += 1
    assert checked >= 30
    assert "lead" in kinds and len(kinds) >= (5 if players == 4 else 3), kinds


def test_generator_matches_the_rule_checker_everywhere() -> None:
    """The generator and ``problem()`` (the per-action rule check) agree on every action id."""
    cases: list[tuple[int, dict[str, Any]]] = [(3, {}), (6, {"ace_high_straight": True, "trump_variation": True}),
             (5, {"five_kind_trump": "any", "exchange_order": "suit_cards_only"})]
    for players, params in cases:
        game = motley.load_game("foolery", players=players, hands=2, **params)
        state = game.new_initial_state(seed=players)
        assert isinstance(state, fy.FooleryState)
        rng = random.Random(players)
        step = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if step % 23 == 0 or state.phase == fyc.EXCHANGE:
                assert legal == [a for a in range(fym.NUM_ACTIONS) if state.problem(a) is None]
            state.apply_action(rng.choice(legal))
            step += 1


def test_action_table_is_complete_and_canonical() -> None:
    """Every action string parses back to its id; sizes of the table blocks (module docstring)."""
    state = motley.load_game("foolery").new_initial_state(seed=0)
    assert state.game.num_distinct_actions() == fym.NUM_ACTIONS
    for a in range(fym.NUM_ACTIONS):
        text = state.action_to_string(a)
        assert state._parse_move(text) == a
        if not text.startswith("give"):
            assert state._parse_move(" ".join(reversed(text.split())).lower()) == a
    assert fym.TRUMP_BASE == 80 + 14 * 15
    assert fym.FIVE_BASE - fym.TRUMP_BASE == 21 + 210 + 1330
    assert fym.NUM_ACTIONS - fym.FIVE_KIND_BASE == 14 * 21
