"""Evaluation commands: ``motley tournament`` (OpenSkill ratings) and ``motley compare`` (two variants).

Registered on the main app in :mod:`motley.cli.main`; the evaluation modules are imported when a command runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from motley.cli.common import (
    AddressOpt,
    BackendOpt,
    GameArg,
    JsonOpt,
    OptionOpt,
    PlayersOpt,
    WorkersOpt,
    check_output,
    checked,
    console,
    fail,
    load,
    print_json,
    progress_bar,
    split_bots,
)

if TYPE_CHECKING:
    from motley.eval.compare import Comparison
    from motley.eval.ratings import RatingTable


def tournament(
    game: GameArg,
    bots: Annotated[str, typer.Option(help="Distinct bots, comma-separated (at least one per seat).")],
    n: Annotated[int, typer.Option("-n", "--games", min=1, help="Games to play and rate.")] = 200,
    ratings: Annotated[Path | None, typer.Option(help="Rating table (JSON) to extend and save; "
                                                       "default ratings-GAME.json.")] = None,
    seed: Annotated[int, typer.Option(help="Base seed of a new table (an existing table keeps its own).")] = 0,
    options: OptionOpt = None,
    players: PlayersOpt = None,
    workers: WorkersOpt = 0,
    backend: BackendOpt = "process",
    address: AddressOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Free-for-all games among the bots, rated with OpenSkill (Plackett-Luce); the table is saved and extended."""
    from motley.eval.ratings import check_tournament, load_table
    from motley.eval.ratings import tournament as run_tournament

    the_game = load(game, options, players)
    specs = split_bots(bots)
    path = ratings or Path(f"ratings-{the_game.name}.json")
    check_output(path)
    table = checked(lambda: load_table(path))
    checked(lambda: check_tournament(the_game, specs, n, table, backend))
    with progress_bar(f"tournament {the_game}", n, disabled=as_json) as tick:
        table = checked(lambda: run_tournament(the_game, specs, n, table=table, seed=seed, workers=workers,
                                               backend=backend, address=address, progress=tick))
    try:
        path.write_text(table.to_json(), encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write the rating table to {path}: {exc}")
    if as_json:
        print_json({"game": table.game, "games": table.games, "ratings": table.rows()})
        return
    print_ratings(table)
    console.print(f"Saved to {escape(str(path))}")


def print_ratings(table: RatingTable) -> None:
    """The rating table: rating (mu), uncertainty (sigma), mu - 3 sigma, games and win share (95% CI)."""
    from rich.table import Table

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
    n: Annotated[int, typer.Option("-n", "--games", min=1, help="Games per variant.")] = 1000,
    seed: Annotated[int, typer.Option(help="Base seed: both variants play the same seeds and lineups.")] = 0,
    players: PlayersOpt = None,
    duplicate: Annotated[bool, typer.Option("--duplicate", help="Duplicate deals (all seat rotations).")] = False,
    workers: WorkersOpt = 0,
    backend: BackendOpt = "process",
    address: AddressOpt = None,
    as_json: JsonOpt = False,
    out_json: Annotated[Path | None, typer.Option(help="Also write the comparison (JSON) here.")] = None,
) -> None:
    """Play the same deals and bots under two option sets and report the differences with 95% intervals."""
    from motley.core.options import parse_options
    from motley.eval.compare import compare as run_compare
    from motley.eval.compare import load_variants
    from motley.eval.simulate import check_simulation

    a = checked(lambda: parse_options(options_a))
    b = checked(lambda: parse_options(options_b))
    if players is not None:
        a["players"] = b["players"] = str(players)
    variant_a, _ = checked(lambda: load_variants(game, a, b))
    specs = split_bots(bots)
    checked(lambda: check_simulation(variant_a, specs, n, backend))
    check_output(out_json)
    seats = variant_a.num_players
    total = 2 * (-(-n // seats) * seats if duplicate else n)
    with progress_bar(f"compare {game}", total, disabled=as_json) as tick:
        result: Comparison = checked(lambda: run_compare(game, a, b, specs, n, seed=seed, duplicate=duplicate,
                                                         workers=workers, backend=backend, address=address,
                                                         progress=tick))
    data = result.as_dict()
    if out_json is not None:
        try:
            out_json.write_text(json.dumps(data, indent=1), encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {out_json}: {exc}")
    if as_json:
        print_json(data)
        return
    print_comparison(result)


def print_comparison(result: Comparison) -> None:
    """Per figure: A, B and the paired difference B - A, each with its 95% interval."""
    from rich.table import Table

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
