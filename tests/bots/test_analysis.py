"""The analysis of a match (motley.bots.analysis) and ``motley analyse``: deterministic for a seed, from the seat's
information state only, a known blunder marked, forced moves skipped, the command's table and JSON."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

import motley
from motley.bots import analysis, make_bot
from motley.bots.analysis import (
    CHECK_FUTILE,
    CHECK_MAX_ROUNDS,
    CHECK_ROUNDS,
    CHECK_UNMARKED,
    INACCURACY,
    MISTAKE,
    POINTS_INACCURACY,
    THIN,
    Z_GATE,
    Z_LOOKS,
    Z_MARK,
    Z,
    _AnalysisSearch,
    _as_good,
    _check,
    _Cost,
    _Estimate,
    _hinted,
    _move_row,
    _near_mistake,
    _paired,
    _pct,
    _rival,
    _rivals,
    _settled,
    _side,
    _Tally,
    _ties,
    _verdict,
    _why,
    analyse_decision,
    analyse_record,
    decision_at,
    decisions,
    evaluate,
    hint,
    searcher_spec,
    z_mark,
)
from motley.bots.best import best_spec
from motley.bots.spec import parse_bot_spec
from motley.cli.main import app
from motley.core.play import play_match
from motley.core.registry import registered_games

SIMS = 40


def _record(game_text: str, seed: int, bots: str = "heuristic") -> str:
    game = motley.load_game(game_text)
    return motley.records.dump(play_match(game, [make_bot(bots, game) for _ in range(game.num_players)], seed))


@pytest.fixture(scope="module")
def fool_record() -> str:
    """A one-round 4-player Fool! match of heuristics."""
    return _record("fool(players=4,rounds=1)", 2)


def test_the_analysis_of_a_record_is_deterministic_for_a_seed(fool_record: str) -> None:
    first = analyse_record(fool_record, 1, simulations=SIMS, seed=5)
    again = analyse_record(fool_record, 1, simulations=SIMS, seed=5)
    other = analyse_record(fool_record, 1, simulations=SIMS, seed=6)
    assert first == again
    assert first["decisions"] and first != other  # the seed is the one source of chance
    assert json.loads(json.dumps(first)) == first  # JSON-able as it stands


def test_processes_do_not_change_the_analysis(fool_record: str) -> None:
    assert analyse_record(fool_record, 0, simulations=SIMS, seed=1, workers=2) == \
        analyse_record(fool_record, 0, simulations=SIMS, seed=1)


def test_the_analysis_reads_only_the_seat_s_information_state() -> None:
    """Re-dealing the cards the seat could not see (the game's sampler) leaves each decision's analysis unchanged."""
    rng = random.Random(3)
    for text in ("fool(players=5,rounds=1)", "foolery(players=4,hands=1)", "fools_errand"):
        game = motley.load_game(text)
        state = game.new_initial_state(seed=11)
        checked = 0
        while not state.is_terminal() and checked < 3:
            legal = state.legal_actions()
            seat = state.current_player()
            if len(legal) > 1:
                played = legal[rng.randrange(len(legal))]
                world = game.sample_state(state.observation(seat), rng)
                assert world.observation(seat) == state.observation(seat)
                seen = analyse_decision(state, seat, played, simulations=SIMS, seed=9)
                assert analyse_decision(world, seat, played, simulations=SIMS, seed=9) == seen, text
                checked += 1
                state.apply_action(played)
            else:
                state.apply_action(legal[0])
        assert checked, text


#: A 4-player Fool! round from seed 3 up to seat 0's lead with two cards left (green 3 and green 11), seat 2
#: sitting out: leading the green 11 wins the trick, and seat 0 goes out with the green 3 next; leading the green 3
#: makes seat 0 the Fool with the green 11 still in hand (-11 when another seat goes out).
BLUNDER_MOVES = ["R13", "R11", "R12", "R4", "B5", "B6", "B3", "R10", "W1", "R6", "B8", "G17", "W1", "G16", "G15",
                 "G12", "R8", "R9", "W1", "Y11", "Y7", "Y8", "Y10", "Y5", "Y4", "Y9", "Y3", "Y6", "R7", "G10", "R3",
                 "R5", "G14", "G8", "R2", "G13", "G7"]


def test_a_known_blunder_is_marked_and_the_good_move_is_not() -> None:
    state = motley.load_game("fool(players=4,rounds=1)").new_initial_state(seed=3)
    for move in BLUNDER_MOVES:
        state.apply_action(state.string_to_action(move))
    assert state.current_player() == 0 and state.observation(0)["hand"] == ["G3", "G11"]
    blunder = analyse_decision(state, 0, state.string_to_action("G3"), simulations=200, seed=0)
    assert blunder["mark"] == "mistake"
    assert blunder["choice"] == "G11" and blunder["cost"]["win"] > 0.5 and blunder["cost"]["points"] > 5
    assert "green 11" in blunder["why"] and "green 3" in blunder["why"]
    good = analyse_decision(state, 0, state.string_to_action("G11"), simulations=200, seed=0)
    assert good["mark"] is None and good["cost"]["win"] == 0.0


def test_forced_moves_are_not_analysed(fool_record: str) -> None:
    game, found = decisions(fool_record, 3)
    record = motley.records.read(fool_record)
    state = game.new_initial_state(seed=record.seed)
    forced: list[int] = []
    free: list[int] = []
    for index, (_, move) in enumerate(record.moves):
        if state.current_player() == 3:
            (free if len(state.legal_actions()) > 1 else forced).append(index)
        state.apply_action(state.string_to_action(move))
    assert forced, "the record has forced moves of seat 3"
    assert [d.index for d in found] == free
    analysis = analyse_record(fool_record, 3, simulations=SIMS)
    assert [d["index"] for d in analysis["decisions"]] == free
    assert analysis["summary"]["decisions"] == len(free)
    for d in analysis["decisions"]:
        first = [m for m in d["moves"] if not m["checked"]]  # the first search's; the re-searched ones each alone
        again = [m for m in d["moves"] if m["checked"]]
        assert len(d["moves"]) > 1 and (sum(m["visits"] for m in first) == SIMS if d["checked"] is None else again)
        if again:  # each re-searched move a whole number of rounds, the longest all of them (a move a rival clearly
            # leads is searched no more)
            rounds, budget = d["checked"]["rounds"], d["checked"]["simulations"]
            assert all(m["visits"] % budget == 0 and m["visits"] <= rounds * budget for m in again)
            assert max(m["visits"] for m in again) == rounds * budget
        assert all(0.0 <= m["win_low"] <= m["win"] <= m["win_high"] <= 1.0 for m in d["moves"])


def test_bad_seats_and_budgets_are_refused(fool_record: str) -> None:
    with pytest.raises(motley.MotleyError, match="seat"):
        analyse_record(fool_record, 4)
    with pytest.raises(motley.MotleyError, match="simulations"):
        searcher_spec(motley.load_game("fool"), 0)


def test_the_searcher_is_the_best_bot_s_search_at_the_analysis_budget() -> None:
    assert searcher_spec(motley.load_game("foolery"), 50) == "ismcts(simulations=50,infer_chain=2,infer_trust=table)"
    assert searcher_spec(motley.load_game("fools_errand"), 50) == "ismcts(simulations=50)"


def test_the_searcher_learns_how_heuristic_the_table_is_where_best_infers_from_play() -> None:
    """The analysis reviews tables that need not play as the heuristic: where ``best`` weighs worlds by the other
    seats' plays, the analysis learns the table's share of plays off the heuristic (``infer_trust``) instead of
    fixing it; everything else is ``best``'s search."""
    for name in registered_games():
        game = motley.load_game(name)
        best = parse_bot_spec(best_spec(game))
        if best.kind != "ismcts":
            continue
        played, reviewed = best.resolved(), parse_bot_spec(searcher_spec(game, 50)).resolved()
        infers = played["infer"] > 1 or played["infer_chain"] > 0
        assert reviewed["infer_trust"] == ("table" if infers and played["infer_trust"] == "fixed"
                                           else played["infer_trust"]), name
        assert reviewed["seat_model"] == analysis.SEAT_MODEL, name
        same = {k: v for k, v in played.items() if k not in ("simulations", "seconds", "infer_trust", "seat_model")}
        assert same == {k: v for k, v in reviewed.items() if k in same}, name


runner = CliRunner()


def test_the_command_prints_the_analysis_as_json_and_as_a_table(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    path.write_text(_record("fools_errand", 4, "random"), encoding="utf-8")
    done = runner.invoke(app, ["analyse", str(path), "--seat", "1", "--json", "--simulations", "20"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["seat"] == 1 and result["simulations"] == 20
    assert result == analyse_record(path.read_text(encoding="utf-8"), 1, simulations=20)
    table = runner.invoke(app, ["analyse", str(path), "--seat", "1", "--simulations", "20"])
    assert table.exit_code == 0, table.output
    assert "decisions reviewed" in table.stdout and "seat 1" in table.stdout


@pytest.mark.parametrize("args", [["--seat", "2"], ["--simulations", "0"], ["--workers", "-1"]])
def test_the_command_refuses_bad_arguments_before_any_search(args: list[str], tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    path.write_text(_record("fools_errand", 4, "random"), encoding="utf-8")
    done = runner.invoke(app, ["analyse", str(path), "--json", *args])
    assert done.exit_code == 2 and done.stdout == ""


def test_the_command_refuses_a_record_that_does_not_replay(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"game": "fool", "params": {}, "seed": 1, "moves": ["nonsense"]}', encoding="utf-8")
    done = runner.invoke(app, ["analyse", str(path), "--json"])
    assert done.exit_code == 2 and "error:" in done.stderr


def test_progress_counts_every_decision(fool_record: str) -> None:
    seen: list[tuple[int, int]] = []
    analysis = analyse_record(fool_record, 2, simulations=SIMS, progress=lambda done, total: seen.append((done, total)))
    total = analysis["summary"]["decisions"]
    assert seen == [(done, total) for done in range(total + 1)]


def test_the_noise_of_a_move_widens_when_its_iterations_drift() -> None:
    """Consecutive iterations share the inference chain's worlds and the tree as it learns: a move that won all of
    its first iterations and none of its last is less certain than the same wins drawn independently, and its
    interval and standard errors say so (batch means); iterations that do not drift keep the independent error."""
    game = motley.load_game("fool(players=4,rounds=1)")
    state = game.new_initial_state(seed=1)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    decision = decision_at(state, state.current_player(), state.legal_actions()[0])
    rows = {}
    for name, outcomes in (("drifting", [1.0] * 40 + [0.0] * 40), ("mixed", [1.0, 0.0] * 40)):
        tally = _Tally()
        for won in outcomes:
            tally.n += 1
            tally.win += won
            tally.wins.append(won)
            tally.points += 10 * won
            tally.points2 += 100 * won
            tally.gains.append(10 * won)
        rows[name] = _move_row(game, decision, decision.legal[0], tally, 0.0, 5.0)
    drifting, mixed = rows["drifting"], rows["mixed"]
    assert drifting["win"] == mixed["win"] == 0.5 and drifting["points"] == mixed["points"] == 5.0
    assert drifting["win_se"] > 2 * mixed["win_se"] and drifting["points_se"] > 2 * mixed["points_se"]
    assert drifting["win_high"] - drifting["win_low"] > 2 * (mixed["win_high"] - mixed["win_low"])


def test_a_mark_rests_on_a_search_again_of_the_moves_that_decide_it() -> None:
    """Before the known blunder is marked, the played move and the best ones are searched again, each alone, over
    several rounds; the mark says it is on the win chance and its cost is out of its noise above the threshold."""
    state = motley.load_game("fool(players=4,rounds=1)").new_initial_state(seed=3)
    for move in BLUNDER_MOVES:
        state.apply_action(state.string_to_action(move))
    blunder = analyse_decision(state, 0, state.string_to_action("G3"), simulations=200, seed=0)
    assert blunder["checked"] is not None and blunder["checked"]["rounds"] >= CHECK_ROUNDS
    rows = {m["move"]: m for m in blunder["moves"]}
    assert rows["G3"]["checked"] and rows["G11"]["checked"]
    assert rows["G3"]["visits"] == blunder["checked"]["rounds"] * blunder["checked"]["simulations"]
    assert blunder["mark_on"] == "win" and blunder["cost"]["win"] - Z_MARK * blunder["cost"]["win_se"] > INACCURACY
    assert blunder["why"].startswith("A mistake in win chance: you played green 3: it wins the deal ")
    assert f"green 11 wins {_pct(rows['G11']['win'])}" in blunder["why"]
    game = state.game
    unchecked = evaluate(game, decision_at(state, 0, state.string_to_action("G3")), searcher_spec(game, 200), 0,
                         check=False)  # as a hint searches: nothing is marked, so nothing is searched again
    assert unchecked["checked"] is None and unchecked["mark"] is None and unchecked["moves"][0]["move"] == "G11"


def test_only_a_decision_that_may_be_marked_is_searched_again(fool_record: str) -> None:
    analysis = analyse_record(fool_record, 1, simulations=SIMS)
    for d in analysis["decisions"]:
        if d["mark"] is not None:
            assert d["checked"] is not None and d["mark_on"] in ("win", "points")
        if d["checked"] is None:
            assert d["mark"] is None and d["mark_on"] is None
            assert not any(m["checked"] for m in d["moves"])


def _tally(wins: list[float], gains: list[float]) -> _Tally:
    tally = _Tally()
    for won, gain in zip(wins, gains, strict=True):
        tally.n += 1
        tally.win += won
        tally.wins.append(won)
        tally.points += gain
        tally.points2 += gain * gain
        tally.gains.append(gain)
    return tally


def _estimate(win: float, points: float, rounds: int = 4, n: int = 100) -> _Estimate:
    """A re-searched move that wins the first ``win`` share of each round's deals and scores ``points`` in each."""
    estimate = _Estimate()
    for _ in range(rounds):
        won = round(win * n)
        estimate.add(_tally([1.0] * won + [0.0] * (n - won), [points] * n))
    return estimate


def test_a_move_with_the_higher_win_chance_is_never_called_a_mistake() -> None:
    """The played move (0) wins more often than the other (1) but scores fewer points: no mark; a move that wins
    as often with more points marks it on points, saying so; one that wins more often marks it on the win chance."""
    choice, mark, on, _ = _verdict({0: _estimate(0.9, 1.0), 1: _estimate(0.6, 9.0)}, 0, 2.0)
    assert (choice, mark, on) == (0, None, None)
    choice, mark, on, cost = _verdict({0: _estimate(0.5, 1.0), 1: _estimate(0.5, 9.0)}, 0, 2.0)
    assert (choice, mark, on) == (1, "mistake", "points") and cost.points == 8.0
    choice, mark, on, cost = _verdict({0: _estimate(0.3, 9.0, 16), 1: _estimate(0.6, 1.0, 16)}, 0, 2.0)
    assert (choice, mark, on) == (1, "mistake", "win") and cost.win == pytest.approx(0.3)


def test_decisions_are_numbered_as_the_seat_s_own_moves(fool_record: str) -> None:
    game, found = decisions(fool_record, 3)
    record = motley.records.read(fool_record)
    state = game.new_initial_state(seed=record.seed)
    own = []
    for index, (_, move) in enumerate(record.moves):
        if state.current_player() == 3:
            own.append(index)
        state.apply_action(state.string_to_action(move))
    assert [d.number for d in found] == [own.index(d.index) + 1 for d in found]
    assert [d.deal_number for d in found] == [d.number for d in found]  # one deal: the same count


def test_who_made_each_move_comes_from_the_record_or_the_caller(fool_record: str) -> None:
    data = json.loads(fool_record)
    for number, move in enumerate(data["moves"]):
        move["actor"] = "timer" if number % 2 else "seat"
    _, found = decisions(json.dumps(data), 3)
    assert {d.actor for d in found} <= {"timer", "seat"}
    assert all(d.actor == ("timer" if d.index % 2 else "seat") for d in found)
    with pytest.raises(motley.MotleyError, match="actors"):
        decisions(fool_record, 3, ["seat"])


def test_a_thinly_searched_move_is_not_called_searched_enough() -> None:
    game = motley.load_game("fool(players=4,rounds=1)")
    state = game.new_initial_state(seed=1)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    decision = decision_at(state, state.current_player(), state.legal_actions()[0])
    for n, enough in ((THIN - 1, False), (THIN, True)):
        tally = _Tally()
        for k in range(n):
            tally.n += 1
            tally.win += k % 2
            tally.wins.append(k % 2)
            tally.gains.append(0.0)
        assert _move_row(game, decision, decision.legal[0], tally, 0.0, 5.0)["enough"] is enough


def test_the_command_reads_at_80_columns_and_piped(tmp_path: Path) -> None:
    """Nothing cut short ("mist…"), no line over 80 columns, no "-0%", the win chance said to be the deal's and
    the searcher named in words."""
    path = tmp_path / "match.json"
    path.write_text(_record("fool(players=4,rounds=1)", 6, "random"), encoding="utf-8")
    done = runner.invoke(app, ["analyse", str(path), "--seat", "2", "--simulations", "60"], env={"COLUMNS": "80"})
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert "…" not in done.stdout and "-0%" not in done.stdout
    assert "winning the deal" in done.stdout and "sampled deals per decision" in done.stdout
    assert "ismcts(" not in done.stdout and "Accuracy" in done.stdout


def test_the_move_that_may_make_a_mark_is_found_whatever_the_search_chose() -> None:
    """A search indifferent between moves (the deal won whatever is played) picks one by its visits; a move that
    wins as often and scores more points is still searched again, and one that wins less often never is."""
    def row(action: int, visits: int, win: float, points: float) -> dict[str, object]:
        return {"action": action, "visits": visits, "win": win, "points": points}

    played = row(0, 250, 1.0, 2.0)
    assert _rival([played, row(1, 250, 1.0, 6.0)], played, 2.0) == 1  # the played move was the search's choice
    assert _rival([played, row(1, 250, 0.8, 9.0)], played, 2.0) is None  # more points but wins less often
    assert _rival([played, row(1, 250, 1.0, 2.1)], played, 2.0) is None  # under the points threshold
    thin = row(0, 3, 0.0, 0.0)
    assert _rival([row(1, 480, 0.4, 1.0), row(2, 17, 0.1, 0.0), thin], thin, 2.0) == 1


def test_the_hint_is_the_best_by_the_figures_its_sentence_gives() -> None:
    def row(move: str, visits: int, win: float, points: float, enough: bool = True) -> dict[str, object]:
        return {"move": move, "visits": visits, "win": win, "points": points, "enough": enough}

    most_visited = row("a", 900, 0.40, 1.0)
    better = row("b", 300, 0.55, 0.5)
    thin = row("c", 3, 0.90, 4.0, enough=False)  # a lucky few deals: not searched enough to be hinted
    tied = row("d", 200, 0.55, 2.0)  # the same win chance, more points
    best, runner = _hinted([most_visited, better, thin, tied])
    assert (best["move"], runner and runner["move"]) == ("d", "b")
    assert _hinted([thin])[0] is thin, "with nothing searched enough, the searched moves"
    assert _hinted([most_visited])[1] is None


def test_a_hint_never_names_a_next_best_above_it(fool_record: str) -> None:
    game, found = decisions(fool_record, 0)
    shown = 0
    for decision in found[:6]:
        if len(decision.legal) < 2:
            continue
        why = hint(game, decision, SIMS, seed=decision.number)["why"]
        figures = [float(x) for x in re.findall(r"in (\d+)%", why)]
        assert figures, why
        if len(figures) > 1:
            shown += 1
            assert figures[0] >= figures[1], why
    assert shown, "a next best was named at some decision"


def _rounds(wins: list[list[float]], points: float = 0.0) -> _Estimate:
    estimate = _Estimate()
    for round_wins in wins:
        estimate.add(_tally(round_wins, [points] * len(round_wins)))
    return estimate


def test_a_cost_measured_deal_by_deal_is_out_of_the_noise_where_two_independent_means_are_not() -> None:
    """The played move and its rival are re-searched over the same sampled deals, so their cost is the mean of the
    deal-by-deal differences: the rival winning one deal in ten the played move loses, in 400 deals where they
    otherwise agree, is an inaccuracy out of the noise; the same shares with the two means' errors taken as
    independent would not be."""
    played = [float(k % 2) for k in range(400)]  # wins half of the deals
    rival = [1.0 if k % 10 == 1 or k % 10 == 2 else p for k, p in enumerate(played)]  # and one in ten more
    assert sum(rival) - sum(played) == 40
    estimates = {0: _rounds([played]), 1: _rounds([rival])}
    cost, se = _paired(estimates, 1, 0, "win")
    assert cost == pytest.approx(0.1)
    independent = _paired({0: _rounds([played[:-1]]), 1: _rounds([rival])}, 1, 0, "win")[1]  # unequal: not paired
    assert se < independent / 2
    assert cost - Z * se > INACCURACY >= cost - Z * independent
    assert _verdict(estimates, 0, 5.0)[1:3] == ("inaccuracy", "win")
    assert _settled(estimates, 0, 1, 5.0)


def test_the_re_search_goes_on_while_the_cost_straddles_its_threshold() -> None:
    """The sequential test stops once the cost is out of its noise on one side of the threshold (clearly above:
    a mark; clearly below, the points too, after :data:`CHECK_UNMARKED` rounds: none) and goes on while its interval
    holds the threshold."""
    base = [float(k % 2) for k in range(200)]

    def rival(every: int) -> list[float]:
        return [1.0 if k % every == 0 else p for k, p in enumerate(base)]

    clear_mark = {0: _rounds([base]), 1: _rounds([rival(4)])}  # +0.25
    clear_none = {0: _rounds([base, base]), 1: _rounds([base, base])}  # 0, two rounds
    straddling = {0: _rounds([base]), 1: _rounds([rival(12)])}  # about +0.04, its error about 0.014
    assert _settled(clear_mark, 0, 1, 5.0) and _settled(clear_none, 0, 1, 5.0)
    assert not _settled(straddling, 0, 1, 5.0)
    assert _verdict(straddling, 0, 5.0)[1] is None  # stopped there (the cap), it is not marked


def _level_of(cost: float, se: float) -> str:
    """The level a win-chance mark of this cost and error is given: a mistake only with its 95% interval above the
    mistake line."""
    return "mistake" if cost - Z * se >= MISTAKE else "inaccuracy"


def test_a_mark_is_a_mistake_only_where_its_95_interval_lies_above_the_mistake_line() -> None:
    """The same cost, 0.18 of win chance (over the mistake line 0.15), is a mistake measured over 4 rounds of 4,000
    sampled deals, and only an inaccuracy after one round of 400, whose 95% interval reaches under the line: a cost by
    itself near the line was called a mistake at one seed and an inaccuracy at another. Both are marks."""
    def far(deals: int) -> tuple[list[float], list[float]]:
        base = [float(k % 2) for k in range(deals)]
        return base, [1.0 if k % 2 == 0 and (k // 2) % 11 < 4 else p for k, p in enumerate(base)]

    base, rival = far(400)
    thin = {0: _rounds([base]), 1: _rounds([rival])}
    cost, se = _paired(thin, 1, 0, "win")
    assert cost - Z * se < MISTAKE <= cost and cost - z_mark(1) * se > INACCURACY
    assert _verdict(thin, 0, 5.0)[1:3] == ("inaccuracy", "win")
    base, rival = far(4000)
    deep = {0: _rounds([base] * 4), 1: _rounds([rival] * 4)}
    cost, se = _paired(deep, 1, 0, "win")
    assert cost - Z * se >= MISTAKE
    assert _verdict(deep, 0, 5.0)[1:3] == ("mistake", "win")


def test_a_points_mark_is_a_mistake_only_where_its_95_interval_lies_above_the_mistake_line() -> None:
    """The same for a mark on points (the moves win as often): 9 points more in a deal whose points spread 10 (the
    mistake line 8) is an inaccuracy over 400 sampled deals of which one in ten scores 90 more, a mistake over 4 rounds
    of 4,000 where every deal scores 9 more."""
    def points_rounds(gains: list[float], rounds: int) -> _Estimate:
        estimate = _Estimate()
        for _ in range(rounds):
            estimate.add(_tally([0.5] * len(gains), gains))
        return estimate

    lumpy = [90.0 if k % 10 == 0 else 0.0 for k in range(400)]
    thin = {0: points_rounds([0.0] * 400, 1), 1: points_rounds(lumpy, 1)}
    cost, se = _paired(thin, 1, 0, "points")
    assert cost - Z * se < 0.8 * 10.0 <= cost
    assert _verdict(thin, 0, 10.0)[1:3] == ("inaccuracy", "points")
    steady = [9.0 + (k % 3 - 1) for k in range(4000)]
    deep = {0: points_rounds([0.0] * 4000, 4), 1: points_rounds(steady, 4)}
    cost, se = _paired(deep, 1, 0, "points")
    assert cost - Z * se >= 0.8 * 10.0
    assert _verdict(deep, 0, 10.0)[1:3] == ("mistake", "points")


def test_an_inaccuracy_past_the_mistake_line_says_it_may_be_a_mistake() -> None:
    """An inaccuracy whose cost is past the mistake line, in win chance or in points, but not out of its noise says
    so in its sentence; one under the line, and a mistake, do not."""
    assert _near_mistake(_Cost(0.18, 0.03, 0.0, 0.0), "inaccuracy", "win", 5.0)
    assert not _near_mistake(_Cost(0.10, 0.01, 0.0, 0.0), "inaccuracy", "win", 5.0)
    assert not _near_mistake(_Cost(0.30, 0.01, 0.0, 0.0), "mistake", "win", 5.0)
    assert _near_mistake(_Cost(0.0, 0.0, 9.0, 1.0), "inaccuracy", "points", 10.0)
    assert not _near_mistake(_Cost(0.0, 0.0, 5.0, 1.0), "inaccuracy", "points", 10.0)
    best = {"words": "green 19", "win": 0.31, "points": 1.0, "enough": True, "visits": 400}
    played = {"words": "green 12", "win": 0.13, "points": -2.0, "enough": True, "visits": 400}
    said = _why(best, played, "inaccuracy", "win", (), True)
    assert said.startswith("An inaccuracy in win chance (perhaps a mistake") and "green 12" in said
    assert "perhaps" not in _why(best, played, "inaccuracy", "win", (), False)


def test_a_mark_needs_a_wider_margin_than_its_absence() -> None:
    """A cost 1.96 standard errors clear of its threshold is not yet a mark (another seed's search, its cost landing
    about as far on either side, would make it about half the time): the re-search goes on, and stopped there it
    marks nothing; 3 standard errors clear, it is marked; a cost 1.96 below settles the decision unmarked."""
    base = [float(k % 2) for k in range(400)]
    near = [1.0 if k % 2 == 0 and (k // 2) % 12 < 2 else p for k, p in enumerate(base)]  # about +0.08
    estimates = {0: _rounds([base]), 1: _rounds([near])}
    cost, se = _paired(estimates, 1, 0, "win")
    assert cost - Z * se > INACCURACY >= cost - Z_MARK * se  # out of a 95% noise, not of the mark's margin
    assert not _settled(estimates, 0, 1, 5.0)
    assert _verdict(estimates, 0, 5.0)[1] is None
    far = [1.0 if k % 2 == 0 and (k // 2) % 11 < 4 else p for k, p in enumerate(base)]  # about +0.18
    clear = {0: _rounds([base]), 1: _rounds([far])}
    cost, se = _paired(clear, 1, 0, "win")
    assert cost - Z_MARK * se > INACCURACY
    assert _settled(clear, 0, 1, 5.0) and _verdict(clear, 0, 5.0)[1:3] == (_level_of(cost, se), "win")
    little = [1.0 if k % 2 == 0 and (k // 2) % 100 == 0 else p for k, p in enumerate(base)]  # +0.01
    below = {0: _rounds([base, base]), 1: _rounds([little, little])}
    assert _settled(below, 0, 1, 5.0) and _verdict(below, 0, 5.0)[1] is None


def test_one_round_does_not_settle_a_decision_unmarked() -> None:
    """One round's error is its iterations' alone, not another seed's: a cost a round puts 1.96 standard errors under
    the line is searched another round (a mark after one round needs :data:`Z_MARK`); from :data:`CHECK_UNMARKED`
    rounds the same cost settles it unmarked, and a cost clear of the mark's margin is a mark after one round."""
    threshold, se = INACCURACY, 0.01
    assert CHECK_UNMARKED == 2
    assert _side(threshold - 2.5 * se, se, threshold, 1) is None
    assert _side(threshold - 2.5 * se, se, threshold, CHECK_UNMARKED) is False
    assert _side(threshold + 3.2 * se, se, threshold, 1) is True
    base = [float(k % 2) for k in range(400)]
    one = {0: _rounds([base]), 1: _rounds([base])}
    two = {0: _rounds([base, base]), 1: _rounds([base, base])}
    assert not _settled(one, 0, 1, 5.0) and _settled(two, 0, 1, 5.0)


def test_the_first_search_sends_a_decision_to_the_re_search_within_two_standard_errors_of_a_mark() -> None:
    """The gate: a rival whose lead over the played move is 1.5 standard errors short of the threshold (a first
    search of another seed may see it there, and its re-search mark it) sends the decision to the re-search; one
    2.5 short, or one that cannot lead at all, does not. In points the same, for a rival winning as often."""
    def row(action: int, win: float, points: float = 0.0, win_se: float = 0.02) -> dict[str, object]:
        return {"action": action, "visits": 200, "win": win, "win_se": win_se, "points": points, "points_se": 1.0}

    se = math.hypot(0.02, 0.02)
    played = row(0, 0.30)
    assert Z_GATE == 2.0
    assert _rivals([played, row(1, 0.30 + INACCURACY - 1.5 * se)], played, 0.0) == ([1], "win")
    assert _rivals([played, row(1, 0.30 + INACCURACY - 2.5 * se)], played, 0.0) == ([], "win")
    spread, lead, sure = 10.0, POINTS_INACCURACY * 10.0, 0.01  # a win chance too sure to send it on its own
    level = row(0, 0.30, win_se=sure)
    near = row(1, 0.30, lead - 1.5 * math.sqrt(2.0), sure)
    far = row(1, 0.30, lead - 2.5 * math.sqrt(2.0), sure)
    assert _rivals([level, near], level, spread) == ([1], "points")
    assert _rivals([level, far], level, spread) == ([], "win")


def test_a_mark_found_after_more_rounds_needs_a_wider_margin() -> None:
    """Each round of the re-search is another look at the cost, and a cost near the mark's line crosses a fixed margin
    at some look by chance: so the margin grows by :data:`Z_LOOKS` standard errors per doubling of the rounds. A
    cost 3.2 standard errors over the threshold is a mark after one round but not after 16 (the re-search goes on),
    and one 4.5 over it is a mark after 16. The same 400 deals (the rival winning one in ten more) are a mark as one
    round and not as eight rounds of 50: the same cost with the same error, found at the eighth look."""
    assert z_mark(1) == Z_MARK and z_mark(16) == pytest.approx(Z_MARK + 4 * Z_LOOKS) and z_mark(2) < z_mark(16)
    threshold, se = INACCURACY, 0.01
    assert _side(threshold + 3.2 * se, se, threshold, 1) is True
    assert _side(threshold + 3.2 * se, se, threshold, 16) is None
    assert _side(threshold + 4.5 * se, se, threshold, 16) is True

    def deals(n: int) -> tuple[list[float], list[float]]:
        base = [float(k % 2) for k in range(n)]
        return base, [1.0 if k % 10 == 0 else p for k, p in enumerate(base)]

    one = {0: _rounds([deals(400)[0]]), 1: _rounds([deals(400)[1]])}
    eight = {0: _rounds([deals(50)[0]] * 8), 1: _rounds([deals(50)[1]] * 8)}
    cost, se = _paired(one, 1, 0, "win")
    cost8, se8 = _paired(eight, 1, 0, "win")
    assert cost == pytest.approx(cost8) and se == pytest.approx(se8, rel=0.05)
    assert z_mark(8) * se8 > cost8 - INACCURACY > Z_MARK * se
    assert _verdict(one, 0, 0.0)[1:3] == ("inaccuracy", "win")
    assert _verdict(eight, 0, 0.0)[1] is None


def test_a_points_mark_needs_the_wider_margin_too() -> None:
    """Where both moves win as often, a points cost 1.96 standard errors clear of its threshold is not a mark; 3 clear,
    it is (a mark on points, saying so), settled once the win chance's cost is settled unmarked (from
    :data:`CHECK_UNMARKED` rounds: one round does not settle it)."""
    wins = [float(k % 2) for k in range(400)]
    played = _Estimate()
    played.add(_tally(wins, [float(k % 5) for k in range(400)]))  # points 2.0, standard deviation about 1.4

    def richer(extra: float) -> _Estimate:
        rival = _Estimate()
        rival.add(_tally(wins, [float(k % 5) + extra * (k % 3) for k in range(400)]))
        return rival

    spread = 2.0  # the points threshold is 0.4
    for extra, marked in ((0.0, False), (None, False), (1.0, True)):
        if extra is None:  # find a gain 1.96 errors clear of the threshold and under 3
            extra = next(x / 100 for x in range(40, 200)
                         if _paired({0: played, 1: richer(x / 100)}, 1, 0, "points")[0]
                         - Z * _paired({0: played, 1: richer(x / 100)}, 1, 0, "points")[1] > 0.4)
            cost, se = _paired({0: played, 1: richer(extra)}, 1, 0, "points")
            assert cost - Z_MARK * se <= 0.4
        estimates = {0: played, 1: richer(extra)}
        assert (_verdict(estimates, 0, spread)[1] is not None) is marked
        assert not _settled(estimates, 0, 1, spread)
        twice = {0: _Estimate(), 1: _Estimate()}
        for move, estimate in estimates.items():
            for _ in range(CHECK_UNMARKED):
                twice[move].add(estimate.rounds[0])
        assert _settled(twice, 0, 1, spread) or not marked


def test_unmarked_a_decision_searched_again_for_points_names_the_move_a_points_mark_would_name() -> None:
    """A decision searched again for a rival's lead in points and left unmarked (the lead under its margin) names that
    rival best, as a seed that marks it on points does: not the move that wins a hair more often with fewer points.
    Searched again for a lead in win chance, the move of the higher win chance is named; and a rival that scores more
    but wins clearly less often than the best is not named."""
    def move(win: float, points: float) -> _Estimate:
        return _estimate(win, points, rounds=2, n=200)

    spread = 40.0  # the points threshold 8: a 5-point lead is no mark
    estimates = {0: move(0.50, 10.0), 1: move(0.505, 10.0), 2: move(0.50, 15.0)}
    assert _verdict(estimates, 0, spread, kind="points")[:3] == (2, None, "points")  # unmarked, named for its points
    assert _verdict(estimates, 0, spread, kind="win")[:3] == (1, None, "win")
    assert _verdict({**estimates, 1: move(0.70, 10.0)}, 0, spread, kind="points")[:3] == (1, None, "win")
    rich = {**estimates, 2: move(0.50, 30.0)}
    assert _verdict(rich, 0, spread, kind="points")[:3] == (2, "inaccuracy", "points")  # marked: the same move
    best = {"words": "red 9", "win": 0.50, "points": 15.0, "enough": True, "visits": 400}
    played = {"words": "red 4", "win": 0.50, "points": 10.0, "enough": True, "visits": 400}
    said = _why(best, played, None, None, (), False, "points")
    assert said.startswith("You played red 4") and "scores +10" in said and "red 9 scores +15" in said
    assert said.endswith("(too close to call an inaccuracy).")


def test_the_re_searched_moves_see_the_same_sampled_deals() -> None:
    """Two searchers given generators of one seed for their deals (``worlds``) draw the same deals whatever their
    own generators: the cost is measured deal by deal (common random numbers)."""
    game = motley.load_game("foolery(players=4,hands=1)")
    state = game.new_initial_state(seed=5)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    spec = parse_bot_spec(searcher_spec(game, 20)).resolved()
    drawn = []
    for search_seed in (1, 2):
        searcher = _AnalysisSearch(game, **spec)
        searcher.worlds = random.Random("deals")
        sample = searcher._sampler(state.observation(seat))
        rng = random.Random(search_seed)
        drawn.append([[w.observation(s) for s in range(game.num_players)] for w in (sample(rng) for _ in range(4))])
    assert drawn[0] == drawn[1]
    plain = _AnalysisSearch(game, **spec)._sampler(state.observation(seat))
    assert [[w.observation(s) for s in range(game.num_players)] for w in (plain(random.Random(1)) for _ in range(4))] \
        != drawn[0]  # without them, the search's own generator draws the deals


def test_a_rival_within_one_standard_error_of_the_threshold_is_searched_again() -> None:
    """A rival whose lead falls short of the threshold by less than one standard error may still make a mark
    another seed's search makes: it is searched again; one that falls short by more is not."""
    def row(action: int, win: float, se: float) -> dict[str, object]:
        return {"action": action, "visits": 200, "win": win, "win_se": se, "points": 0.0, "points_se": 0.0}

    played = row(0, 0.40, 0.02)
    assert _rival([played, row(1, 0.43, 0.02)], played, 0.0) == 1  # lead 0.03, one error about 0.028: may be 0.05
    sure = row(0, 0.40, 0.005)
    assert _rival([sure, row(1, 0.43, 0.005)], sure, 0.0) is None  # lead 0.03, one error about 0.007: not 0.05


def test_moves_as_good_as_the_best_within_the_noise_are_named_with_it() -> None:
    """The move called best is the best among near-equals: a move of the first search within its noise is named
    as good, a clearly worse one and a thin one are not, and a re-searched move is judged by the paired cost."""
    def row(win: float, se: float, enough: bool = True) -> dict[str, object]:
        return {"win": win, "win_se": se, "points": 0.0, "points_se": 0.0, "enough": enough}

    first = {0: row(0.30, 0.03), 1: row(0.60, 0.03), 2: row(0.57, 0.03), 3: row(0.35, 0.03), 4: row(0.9, 0.2, False)}
    assert _as_good(first, {}, 1, 0, "win") == [2]
    base = [float(k % 2) for k in range(200)]
    estimates = {1: _rounds([[1.0 if k % 4 == 0 else p for k, p in enumerate(base)]]), 0: _rounds([base])}
    first[0] = row(0.59, 0.03)  # as good by the first search, clearly worse deal by deal: not named
    assert _as_good(first, estimates, 1, 3, "win") == [2]


def test_without_the_second_search_nothing_is_marked_or_searched_again(fool_record: str) -> None:
    """``check=False`` (what the first search alone costs): the same first estimates, no decision searched again,
    none marked."""
    first = analyse_record(fool_record, 1, simulations=SIMS, check=False)
    checked = analyse_record(fool_record, 1, simulations=SIMS)
    assert all(d["checked"] is None and d["mark"] is None for d in first["decisions"])
    assert any(d["checked"] is not None for d in checked["decisions"])
    for bare, full in zip(first["decisions"], checked["decisions"], strict=True):
        if full["checked"] is None:
            assert bare["moves"] == full["moves"]


class _Scripted:
    """A stand-in for the analysis's searcher in the re-search: each iteration of the move it searches alone draws
    one sampled deal from the round's ``worlds`` and wins it where the deal's draw is under the move's ``RATES``
    entry, so two moves searched over the same deals differ deal by deal by exactly their rates' gap."""

    RATES: ClassVar[dict[int, float]] = {}

    def __init__(self, game: motley.Game, **options: object) -> None:
        self.simulations = int(str(options["simulations"]))
        self.tallies: dict[int, _Tally] = {}
        self.worlds: random.Random | None = None
        self.so_far: object = None
        self.root_move: int | None = None

    def act(self, observation: object, legal: list[int], rng: random.Random) -> int:
        assert self.worlds is not None and self.root_move is not None
        rate = self.RATES[self.root_move]
        draws = [self.worlds.random() for _ in range(self.simulations)]
        self.tallies[self.root_move] = _tally([float(u < rate) for u in draws], [0.0] * len(draws))
        return self.root_move


def _scripted_check(monkeypatch: pytest.MonkeyPatch, rates: dict[int, float], rivals: list[int],
                    seed: str = "s") -> tuple[int, dict[int, _Estimate], list[int]]:
    """The re-search (:func:`_check`) of move 0 played against ``rivals``, each winning at its ``rates`` entry."""
    monkeypatch.setattr(analysis, "_AnalysisSearch", _Scripted)
    monkeypatch.setattr(_Scripted, "RATES", rates)
    game = motley.load_game("fool(players=4,rounds=1)")
    state = game.new_initial_state(seed=3)
    decision = decision_at(state, state.current_player(), state.legal_actions()[0])
    return _check(game, decision, searcher_spec(game, 500), seed, 0, rivals, "win", 0.0)


def test_a_cost_near_a_mark_s_line_is_searched_past_the_old_cap_and_one_out_of_reach_stops_early(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The rounds go where a mark is in the balance: a rival winning 6.5 more deals in a hundred than the played
    move (the line 5, a round's error about 2.2) is still in its noise after 9 rounds and searched on until it is
    out of it; one winning 4 more, whose mark is out of reach, stops within a few rounds from :data:`CHECK_FUTILE`,
    where the test of its absence alone (1.96 errors under the line) would not have; a clear 20 stops at once."""
    rounds, estimates, _ = _scripted_check(monkeypatch, {0: 0.40, 1: 0.465}, [1])
    cost, se = _paired(estimates, 1, 0, "win")
    assert 9 < rounds <= CHECK_MAX_ROUNDS
    assert _verdict(estimates, 0, 0.0)[1] == ("inaccuracy" if cost - z_mark(rounds) * se > INACCURACY else None)
    rounds, estimates, _ = _scripted_check(monkeypatch, {0: 0.40, 1: 0.44}, [1])
    cost, se = _paired(estimates, 1, 0, "win")
    assert CHECK_FUTILE <= rounds < 9 and _verdict(estimates, 0, 0.0)[1] is None
    assert cost + Z * se >= INACCURACY  # the test of its absence alone had not settled it
    rounds, estimates, _ = _scripted_check(monkeypatch, {0: 0.40, 1: 0.60}, [1])
    cost, se = _paired(estimates, 1, 0, "win")
    assert rounds < CHECK_FUTILE and _verdict(estimates, 0, 0.0)[1:3] == (_level_of(cost, se), "win")


def test_near_equals_before_the_best_in_the_game_s_order_are_searched_and_the_first_of_them_is_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At a marked decision, the moves the first search could not tell from the move called best and that come before
    it in the game's order are searched over the re-search's deals: the first of them the re-search cannot tell from
    the best is named best (another seed, whose re-search called another near-equal best, names the same), one
    clearly worse is searched no more and not named, and a decision with no such near-equal keeps its best."""
    monkeypatch.setattr(analysis, "_AnalysisSearch", _Scripted)
    game = motley.load_game("fool(players=4,rounds=1)")
    state = game.new_initial_state(seed=3)
    legal = sorted(state.legal_actions())
    played, tie, worse, best = legal[:4]
    decision = decision_at(state, state.current_player(), played)
    spec = searcher_spec(game, 500)

    def named(rates: dict[int, float], choice: int) -> tuple[int, dict[int, _Estimate]]:
        monkeypatch.setattr(_Scripted, "RATES", rates)
        first = {m: {"win": rates[m], "win_se": 0.05, "points": 0.0, "points_se": 0.0, "enough": True}
                 for m in (played, tie, worse, best)}
        estimates = _check(game, decision, spec, "s", played, [choice], "win", 0.0)[1]
        return _ties(game, decision, spec, "s", first, estimates, choice, "win"), estimates

    rates = {played: 0.30, tie: 0.60, worse: 0.52, best: 0.60}
    choice, estimates = named(rates, best)
    assert choice == tie and len(estimates[worse].rounds) == 1  # clearly worse after one round: searched no more
    assert _paired(estimates, tie, best, "win")[0] == 0.0  # the same deals: the two near-equals tell nothing apart
    assert named(rates, tie)[0] == tie  # the seed whose re-search called the first of them best: the same
    assert named({**rates, tie: 0.52}, best)[0] == best  # no near-equal before it: it stays


def test_a_near_tied_best_is_named_the_same_whichever_the_first_search_ranked_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two rivals the first search could not tell apart are both searched again; where the re-search cannot tell
    them apart either, the move called best is the first of them in the game's order, whichever was searched as
    the rival, and the other is named as good; a rival the other clearly leads is searched no more."""
    named = set()
    for rivals in ([1, 2], [2, 1]):
        rounds, estimates, kept = _scripted_check(monkeypatch, {0: 0.30, 1: 0.551, 2: 0.55}, rivals)
        assert sorted(kept) == [0, 1, 2] and all(len(estimates[m].rounds) == rounds for m in kept)
        choice, mark, on, _ = _verdict(estimates, 0, 0.0, kept)
        assert (mark, on) == ("mistake", "win")
        named.add(choice)
    assert named == {1}  # 1 leads by a tenth of a deal in a hundred: not told apart; the first in order is named
    rounds, estimates, kept = _scripted_check(monkeypatch, {0: 0.40, 1: 0.465, 2: 0.30}, [2, 1])
    assert kept == [0, 1] and len(estimates[2].rounds) == 1 < rounds
    assert _verdict(estimates, 0, 0.0, kept)[0] == 1


def test_the_first_in_order_of_the_moves_the_first_search_cannot_tell_from_the_rival_is_searched_again_with_it(
        ) -> None:
    """Where the first search cannot tell the rival from other moves that may lead the played one, the first of them
    in the game's order is searched again with it (another seed's first search, ranking the near-equals its own
    way, searches it too); not where the rival comes first, nor a move clearly behind or unable to lead."""
    def row(action: int, win: float, se: float = 0.02) -> dict[str, object]:
        return {"action": action, "visits": 200, "win": win, "win_se": se, "points": 0.0, "points_se": 0.0}

    played = row(0, 0.30)
    assert _rivals([played, row(3, 0.50), row(2, 0.48), row(1, 0.46), row(4, 0.40)], played, 0.0) == ([3, 1], "win")
    assert _rivals([played, row(1, 0.50), row(2, 0.48)], played, 0.0) == ([1], "win")  # the rival comes first
    assert _rivals([played, row(3, 0.50), row(1, 0.40)], played, 0.0) == ([3], "win")  # clearly behind the rival
    level = row(0, 0.47, 0.01)
    assert _rivals([level, row(3, 0.50, 0.01), row(1, 0.49, 0.01)], level, 0.0) == ([3], "win")  # 1 may not lead it
