"""Calibration of the analysis's win chance: over decisions of bot and random matches of each game, the win chance
the analysis gives the move played, binned against whether the seat then won the deal.

For each game and each lineup (``heuristic``: the heuristic at every seat; ``random``: random play; a mixed table
as its bots joined by ``+``, dealt to the seats in order and shifted by one seat per match, such as
``ismcts(simulations=300)+ismcts(simulations=300)+heuristic+heuristic+random``: :data:`MIXED`), ``--matches``
matches are played from seed ``--first`` (0) on; in each, up to ``--per-match`` decisions with more than one legal move
(drawn at random among all the seats' decisions, the same for a seed) are analysed at ``--simulations`` per decision
(default: the analysis's budget) by :func:`motley.bots.analysis.evaluate`. The outcome of a decision is the seat's
share of the win of the deal it was made in (1 for the highest score gain over the deal, ``1/k`` when ``k`` seats
share it, else 0): what the estimate predicts. Printed per game and lineup: the reliability table (ten bins of the
estimate: decisions, mean estimate, mean outcome), the expected calibration error (the decision-weighted mean of
``|mean estimate - mean outcome|`` over the bins) and the Brier score (mean squared difference of estimate and
outcome), with the Brier score of the base rate (every decision given the mean outcome) beside it, and the 95%
interval of the ECE by a bootstrap over the matches (a match's decisions drawn together: the decisions of one deal
share its outcome, so a bootstrap over the decisions would be too narrow); at a mixed table, the same again for the
decisions of each bot of the lineup. Few decisions from many matches (``--per-match 5``) weigh the bins with more
independent outcomes than many from few. ``--tables 2,3`` runs only those of the mixed tables; ``--json PATH``
writes every (estimate, outcome), its match and the bot that made the decision. ``--options
key=value,...`` runs the analysis's searcher with other ISMCTS options (``infer_trust=fixed``: ``best``'s;
``seat_model=learned``: each seat played by its share of random moves learned from its play), to measure a change at
the same seeds. ``--coverage`` analyses each decision a second time with other seeds and prints,
for the move played and the search's choice, the share of the two runs' differences within 1.96 of their standard
errors (0.95 when the analysis's intervals are honest) and the median (0.67). ``--plot PATH`` draws the reliability
diagrams with matplotlib (the ``report`` extra). ``--mixed`` runs the mixed tables of :data:`MIXED_TABLES` (Fool! at
5 seats of two searchers, two heuristics and a random player; Foolery at 4 of a searcher, two heuristics and a random
player; The Fool's Errand of a searcher against a random player, and against a heuristic) in place of the games and
lineups. Results: docs/reports/README.md.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_calibration.py
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_calibration.py --matches 60 --plot calib.png
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_calibration.py "foolery(hands=1)" --options infer_trust=fixed
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_calibration.py "fool(players=5,rounds=1)" \
        --lineups "ismcts(simulations=300)+ismcts(simulations=300)+heuristic+heuristic+random" --matches 40
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_calibration.py --mixed --matches 100 --first 12000
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_calibration.py --mixed --matches 100 --first 12000 \
        --options seat_model=learned --json learned.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import motley
from motley.bots import make_bot
from motley.bots.analysis import DEFAULT_SIMULATIONS, decisions, evaluate, searcher_spec
from motley.bots.spec import parse_bot_spec
from motley.core.play import play_match

BINS = 10
GAMES = ("fools_errand", "fool(players=5,rounds=1)", "foolery(players=5,hands=1)")
LINEUPS = ("heuristic", "random")
#: Mixed tables (the issue's): two searchers, two heuristics and a random player; the bots of a lineup joined by "+".
MIXED = "ismcts(simulations=300)+ismcts(simulations=300)+heuristic+heuristic+random"
#: ``--mixed``: each game at a mixed table of its size (a searcher, heuristics and a random player; The Fool's
#: Errand, of two seats, a searcher against a random player and against a heuristic).
MIXED_TABLES = (("fool(players=5,rounds=1)", MIXED),
                ("foolery(players=4,hands=1)", "ismcts(simulations=300)+heuristic+heuristic+random"),
                ("fools_errand", "ismcts(simulations=300)+random"),
                ("fools_errand", "ismcts(simulations=300)+heuristic"))


@dataclass
class Calibration:
    """Pairs of (estimate, outcome) of one game and lineup."""

    game: str
    lineup: str
    pairs: list[tuple[float, float]] = field(default_factory=list)
    #: Per pair: the match (its seed) it was made in, and the bot that made the decision (the seat's spec).
    matches: list[int] = field(default_factory=list)
    makers: list[str] = field(default_factory=list)
    #: ``--coverage``: per move compared, |difference of two runs| / its standard error, for the win and the points.
    z_win: list[float] = field(default_factory=list)
    z_points: list[float] = field(default_factory=list)

    def table(self) -> list[tuple[float, float, int, float, float]]:
        """Per non-empty bin: (low, high, decisions, mean estimate, mean outcome)."""
        rows = []
        for b in range(BINS):
            low, high = b / BINS, (b + 1) / BINS
            inside = [(p, o) for p, o in self.pairs if low <= p < high or (b == BINS - 1 and p == 1.0)]
            if inside:
                rows.append((low, high, len(inside), sum(p for p, _ in inside) / len(inside),
                             sum(o for _, o in inside) / len(inside)))
        return rows

    def ece(self) -> float:
        """Expected calibration error over :data:`BINS` equal-width bins."""
        n = len(self.pairs)
        return sum(count * abs(p - o) for _, _, count, p, o in self.table()) / max(n, 1)

    def ece_interval(self, resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
        """The 95% percentile interval of the ECE, by bootstrap over the matches (``resamples`` draws): a match's
        decisions are drawn together, as they share their deals' outcomes (a bootstrap over the decisions would
        take them as independent and be too narrow)."""
        rng = random.Random(seed)
        by_match: dict[int, list[tuple[float, float]]] = {}
        for pair, match in zip(self.pairs, self.matches or range(len(self.pairs)), strict=False):
            by_match.setdefault(match, []).append(pair)
        groups = list(by_match.values())
        draws = sorted(Calibration(self.game, self.lineup,
                                   [p for g in rng.choices(groups, k=len(groups)) for p in g]).ece()
                       for _ in range(resamples))
        return draws[int(0.025 * resamples)], draws[min(resamples - 1, int(0.975 * resamples))]

    def of_maker(self, maker: str) -> Calibration:
        """The pairs of the decisions ``maker`` made."""
        keep = [i for i, m in enumerate(self.makers) if m == maker]
        return Calibration(self.game, f"{self.lineup} [{maker}]", [self.pairs[i] for i in keep],
                           [self.matches[i] for i in keep], [maker] * len(keep))

    def brier(self) -> tuple[float, float]:
        """The Brier score of the estimates, and of the base rate."""
        n = max(len(self.pairs), 1)
        base = sum(o for _, o in self.pairs) / n
        return (sum((p - o) ** 2 for p, o in self.pairs) / n, sum((base - o) ** 2 for _, o in self.pairs) / n)


def deal_wins(record: str) -> dict[int, list[float]]:
    """Each seat's share of the win of each deal of a record (highest score gain over the deal, the first from 0
    points; ties share)."""
    data = motley.records.read(record)
    state = data.game.new_initial_state(seed=data.seed, deal=data.deal)
    start, deal, out = [0] * data.game.num_players, state.deal_number(), {}
    for _, move in data.moves:
        state.apply_action(state.string_to_action(move))
        if state.is_terminal() or state.deal_number() != deal:
            gains = [b - a for a, b in zip(start, state.scores(), strict=True)]
            top = max(gains)
            k = sum(1 for g in gains if g == top)
            out[deal] = [1.0 / k if g == top else 0.0 for g in gains]
            start, deal = state.scores(), state.deal_number()
    return out


def with_options(spec: str, options: str) -> str:
    """``spec`` with the ``key=value`` pairs of ``options`` (comma-separated) put in its options."""
    parsed = parse_bot_spec(spec)
    merged = {key: str(value) for key, value in parsed.options.items()}
    for pair in filter(None, options.split(",")):
        key, _, value = pair.partition("=")
        merged[key.strip()] = value.strip()
    return str(parse_bot_spec(f"{parsed.kind}({','.join(f'{k}={v}' for k, v in merged.items())})"))


def compare(result: Calibration, first: dict[str, Any], second: dict[str, Any]) -> None:
    """Add to ``result`` the standardised differences between two analyses of one decision (other seeds) of the
    move played and the search's choice, where each run gave the move at least 2 iterations."""
    again = {m["move"]: m for m in second["moves"]}
    for move in first["moves"]:
        other = again[move["move"]]
        if move["move"] not in (first["played"], first["choice"]) or min(move["visits"], other["visits"]) < 2:
            continue
        for key, out in (("win", result.z_win), ("points", result.z_points)):
            se = math.hypot(move[f"{key}_se"], other[f"{key}_se"])
            out.append(abs(move[key] - other[key]) / se if se else 0.0)


def calibrate(game_text: str, lineup: str, matches: int, per_match: int, simulations: int,
              options: str = "", coverage: bool = False, first: int = 0) -> Calibration:
    """The (estimate, outcome) pairs of ``matches`` matches of ``lineup`` in ``game_text`` (module docstring)."""
    game = motley.load_game(game_text)
    spec = with_options(searcher_spec(game, simulations), options)
    result = Calibration(game_text, lineup)
    for seed in range(first, first + matches):
        bots = lineup.split("+")
        final = play_match(game, [make_bot(bots[(s + seed) % len(bots)], game) for s in range(game.num_players)], seed)
        record = motley.records.dump(final)
        wins = deal_wins(record)
        learn = parse_bot_spec(spec).resolved()["seat_model"] == "learned"
        found = [(seat, d) for seat in range(game.num_players) for d in decisions(record, seat, learn=learn)[1]]
        rng = random.Random(seed)
        for seat, d in rng.sample(found, min(per_match, len(found))):
            analysis = evaluate(game, d, spec, f"calibration:{seed}:{d.index}")
            played = next(m for m in analysis["moves"] if m["move"] == analysis["played"])
            result.pairs.append((played["win"], wins[d.deal][seat]))
            result.matches.append(seed)
            result.makers.append(bots[(seat + seed) % len(bots)])
            if coverage:
                compare(result, analysis, evaluate(game, d, spec, f"again:{seed}:{d.index}"))
    return result


def report(result: Calibration, seconds: float, makers: bool = True) -> None:
    """Print one game and lineup's reliability table, ECE and Brier scores (and, at a mixed table, each bot's)."""
    brier, base = result.brier()
    print(f"\n{result.game}, {result.lineup} matches: {len(result.pairs)} decisions, {seconds:.0f} s")
    print(f"{'bin':>10} {'decisions':>9} {'estimate':>8} {'outcome':>8}")
    for low, high, count, p, o in result.table():
        print(f"{low:>4.1f}-{high:<4.1f}  {count:>9} {p:>8.3f} {o:>8.3f}")
    low, high = result.ece_interval()
    print(f"ECE {result.ece():.3f} (95% bootstrap interval {low:.3f}-{high:.3f})  Brier {brier:.3f} "
          f"(base rate {base:.3f})", flush=True)
    for key, zs in (("win chance", result.z_win), ("points", result.z_points)):
        if zs:
            inside = sum(1 for z in zs if z <= 1.96) / len(zs)
            print(f"noise of the {key}: {len(zs)} moves analysed twice, {inside:.3f} of the differences within 1.96 "
                  f"standard errors (0.95 if honest), median {sorted(zs)[len(zs) // 2]:.2f} (0.67)", flush=True)
    kinds = sorted(set(result.makers))
    if makers and len(kinds) > 1:
        for maker in kinds:
            report(result.of_maker(maker), 0.0, makers=False)


def plot(results: Sequence[Calibration], path: str) -> None:
    """Reliability diagrams, one panel per game, a line per lineup."""
    from motley.core.extras import require

    require("matplotlib", "report")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(r.game for r in results))
    figure, axes = plt.subplots(1, len(games), figsize=(4.2 * len(games), 4.2), squeeze=False)
    for axis, game in zip(axes[0], games, strict=True):
        axis.plot([0, 1], [0, 1], color="grey", linestyle=":", label="calibrated")
        for r in (r for r in results if r.game == game):
            rows = r.table()
            axis.plot([p for *_, p, _ in rows], [o for *_, o in rows], marker="o",
                      label=f"{r.lineup} (ECE {r.ece():.2f}, n={len(r.pairs)})")
        axis.set(title=game, xlabel="estimated win chance of the deal", ylabel="share of deals won",
                 xlim=(0, 1), ylim=(0, 1))
        axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"\nWrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description="calibration of the analysis's win chance")
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--lineups", default=",".join(LINEUPS),
                        help="lineups, comma-separated: a bot at every seat, or bots joined by + dealt round the seats")
    parser.add_argument("--matches", type=int, default=20, help="matches per game and lineup")
    parser.add_argument("--per-match", type=int, default=5, help="decisions analysed per match (at most)")
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS)
    parser.add_argument("--plot", default=None, help="write the reliability diagrams (PNG) here")
    parser.add_argument("--coverage", action="store_true",
                        help="analyse each decision again with other seeds and check the estimates' standard errors")
    parser.add_argument("--options", default="", help="searcher options to override, e.g. epsilon=0.3 (measuring)")
    parser.add_argument("--mixed", action="store_true",
                        help="the tables of MIXED_TABLES (each game at its own lineup), not games x lineups")
    parser.add_argument("--first", type=int, default=0, help="the first match's seed (other seeds: other matches)")
    parser.add_argument("--tables", default=None,
                        help="with --mixed: the tables of MIXED_TABLES to run, by index from 0, comma-separated")
    parser.add_argument("--json", default=None, help="write every (estimate, outcome, match, maker) here (JSON)")
    args = parser.parse_args()
    results = []
    runs = list(MIXED_TABLES) if args.mixed else [(g, lineup) for g in args.games for lineup in args.lineups.split(",")]
    if args.mixed and args.tables:
        runs = [runs[int(i)] for i in args.tables.split(",")]
    for game, lineup in runs:
        began = time.perf_counter()
        results.append(calibrate(game, lineup, args.matches, args.per_match, args.simulations,
                                 args.options, args.coverage, args.first))
        report(results[-1], time.perf_counter() - began)
    if args.plot:
        plot(results, args.plot)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump([{"game": r.game, "lineup": r.lineup, "pairs": r.pairs, "matches": r.matches,
                        "makers": r.makers} for r in results], out)


if __name__ == "__main__":
    main()
