"""Variant comparison: the same deals and bots under two option sets, paired differences."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import motley
from motley.cli.main import app
from motley.eval import simulate
from motley.eval.compare import compare, parse_options

runner = CliRunner()


def test_compare_two_fools_errand_variants_pairs_the_same_deals() -> None:
    result = runner.invoke(app, ["compare", "fools_errand", "--options", "", "--vs", "after_scoop=simultaneous_reveal",
                                 "--bots", "heuristic,random", "-n", "60", "--seed", "5", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["b"] == "fools_errand(after_scoop=simultaneous_reveal)"
    assert {"moves", "score_spread", "seat0_advantage", "special", "draw_rate"} <= set(data["figures"])
    # A is exactly the plain simulation of the defaults with that seed: the same deals and lineups
    plain = simulate(motley.load_game("fools_errand"), ["heuristic", "random"], 60, seed=5, workers=1)
    assert data["a_summary"] == plain.as_dict()
    for fig in data["figures"].values():  # one game per unit, all paired: difference of means = mean difference
        assert fig["difference"]["mean"] == pytest.approx(fig["b"]["mean"] - fig["a"]["mean"])
        low, high = fig["difference"]["ci"]
        assert low <= fig["difference"]["mean"] <= high
    assert data["figures"]["moves"]["difference"]["mean"] != 0  # the variant does change play


def test_a_variant_against_itself_differs_by_nothing() -> None:
    result = compare("fools_errand", {"end_when": "both_decks_joker_only"}, {}, ["random"], 20, seed=1, workers=1,
                     duplicate=True)
    for fig in result.figures.values():
        assert fig["difference"]["mean"] == 0 and fig["difference"]["ci"] == [0, 0]


def test_bad_options_are_refused() -> None:
    with pytest.raises(motley.MotleyError):
        parse_options("after_scoop")
    result = runner.invoke(app, ["compare", "fools_errand", "--options", "after_scoop=never", "--vs", "", "-n", "2"])
    assert result.exit_code == 2 and "after_scoop" in result.output


def test_the_evaluation_commands_have_help() -> None:
    for command in ("simulate", "tournament", "compare"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output
