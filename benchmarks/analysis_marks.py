"""Do the analysis's marks hold? Each decision analysed at two seeds; the marked ones once more at ten times the budget.

For each game, matches of a mixed lineup (``--lineup``: the bots, comma-separated, dealt round the seats, shifted by
one seat per match; by default random play, the heuristic and a short ISMCTS, lineups the analysis was never tuned
on) are played from seed ``--base`` on, and every decision of every seat with more than one legal move is analysed by
:func:`motley.bots.analysis.evaluate` at ``--simulations`` with seed ``"a:{match}:{index}"`` and again with
``"b:{match}:{index}"``. A game's matches go on until ``--marks`` decisions are marked at the first seed (or
``--matches`` matches are played). Printed per game and for all games together:

* **marked again**: of the decisions marked at the first seed, the share marked (any mark) at the second; of those
  marked a mistake, the share marked again (any mark) and the share marked a mistake again;
* **confirmed**: of the decisions marked at the first seed, the share whose cost a deeper search confirms: the move
  played and the move called best each searched alone (every iteration begins with it) with ten times the budget
  (seed ``"deep:{match}:{index}"``), the cost in what the mark is on (win chance; points, in the decision's
  standard deviations of points; either for a mark that does not say) at least the inaccuracy threshold; and of
  the mistakes, the share whose deeper cost is at least that threshold and the share at least the mistake threshold;
* **same best**: of the decisions marked at the first seed, the share whose move called best (``choice``) is the same
  at the second seed, the share where the two seeds' moves called best or as good (``as_good``) meet, the share
  whose move called best at the second seed is one the first named (best or as good: the claim made holds), and
  the share of marks naming one best move; of the mistakes, the share whose ``choice`` is the same; and of all
  decisions, the share whose ``choice`` is the same (the search's stability);
* **searched again**: of the decisions marked at the first seed, the share searched again at the second (the gate
  let it through); of all decisions, the share searched again before a mark, and their rounds on average;
* **coverage**: of every move shown in both runs with at least 2 iterations in each, the share whose two estimates
  of the win chance differ by at most 1.96 of their combined standard errors (0.95 when honest), for the moves the
  analysis says were searched enough (``enough``; all moves for an analysis without the field) and, apart, for
  the thin ones (under 30 iterations);
* seconds per decision of the first run (the machine's load counts: compare runs made together).

``--quick`` analyses at the second seed only the decisions marked at the first and searches none deeper: it gives
marked again, the same best and the re-search's rounds (not the confirmation, the coverage or the same best of all
decisions) for about a third of the time, so several times the marks in the same time (``--marks 150``); its
``--details`` lines are of the decisions marked at the first seed.

``--details PATH`` writes one JSON line per decision marked at either seed (the game, match, record index, and at
each seed the mark, what it is on, the move called best and those as good, the cost and the re-search's rounds), to
see which kinds of decision are not marked again.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_marks.py
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_marks.py fools_errand --marks 20 --json marks.json
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_marks.py --quick --marks 150 --matches 200
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import motley
from motley.bots import analysis, make_bot
from motley.bots.analysis import DEFAULT_SIMULATIONS, Decision, decisions, evaluate, searcher_spec
from motley.core.play import play_match

GAMES = ("fools_errand", "fool(players=5,rounds=1)", "foolery(players=4,hands=1)")
LINEUP = "random,heuristic,ismcts(simulations=100)"
THIN = 30


@dataclass
class Tally:
    """The counts of one game (or of all)."""

    game: str
    quick: bool = False  # the second seed only where the first marks, no deeper search (--quick)
    decisions: int = 0
    seconds: float = 0.0
    marked: int = 0
    mistakes: int = 0
    marked_again: int = 0
    mistake_again: int = 0
    mistake_marked_again: int = 0  # mistakes at the first seed marked (any mark) at the second
    confirmed: int = 0
    mistake_confirmed: int = 0
    mistake_confirmed_mark: int = 0  # mistakes whose deeper cost is at least a mark's threshold
    mistake_best_same: int = 0  # mistakes whose move called best is the same at the second seed
    best_same_marked: int = 0
    best_as_good_marked: int = 0
    best_same_all: int = 0
    claim_held: int = 0  # marked: the move called best at the second seed is one the first named (best or as good)
    claim_single: int = 0  # marked: the first seed named one best move (no move as good)
    searched_again: int = 0  # marked: the decision was searched again at the second seed (the gate let it through)
    checked: int = 0  # decisions searched again before a mark at the first seed
    check_rounds: int = 0  # their rounds of the re-search
    covered: list[int] = field(default_factory=lambda: [0, 0])  # [inside, moves] of the moves searched enough
    covered_thin: list[int] = field(default_factory=lambda: [0, 0])
    covered_checked: list[int] = field(default_factory=lambda: [0, 0])  # moves re-searched before a mark

    def add(self, other: Tally) -> None:
        for key, value in asdict(other).items():
            if isinstance(value, list):
                mine = getattr(self, key)
                mine[0], mine[1] = mine[0] + value[0], mine[1] + value[1]
            elif key == "quick":
                self.quick = self.quick or value
            elif isinstance(value, (int, float)):
                setattr(self, key, getattr(self, key) + value)


def share(part: int, whole: int) -> str:
    """``part/whole`` as a share with its Wilson 95% interval."""
    if not whole:
        return "   -   "
    p, z = part / whole, 1.96
    centre = (p + z * z / (2 * whole)) / (1 + z * z / whole)
    half = z * math.sqrt(p * (1 - p) / whole + z * z / (4 * whole * whole)) / (1 + z * z / whole)
    return f"{p:.2f} [{max(0.0, centre - half):.2f}-{min(1.0, centre + half):.2f}] ({part}/{whole})"


def cover(tally: Tally, first: dict[str, Any], second: dict[str, Any]) -> None:
    """Add the standardised differences of the two runs' win chances of every move (module docstring)."""
    again = {m["move"]: m for m in second["moves"]}
    for move in first["moves"]:
        other = again[move["move"]]
        if min(move["visits"], other["visits"]) < 2:
            continue
        se = math.hypot(move["win_se"], other["win_se"])
        inside = int(abs(move["win"] - other["win"]) <= 1.96 * se + 1e-9)
        if move.get("checked") and other.get("checked"):
            bucket = tally.covered_checked
        elif move.get("enough", min(move["visits"], other["visits"]) >= THIN) and other.get("enough", True):
            bucket = tally.covered
        else:
            bucket = tally.covered_thin
        bucket[0] += inside
        bucket[1] += 1


def deep_cost(game: motley.Game, d: Decision, spec: str, seed: str, result: dict[str, Any]) -> tuple[float, float]:
    """The cost in win chance and in points (in the decision's standard deviations) of the played move against the
    move called best, each searched alone by the analysis's searcher at ``spec`` (module docstring)."""
    rows = {m["move"]: m for m in result["moves"]}
    out = []
    for move in (result["choice"], result["played"]):
        searcher = analysis._searcher(game, spec)
        searcher.so_far, searcher.root_move = d.so_far, rows[move]["action"]
        searcher.act(d.observation, list(d.legal), random.Random(seed))
        tally = searcher.tallies[rows[move]["action"]]
        out.append((tally.win / tally.n, tally.points / tally.n))
    sd = result["cost"]["points_sd"] or 1.0
    return out[0][0] - out[1][0], (out[0][1] - out[1][1]) / sd


def confirmed(result: dict[str, Any], win: float, points: float, mistake: bool = False) -> bool:
    """Whether the deeper costs confirm a mark (module docstring)."""
    on = result.get("mark_on")
    win_ok = win >= (analysis.MISTAKE if mistake else analysis.INACCURACY)
    points_ok = points >= (analysis.POINTS_MISTAKE if mistake else analysis.POINTS_INACCURACY)
    return win_ok if on == "win" else points_ok if on == "points" else win_ok or points_ok


def measure(game_text: str, lineup: list[str], simulations: int, marks: int, matches: int, base: int,
            partial: str | None = None, details: str | None = None, quick: bool = False) -> Tally:
    """The counts of one game (module docstring); with ``partial``, the figures so far written there (JSON) after
    each match, for a run stopped before its end; with ``details``, a line per decision marked at either seed; with
    ``quick``, the second seed only for the decisions marked at the first, and no deeper search."""
    game = motley.load_game(game_text)
    spec, deep = searcher_spec(game, simulations), searcher_spec(game, 10 * simulations)
    tally = Tally(game_text, quick)
    for match in range(base, base + matches):
        if tally.marked >= marks:
            break
        bots = [make_bot(lineup[(seat + match) % len(lineup)], game) for seat in range(game.num_players)]
        record = motley.records.dump(play_match(game, bots, match))
        for seat in range(game.num_players):
            for d in decisions(record, seat)[1]:
                began = time.process_time()
                first = evaluate(game, d, spec, f"a:{match}:{d.index}")
                tally.seconds += time.process_time() - began
                tally.decisions += 1
                if first.get("checked"):
                    tally.checked += 1
                    tally.check_rounds += first["checked"]["rounds"]
                if quick and first["mark"] is None:
                    continue
                second = evaluate(game, d, spec, f"b:{match}:{d.index}")
                if not quick:  # figures of every decision: a quick run has the second seed of the marked ones only
                    tally.best_same_all += first["choice"] == second["choice"]
                    cover(tally, first, second)
                if details and (first["mark"] or second["mark"]):
                    detail(details, game_text, match, first, second)
                if first["mark"] is None:
                    continue
                tally.marked += 1
                tally.marked_again += second["mark"] is not None
                tally.best_same_marked += first["choice"] == second["choice"]
                called = {first["choice"], *first.get("as_good", [])}
                tally.claim_held += second["choice"] in called
                tally.claim_single += not first.get("as_good")
                tally.searched_again += second.get("checked") is not None
                tally.best_as_good_marked += bool(called & {second["choice"], *second.get("as_good", [])})
                if first["mark"] == "mistake":
                    tally.mistakes += 1
                    tally.mistake_again += second["mark"] == "mistake"
                    tally.mistake_marked_again += second["mark"] is not None
                    tally.mistake_best_same += first["choice"] == second["choice"]
                if quick:
                    continue
                win, points = deep_cost(game, d, deep, f"deep:{match}:{d.index}", first)
                tally.confirmed += confirmed(first, win, points)
                tally.mistake_confirmed += first["mark"] == "mistake" and confirmed(first, win, points, True)
                tally.mistake_confirmed_mark += first["mark"] == "mistake" and confirmed(first, win, points)
        print(f"  {game_text} match {match}: {tally.decisions} decisions, {tally.marked} marked", flush=True)
        if partial:
            with open(partial, "w", encoding="utf-8") as stream:
                json.dump(summary(tally), stream, indent=1)
    return tally


def detail(path: str, game_text: str, match: int, first: dict[str, Any], second: dict[str, Any]) -> None:
    """Append one decision's two analyses, in short, to ``path`` (JSON lines; module docstring)."""
    keys = ("mark", "mark_on", "played", "choice", "as_good", "cost", "checked")
    line = {"game": game_text, "match": match, "index": first["index"],
            "a": {k: first[k] for k in keys}, "b": {k: second[k] for k in keys}}
    with open(path, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(line) + "\n")


#: The figures a ``--quick`` run does not measure.
NOT_QUICK = ("confirmed at 10x the budget", "mistakes confirmed at 10x", "mistakes confirmed as mistakes at 10x",
             "same best at another seed (all)", "coverage, moves searched enough",
             "coverage, moves re-searched before a mark", "coverage, thin moves")


def summary(t: Tally) -> dict[str, Any]:
    """One game's figures (module docstring) as shares with their 95% intervals (those ``--quick`` measures, for a
    quick run)."""
    shares = _shares(t)
    if t.quick:
        shares = {key: value for key, value in shares.items() if key not in NOT_QUICK}
    return {"game": t.game, **asdict(t), "shares": shares}


def _shares(t: Tally) -> dict[str, str]:
    return {
        "marked again at another seed": share(t.marked_again, t.marked),
        "mistakes marked again at another seed": share(t.mistake_marked_again, t.mistakes),
        "mistakes marked a mistake again": share(t.mistake_again, t.mistakes),
        "confirmed at 10x the budget": share(t.confirmed, t.marked),
        "mistakes confirmed at 10x": share(t.mistake_confirmed_mark, t.mistakes),
        "mistakes confirmed as mistakes at 10x": share(t.mistake_confirmed, t.mistakes),
        "same best at another seed (marked)": share(t.best_same_marked, t.marked),
        "same best at another seed (mistakes)": share(t.mistake_best_same, t.mistakes),
        "best, or one called as good, shared (marked)": share(t.best_as_good_marked, t.marked),
        "best at another seed among those named (marked)": share(t.claim_held, t.marked),
        "one move named best (marked)": share(t.claim_single, t.marked),
        "searched again at another seed (marked)": share(t.searched_again, t.marked),
        "same best at another seed (all)": share(t.best_same_all, t.decisions),
        "searched again before a mark (all)": share(t.checked, t.decisions),
        "rounds per decision searched again": f"{t.check_rounds / max(t.checked, 1):.2f}",
        "coverage, moves searched enough": share(*t.covered),
        "coverage, moves re-searched before a mark": share(*t.covered_checked),
        "coverage, thin moves": share(*t.covered_thin),
        "seconds per decision": f"{t.seconds / max(t.decisions, 1):.3f}",
    }


def report(t: Tally) -> dict[str, Any]:
    """Print and return one game's figures."""
    out = summary(t)
    print(f"\n{t.game}: {t.decisions} decisions, {t.marked} marked ({t.mistakes} mistakes)")
    for key, value in out["shares"].items():
        print(f"  {key:<48} {value}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="do the analysis's marks hold at another seed and a deeper search")
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--lineup", default=LINEUP, help="bots dealt round the seats, comma-separated")
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS)
    parser.add_argument("--marks", type=int, default=35, help="marked decisions per game to reach")
    parser.add_argument("--matches", type=int, default=40, help="matches per game at most")
    parser.add_argument("--base", type=int, default=1000, help="the first match's seed")
    parser.add_argument("--quick", action="store_true", help="the second seed only where the first marks, no deeper "
                                                                 "search (marked again and the same best only)")
    parser.add_argument("--details", default=None, help="append a JSON line per decision marked at either seed here")
    parser.add_argument("--json", default=None, help="write the figures here (and the figures so far after each "
                                                     "match, to PATH.partial)")
    args = parser.parse_args()
    lineup = args.lineup.split(",")
    total, out = Tally("all games"), []
    for game in args.games:
        tally = measure(game, lineup, args.simulations, args.marks, args.matches, args.base,
                        args.json and f"{args.json}.partial", args.details, args.quick)
        out.append(report(tally))
        total.add(tally)
    out.append(report(total))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump(out, stream, indent=1)


if __name__ == "__main__":
    main()
