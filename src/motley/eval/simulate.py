"""Simulation: many matches between bots, with seat rotation or duplicate deals.

**Entries and lineups.** The bots of a simulation are *entries* (one per spec in ``--bots``; with fewer
entries than seats, the last one fills the remaining seats). A game's *lineup* is the entry index per seat.

**Seat rotation** (the default): game ``i`` seats the entries rotated by ``i`` places and has its own
deal, so over any ``players`` consecutive games every entry has sat in every seat.

**Duplicate deals** (``duplicate=True``): the games come in groups of ``players``; the games of group
``d`` all replay the same deal (the same seed: ``new_initial_state(seed)`` fixes every shuffle of the
match) with the lineup rotated by ``0 .. players-1`` places, so every entry meets the same cards from
every seat, which cuts card luck out of the comparison.

**Samples and intervals.** A *unit* is one game (rotation) or one deal group (duplicate). An entry's
figure in a unit is its mean over the seats it held there, so units are independent samples and the
95% intervals are taken over units.

**Reproducible.** Game ``i`` has seed :func:`game_seed` ``(seed, deal)`` and a lineup fixed by ``i``;
games are played in chunks of at most :data:`~motley.eval.worker.CHUNK` consecutive indices by
:func:`~motley.eval.worker.play_chunk` (bots are built once per chunk; each game seeds its own bot rng, so
chunking does not change results), and gathered in index order, so the same base seed gives the same
results whatever the number of workers or the backend (process pool or Ray, :mod:`motley.eval.backends`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from motley.bots import make_bot
from motley.core import Game, MotleyError
from motley.core.rewards import outcome_shares
from motley.eval.backends import check_backend, run_jobs
from motley.eval.deciders import special_label
from motley.eval.stats import figure
from motley.eval.worker import GameResult, Job, play_game

__all__ = ["GameResult", "Job", "SimulationSummary", "check_bots", "game_seed", "plan",
           "play_game", "seat_entries", "simulate", "summarise"]

#: Seeds are drawn from ``range(SEED_SPAN)``.
SEED_SPAN = 2**62

Progress = Callable[[int], None]


def game_seed(base: int, deal: int) -> int:
    """The seed of deal number ``deal`` of a run with base seed ``base``: a hash, so any deal's seed is
    known without drawing the ones before it (what lets workers and later runs pick up anywhere)."""
    digest = hashlib.blake2b(f"motley:{base}:{deal}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % SEED_SPAN


def seat_entries(entries: int, players: int, shift: int) -> list[int]:
    """Entry index for each seat, the base lineup ``0, 1, .., entries-1, entries-1, ..`` rotated by ``shift``."""
    base = [min(i, entries - 1) for i in range(players)]
    shift %= players
    return base[-shift:] + base[:-shift] if shift else base


def plan(game: Game, entries: int, n: int, seed: int, duplicate: bool, start: int = 0) -> list[Job]:
    """The jobs of games ``start .. start+n-1`` (lineups rotate; with ``duplicate``, seeds repeat per group)."""
    players = game.num_players
    jobs = []
    for i in range(start, start + n):
        deal = i // players if duplicate else i
        jobs.append(Job(i, deal, game_seed(seed, deal), tuple(seat_entries(entries, players, i))))
    return jobs


def check_bots(game: Game, bot_specs: Sequence[str], allow_more: bool = False) -> None:
    """Build each bot once, so a bad spec fails here with its reason rather than inside a worker.

    Raises:
        MotleyError: for an unknown bot or bad bot options, no bots, or (unless ``allow_more``) more
            bots than seats.
    """
    players = game.num_players
    if not bot_specs or (len(bot_specs) > players and not allow_more):
        raise MotleyError(f"give 1 to {players} bots for {game.name} with {players} players; got {len(bot_specs)}")
    for spec in bot_specs:
        make_bot(spec, game)


def check_simulation(game: Game, bot_specs: Sequence[str], n: int, backend: str = "process") -> None:
    """Every check :func:`simulate` makes before playing, so a caller can refuse bad input before any work.

    Raises:
        MotleyError: for ``n < 1``, an unknown bot, no bots or more bots than seats, or an unknown or
            uninstalled backend.
    """
    if n < 1:
        raise MotleyError(f"the number of games must be at least 1; got {n}")
    check_bots(game, bot_specs)
    check_backend(backend)


def simulate(game: Game, bot_specs: Sequence[str], n: int, seed: int = 0, progress: Progress | None = None,
             workers: int = 0, duplicate: bool = False, backend: str = "process", address: str | None = None,
             records: bool = False) -> SimulationSummary:
    """Play ``n`` matches of ``game`` between the bots and summarise them.

    Args:
        bot_specs: one spec per entry (``"heuristic"``, ``"random"``, ``"ismcts(simulations=200)"``);
            fewer than the seats: the last entry fills the rest.
        n: number of games; with ``duplicate`` it is rounded up to a whole number of deal groups
            (a multiple of the number of seats).
        seed: base seed; same seed, same results, whatever ``workers`` and ``backend``.
        progress: called with the number of games just finished.
        workers: processes (``0`` = one per core); ignored by the Ray backend.
        duplicate: duplicate deals (module docstring) instead of a fresh deal per game.
        backend: ``"process"`` or ``"ray"``; ``address`` is the Ray cluster (None: local or already
            initialised Ray).
        records: keep the game record of every game (``GameResult.record``; slower, large).
    Raises:
        MotleyError: for an unknown bot, more bots than seats, ``n < 1`` or an unknown backend.
    """
    check_simulation(game, bot_specs, n, backend)
    players = game.num_players
    if duplicate:
        n = -(-n // players) * players
    jobs = plan(game, len(bot_specs), n, seed, duplicate)
    start = time.perf_counter()
    results = run_jobs(str(game), bot_specs, jobs, workers=workers, backend=backend, address=address,
                       progress=progress, records=records)
    summary = summarise(game, bot_specs, seed, results, duplicate)
    summary.seconds = time.perf_counter() - start
    return summary


@dataclass
class SimulationSummary:
    """The result of :func:`simulate`.

    Attributes:
        game: the game's string form; ``bots``: the entry specs; ``games``: games played; ``seed``.
        duplicate: whether deals were duplicated; ``units``: independent samples (games or deal groups).
        entries: per entry: ``bot``, ``seats_per_game``, ``fair_share``, ``win_share`` (+ ``_ci``),
            ``draw_rate`` (+ ``_ci``), ``mean_points`` (+ ``_ci``) and ``by_seat`` (win share per seat).
        seats: per seat: ``seat``, ``win_share``/``win_share_ci``, ``mean_points``/``mean_points_ci``.
        mean_moves: decisions per game; ``lengths``: ``moves``, ``deals`` and ``moves_per_deal``
            figures (``{"mean", "ci", "n"}``); ``special``: the special-card figure or None.
        results: every game, in index order; ``seconds``: wall time (not part of :meth:`as_dict`).
    """

    game: str
    bots: list[str]
    games: int
    seed: int
    duplicate: bool
    units: int
    entries: list[dict[str, Any]]
    seats: list[dict[str, Any]]
    mean_moves: float
    lengths: dict[str, Any]
    special: dict[str, Any] | None
    results: list[GameResult] = field(default_factory=list, repr=False)
    seconds: float = field(default=0.0, compare=False)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (without the per-game results and the timing, so it depends only on the seed)."""
        return {"game": self.game, "bots": self.bots, "games": self.games, "seed": self.seed,
                "duplicate": self.duplicate, "units": self.units, "mean_moves": self.mean_moves,
                "lengths": self.lengths, "special": self.special, "entries": self.entries, "seats": self.seats}


def _ci(values: Sequence[float], share: bool = False) -> tuple[float, list[float]]:
    f = figure(values, share)
    return f["mean"], f["ci"]


def summarise(game: Game, bot_specs: Sequence[str], seed: int, results: Sequence[GameResult],
              duplicate: bool = False) -> SimulationSummary:
    """Figures with 95% intervals of a list of played games (see the module docstring for the samples)."""
    players = game.num_players
    k = len(bot_specs)
    groups: dict[int, list[GameResult]] = {}
    for r in results:
        groups.setdefault(r.deal if duplicate else r.index, []).append(r)
    units = list(groups.values())
    win: list[list[float]] = [[] for _ in range(k)]
    draw: list[list[float]] = [[] for _ in range(k)]
    pts: list[list[float]] = [[] for _ in range(k)]
    held = [0] * k
    seat_win: list[list[float]] = [[] for _ in range(players)]
    seat_pts: list[list[float]] = [[] for _ in range(players)]
    by_seat: list[list[list[float]]] = [[[] for _ in range(players)] for _ in range(k)]
    for unit in units:
        u_win = [0.0] * k
        u_pts = [0.0] * k
        u_held = [0] * k
        u_draw = 0.0
        s_win = [0.0] * players
        s_pts = [0.0] * players
        for r in unit:
            shares, drawn = outcome_shares(r.returns)
            u_draw += drawn
            for seat, e in enumerate(r.lineup):
                u_win[e] += shares[seat]
                u_pts[e] += r.scores[seat]
                u_held[e] += 1
                s_win[seat] += shares[seat]
                s_pts[seat] += r.scores[seat]
                by_seat[e][seat].append(shares[seat])
        for e in range(k):
            if u_held[e]:
                win[e].append(u_win[e] / u_held[e])
                pts[e].append(u_pts[e] / u_held[e])
                draw[e].append(u_draw / len(unit))
                held[e] += u_held[e]
        for seat in range(players):
            seat_win[seat].append(s_win[seat] / len(unit))
            seat_pts[seat].append(s_pts[seat] / len(unit))
    n = len(results)
    entries = []
    for e, spec in enumerate(bot_specs):
        w, w_ci = _ci(win[e], share=True)
        d, d_ci = _ci(draw[e], share=True)
        p, p_ci = _ci(pts[e])
        entries.append({
            "bot": spec, "games": n, "seats_per_game": held[e] / max(n, 1), "fair_share": 1.0 / players,
            "win_share": w, "win_share_ci": w_ci, "draw_rate": d, "draw_rate_ci": d_ci,
            "mean_points": p, "mean_points_ci": p_ci,
            "by_seat": [{"seat": s, **figure(by_seat[e][s], share=True)} for s in range(players)],
        })
    seats = []
    for seat in range(players):
        w, w_ci = _ci(seat_win[seat], share=True)
        p, p_ci = _ci(seat_pts[seat])
        seats.append({"seat": seat, "win_share": w, "win_share_ci": w_ci, "mean_points": p, "mean_points_ci": p_ci})
    lengths = {
        "moves": figure([float(r.moves) for r in results]),
        "deals": figure([float(r.deals) for r in results]),
        "moves_per_deal": figure([r.moves / max(r.deals, 1) for r in results]),
    }
    label = special_label(game.name)
    flags = [r.special for r in results if r.special is not None]
    special = None if label is None else {"card": label, **figure([float(f) for f in flags], share=True)}
    return SimulationSummary(game=str(game), bots=list(bot_specs), games=n, seed=seed, duplicate=duplicate,
                             units=len(units), entries=entries, seats=seats,
                             mean_moves=sum(r.moves for r in results) / max(n, 1), lengths=lengths,
                             special=special, results=list(results))
