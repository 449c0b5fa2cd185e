"""``motley analyse``: the analysis of one seat's decisions in a record by the search ``best`` plays.

The engine is :mod:`motley.bots.analysis` (what each figure is, how a decision is marked); this command reads the
record, checks every argument before any search, shows a progress bar on stderr and prints a Rich table of the
decisions, the marked ones with their reasons and the seat's summary, or with ``--json`` the whole analysis (every
estimate of every legal move).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from motley.cli.common import JsonOpt, checked, console, errors, print_json

#: How the table writes a mark.
_MARK_STYLE = {"mistake": "[bold red]mistake[/]", "inaccuracy": "[yellow]inaccuracy[/]"}


def analyse(
    record: Annotated[Path, typer.Argument(help="A game record (JSON): 'play --save', a server table's "
                                                "record, one record of 'simulate --records'.")],
    seat: Annotated[int, typer.Option(help="The seat analysed (0 = first).")] = 0,
    simulations: Annotated[int | None, typer.Option(
        min=1, help="Search iterations per decision (default: the analysis's budget, about a minute for one seat "
                    "of a 5-player match on one core).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the searches: same seed, same analysis.")] = 0,
    workers: Annotated[int, typer.Option(min=0, help="Processes (0 = one per core); the analysis does not "
                                                    "depend on it.")] = 1,
    as_json: JsonOpt = False,
) -> None:
    """Review one seat's decisions of a recorded match with the strongest bot's search: each decision with more
    than one legal move, every legal move's estimated win chance and points, the move played, the search's choice,
    the cost, and the decisions marked as inaccuracies or mistakes; then the seat's summary."""
    import motley
    from motley.bots import analysis

    def read() -> tuple[str, motley.Game, list[analysis.Decision]]:
        text = motley.records.read_file(record)
        game, found = analysis.decisions(text, seat)
        analysis.searcher_spec(game, simulations)
        return text, game, found

    text, game, found = checked(read)
    processes = workers if workers > 0 else (os.cpu_count() or 1)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(f"seat {seat}"), BarColumn(), MofNCompleteColumn(), TextColumn("decisions"),
                  TimeRemainingColumn(), console=errors, disable=as_json) as bar:
        task = bar.add_task("analyse", total=len(found))
        result = checked(lambda: analysis.analyse_record(
            text, seat, simulations=simulations, seed=seed, workers=processes,
            progress=lambda done, total: bar.update(task, completed=done)))
    if as_json:
        print_json(result)
        return
    print_analysis(game, result)


def print_analysis(game: Any, result: dict[str, Any]) -> None:
    """The analysis as a Rich table (one row per decision), the reasons of the marked decisions and the summary."""
    from rich.table import Table

    console.print(f"[bold]{escape(game.title)}[/] — {escape(result['game'])}: seat {result['seat']}, searched by "
                  f"{escape(result['searcher'])}, seed {result['seed']}")
    table = Table(title="Win chance of the deal (95% interval) and expected points of the deal, by the search")
    for name, justify in (("move", "right"), ("deal", "right"), ("played", "left"), ("win", "right"),
                          ("points", "right"), ("search's choice", "left"), ("win", "right"), ("points", "right"),
                          ("cost", "right"), ("mark", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for d in result["decisions"]:
        rows = {r["move"]: r for r in d["moves"]}
        played, best = rows[d["played"]], rows[d["choice"]]
        table.add_row(str(d["index"] + 1), str(d["deal"] + 1), escape(d["played_words"]), _win(played),
                      f"{played['points']:+.1f}", escape(d["choice_words"]), _win(best), f"{best['points']:+.1f}",
                      f"{d['cost']['win']:+.0%} / {d['cost']['points']:+.1f}", _MARK_STYLE.get(d["mark"] or "", ""))
    console.print(table)
    for d in result["decisions"]:
        if d["mark"] is not None:
            console.print(f"move {d['index'] + 1}: {escape(d['why'])}", soft_wrap=True)
    s = result["summary"]
    console.print(f"Seat {result['seat']}: {s['decisions']} decisions reviewed, {s['agreed']} as the search chose; "
                  f"{s['marked']} marked ({_count(s['mistakes'], 'mistake')}, "
                  f"{_count(s['inaccuracies'], 'inaccuracy', 'inaccuracies')}), which cost "
                  f"{s['win_lost']:.0%} win chance and {s['points_lost']:.1f} points by the estimate.",
                  soft_wrap=True)


def _win(row: dict[str, Any]) -> str:
    """A move's win chance with its 95% interval: ``"42% (35-49)"``."""
    return f"{row['win']:.0%} ({row['win_low'] * 100:.0f}-{row['win_high'] * 100:.0f})"


def _count(n: int, one: str, many: str = "") -> str:
    """``"1 mistake"``, ``"2 mistakes"``."""
    return f"{n} {one if n == 1 else many or one + 's'}"
