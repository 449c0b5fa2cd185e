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
    """The analysis in a narrow layout that reads at 80 columns and when piped: one row per decision (the seat's own
    move number, the deal, the move played and the move called best with the deal's win chance of each), the
    reasons of the marked decisions in sentences, and the summary."""
    from rich import box
    from rich.table import Table

    from motley.bots.analysis import own_actors

    searcher = result.get("searcher_words") or result["searcher"]
    console.print(f"[bold]{escape(game.title)}[/], seat {result['seat']}: reviewed by {escape(searcher)}, "
                  f"seed {result['seed']}.")
    console.print("\"#\": the seat's own move number; \"wins\": the chance of winning the deal the move was made "
                  "in (not the whole match), by the search; \"±\": its 95% margin; \"?\": too few sampled deals to "
                  "judge.")
    own = own_actors(result["decisions"])
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    for name, justify in (("#", "right"), ("deal", "right"), ("played", "left"), ("wins", "right"),
                          ("best found", "left"), ("wins", "right"), ("mark", "left")):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for d in result["decisions"]:
        rows = {r["move"]: r for r in d["moves"]}
        played, best = rows[d["played"]], rows[d["choice"]]
        same = d["played"] == d["choice"]
        table.add_row(str(d.get("number", d["index"] + 1)), str(d["deal"] + 1), escape(d["played_words"]),
                      _win(played), "(the same)" if same else escape(d["choice_words"]), "" if same else _win(best),
                      _mark(d, own))
    console.print(table)
    for d in result["decisions"]:
        if d["mark"] is not None and d.get("actor", "seat") in own:
            console.print(f"{_when(d)}: {escape(d['why'])}")
    console.print(_summary(result))


def _win(row: dict[str, Any]) -> str:
    """A move's win chance of the deal with its 95% margin: ``"42% ±7"``, or ``"3% ?"`` when searched too little."""
    if not row.get("enough", True):
        return f"{_pct(row['win'])} ?"
    margin = round(100 * max(row["win_high"] - row["win"], row["win"] - row["win_low"]))
    return f"{_pct(row['win'])} ±{margin}"


def _pct(share: float) -> str:
    """A share as a whole percentage, never ``"-0%"``."""
    return f"{round(100 * share) + 0:d}%"


def _mark(d: dict[str, Any], own: frozenset[str]) -> str:
    """The mark column: the mark and what it is on, or whose move it was when not the player's."""
    actor = d.get("actor", "seat")
    if actor not in own:
        return {"timer": "timer's move", "away": "stand-in's move"}.get(actor, "bot's move")
    if d["mark"] is None:
        return ""
    on = " (points)" if d.get("mark_on") == "points" else " (win)" if d.get("mark_on") == "win" else ""
    return _MARK_STYLE[d["mark"]] + on


def _when(d: dict[str, Any]) -> str:
    """Where a decision was: ``"Deal 2, your 3rd move (move 14 of the match)"``."""
    if "number" not in d:
        return f"Move {d['index'] + 1}"
    return f"Deal {d['deal'] + 1}, your {_ordinal(d['deal_number'])} move (move {d['index'] + 1} of the match)"


def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _summary(result: dict[str, Any]) -> str:
    """The seat's summary in words: counts, accuracy, what is lost per decision, the stand-in's decisions."""
    s = result["summary"]
    text = (f"Seat {result['seat']}: {s['decisions']} decisions reviewed, {s['agreed']} as good as the best found; "
            f"{_count(s['mistakes'], 'mistake')}, {_count(s['inaccuracies'], 'inaccuracy', 'inaccuracies')}.")
    if s.get("accuracy") is not None:
        text += (f" Accuracy {_pct(s['accuracy'])} (decisions not marked); lost per decision on average: "
                 f"{_pct(s['win_lost_per_decision'])} of the deal's win chance and "
                 f"{abs(s['points_lost_per_decision']):.1f} points.")
    if s.get("stand_in"):
        text += f" {_count(s['stand_in'], 'decision')} made by a stand-in bot or a timer left out."
    return text
def _count(n: int, one: str, many: str = "") -> str:
    """``"1 mistake"``, ``"2 mistakes"``."""
    return f"{n} {one if n == 1 else many or one + 's'}"
