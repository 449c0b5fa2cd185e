"""Each game's observation tensor layout (``GameSpec.tensor_layout``, declared in ``games/<game>/observe.py``) is the
one home of its tensor's pieces: the tables of docs/observation_tensors.md are rendered from it, its sizes sum to
``game.observation_tensor_shape()`` at every player count, and every piece's values lie in its declared range
at the states of random matches.

``python -m tests.envs.test_tensor_layout_docs`` rewrites the doc's tables from the layouts.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import motley
from motley.core.registry import game_spec
from motley.core.tensors import Piece, TensorLayout, markdown_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "observation_tensors.md"
#: Each game and the letter its table writes the player count with.
GAMES = {"fools_errand": "n", "fool": "n", "foolery": "N"}
#: A generated table: between ``<!-- tensor layout: GAME -->`` and ``<!-- end tensor layout -->``.
BLOCK = re.compile(r"(<!-- tensor layout: (\w+) -->\n)(.*?)(<!-- end tensor layout -->)", re.S)


def layouts(name: str) -> dict[int, TensorLayout]:
    """The game's layout at each of its player counts."""
    game_class = type(motley.load_game(name))
    layout_of = game_spec(name).tensor_layout
    assert layout_of is not None, f"{name} declares no tensor layout"
    return {n: layout_of(n) for n in range(game_class.min_players, game_class.max_players + 1)}


def render(text: str) -> str:
    """``text`` with every generated table replaced by the one its game's layouts give."""
    def table(match: re.Match[str]) -> str:
        name = match.group(2)
        return match.group(1) + markdown_table(layouts(name), GAMES[name]) + match.group(4)
    return BLOCK.sub(table, text)


def test_doc_tables_are_the_layouts() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert sorted(m.group(2) for m in BLOCK.finditer(text)) == sorted(GAMES)
    assert render(text) == text, "docs/observation_tensors.md is stale: python -m tests.envs.test_tensor_layout_docs"


@pytest.mark.parametrize("name", GAMES)
def test_pieces_sum_to_the_tensor_shape(name: str) -> None:
    for players, layout in layouts(name).items():
        game = motley.load_game(name, players=players)
        assert sum(piece.size for piece in layout) == layout.size
        assert game.observation_tensor_shape() == layout.shape == (layout.size,)


@pytest.mark.parametrize("name", GAMES)
def test_pieces_hold_their_ranges(name: str) -> None:
    rng = random.Random(name)
    for players, layout in layouts(name).items():
        game = motley.load_game(name, players=players)
        state = game.new_initial_state(seed=rng.randrange(10**6))
        for _ in range(400):
            for seat in range(players):
                views = layout.views(state.observation_tensor(seat))
                for piece in layout:
                    assert piece.holds(views[piece.name]), (players, seat, piece.name, views[piece.name])
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


def test_layout_offsets_views_and_table() -> None:
    layout = TensorLayout([Piece("a", (2,), "first", "[0, 1]"), Piece("b", (3, 2), "second", per_seat=True)])
    assert (layout.size, layout.offsets("a", "b"), layout.slice("b")) == (8, (0, 2), slice(2, 8))
    views = layout.views(np.arange(8, dtype=np.float32))
    assert views["b"].shape == (3, 2) and views["b"][1, 0] == 4.0
    with pytest.raises(KeyError):
        layout.offset("c")
    with pytest.raises(ValueError):
        TensorLayout([Piece("a", (1,), "x"), Piece("a", (1,), "y")])
    per_count = {n: TensorLayout([Piece("h", (5,), "hand"), Piece("s", (n, 4), "seats", per_seat=True)])
                 for n in (3, 4, 5)}
    assert markdown_table(per_count, "N").splitlines()[2:] == [
        "| 0 | 5 | `h`: hand | {0, 1} |", "| 5 | N × 4 | `s`: seats | {0, 1} |", "",
        "Total: 5 + 4N floats (N = 3: 17, 4: 21, 5: 25)."]


if __name__ == "__main__":
    DOC.write_text(render(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    sys.exit(0)
