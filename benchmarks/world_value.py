"""What knowing the hidden cards would be worth to ISMCTS: a ceiling for inference from play.

One seat plays ISMCTS against heuristics in the other seats, every deal played once per seating (duplicate
deals). The rows differ only in where the searcher's determinizations come from:

* ``uniform``: the game's sampler (the bot as it plays in a game);
* ``inferred``: the same bot with ``infer_chain=2`` (worlds that fit the other seats' plays);
* ``true``: clones of the true deal -- a seat that sees every hand, not a fair player, the ceiling;
* ``true-late`` / ``true-early``: the true deal only while the seat holds at most / more than ``--hand``
  cards, the game's sampler otherwise (which half of the round the knowledge pays in).

Win share of the searching seat (shared wins split) per row with 95% intervals over deals, its mean points
beside the heuristics', and each row's paired difference from the first row over the same deals.

    .venv/bin/python benchmarks/world_value.py --deals 40 --workers 2
    .venv/bin/python benchmarks/world_value.py --bot "ismcts(simulations=1000,points=0.5)" --rows uniform,true
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import motley
from motley.bots import BotSpec, make_bot
from motley.bots.ismcts import ISMCTSBot
from motley.core import Observation, State
from motley.core.play import play
from motley.core.rewards import outcome_shares
from motley.eval.simulate import game_seed
from motley.eval.stats import figure

ROWS = ("uniform", "inferred", "true", "true-late", "true-early")


class SeeingISMCTS(ISMCTSBot):
    """ISMCTS whose determinizations are the true deal (``truth``, set before each decision) where ``sees``
    says so for the seat's hand size, else the game's sampler."""

    def __init__(self, game: motley.Game, sees: Callable[[int], bool], **options: Any) -> None:
        super().__init__(game, **options)
        self.sees = sees
        self.truth: State | None = None

    def _sampler(self, observation: Observation) -> Callable[[random.Random], State]:
        truth = self.truth
        if truth is None or not self.sees(_hand_size(observation)):
            return super()._sampler(observation)
        return lambda rng: truth.clone()


def _hand_size(observation: Observation) -> int:
    return len(observation["hand"])


def make_searcher(game: motley.Game, bot: str, row: str, hand: int) -> SeeingISMCTS:
    """The searching seat of ``row`` (module docstring), from the ``ismcts(...)`` spec ``bot``."""
    parsed = BotSpec.parse(bot)
    options: dict[str, Any] = dict(parsed.options)
    if parsed.kind != "ismcts":
        raise SystemExit(f"--bot must be an ismcts(...) spec, got {bot!r}")
    if row == "inferred":
        options = {**options, "infer_chain": 2}
    sees: dict[str, Callable[[int], bool]] = {
        "uniform": lambda size: False, "inferred": lambda size: False, "true": lambda size: True,
        "true-late": lambda size: size <= hand, "true-early": lambda size: size > hand,
    }
    return SeeingISMCTS(game, sees[row], **options)


def play_one(job: tuple[str, str, str, int, int, int, int]) -> tuple[str, int, float, float, float]:
    """One game: ``(game spec, bot, row, hand, deal seed, deal, searching seat)`` ->
    ``(row, deal, win share, points, the others' mean points)`` of the searching seat."""
    spec, bot, row, hand, seed, deal, me = job
    game = motley.load_game(spec)
    searcher = make_searcher(game, bot, row, hand)
    heuristic = make_bot("heuristic", game)
    state = game.new_initial_state(seed=seed)
    searcher.truth = state  # played on in place: at each decision it is the deal as it stands
    players = [searcher if seat == me else heuristic for seat in range(game.num_players)]
    play(state, players, random.Random(seed ^ 0x5EED))  # the players' generator of core.play.play_match
    return (row, deal, *seat_result(state, me))


def seat_result(state: State, me: int) -> tuple[float, float, float]:
    """Of a finished game: seat ``me``'s win share (shared wins split), its points and the others' mean points."""
    shares, _ = outcome_shares(state.returns())
    scores = state.scores()
    others = [s for i, s in enumerate(scores) if i != me]
    return shares[me], float(scores[me]), sum(others) / len(others)


def report(rows: Sequence[str], results: Sequence[tuple[str, int, float, float, float]], label: str = "worlds") -> None:
    """Print each row's figures and its paired difference from the first row (over the deals both played), as a
    Markdown table whose first column is headed ``label``; ``results`` as :func:`play_one` returns them."""
    per: dict[str, dict[int, list[tuple[float, float, float]]]] = {r: {} for r in rows}
    for row, deal, share, points, others in results:
        per[row].setdefault(deal, []).append((share, points, others))

    def unit_shares(row: str) -> dict[int, float]:
        return {d: sum(g[0] for g in games) / len(games) for d, games in per[row].items()}

    base = unit_shares(rows[0])
    print(f"| {label} | deals | win share (95% CI) | paired vs first row | mean points | the others' |")
    print("| --- | ---: | --- | --- | ---: | ---: |")
    for row in rows:
        units = unit_shares(row)
        win = figure(list(units.values()))
        games = [g for deal_games in per[row].values() for g in deal_games]
        pts = sum(g[1] for g in games) / len(games)
        others = sum(g[2] for g in games) / len(games)
        paired = ""
        if row != rows[0]:
            diff = figure([units[d] - base[d] for d in units if d in base])
            paired = f"{diff['mean']:+.3f} [{diff['ci'][0]:+.3f}, {diff['ci'][1]:+.3f}]"
        print(f"| {row} | {len(units)} | {win['mean']:.3f} [{win['ci'][0]:.3f}, {win['ci'][1]:.3f}] | {paired} "
              f"| {pts:.2f} | {others:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description="ISMCTS with the true deal against its sampled worlds")
    parser.add_argument("--game", default="fool(players=5,rounds=1)")
    parser.add_argument("--bot", default="ismcts(simulations=1000,points=0.5)")
    parser.add_argument("--rows", default="uniform,true,true-late,true-early")
    parser.add_argument("--hand", type=int, default=7, help="hand size splitting early and late (true-late/early)")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",")]
    if unknown := [r for r in rows if r not in ROWS]:
        raise SystemExit(f"unknown rows {unknown}; choose from {', '.join(ROWS)}")
    players = motley.load_game(args.game).num_players
    jobs = [(args.game, args.bot, row, args.hand, game_seed(args.seed, deal), deal, me)
            for row in rows for deal in range(args.deals) for me in range(players)]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(play_one, jobs, chunksize=4))
    print(f"{args.game}, one seat {args.bot} against heuristics, {args.deals} deals x {players} seatings")
    report(rows, results)


if __name__ == "__main__":
    main()
