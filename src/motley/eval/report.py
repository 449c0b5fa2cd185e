"""Self-contained HTML reports of a simulation: the table of figures and matplotlib plots.

Needs the ``report`` extra (matplotlib): importing this module without it raises
:class:`~motley.core.extras.MissingExtraError` naming the extra.

The page has no outside references: the plots are PNG images embedded as ``data:image/png;base64`` URIs
and the style is inline, so the file can be mailed or archived as it is. Plots (each an ``<img>`` with
an ``id``):

* ``fig-scores`` -- distribution of final scores (game points) per bot;
* ``fig-win-by-seat`` -- win share per bot and seat with 95% intervals, and the fair share;
* ``fig-lengths`` -- distribution of match length (decisions), deals per match and decisions per deal;
* ``fig-first-seat`` -- win share per seat (all bots) with 95% intervals: the first-seat advantage.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from motley.core.extras import require

require("matplotlib", extra="report", feature="the HTML report (--report)")

from matplotlib.figure import Figure  # noqa: E402  (after the check that names the extra)
from matplotlib.ticker import MaxNLocator  # noqa: E402

from motley.eval.simulate import SimulationSummary  # noqa: E402

ENTRY_HEAD = ("bot", "seats/game", "win share (95% CI)", "fair share", "draws (95% CI)", "mean points (95% CI)")
FIGURE_IDS = ("fig-scores", "fig-win-by-seat", "fig-lengths", "fig-first-seat")


def _int_bins(values: Sequence[float], most: int = 60) -> list[float]:
    """Histogram edges centred on whole numbers (scores and lengths are integers), at most ``most`` bins."""
    lo, hi = math.floor(min(values, default=0)), math.ceil(max(values, default=0))
    width = max(1, math.ceil((hi - lo + 1) / most))
    return [lo - 0.5 + k * width for k in range((hi - lo) // width + 2)]


def _png(fig: Figure) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _err(values: Sequence[dict[str, Any]], mean: str, ci: str) -> list[list[float]]:
    return [[max(0.0, v[mean] - v[ci][0]) for v in values], [max(0.0, v[ci][1] - v[mean]) for v in values]]


def plot_scores(summary: SimulationSummary) -> Figure:
    """Histogram of the final scores each bot made (every seat it held, every game)."""
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    for e, spec in enumerate(summary.bots):
        points = [r.scores[s] for r in summary.results for s, x in enumerate(r.lineup) if x == e]
        ax.hist(points, bins=_int_bins(points), alpha=0.55, label=spec, density=True)
    ax.set_xlabel("final score (game points)")
    ax.set_ylabel("density")
    ax.set_title("Score distribution per bot")
    ax.legend(fontsize=8)
    return fig


def plot_win_by_seat(summary: SimulationSummary) -> Figure:
    """Grouped bars: win share of each bot in each seat, 95% intervals, fair share line."""
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    players = len(summary.seats)
    k = len(summary.entries)
    width = 0.8 / k
    for e, entry in enumerate(summary.entries):
        cells = entry["by_seat"]
        xs = [s + (e - (k - 1) / 2) * width for s in range(players)]
        ax.bar(xs, [c["mean"] for c in cells], width, yerr=_err(cells, "mean", "ci"), capsize=3, label=entry["bot"])
    ax.axhline(1.0 / players, color="black", linestyle="--", linewidth=1, label="fair share")
    ax.set_xticks(range(players), [f"seat {s}" for s in range(players)])
    ax.set_ylabel("win share")
    ax.set_title("Win share per bot and seat (95% intervals)")
    ax.legend(fontsize=8)
    return fig


def plot_lengths(summary: SimulationSummary) -> Figure:
    """Three histograms: decisions per match, deals per match, decisions per deal."""
    fig = Figure(figsize=(10, 3.2), layout="constrained")
    axes = fig.subplots(1, 3)
    moves = [r.moves for r in summary.results]
    deals = [r.deals for r in summary.results]
    per_deal = [r.moves / max(r.deals, 1) for r in summary.results]
    axes[0].hist(moves, bins=_int_bins(moves), color="tab:blue")
    axes[0].set_xlabel("decisions per match")
    axes[1].hist(deals, bins=_int_bins(deals), color="tab:green")
    distinct = sorted(set(deals))
    if len(distinct) <= 15:
        axes[1].set_xticks(distinct)
    else:
        axes[1].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[1].set_xlabel("deals per match (rounds, hands)")
    axes[2].hist(per_deal, bins=min(60, max(5, len(set(per_deal)))), color="tab:orange")
    axes[2].set_xlabel("decisions per deal")
    for ax in axes:
        ax.set_ylabel("matches")
    fig.suptitle("Match and deal lengths")
    return fig


def plot_first_seat(summary: SimulationSummary) -> Figure:
    """Win share per seat over all bots (seats rotate, so bots are balanced), 95% intervals."""
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    seats = summary.seats
    ax.bar(range(len(seats)), [s["win_share"] for s in seats], yerr=_err(seats, "win_share", "win_share_ci"),
           capsize=4, color="tab:purple")
    ax.axhline(1.0 / len(seats), color="black", linestyle="--", linewidth=1, label="fair share")
    ax.set_xticks(range(len(seats)), [f"seat {s['seat']}" for s in seats])
    ax.set_ylabel("win share")
    ax.set_title("Seat advantage (95% intervals)")
    ax.legend(fontsize=8)
    return fig


def _ci_text(mean: float, ci: Sequence[float], digits: int = 3) -> str:
    return f"{mean:.{digits}f} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
    return "\n".join(out) + "</table>"


def render_html(summary: SimulationSummary, title: str | None = None) -> str:
    """The whole report as one HTML document (plots embedded as data: URIs)."""
    figs = {
        "fig-scores": plot_scores(summary), "fig-win-by-seat": plot_win_by_seat(summary),
        "fig-lengths": plot_lengths(summary), "fig-first-seat": plot_first_seat(summary),
    }
    entry_rows = [[e["bot"], f"{e['seats_per_game']:.2g}", _ci_text(e["win_share"], e["win_share_ci"]),
                   f"{e['fair_share']:.3f}", _ci_text(e["draw_rate"], e["draw_rate_ci"]),
                   _ci_text(e["mean_points"], e["mean_points_ci"], 1)] for e in summary.entries]
    seat_rows = [[str(s["seat"]), _ci_text(s["win_share"], s["win_share_ci"]),
                  _ci_text(s["mean_points"], s["mean_points_ci"], 1)] for s in summary.seats]
    length_rows = [[name.replace("_", " "), _ci_text(f["mean"], f["ci"], 2)] for name, f in summary.lengths.items()]
    if summary.special is not None:
        length_rows.append([f"the {summary.special['card']} decides (share of matches)",
                            _ci_text(summary.special["mean"], summary.special["ci"])])
    rate = summary.games / summary.seconds if summary.seconds > 0 else 0.0
    mode = "duplicate deals" if summary.duplicate else "seat rotation"
    heading = title or f"motley simulation: {summary.game}"
    images = "\n".join(f'<figure><img id="{fid}" alt="{fid}" src="{_png(fig)}"></figure>' for fid, fig in figs.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(heading)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #bbb;padding:4px 8px;text-align:right}}th{{background:#eee}}img{{max-width:100%}}</style>
</head><body>
<h1>{html.escape(heading)}</h1>
<p>{summary.games:,} matches ({summary.units:,} independent units, {mode}), bots {html.escape(", ".join(summary.bots))},
seed {summary.seed}; {summary.seconds:,.1f} s ({rate:,.0f} games/s). Intervals are 95%.</p>
<h2>Bots</h2>
{_table(ENTRY_HEAD, entry_rows)}
<h2>Seats</h2>
{_table(["seat", "win share (95% CI)", "mean points (95% CI)"], seat_rows)}
<h2>Lengths and the special card</h2>
{_table(["figure", "mean (95% CI)"], length_rows)}
<h2>Plots</h2>
{images}
</body></html>
"""


def write_report(summary: SimulationSummary, path: Path, title: str | None = None) -> None:
    """Write :func:`render_html` to ``path``.

    Raises:
        OSError: if the file cannot be written.
    """
    path.write_text(render_html(summary, title), encoding="utf-8")
