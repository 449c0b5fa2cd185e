"""What every ``motley`` command shares: the two consoles, the error exit, game and bot arguments, JSON output
and the progress bar.

Conventions: results go to stdout (``--json`` output is nothing but JSON); errors go to stderr as
``error: ...`` with exit status 2, and every argument is checked before any game is played, so a refused
command has done no work and printed no progress.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

import motley
from motley.core.options import parse_options, split_top_level

T = TypeVar("T")

#: Unicode categories never written to the terminal as they are: controls (``Cc``: ESC, BEL, CR...), format
#: characters (``Cf``: bidirectional overrides that reorder what is shown) and line and paragraph separators.
_UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp"})


def printable(text: object, keep: str = "") -> str:
    """``text`` (``str()`` of it) safe to write to a terminal: every control or format character except those
    in ``keep`` shown as its Python escape (``\\x1b``, ``\\u202e``), so a field read from a record can neither
    move the cursor, erase a line nor reorder the text around it. For any field a record or a person wrote (a
    table id, a name, a commitment) use it with nothing kept: a newline there could forge a line of output."""
    out = []
    for char in str(text):
        if char not in keep and unicodedata.category(char) in _UNPRINTABLE:
            out.append(repr(char)[1:-1] if char.isascii() else f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


class SafeConsole(Console):
    """A Rich console that escapes every control character of the text it prints but newlines and tabs
    (:func:`printable`): the last guard, behind the field-by-field escaping, against output that rewrites the
    terminal (Rich strips only some control codes, never ESC)."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(printable(obj, keep="\n\t") if isinstance(obj, str) else obj for obj in objects),
                      **kwargs)


#: Results (stdout).
console = SafeConsole(highlight=False)
#: Errors and progress (stderr).
errors = SafeConsole(stderr=True, highlight=False)

GameArg = Annotated[str, typer.Argument(help="Game name, or its string form: 'fools_errand(after_scoop=alternate)'.")]
OptionOpt = Annotated[list[str] | None, typer.Option("--option", "-o", help="A game option KEY=VALUE; repeatable.")]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", min=1, help="Number of players.")]
GamesOpt = Annotated[int, typer.Option("-n", "--games", min=1, help="Number of matches.")]
WorkersOpt = Annotated[int, typer.Option(min=0, help="Processes (0 = one per core); results do not depend on it.")]
BackendOpt = Annotated[str, typer.Option(help="Where games run: 'process' (this machine) or 'ray' (the 'ray' extra).")]
AddressOpt = Annotated[str | None, typer.Option(help="Ray cluster address ('auto', 'ray://head:10001').")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON (nothing else on stdout).")]


def fail(message: str, status: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr (the message is printed literally, not as markup) and exit."""
    errors.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(status)


def checked(call: Callable[[], T]) -> T:
    """``call()``, or :func:`fail` with the message of the :class:`motley.MotleyError` it raises."""
    try:
        return call()
    except motley.MotleyError as exc:
        fail(str(exc))


def game_options(options: list[str] | None, players: int | None) -> dict[str, Any]:
    """The game options of repeated ``--option KEY=VALUE`` items (each may hold several, comma-separated) and
    ``--players``, parsed by :func:`motley.core.options.parse_options`.

    Raises:
        typer.Exit: (status 2, after an error on stderr) for a malformed item or a key given twice.
    """
    params: dict[str, Any] = {}
    for item in options or []:
        try:
            parsed = parse_options(item)
        except motley.MotleyError as exc:
            fail(str(exc))
        for key, value in parsed.items():
            if key in params:
                fail(f"option {key!r} is given twice")
            params[key] = value
    if players is not None:
        if "players" in params:
            fail("the number of players is given twice: use --players or -o players=N, not both")
        params["players"] = players
    return params


def load(spec: str, options: list[str] | None, players: int | None) -> motley.Game:
    """The game of a command line (``GAME``, ``--option``, ``--players``), or exit with the error's message."""
    params = game_options(options, players)
    game: motley.Game = checked(lambda: motley.load_game(spec, **params))
    return game


def split_bots(bots: str) -> list[str]:
    """Split a comma-separated bot list, keeping commas inside parentheses: ``ismcts(simulations=50,uct_c=1)``.

    Raises:
        typer.Exit: (status 2) for unbalanced brackets.
    """
    parts: list[str] = checked(lambda: split_top_level(bots, f" in the bot list {bots!r}"))
    return [s.strip() for s in parts if s.strip()]


def check_output(*paths: Path | None) -> None:
    """Refuse, before any work, an output path whose folder does not exist or that is a folder."""
    for path in paths:
        if path is None:
            continue
        if path.is_dir():
            fail(f"cannot write {path}: it is a folder")
        if not path.parent.is_dir():
            fail(f"cannot write {path}: folder {path.parent} does not exist")


def print_json(data: Any) -> None:
    """``data`` as indented JSON on stdout, alone (no markup, no wrapping)."""
    print(json.dumps(data, indent=1))


@contextmanager
def progress_bar(description: str, total: int, disabled: bool = False) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (games done, games/s, time left); yields ``tick(k)`` for k finished games."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]} games/s"), TimeRemainingColumn(),
                  console=errors, disable=disabled, transient=False) as bar:
        task = bar.add_task(description, total=total, rate="-")

        def tick(k: int) -> None:
            bar.advance(task, k)
            elapsed = bar.tasks[task].elapsed or 0.0
            if elapsed > 0:
                bar.update(task, rate=f"{bar.tasks[task].completed / elapsed:,.0f}")

        yield tick
