"""Evaluation commands: ``motley tournament`` (OpenSkill ratings) and ``motley compare`` (two variants).

Registered on the main app in :mod:`motley.cli.main`; :func:`progress_bar` is shared with ``simulate``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

import motley
from motley.eval.compare import Comparison, parse_options
from motley.eval.compare import compare as run_compare
from motley.eval.ratings import RatingTable, load_table
from motley.eval.ratings import tournament as run_tournament

console = Console(highlight=False)


@contextmanager
def progress_bar(description: str, total: int, disabled: bool = False) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (games done, games/s, time left); yields ``tick(k)`` for k finished games."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]} games/s"), TimeRemainingColumn(),
                  console=Console(stderr=True), disable=disabled, transient=False) as bar:
        task = bar.add_task(description, total=total, rate="-")

        def tick(k: int) -> None:
            bar.advance(task, k)
            elapsed = bar.tasks[task].elapsed or 0.0
            if elapsed > 0:
                bar.update(task, rate=f"{bar.tasks[task].completed / elapsed:,.0f}")

        yield tick


def _fail(message: str) -> NoReturn:
    console.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


def _game(spec: str, options: list[str] | None, players: int | None) -> motley.Game:
    params: dict[str, Any] = {}
    for item in options or []:
        try:
            params.update(parse_options(item))
        except motley.MotleyError as exc:
            _fail(str(exc))
    if players is not None:
        params["players"] = players
    try:
        return motley.load_game(spec, **params)
    except motley.MotleyError as exc:
        _fail(str(exc))


def split_bots(bots: str) -> list[str]:
    """Split a comma-separated bot list, keeping commas inside parentheses: ``ismcts(simulations=50,uct_c=1)``."""
    out, depth, cur = [], 0, ""
    for ch in bots:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [s for s in out if s]


GameArg = Annotated[str, typer.Argument(help="Game name, or its string form: 'foolery(players=4)'.")]
OptionOpt = Annotated[list[str] | None, typer.Option("--option", "-o", help="A game option KEY=VALUE; repeatable.")]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="Number of players.")]
WorkersOpt = Annotated[int, typer.Option(help="Processes (0 = one per core); results do not depend on it.")]
BackendOpt = Annotated[str, typer.Option(help="Where games run: 'process' (this machine) or 'ray'.")]
AddressOpt = Annotated[str | None, typer.Option(help="Ray cluster address ('auto', 'ray://head:10001').")]


def tournament(
    game: GameArg,
    bots: Annotated[str, typer.Option(help="Distinct bots, comma-separated (at least one per seat).")],
    n: Annotated[int, typer.Option("-n", "--games", help="Games to play and rate.")] = 200,
    ratings: Annotated[Path | None, typer.Option(help="Rating table (JSON) to extend and save; "
                                                       "default ratings-GAME.json.")] = None,
    seed: Annotated[int, typer.Option(help="Base seed of a new table (an existing table keeps its own).")] = 0,
    options: OptionOpt = None,
    players: PlayersOpt = None,
    workers: WorkersOpt = 0,
    backend: BackendOpt = "process",
    address: AddressOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
) -> None:
    """Free-for-all games among the bots, rated with OpenSkill (Plackett-Luce); the table is saved and extended."""
    the_game = _game(game, options, players)
    path = ratings or Path(f"ratings-{the_game.name}.json")
    try:
        table = load_table(path)
        with progress_bar(f"tournament {the_game}", n, disabled=as_json) as tick:
            table = run_tournament(the_game, split_bots(bots), n, table=table, seed=seed, workers=workers,
                                   backend=backend, address=address, progress=tick)
    except motley.MotleyError as exc:
        _fail(str(exc))
    path.write_text(table.to_json(), encoding="utf-8")
    if as_json:
        print(json.dumps({"game": table.game, "games": table.games, "ratings": table.rows()}, indent=1))
        return
    print_ratings(table)
    console.print(f"Saved to {path}")


def print_ratings(table: RatingTable) -> None:
    """The rating table: rating (mu), uncertainty (sigma), mu - 3 sigma, games and win share (95% CI)."""
    out = Table(title=f"{table.game}: OpenSkill Plackett-Luce ratings after {table.games} games")
    for column in ("bot", "rating (mu)", "uncertainty (sigma)", "mu - 3 sigma", "games", "win share (95% CI)"):
        out.add_column(column)
    for row in table.rows():
        low, high = row["win_share_ci"]
        out.add_row(row["bot"], f"{row['mu']:.2f}", f"{row['sigma']:.2f}", f"{row['ordinal']:.2f}", str(row["games"]),
                    f"{row['win_share']:.3f} [{low:.3f}, {high:.3f}]")
    console.print(out)


def compare(
    game: GameArg,
    options_a: Annotated[str, typer.Option("--options", help="Variant A: KEY=VALUE,KEY=VALUE ('' = defaults).")],
    options_b: Annotated[str, typer.Option("--vs", help="Variant B: KEY=VALUE,KEY=VALUE.")],
    bots: Annotated[str, typer.Option(help="Bots, comma-separated; the last fills the remaining seats.")] = "random",
    n: Annotated[int, typer.Option("-n", "--games", help="Games per variant.")] = 1000,
    seed: Annotated[int, typer.Option(help="Base seed: both variants play the same seeds and lineups.")] = 0,
    players: PlayersOpt = None,
    duplicate: Annotated[bool, typer.Option("--duplicate", help="Duplicate deals (all seat rotations).")] = False,
    workers: WorkersOpt = 0,
    backend: BackendOpt = "process",
    address: AddressOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
    out_json: Annotated[Path | None, typer.Option(help="Also write the comparison (JSON) here.")] = None,
) -> None:
    """Play the same deals and bots under two option sets and report the differences with 95% intervals."""
    try:
        a = parse_options(options_a)
        b = parse_options(options_b)
        if players is not None:
            a["players"] = b["players"] = str(players)
        seats = motley.load_game(game, **a).num_players
        total = 2 * (-(-n // seats) * seats if duplicate and n > 0 else n)
        with progress_bar(f"compare {game}", total, disabled=as_json) as tick:
            result = run_compare(game, a, b, split_bots(bots), n, seed=seed, duplicate=duplicate, workers=workers,
                                 backend=backend, address=address, progress=tick)
    except motley.MotleyError as exc:
        _fail(str(exc))
    data = result.as_dict()
    if out_json is not None:
        out_json.write_text(json.dumps(data, indent=1), encoding="utf-8")
    if as_json:
        print(json.dumps(data, indent=1))
        return
    print_comparison(result)


def print_comparison(result: Comparison) -> None:
    """Per figure: A, B and the paired difference B - A, each with its 95% interval."""
    out = Table(title=f"A = {result.a}\nB = {result.b}\n{result.a_summary.games} games each, "
                      f"seed {result.a_summary.seed}, bots {', '.join(result.a_summary.bots)}")
    for column in ("figure", "A (95% CI)", "B (95% CI)", "B - A (95% CI)"):
        out.add_column(column)
    label = result.a_summary.special["card"] if result.a_summary.special else "special card"
    names = {"special": f"the {label} decides", "seat0_advantage": "seat 0 advantage", "score_spread": "score spread",
             "first_bot_win_share": "first bot win share", "draw_rate": "draw rate", "moves": "decisions per match",
             "deals": "deals per match"}
    for name, fig in result.figures.items():
        digits = 2 if name in ("moves", "deals", "score_spread") else 3
        cells = []
        for key in ("a", "b", "difference"):
            f = fig[key]
            sign = "+" if key == "difference" else ""
            cells.append(f"{f['mean']:{sign}.{digits}f} [{f['ci'][0]:{sign}.{digits}f}, {f['ci'][1]:{sign}.{digits}f}]")
        out.add_row(names.get(name, name), *cells)
    console.print(out)
