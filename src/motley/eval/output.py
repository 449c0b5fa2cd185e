"""Per-game rows of a simulation as JSON and CSV.

One row per game: ``game`` (index), ``deal``, ``seed``, ``bots`` (spec per seat), ``scores``, ``returns``,
``winners`` (seats with the best return; empty for a draw), ``moves``, ``deals``, ``special`` (the
special card decided the match: true/false, or null/empty where the game defines no such figure) and
``record``. In JSON ``record`` is the game record object (``motley.records``) or null when records were not
kept; in CSV, lists are joined with ``;`` and the ``record`` column (the record's JSON text) is present
only when records were kept. The game, its seed and lineup reproduce every game even without records.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from motley.core.rewards import outcome_shares
from motley.eval.simulate import SimulationSummary
from motley.eval.worker import GameResult

CSV_COLUMNS = ("game", "deal", "seed", "bots", "scores", "returns", "winners", "moves", "deals", "special")


def game_row(summary: SimulationSummary, result: GameResult) -> dict[str, Any]:
    """The JSON-able row of one game (record parsed into an object when kept)."""
    shares, drawn = outcome_shares(result.returns)
    return {
        "game": result.index, "deal": result.deal, "seed": result.seed,
        "bots": [summary.bots[e] for e in result.lineup], "scores": result.scores, "returns": result.returns,
        "winners": [] if drawn else [s for s, share in enumerate(shares) if share > 0],
        "moves": result.moves, "deals": result.deals, "special": result.special,
        "record": None if result.record is None else json.loads(result.record),
    }


def write_json(summary: SimulationSummary, path: Path) -> None:
    """Write ``{"summary": summary.as_dict(), "games": [row, ...]}`` to ``path``.

    Raises:
        OSError: if the file cannot be written.
    """
    data = {"summary": summary.as_dict(), "games": [game_row(summary, r) for r in summary.results]}
    path.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def write_csv(summary: SimulationSummary, path: Path) -> None:
    """Write one CSV row per game (header :data:`CSV_COLUMNS`, plus ``record`` when records were kept).

    Raises:
        OSError: if the file cannot be written.
    """
    with_records = any(r.record is not None for r in summary.results)
    columns = [*CSV_COLUMNS, "record"] if with_records else list(CSV_COLUMNS)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for result in summary.results:
            row = game_row(summary, result)
            cells: list[Any] = []
            for column in CSV_COLUMNS:
                value = row[column]
                if isinstance(value, list):
                    value = ";".join(str(v) for v in value)
                elif value is None:
                    value = ""
                elif isinstance(value, bool):
                    value = "true" if value else "false"
                cells.append(value)
            if with_records:
                cells.append(result.record or "")
            writer.writerow(cells)
