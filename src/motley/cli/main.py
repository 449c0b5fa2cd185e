"""The ``motley`` command line: play, simulate, replay, rules, games."""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.table import Table

import motley
from motley.bots import Bot, bot_kinds, make_bot
from motley.cli import views
from motley.cli.evaluation import compare, progress_bar, split_bots, tournament
from motley.cli.serve import serve
from motley.cli.verify import verify
from motley.core import play as core_play
from motley.eval import simulate as run_simulation
from motley.eval.output import write_csv, write_json
from motley.eval.report import write_report
from motley.eval.simulate import SimulationSummary

app = typer.Typer(help="motley: The Fool's Errand, Fool! and Foolery: play, simulate, replay.",
                  no_args_is_help=True, add_completion=False)
console = Console(highlight=False)

GameArg = Annotated[str, typer.Argument(help="Game name, or its string form: 'fools_errand(after_scoop=alternate)'.")]
OptionOpt = Annotated[list[str] | None, typer.Option("--option", "-o", help="A game option KEY=VALUE; repeatable.")]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="Number of players (games for 3-8).")]


def load(spec: str, options: list[str] | None, players: int | None) -> motley.Game:
    """The game of a command line, or exit with the error's message."""
    params: dict[str, Any] = {}
    for item in options or []:
        if "=" not in item:
            fail(f"option {item!r} must be KEY=VALUE")
        key, value = item.split("=", 1)
        params[key.strip()] = value.strip()
    if players is not None:
        params["players"] = players
    try:
        return motley.load_game(spec, **params)
    except motley.MotleyError as exc:
        fail(str(exc))


def fail(message: str) -> NoReturn:
    """Print an error and exit with status 2."""
    console.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


@app.command()
def games() -> None:
    """List the games and their options."""
    for name in motley.registered_games():
        cls = motley.core.registry.game_class(name)
        console.print(f"[bold]{name}[/]: {cls.title} ({cls.min_players}-{cls.max_players} players)")
        for option in cls.options:
            choices = escape(f" [{'|'.join(map(str, option.choices))}]") if option.choices else ""
            console.print(f"  {option.name} = {option.default!s}{choices}: {option.doc}")


@app.command()
def rules(game: GameArg) -> None:
    """Print the binding rules of a game, with every rule id: how to play first, then sources and rulings."""
    cls = motley.core.registry.game_class(game) if game in motley.registered_games() else None
    if cls is None:
        fail(f"unknown game {game!r}; known games: {', '.join(motley.registered_games())}")
        return
    text = resources.files("motley").joinpath("rules", cls.rules_file).read_text(encoding="utf-8")
    console.print(Markdown(playing_rules_first(text)))


def playing_rules_first(text: str) -> str:
    """A rules file reordered for a player, its text unchanged: the title, the section of the game's own
    rules (the ``### `` section headed "(b) SOURCE"), then the source note and the other sections
    (sources, conflicts, rulings, worked cases, project rulings) in their order. Returned as is when
    there is no single such section."""
    head, *parts = text.split("\n### ")
    sections = ["### " + part.rstrip("\n") + "\n" for part in parts]
    playing = [s for s in sections if "(b) SOURCE" in s.partition("\n")[0]]
    if len(playing) != 1:
        return text
    title, _, intro = head.partition("\n")
    rest = "\n".join(s for s in sections if s is not playing[0])
    return (f"{title}\n\n## How to play\n\n{playing[0]}\n## Sources, rulings and worked cases\n\n"
            f"{intro.strip()}\n\n{rest}")


@app.command()
def play(
    game: GameArg,
    options: OptionOpt = None,
    players: PlayersOpt = None,
    seat: Annotated[int, typer.Option(help="Your seat (0 = first).")] = 0,
    bots: Annotated[str, typer.Option(help="Bot(s) for the other seats, comma-separated.")] = "heuristic",
    seed: Annotated[int | None, typer.Option(help="Seed of the shuffles (random if omitted).")] = None,
    save: Annotated[Path | None, typer.Option(help="Write the game record (JSON) here at the end.")] = None,
    hint: Annotated[bool, typer.Option("--hint", help="Before each of your moves, show what ISMCTS thinks.")] = False,
    hint_bot: Annotated[str, typer.Option(help="The search bot behind --hint.")] = "ismcts(simulations=2000)",
) -> None:
    """Play a game in the terminal against bots. Type a move, '?' for the legal moves, 'quit' to stop."""
    the_game = load(game, options, players)
    if not 0 <= seat < the_game.num_players:
        fail(f"--seat must be 0..{the_game.num_players - 1}")
    try:
        specs = [s.strip() for s in bots.split(",") if s.strip()] or ["heuristic"]
        others = [make_bot(specs[min(i, len(specs) - 1)], the_game) for i in range(the_game.num_players - 1)]
        adviser = make_bot(hint_bot, the_game) if hint else None
        state = the_game.new_initial_state(seed=seed)
    except motley.MotleyError as exc:
        fail(str(exc))
        return
    seat_bots = {s: others[i] for i, s in enumerate(x for x in range(the_game.num_players) if x != seat)}
    console.print(f"[bold]{the_game.title}[/] — {the_game}; you are seat {seat}. Bots: "
                  + ", ".join(f"seat {s} {b.name}" for s, b in seat_bots.items()))
    render = views.renderer(the_game.name)
    shown: Any = None
    rng = random.Random(state.origin["seed"] if state.origin else 0)

    def bot_moved(after: motley.State, mover: int, action: int) -> None:
        nonlocal shown
        shown = show_log(after.observation(seat), shown)

    while True:
        shown = show_log(state.observation(seat), shown)
        # The bots play up to your turn or the end; they are asked even for forced moves (so they draw
        # from the one generator as they always have: a seed replays the same match).
        core_play.play(state, seat_bots, rng, skip_forced=False, on_move=bot_moved)
        if state.is_terminal():
            break
        obs = state.observation(seat)
        legal = state.legal_actions()
        moves = [state.action_to_string(a) for a in legal]
        console.print(render(obs, moves))
        if adviser is not None and len(legal) > 1:
            show_hint(adviser, obs, legal, rng)
        if not ask_move(state, moves):
            console.print("Stopped.")
            break
    final = state.observation(seat)
    show_log(final, shown)
    console.print(render(final, []))
    if state.is_terminal():
        result = state.returns()[seat]
        verdict = "[green]You win![/]" if result > 0 else "[red]You lose.[/]" if result < 0 else "[yellow]A draw.[/]"
        console.print(f"Final scores: {state.scores()} — {verdict}")
    if save is not None:
        save.write_text(motley.records.dump(state), encoding="utf-8")
        console.print(f"Record saved to {save}")


def show_hint(adviser: Bot, obs: motley.Observation, legal: list[int], rng: random.Random) -> None:
    """Run the search bot on the player's own observation and print its figures for each move."""
    adviser.act(obs, legal, rng)
    table = Table(title=f"hint ({adviser.name})")
    for column in ("move", "visits", "mean value"):
        table.add_column(column)
    for row in adviser.explain() or []:
        table.add_row(str(row["move"]), str(row["visits"]), f"{row['mean']:+.3f}")
    console.print(table)


def show_log(obs: motley.Observation, cursor: Any, neutral: bool = False) -> Any:
    """Print what happened since ``cursor`` (games whose view has a log); returns the new cursor."""
    lines, cursor = views.log_lines(str(obs["game"]), obs, cursor, neutral)
    for line in lines:
        console.print(line)
    return cursor


def ask_move(state: motley.State, moves: list[str]) -> bool:
    """Read moves until a legal one is applied; False when the player quits or input ends."""
    while True:
        try:
            text = console.input("[bold]your move> [/]").strip()
        except (EOFError, KeyboardInterrupt):
            return False
        if text.lower() in ("quit", "exit"):
            return False
        if text in ("?", "help", "legal"):
            console.print("Legal moves: " + " | ".join(moves), soft_wrap=True)
            continue
        try:
            state.apply_action(state.string_to_action(text))
            return True
        except motley.IllegalMoveError as exc:
            console.print(f"[red]{exc}[/] — type '?' for the legal moves")


@app.command()
def simulate(
    game: GameArg,
    n: Annotated[int, typer.Option("-n", "--games", help="Number of matches.")] = 1000,
    bots: Annotated[str, typer.Option(help="Bots, comma-separated; the last fills the remaining seats.")] = "random",
    seed: Annotated[int, typer.Option(help="Base seed: same seed, same results.")] = 0,
    options: OptionOpt = None,
    players: PlayersOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    workers: Annotated[int, typer.Option(help="Processes (0 = one per core); results do not depend on it.")] = 0,
    duplicate: Annotated[bool, typer.Option(
        "--duplicate", help="Duplicate deals: each deal replayed with the seats rotated every way "
        "(n rounded up to a multiple of the seats).")] = False,
    backend: Annotated[str, typer.Option(help="Where games run: 'process' (this machine) or 'ray'.")] = "process",
    address: Annotated[str | None, typer.Option(help="Ray cluster address ('auto', 'ray://head:10001').")] = None,
    out_json: Annotated[Path | None, typer.Option(help="Write the summary and one row per game (JSON) here.")] = None,
    out_csv: Annotated[Path | None, typer.Option(help="Write one row per game (CSV) here.")] = None,
    records: Annotated[bool, typer.Option("--records", help="Keep each game's record in the JSON/CSV rows.")] = False,
    report: Annotated[Path | None, typer.Option(help="Write a self-contained HTML report with plots here.")] = None,
) -> None:
    """Play many matches between bots (seats rotated, or duplicate deals) and report win shares, points, seats
    and lengths with 95% intervals; optionally per-game rows (JSON/CSV) and an HTML report."""
    the_game = load(game, options, players)
    specs = split_bots(bots)
    total = -(-n // the_game.num_players) * the_game.num_players if duplicate and n > 0 else n
    try:
        with progress_bar(str(the_game), total, disabled=as_json) as tick:
            summary = run_simulation(the_game, specs, n, seed=seed, progress=tick, workers=workers,
                                     duplicate=duplicate, backend=backend, address=address, records=records)
        if out_json is not None:
            write_json(summary, out_json)
        if out_csv is not None:
            write_csv(summary, out_csv)
        if report is not None:
            write_report(summary, report)
    except motley.MotleyError as exc:
        fail(str(exc))
        return
    except OSError as exc:
        fail(f"cannot write output: {exc}")
        return
    if as_json:
        print(json.dumps(summary.as_dict(), indent=1))
    else:
        print_summary(summary)
        for what, path in (("games (JSON)", out_json), ("games (CSV)", out_csv), ("report", report)):
            if path is not None:
                console.print(f"Wrote {what} to {path}")


def print_summary(summary: SimulationSummary) -> None:
    """The simulation figures as tables: bots, seats, lengths and the special card, with 95% intervals."""
    def ci(mean: float, bounds: list[float], digits: int = 3) -> str:
        return f"{mean:.{digits}f} [{bounds[0]:.{digits}f}, {bounds[1]:.{digits}f}]"

    mode = "duplicate deals" if summary.duplicate else "seats rotated"
    rate = f", {summary.games / summary.seconds:,.0f} games/s" if summary.seconds > 0 else ""
    table = Table(title=f"{summary.game}: {summary.games} matches ({mode}), seed {summary.seed}, "
                        f"{summary.mean_moves:.1f} decisions per match{rate}")
    for column in ("bot", "seats/game", "win share (95% CI)", "fair share", "draws (95% CI)", "mean points (95% CI)"):
        table.add_column(column)
    for e in summary.entries:
        table.add_row(e["bot"], f"{e['seats_per_game']:.2g}", ci(e["win_share"], e["win_share_ci"]),
                      f"{e['fair_share']:.3f}", ci(e["draw_rate"], e["draw_rate_ci"]),
                      ci(e["mean_points"], e["mean_points_ci"], 1))
    console.print(table)
    seats = Table(title="by seat (all bots)")
    for column in ("seat", "win share (95% CI)", "mean points (95% CI)"):
        seats.add_column(column)
    for s in summary.seats:
        seats.add_row(str(s["seat"]), ci(s["win_share"], s["win_share_ci"]),
                      ci(s["mean_points"], s["mean_points_ci"], 1))
    console.print(seats)
    lengths = summary.lengths
    line = (f"decisions/match {ci(lengths['moves']['mean'], lengths['moves']['ci'], 1)}; "
            f"deals/match {ci(lengths['deals']['mean'], lengths['deals']['ci'], 2)}")
    if summary.special is not None:
        line += f"; the {summary.special['card']} decides {ci(summary.special['mean'], summary.special['ci'])}"
    console.print(line)


@app.command()
def replay(record: Annotated[Path, typer.Argument(help="A game record (JSON) written by 'play --save'.")]) -> None:
    """Print a recorded game move by move, then its result (a record over 8 MB is refused unread)."""
    try:
        text = motley.records.read_file(record)
        motley.records.load(text)  # a record that does not replay is refused before anything is printed
        data = motley.records.read(text)
    except motley.MotleyError as exc:
        fail(escape(str(exc)))
    game = data.game
    console.print(f"[bold]{escape(game.title)}[/] — {escape(str(game))}, seed {data.seed}")
    shown = show_log(game.new_initial_state(seed=data.seed, deal=data.deal).observation(0), None, neutral=True)
    number = 0

    def print_move(after: motley.State, seat: int, action: int) -> None:
        nonlocal number, shown
        number += 1
        console.print(f"[bold cyan]{number}. seat {seat}: {escape(data.moves[number - 1][1])}[/]")
        shown = show_log(after.observation(seat), shown, neutral=True)

    final = core_play.replay(game, data.seed, data.deal, data.moves, on_move=print_move)
    console.print(f"Final scores: {final.scores()}  returns: {final.returns()}")


@app.command()
def bots() -> None:
    """List the bot kinds."""
    for kind in bot_kinds():
        console.print(kind)


app.command()(serve)
app.command()(tournament)
app.command()(compare)
app.command()(verify)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
