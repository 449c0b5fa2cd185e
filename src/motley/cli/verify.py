"""``motley verify``: check that a finished server table was dealt from the seed committed to at its start.

When a match starts, every viewer of a server table gets ``commitment`` = SHA-256 of ``"{table_id}:{seed}"``
(:func:`motley.server.table.commitment`); the record of the finished table reveals the seed. A player who
saved the commitment at the start checks the record with ``motley verify RECORD --commitment HEX``: the
hash of the revealed seed must match it, and the record must replay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

import motley
from motley.cli.common import console, errors
from motley.core.game import load_json_object
from motley.server.table import commitment as commit


def _unreadable(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; the exit (status 2) to raise."""
    errors.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    return typer.Exit(2)


def verify(
    record: Annotated[Path, typer.Argument(help="The record of a finished server table (GET /api/tables/ID/record).")],
    table_id: Annotated[str | None, typer.Option("--table-id", help="The table's id (default: the record's "
                                                                     "'table' field).")] = None,
    commitment: Annotated[str | None, typer.Option(help="The commitment (hex) shown when the match started "
                                                        "(default: the record's 'commitment' field).")] = None,
) -> None:
    """Check a finished table's revealed seed against the commitment published at its start, and replay it.

    Exit status: 0 when the seed matches the commitment and the record replays, 1 when it does not, 2 for
    a record that cannot be read.
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
    failures: list[str] = []
    actual = commit(table, seed)
    if actual != expected.strip().lower():
        failures.append(f"the revealed seed {seed} of table {table} hashes to {actual}, not to the commitment "
                        f"{expected}")
    if commitment is not None and isinstance(data.get("commitment"), str) and data["commitment"] != commitment:
        failures.append(f"the record's commitment {data['commitment']} is not the one given ({commitment})")
    try:
        motley.records.load(text)
    except motley.MotleyError as exc:
        failures.append(f"the record does not replay: {exc}")
    if failures:
        for failure in failures:
            console.print(f"[bold red]FAILED:[/] {escape(failure)}")
        raise typer.Exit(1)
    console.print(f"OK: table {escape(table)} was dealt from seed {seed}, which matches the commitment "
                  f"{escape(actual)}, and its record replays.")
