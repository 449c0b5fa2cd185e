"""Simulation at scale: duplicate deals, reproducibility across workers, per-game rows, the special-card figure."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import motley
from motley.bots import make_bot
from motley.cli.main import app
from motley.eval import simulate
from motley.eval.deciders import deals_played
from motley.eval.simulate import game_seed, play_game
from motley.games.fool.facts import fool_decides
from motley.games.fools_errand.facts import joker_decides

runner = CliRunner()
GAME = motley.load_game("fools_errand")
BOTS = ["heuristic", "random"]


def test_duplicate_deals_replay_each_deal_in_every_rotation_and_do_not_depend_on_workers() -> None:
    one = simulate(GAME, BOTS, 59, seed=11, workers=1, duplicate=True)
    two = simulate(GAME, BOTS, 59, seed=11, workers=2, duplicate=True)
    assert one.results == two.results and one.as_dict() == two.as_dict()
    assert one.games == 60 and one.units == 30  # rounded up to whole deal groups of 2 seats
    groups: dict[int, list[Any]] = {}
    for r in one.results:
        groups.setdefault(r.deal, []).append(r)
    assert len(groups) == 30
    for games in groups.values():
        assert len({g.seed for g in games}) == 1  # the same deal ...
        assert sorted(tuple(g.lineup) for g in games) == [(0, 1), (1, 0)]  # ... from both seats
    assert len({g[0].seed for g in groups.values()}) == 30  # and every deal is new


def test_rotation_gives_each_game_its_own_deal_and_a_different_seed_changes_results() -> None:
    a = simulate(GAME, BOTS, 40, seed=1, workers=1)
    b = simulate(GAME, BOTS, 40, seed=2, workers=1)
    assert len({r.seed for r in a.results}) == 40
    assert [r.seed for r in a.results] != [r.seed for r in b.results]
    assert game_seed(1, 5) == game_seed(1, 5) != game_seed(1, 6)


def test_each_row_is_the_game_its_seed_and_lineup_replay() -> None:
    summary = simulate(GAME, BOTS, 30, seed=3, workers=1, records=True, duplicate=True)
    bots = [make_bot(spec, GAME) for spec in BOTS]
    for r in summary.results:
        state = play_game(GAME, [bots[e] for e in r.lineup], r.seed)
        assert state.scores() == r.scores and state.returns() == r.returns and len(state.history()) == r.moves
        assert r.record is not None
        replayed = motley.records.load(r.record)
        assert replayed.scores() == r.scores and json.loads(r.record)["seed"] == r.seed


def test_summary_figures_match_a_count_of_the_games() -> None:
    summary = simulate(GAME, BOTS, 80, seed=4, workers=1)
    wins = [0.0, 0.0]
    draws = 0
    for r in summary.results:
        if r.returns[0] == r.returns[1]:
            draws += 1
        else:
            wins[r.lineup[r.returns.index(max(r.returns))]] += 1
    for e in range(2):
        assert summary.entries[e]["win_share"] == pytest.approx(wins[e] / 80)
        low, high = summary.entries[e]["win_share_ci"]
        assert low < summary.entries[e]["win_share"] < high
    assert summary.entries[0]["draw_rate"] == pytest.approx(draws / 80)
    seat0 = sum(1 for r in summary.results if r.returns[0] > r.returns[1]) / 80
    assert summary.seats[0]["win_share"] == pytest.approx(seat0)
    assert summary.lengths["moves"]["mean"] == pytest.approx(sum(r.moves for r in summary.results) / 80)


def test_cli_writes_json_and_csv_rows_with_records(tmp_path: Path) -> None:
    out_json, out_csv = tmp_path / "games.json", tmp_path / "games.csv"
    result = runner.invoke(app, ["simulate", "fools_errand", "-n", "12", "--bots", "heuristic,random", "--seed", "9",
                                 "--duplicate", "--workers", "1", "--records", "--out-json", str(out_json),
                                 "--out-csv", str(out_csv)])
    assert result.exit_code == 0, result.output
    data = json.loads(out_json.read_text())
    rows = data["games"]
    assert data["summary"]["games"] == 12 and len(rows) == 12
    with out_csv.open() as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 12 and "record" in table[0]
    for row, line in zip(rows, table, strict=True):
        assert row["record"]["seed"] == row["seed"] == int(line["seed"])
        assert len(row["record"]["moves"]) == row["moves"] == int(line["moves"])
        assert line["bots"].split(";") == row["bots"]
        assert [int(x) for x in line["scores"].split(";")] == row["scores"] == row["record"]["result"]["scores"]
        assert json.loads(line["record"]) == row["record"]


def test_cli_csv_without_records_has_no_record_column(tmp_path: Path) -> None:
    out_csv = tmp_path / "games.csv"
    result = runner.invoke(app, ["simulate", "fools_errand", "-n", "5", "--workers", "1", "--out-csv", str(out_csv)])
    assert result.exit_code == 0, result.output
    header = out_csv.read_text().splitlines()[0].split(",")
    assert "record" not in header and {"seed", "moves", "scores", "special"} <= set(header)


def _ev(event: str, seat: int, card: str | None = None, scale: int = 0) -> dict[str, Any]:
    return {"event": event, "seat": seat, "card": card, "value": 0, "scale": scale}


def test_joker_decides_when_removing_joker_scoops_flips_the_result() -> None:
    joker_a = [_ev("play", 1, "5H"), _ev("play", 0, "JK"), _ev("scoop", 0, scale=30), _ev("joker_back", 0, "JK"),
               _ev("play", 1, "10C"), _ev("play", 0, "10S"), _ev("scoop", 0, scale=20)]
    # A: 50 (30 by the Joker), B: 40 -> without the Joker, 20 against 40: decided.
    assert joker_decides({"log": joker_a}, [50, 40])
    # A: 50, B: 10 -> 20 against 10: A still wins, not decided.
    assert not joker_decides({"log": joker_a}, [50, 10])
    # A Joker revealed (FE-D3 "play") scoops for its owner, even after the other card of the reveal.
    reveal = [_ev("reveal", 0, "9C"), _ev("reveal", 1, "JK"), _ev("scoop", 1, scale=9)]
    assert joker_decides({"log": reveal}, [0, 9])
    # A plain scoop right after the opponent's Joker play is not a Joker scoop.
    plain = [_ev("play", 1, "JK"), _ev("scoop", 1, scale=0), _ev("play", 0, "4D"), _ev("scoop", 0, scale=4)]
    assert not joker_decides({"log": plain}, [4, 0])


def test_fool_decides_when_the_missed_bonus_would_change_the_winners() -> None:
    last = {"went_out_fooled": [2]}
    assert fool_decides({"scores": [-20, -40, -25, -60], "last_round": last}, [])
    assert not fool_decides({"scores": [-20, -40, -45, -60], "last_round": last}, [])
    assert not fool_decides({"scores": [-20, -40, -25, -60],
                                                "last_round": {"went_out_fooled": []}}, [])


@pytest.mark.parametrize("spec", [g for g in ("fool(players=4,rounds=1)", "foolery(players=4,hands=1)")
                                  if g.split("(")[0] in motley.registered_games()])
def test_the_other_games_simulate_with_rounds_and_the_special_figure(spec: str) -> None:
    game = motley.load_game(spec)
    summary = simulate(game, ["random"], 8, seed=2, workers=1)
    assert summary.special is not None and 0 <= summary.special["mean"] <= 1
    assert all(r.deals == 1 and r.special is not None for r in summary.results)
    state = play_game(game, [make_bot("random", game)] * game.num_players, summary.results[0].seed)
    assert deals_played(state) == 1
