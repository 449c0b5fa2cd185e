"""The SVG drawing module (issue item 8): cards and tables from observations, and ``State._repr_svg_``."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

import motley
from motley.drawing import card_codes, card_face, move_svg, render, render_state
from motley.server.play.privacy import spectator_view

SVG = "{http://www.w3.org/2000/svg}"
PLAYERS = {"fools_errand": 2, "fool": 5, "foolery": 4}


def cards_drawn(svg: str) -> list[str]:
    return re.findall(r'data-card="([^"]+)"', svg)


@pytest.mark.parametrize("game", ["fools_errand", "fool", "foolery"])
def test_every_card_face_is_well_formed_svg(game: str) -> None:
    codes = card_codes(game)
    assert codes
    for code in codes:
        svg = f'<svg xmlns="http://www.w3.org/2000/svg">{card_face(code, game, 0, 0)}</svg>'
        root = ET.fromstring(svg)
        assert cards_drawn(svg) == [code]
        assert root.find(f"{SVG}g") is not None


def test_card_code_sets_match_the_rules_notation() -> None:
    assert len(card_codes("fools_errand")) == 53  # 52 + JK
    assert len(card_codes("fool")) == 26 + 22 + 20 + 14 + 1  # G2-27, R2-23, Y2-21, B2-15, W1
    assert len(card_codes("foolery")) == 78
    assert {"7S", "10H", "QD", "AC", "JK"} <= card_codes("fools_errand")
    assert {"G27", "R5", "B2", "W1"} <= card_codes("fool")
    assert {"7S", "CH", "10D", "KC", "VIII", "XXI", "FOOL"} <= card_codes("foolery")


@pytest.mark.parametrize("game", ["fools_errand", "fool", "foolery"])
def test_tables_draw_every_seat_and_the_spectator_over_random_games(game: str) -> None:
    if game not in motley.registered_games():
        pytest.skip(f"{game} is not registered yet")
    rng = random.Random(5)
    g = motley.load_game(game, players=PLAYERS[game])
    for seed in range(3):
        state = g.new_initial_state(seed=seed)
        steps = 0
        while True:
            if steps % 7 == 0 or state.is_terminal():
                for seat in range(g.num_players):
                    obs = state.observation(seat)
                    svg = render(obs)
                    ET.fromstring(svg)  # well-formed
                    drawn = cards_drawn(svg)
                    for code in obs.get("hand", []):  # the seat's own hand is on the table
                        assert code in drawn
                public = render(spectator_view(state))
                ET.fromstring(public)
            if state.is_terminal() or steps > 400:
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1


def test_move_buttons_draw_cards_and_words() -> None:
    assert move_svg("fools_errand", "play joker") is None
    two = move_svg("foolery", "9S 9H")
    assert two is not None and cards_drawn(two) == ["9S", "9H"]
    give = move_svg("foolery", "give 7S")
    assert give is not None and cards_drawn(give) == ["7S"] and "give" in give
    ET.fromstring(two)


def test_state_shows_itself_in_a_notebook() -> None:
    state = motley.load_game("fools_errand").new_initial_state(seed=1)
    svg = state._repr_svg_()
    assert svg is not None and svg.startswith("<svg") and svg == render_state(state)
    ET.fromstring(svg)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    final = state._repr_svg_()
    assert final is not None and "Game over" in final
