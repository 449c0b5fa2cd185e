"""Tournaments rated with OpenSkill: tables saved, extended, and the same as one longer run."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import motley
from motley.cli.main import app
from motley.eval.ratings import RatingTable, lineup_for, rank_of, tournament

runner = CliRunner()
BOTS = "random,heuristic,ismcts(simulations=4)"


def test_tournament_saves_ratings_and_a_second_run_extends_them(tmp_path: Path) -> None:
    path = tmp_path / "ratings.json"
    args = ["tournament", "fools_errand", "--bots", BOTS, "-n", "30", "--ratings", str(path), "--workers", "1"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "uncertainty" in first.output
    after_one = json.loads(path.read_text())
    assert after_one["games"] == 30
    assert sum(b["games"] for b in after_one["bots"].values()) == 60  # two seats per game
    second = runner.invoke(app, [*args, "--json"])
    assert second.exit_code == 0, second.output
    after_two = json.loads(path.read_text())
    assert after_two["games"] == 60
    assert sum(b["games"] for b in after_two["bots"].values()) == 120
    moved = [name for name in after_one["bots"]
             if after_two["bots"][name]["mu"] != after_one["bots"][name]["mu"]]
    assert moved, "the second run must update the ratings"
    assert all(after_two["bots"][n]["sigma"] <= after_one["bots"][n]["sigma"] for n in after_one["bots"])
    # two runs of 30 games are exactly one run of 60
    once = tournament(motley.load_game("fools_errand"), BOTS.split(",")[:2] + ["ismcts(simulations=4)"], 60,
                      workers=1)
    assert json.loads(once.to_json()) == after_two
    assert RatingTable.from_json(path.read_text()).to_json() == path.read_text()


def test_tournament_refuses_too_few_or_repeated_bots_and_a_table_of_another_game(tmp_path: Path) -> None:
    result = runner.invoke(app, ["tournament", "fools_errand", "--bots", "random", "-n", "2",
                                 "--ratings", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "at least 2 different bots" in result.output
    result = runner.invoke(app, ["tournament", "fools_errand", "--bots", "random,random", "-n", "2",
                                 "--ratings", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "once" in result.output
    other = tmp_path / "other.json"
    other.write_text(RatingTable(game="fools_errand(after_scoop=simultaneous_reveal)", seed=0).to_json())
    result = runner.invoke(app, ["tournament", "fools_errand", "--bots", "random,heuristic", "-n", "2",
                                 "--ratings", str(other)])
    assert result.exit_code == 2 and "rating table is for" in result.output


def test_ranks_and_lineups() -> None:
    assert rank_of([1.0, -1.0]) == [1, 2]
    assert rank_of([0.0, 0.0]) == [1, 1]
    assert rank_of([-1.0, 1.0, 1.0, 0.0]) == [4, 1, 1, 3]
    seats = [lineup_for(0, i, 5, 3) for i in range(50)]
    assert all(len(set(s)) == 3 and all(0 <= b < 5 for b in s) for s in seats)
    assert len(set(seats)) > 10  # draws vary from game to game


def test_a_hostile_rating_file_is_a_clear_error() -> None:
    """Deep nesting, a 5,000-digit number or a non-finite one: a MotleyError naming the rating table."""
    for text in ("[" * 100_000, '{"format": ' + "9" * 5000 + "}", '{"format": 1e999}'):
        try:
            RatingTable.from_json(text)
        except motley.MotleyError as exc:
            assert "rating table" in str(exc)
        else:
            raise AssertionError(f"accepted {text[:20]!r}")
