"""``motley verify``: check that a finished server table was dealt from the seed committed to at its start.

When a match starts, every viewer of a server table gets ``commitment`` = SHA-256 of ``"{table_id}:{seed}"``
(:func:`motley.server.play.table.commitment`); the record of the finished table reveals the seed. A player who
saved the commitment at the start checks the record with ``motley verify RECORD --commitment HEX``. The whole
chain is checked: the record carries no explicit deal (a served table is dealt from its seed alone, so the deal
is the one the seed makes), the revealed seed hashes to the commitment, the moves replay, the match is finished
and the replay ends in the recorded result. Without ``--commitment`` the record is checked against its own
``commitment`` field, and the answer says so: a record made up afterwards could carry a commitment of its own.
Commitments are read without regard to case or white space.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

import motley
from motley.cli.common import console, errors, printable
from motley.core.game import load_json_object
from motley.server.play.table import commitment as commit


def _unreadable(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; the exit (status 2) to raise."""
    errors.print(f"[bold red]error:[/] {escape(printable(message))}", soft_wrap=True)
    return typer.Exit(2)


def verify(
    record: Annotated[Path, typer.Argument(help="The record of a finished server table (GET /api/tables/ID/record).")],
    table_id: Annotated[str | None, typer.Option("--table-id", help="The table's id (default: the record's "
                                                                     "'table' field).")] = None,
    commitment: Annotated[str | None, typer.Option(help="The commitment (hex) shown when the match started "
                                                        "(default: the record's 'commitment' field).")] = None,
) -> None:
    """Check a finished table's record from the commitment published at its start to its result.

    Exit status: 0 when the chain holds (no explicit deal, the seed matches the commitment, the finished match
    replays to its recorded result), 1 when it does not (each failure named), 2 for a record that cannot be read.
    """
    try:
        text = motley.records.read_file(record)
        data: dict[str, Any] = load_json_object(text, "record")
        motley.records.read(text)
    except motley.MotleyError as exc:
        raise _unreadable(f"cannot read record {record}: {exc}") from None
    table = table_id if table_id is not None else data.get("table")
    expected = commitment if commitment is not None else data.get("commitment")
    if not isinstance(table, str) or not isinstance(expected, str):
        raise _unreadable("the table id and the commitment are needed: give --table-id and --commitment, or a "
                          "record with 'table' and 'commitment' fields")
    seed = data.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise _unreadable(f"record {record} reveals no seed (a whole number)")
    failures = _chain(text, data, table, seed, expected)
    if commitment is not None and isinstance(data.get("commitment"), str) \
            and _hex(data["commitment"]) != _hex(commitment):
        failures.append(f"the record's commitment {data['commitment']} is not the one given ({commitment})")
    if failures:
        for failure in failures:
            console.print(f"[bold red]FAILED:[/] {escape(printable(failure))}")
        raise typer.Exit(1)
    console.print(f"OK: table {escape(printable(table))} was dealt from seed {seed}, which matches the commitment "
                  f"{escape(commit(table, seed))}; the finished match replays to its recorded result.")
    if commitment is None:
        console.print("Note: checked against the record's own commitment only. A record made up afterwards can "
                      "carry a commitment of its own: give --commitment HEX, the one your page showed when the "
                      "match started, to check that this is the match you played.")


def _hex(text: str) -> str:
    """A commitment as compared: without white space, in lower case."""
    return "".join(text.split()).lower()


def _chain(text: str, data: dict[str, Any], table: str, seed: int, expected: str) -> list[str]:
    """What breaks the chain from the commitment to the recorded result (none: it holds)."""
    failures: list[str] = []
    if data.get("deal") is not None:
        failures.append("the record carries an explicit deal; a served table is dealt from its seed alone, so "
                        "its record names none")
    actual = commit(table, seed)
    if actual != _hex(expected):
        failures.append(f"the revealed seed {seed} of table {table} hashes to {actual}, not to the commitment "
                        f"{expected}")
    if not isinstance(data.get("result"), dict):
        failures.append("the record has no result: the record of a finished table ends with its result")
    try:
        final = motley.records.load(text)
    except motley.MotleyError as exc:
        failures.append(f"the record does not replay: {exc}")
    else:
        if not final.is_terminal():
            failures.append(f"the match is not finished: its {len(final.history())} moves stop before the end")
    return failures
