"""The ``motley`` command line: play, simulate, replay, rules, games, bots, serve, tournament, compare, verify, train,
analyse.

Conventions (:mod:`motley.cli.common`): results on stdout, errors on stderr with exit status 2, every
argument checked before any work. Modules are imported by the command that needs them, so ``motley --help``
and ``motley play`` need only the core dependencies and optional extras are asked for by name.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from motley.cli.analyse import analyse
from motley.cli.common import (
    AddressOpt,
    BackendOpt,
    GameArg,
    GamesOpt,
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
from motley.cli.evaluation import compare, tournament
from motley.cli.serve import serve
from motley.cli.train import train
from motley.cli.verify import verify

if TYPE_CHECKING:
    import motley
    from motley.bots import Bot
    from motley.eval.simulate import SimulationSummary

app = typer.Typer(help="motley: The Fool's Errand, Fool! and Foolery: play, simulate, replay.",
                  no_args_is_help=True, add_completion=False)


def show_version(value: bool) -> None:
    """``--version``: print ``motley VERSION`` and exit."""
    if value:
        from motley import __version__

        console.print(f"motley {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", callback=show_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """motley: The Fool's Errand, Fool! and Foolery: play, simulate, replay."""


@app.command()
def games(as_json: JsonOpt = False) -> None:
    """List the games and their options."""
    import motley

    listing = [game_listing(name) for name in motley.registered_games()]
    if as_json:
        print_json(listing)
        return
    for game in listing:
        console.print(f"[bold]{game['name']}[/]: {escape(game['title'])} "
                      f"({game['min_players']}-{game['max_players']} players)")
        for option in game["options"]:
            said = [str(c) if str(c) == words else f"{c} ({words})"
                    for c, words in zip(option["choices"], option["choice_labels"], strict=True)]
            choices = f" [{'|'.join(said)}]" if said else ""
            console.print(escape(f"  {option['name']} = {option['default']!s}{choices}: {option['doc']}"))


def game_listing(name: str) -> dict[str, Any]:
    """One game of ``motley games``: ``name``, ``title``, ``min_players``, ``max_players`` and ``options`` (each
    ``name``, ``default``, ``kind``, ``choices``, ``choice_labels`` (the words for each choice, seats from 1),
    ``minimum``, ``maximum``, ``doc``), JSON-able."""
    from motley.core.registry import game_class

    cls = game_class(name)
    return {"name": name, "title": cls.title, "min_players": cls.min_players, "max_players": cls.max_players,
            "options": [{"name": o.name, "default": o.default, "kind": o.kind, "choices": list(o.choices),
                         "choice_labels": o.describe()["choice_labels"], "minimum": o.minimum,
                         "maximum": o.maximum, "doc": o.doc} for o in cls.options]}


@app.command()
def rules(game: GameArg) -> None:
    """Print the binding rules of a game, with every rule id: how to play first, then sources and rulings."""
    from rich.markdown import Markdown

    import motley

    if game not in motley.registered_games():
        fail(f"unknown game {game!r}; known games: {', '.join(motley.registered_games())}")
    cls = motley.core.registry.game_class(game)
    text = resources.files("motley").joinpath("rules", cls.rules_file).read_text(encoding="utf-8")
    spec = motley.core.registry.game_spec(game)
    lead = f"{spec.summary} *{spec.at_a_glance().capitalize()}.*" if spec.summary else ""
    console.print(Markdown(playing_rules_first(text, spec.how_to_play, lead)))


def playing_rules_first(text: str, short: Sequence[str] = (), lead: str = "") -> str:
    """A rules file reordered for a player, its text unchanged: the title, ``lead`` (the game in one sentence,
    its players and match length: :attr:`GameSpec.summary`, :meth:`GameSpec.at_a_glance`), the game in short (``short``:
    ``GameSpec.how_to_play``'s paragraphs, if any), the section of the game's own rules (the ``### ``
    section headed "(b) SOURCE"), then the source note and the other sections (sources, conflicts,
    rulings, worked cases, project rulings) in their order. Without a single such section, the title and
    the game in short, then the text as it is."""
    head, *parts = text.split("\n### ")
    title, _, intro = head.partition("\n")
    summary = "".join(f"{paragraph}\n\n" for paragraph in (lead, *short) if paragraph)
    sections = ["### " + part.rstrip("\n") + "\n" for part in parts]
    playing = [s for s in sections if "(b) SOURCE" in s.partition("\n")[0]]
    if len(playing) != 1:
        return f"{title}\n\n{summary}{intro.strip()}\n\n" + "\n".join(sections) if summary else text
    rest = "\n".join(s for s in sections if s is not playing[0])
    return (f"{title}\n\n## How to play\n\n{summary}{playing[0]}\n## Sources, rulings and worked cases\n\n"
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
    hint_bot: Annotated[str, typer.Option(help="The bot behind --hint: a search or a network.")] = (
        "ismcts(simulations=2000)"),
) -> None:
    """Play a game in the terminal against bots. Type a move, '?' for the legal moves, 'quit' to stop."""
    import motley
    from motley.bots import make_bot
    from motley.cli import views
    from motley.core import play as core_play

    the_game = load(game, options, players)
    if not 0 <= seat < the_game.num_players:
        fail(f"--seat must be 0..{the_game.num_players - 1} for {the_game}")
    check_output(save)
    specs = split_bots(bots) or ["heuristic"]
    try:
        others = [make_bot(specs[min(i, len(specs) - 1)], the_game) for i in range(the_game.num_players - 1)]
        adviser = make_bot(hint_bot, the_game) if hint else None
        state = the_game.new_initial_state(seed=seed)
    except motley.MotleyError as exc:
        fail(str(exc))
    seat_bots = {s: others[i] for i, s in enumerate(x for x in range(the_game.num_players) if x != seat)}
    console.print(f"[bold]{escape(the_game.title)}[/] — {escape(str(the_game))}; you are seat {seat}. Bots: "
                  + ", ".join(f"seat {s} {escape(b.name)}" for s, b in seat_bots.items()))
    render = views.renderer(the_game.name)
    shown: Any = None
    rng = random.Random(state.origin["seed"] if state.origin else 0)
    yours = 0

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
            break
        yours += 1
    final = state.observation(seat)
    show_log(final, shown)
    console.print(render(final, []))
    console.print(match_summary(state.scores(), state.returns(), seat, state.is_terminal(), yours), soft_wrap=True)
    if save is not None:
        try:
            save.write_text(motley.records.dump(state), encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write the record to {save}: {exc}")
        console.print(f"Record saved to {escape(str(save))}")


def seat_name(seat: int, you: int) -> str:
    """``you`` for the person's own seat, ``seat N`` for the others."""
    return "you" if seat == you else f"seat {seat}"


def match_summary(scores: list[int], returns: list[float], you: int, over: bool, moves: int) -> str:
    """The closing line of ``motley play`` (Rich markup): every seat's points, then who won or leads.

    Args:
        scores: game points per seat (higher is better in every game); ``returns``: per-seat outcome in
            [-1, 1], read only when ``over``; ``you``: the person's seat; ``moves``: moves the person made.
    """
    points = ", ".join(f"{seat_name(s, you)} {v}" for s, v in enumerate(scores))
    if over:
        return f"Final scores: {points} — {verdict(returns, you)}"
    top = max(scores)
    leaders = [seat_name(s, you) for s, v in enumerate(scores) if v == top]
    if len(leaders) == len(scores):
        lead = f"all level at {top} points"
    elif len(leaders) == 1:
        lead = f"{leaders[0]} {'lead' if leaders[0] == 'you' else 'leads'} with {top} points"
    else:
        lead = f"{', '.join(leaders[:-1])} and {leaders[-1]} share the lead with {top} points"
    return f"You stopped after {moves} move{'' if moves == 1 else 's'}. Scores so far: {points} — {lead}."


def verdict(returns: list[float], you: int) -> str:
    """Rich markup: a draw (every seat on the same return), your win (alone or shared), or who beat you."""
    best = max(returns)
    won = [s for s, r in enumerate(returns) if r == best]
    if len(won) == len(returns):
        return "[yellow]A draw.[/]"
    if won == [you]:
        return "[green]You win![/]"
    if you in won:
        return f"[green]You share the win with {', '.join(seat_name(s, you) for s in won if s != you)}.[/]"
    names = [seat_name(s, you) for s in won]
    return f"[red]You lose: {', '.join(names)} {'wins' if len(won) == 1 else 'win'}.[/]"


def show_hint(adviser: Bot, obs: motley.Observation, legal: list[int], rng: random.Random) -> None:
    """Run the adviser bot on the player's own observation and print its figures for each move: visits and mean
    value (a search), or Q and the heuristic's choice (a network)."""
    from rich.table import Table

    adviser.act(obs, legal, rng)
    rows = adviser.explain() or []
    searched = not rows or "visits" in rows[0]
    table = Table(title=f"hint ({adviser.name})")
    for column in ("move", "visits", "mean value") if searched else ("move", "Q", "heuristic's choice"):
        table.add_column(column)
    for row in rows:
        if searched:
            table.add_row(escape(str(row["move"])), str(row["visits"]), f"{row['mean']:+.3f}")
        else:
            table.add_row(escape(str(row["move"])), f"{row['q']:+.3f}", "yes" if row["heuristic"] else "")
    console.print(table)


def show_log(obs: motley.Observation, cursor: Any, neutral: bool = False) -> Any:
    """Print what happened since ``cursor`` (games whose view has a log); returns the new cursor."""
    from motley.cli import views

    lines, cursor = views.log_lines(str(obs["game"]), obs, cursor, neutral)
    for line in lines:
        console.print(line)
    return cursor


def ask_move(state: motley.State, moves: list[str]) -> bool:
    """Read moves until a legal one is applied; False when the player quits or input ends."""
    import motley

    while True:
        try:
            text = console.input("[bold]your move> [/]").strip()
        except (EOFError, KeyboardInterrupt):
            return False
        if text.lower() in ("quit", "exit"):
            return False
        if text in ("?", "help", "legal"):
            console.print("Legal moves: " + " | ".join(moves), soft_wrap=True, markup=False)
            continue
        try:
            state.apply_action(state.string_to_action(text))
            return True
        except motley.MoveError as exc:  # unreadable or not allowed now: say so and ask again
            console.print(f"[red]{escape(str(exc))}[/] — type '?' for the legal moves")


@app.command()
def simulate(
    game: GameArg,
    n: GamesOpt = 1000,
    bots: Annotated[str, typer.Option(help="Bots, comma-separated; the last fills the remaining seats.")] = "random",
    seed: Annotated[int, typer.Option(help="Base seed: same seed, same results.")] = 0,
    options: OptionOpt = None,
    players: PlayersOpt = None,
    as_json: JsonOpt = False,
    workers: WorkersOpt = 0,
    duplicate: Annotated[bool, typer.Option(
        "--duplicate", help="Duplicate deals: each deal replayed with the seats rotated every way "
        "(n rounded up to a multiple of the seats).")] = False,
    backend: BackendOpt = "process",
    address: AddressOpt = None,
    out_json: Annotated[Path | None, typer.Option(help="Write the summary and one row per game (JSON) here.")] = None,
    out_csv: Annotated[Path | None, typer.Option(help="Write one row per game (CSV) here.")] = None,
    records: Annotated[bool, typer.Option("--records", help="Keep each game's record in the JSON/CSV rows.")] = False,
    report: Annotated[Path | None, typer.Option(help="Write a self-contained HTML report with plots here "
                                                     "(the 'report' extra).")] = None,
) -> None:
    """Play many matches between bots (seats rotated, or duplicate deals) and report win shares, points, seats
    and lengths with 95% intervals; optionally per-game rows (JSON/CSV) and an HTML report."""
    from motley.eval.output import write_csv, write_json
    from motley.eval.simulate import check_simulation
    from motley.eval.simulate import simulate as run_simulation

    the_game = load(game, options, players)
    specs = split_bots(bots)
    checked(lambda: check_simulation(the_game, specs, n, backend))
    check_output(out_json, out_csv, report)
    write_report = checked(report_writer) if report is not None else None
    total = -(-n // the_game.num_players) * the_game.num_players if duplicate else n
    with progress_bar(str(the_game), total, disabled=as_json) as tick:
        summary = checked(lambda: run_simulation(the_game, specs, n, seed=seed, progress=tick, workers=workers,
                                                 duplicate=duplicate, backend=backend, address=address,
                                                 records=records))
    try:
        if out_json is not None:
            write_json(summary, out_json)
        if out_csv is not None:
            write_csv(summary, out_csv)
        if write_report is not None and report is not None:
            write_report(summary, report)
    except OSError as exc:
        fail(f"cannot write output: {exc}")
    if as_json:
        print_json(summary.as_dict())
        return
    print_summary(summary)
    for what, path in (("games (JSON)", out_json), ("games (CSV)", out_csv), ("report", report)):
        if path is not None:
            console.print(f"Wrote {what} to {escape(str(path))}")


def report_writer() -> Any:
    """:func:`motley.eval.report.write_report`, imported now (before any game is played).

    Raises:
        MissingExtraError: without the ``report`` extra (matplotlib).
    """
    from motley.eval.report import write_report

    return write_report


def print_summary(summary: SimulationSummary) -> None:
    """The simulation figures as tables: bots, seats, lengths and the special card, with 95% intervals."""
    from rich.table import Table

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
def replay(record: Annotated[Path, typer.Argument(help="A game record (JSON) written by 'play --save'.")],
           html: Annotated[Path | None, typer.Option(
               "--html", help="Write a replay viewer (one HTML file, every step and view inside) here instead "
                              "of printing the moves.")] = None) -> None:
    """Print a recorded game move by move, then its result (a record over 8 MB is refused unread); with
    --html, write a self-contained replay viewer instead."""
    import motley
    from motley.core import play as core_play

    if html is not None:
        write_replay_html(record, html)
        return

    def read() -> Any:
        text = motley.records.read_file(record)
        motley.records.load(text)  # a record that does not replay is refused before anything is printed
        return motley.records.read(text)

    data = checked(read)
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


def write_replay_html(record: Path, out: Path) -> None:
    """Write the replay viewer of ``record`` (a finished match) to ``out`` (see
    :func:`motley.server.play.replays.standalone_html`); a bad record or an unwritable file exits with its reason."""
    import motley
    from motley.server.play import replays

    def build() -> str:
        return replays.standalone_html(replays.table_of_record(motley.records.read_file(record)))

    page = checked(build)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")
    console.print(f"replay viewer written to {escape(str(out))} ({len(page) // 1024} KB); open it in a browser")


@app.command()
def bots(as_json: JsonOpt = False) -> None:
    """List the bot kinds with their options (name, kind, default, bounds, choices, web caps)."""
    from motley.bots import bot_kind, bot_kinds

    listing = [bot_kind(kind).describe() for kind in bot_kinds()]
    if as_json:
        print_json(listing)
        return
    for kind in listing:
        web = " [offered on the web]" if kind["web"] else ""
        console.print(escape(f"{kind['name']}: {kind['doc']}{web}"))
        for option in kind["options"]:
            console.print(escape(f"  {option['name']} = {_option_line(option)}"))


def _option_line(option: dict[str, Any]) -> str:
    """One option of ``motley bots``: ``default (kind, bounds or choices, web caps): doc``."""
    default = "none" if option["default"] is None else str(option["default"]) or "''"
    low, high = option["minimum"], option["maximum"]
    allowed = f"{'|'.join(map(str, option['choices']))}" if option["choices"] else \
        f"{'' if low is None else low}..{'' if high is None else high}" if (low, high) != (None, None) else ""
    served = f"; web tables {option['served'][0]}..{option['served'][1]}" if option["served"] else ""
    detail = ", ".join(x for x in (option["kind"], allowed) if x)
    return f"{default} ({detail}{served}): {option['doc']}"


app.command()(serve)
app.command()(tournament)
app.command()(compare)
app.command()(verify)
app.command()(analyse)
app.command()(train)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
