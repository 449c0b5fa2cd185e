"""The analysis of a match: each decision of one seat reviewed by the search that ``best`` plays.

For each decision of the seat with more than one legal move (forced moves and forced passes are skipped), the
search is run from that seat's information state alone -- ``state.observation(seat)`` and the legal moves, never
the State: the cards the seat could not see are re-dealt by the game's sampler in every iteration, as when
``best`` plays. The search is ``best``'s with one difference (:func:`searcher_spec`): where ``best`` weighs the
re-dealt worlds by how well the heuristic explains the other seats' plays with a fixed share of plays off it
(``infer_trust="fixed"``), the analysis learns that share from the table's plays (``infer_trust="table"``), so a
table that does not play like the heuristic (people, random players) does not collapse the worlds' weights and
make the win chance overconfident (docs/reports/README.md#calibration-of-the-win-chance). Every legal move gets the
search's estimates from the iterations that began with it:

* **win chance** (``win``): the share of those iterations in which the seat wins the current *deal* (its score gain
  over the deal is the highest; a win shared by ``k`` seats counts ``1/k``). The search looks no further than the
  end of the deal, so this is the chance of winning the deal (the match, in a game of one deal);
* **points** (``points``): the seat's expected score gain over the deal, in game points;
* **value** (``value``): the search's own mean reward in [-1, 1] (:mod:`motley.bots.ismcts`: the match outcome at
  the end of the match, the shaped deal points at the end of a deal), which the search's choice maximises.

Noise. Each win chance comes with a 95% interval (the Agresti-Coull interval of a share from the move's iterations),
each points estimate with its standard error. Neither takes the iterations as independent draws only: consecutive
iterations share much (the inference chain's worlds, the tree as it learns), so each error is the larger of the
independent one and the batch-means one (:data:`BATCHES` consecutive batches of the move's iterations). Analysed
twice with other seeds, the two estimates of a win chance differ by less than 1.96 of their combined standard errors
92-98% of the time, of points 85-95%, where 95% is meant (docs/reports/README.md#the-noise-of-the-estimates). The
**cost** of the move played is the estimate of the search's choice (its most visited move, the one ``best`` plays)
minus the estimate of the move played, in win chance and in points. A decision is **marked** ("inaccuracy",
"mistake") only when a cost passes its threshold *and* lies out of the noise (the cost less 1.96 standard errors of
the difference is above 0): the cost in win chance against :data:`INACCURACY`, :data:`MISTAKE`; the cost in points
against :data:`POINTS_INACCURACY`, :data:`POINTS_MISTAKE` standard deviations of the seat's deal points over the
decision's iterations (a seat with no chance of winning the deal can still throw points away); the graver mark
counts.

Determinism. Decision ``i`` of a record is searched with ``random.Random("{seed}:{i}")`` by a fresh searcher, so
the analysis is the same for a seed whatever the number of processes. Inputs are plain data (picklable) and the
result is JSON-able (:func:`analyse_record`), for callers that run it elsewhere (a pool of processes).

Cost: ``benchmarks/analysis_time.py``; calibration of the win chance: ``benchmarks/analysis_calibration.py`` and
docs/reports/README.md#the-analysis-of-a-match.
"""

from __future__ import annotations

import math
import multiprocessing
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from motley.bots.best import BEST_DEFAULT, best_spec
from motley.bots.ismcts import ISMCTSBot, Node
from motley.bots.spec import BotSpec, parse_bot_spec
from motley.core import Game, MotleyError, Observation, State, records
from motley.core.registry import game_spec
from motley.core.search import SearchState

__all__ = ["BATCHES", "DEFAULT_SIMULATIONS", "FORMAT", "INACCURACY", "MISTAKE", "POINTS_INACCURACY", "POINTS_MISTAKE",
           "Decision", "analyse_decision", "analyse_record", "assemble", "decision_at", "decisions", "evaluate", "hint",
           "move_words", "searcher_spec", "summarise"]

#: The format name of an analysis (the ``format`` field of :func:`analyse_record`'s result).
FORMAT = "motley-analysis/1"
#: Simulations per decision when none are given: one seat's decisions of a 5-player Fool! or Foolery match take
#: about a minute on one core (benchmarks/analysis_time.py; figures in docs/reports/README.md).
DEFAULT_SIMULATIONS = 500
#: Cost in win chance (0..1) from which a decision out of the noise is an inaccuracy, and a mistake.
INACCURACY = 0.05
MISTAKE = 0.15
#: Cost in points, in standard deviations of the seat's deal points over the decision's iterations, from which a
#: decision out of the noise is an inaccuracy, and a mistake (a standardised effect: small, large).
POINTS_INACCURACY = 0.2
POINTS_MISTAKE = 0.8
#: The normal quantile of the 95% intervals and of the noise test of a mark.
Z = 1.96
#: Pseudo-iterations of the decision's pooled points variance in each move's (see ``_move_row``).
PRIOR = 2.0
#: Consecutive batches of a move's iterations whose means give its batch-means standard error (``_batch_se``).
BATCHES = 5

#: ``progress(done, total)``: decisions analysed so far, of all.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Decision:
    """One decision of the analysed seat, as the seat saw it (plain data: picklable and JSON-able).

    Attributes:
        index: the move's index in the record (0-based).
        deal: the deal (round, hand) it was made in, from 0.
        observation: ``state.observation(seat)`` before the move: everything the search may read.
        legal: the legal action ids (at least two).
        played: the action the record played; ``names``: each legal action's move string.
        so_far: each seat's score gain in the deal before the decision (game points, public): a deal's win is
            judged on the whole deal's gains (in The Fool's Errand, a match of one deal, the score piles so far).
    """

    index: int
    deal: int
    observation: Observation
    legal: tuple[int, ...]
    played: int
    names: tuple[str, ...]
    so_far: tuple[int, ...]


def searcher_spec(game: Game, simulations: int | None = None) -> str:
    """The ISMCTS spec of the analysis: what ``best`` plays in ``game`` (:func:`motley.bots.best.best_spec`; a
    best that is not a search, such as a network, gives way to :data:`motley.bots.best.BEST_DEFAULT`) with
    ``simulations`` (default :data:`DEFAULT_SIMULATIONS`) per decision, and inference from play with the trust
    learned from the table (``infer_trust="table"``) where ``best``'s is fixed (module docstring).

    Raises:
        MotleyError: for ``simulations`` below 1.
    """
    if simulations is not None and (isinstance(simulations, bool) or not isinstance(simulations, int)
                                    or simulations < 1):
        raise MotleyError(f"simulations must be a whole number of at least 1; got {simulations!r}")
    spec = parse_bot_spec(best_spec(game))
    if spec.kind != "ismcts":
        spec = parse_bot_spec(BEST_DEFAULT)
    options = dict(spec.options)
    options["simulations"] = DEFAULT_SIMULATIONS if simulations is None else simulations
    if _infers(options) and not options.get("infer_temperature") and options.get("infer_trust", "fixed") == "fixed":
        options["infer_trust"] = "table"  # the reviewed table need not play like the heuristic
    options.pop("seconds", None)  # a time budget is not reproducible
    return str(BotSpec(spec.kind, options))


def _infers(options: dict[str, Any]) -> bool:
    """Whether ISMCTS ``options`` infer from play (``infer`` above 1 or an ``infer_chain``)."""
    return int(options.get("infer", 0)) > 1 or int(options.get("infer_chain", 0)) > 0


def move_words(game: Game, move: str) -> str:
    """A move string in words: each card code named by the game's spec (``GameSpec.card_info``: ``"G12"`` ->
    ``"green 12"``; cards of one play joined by ``" + "``), other words (``pass``, ``give``) kept."""
    spec = game_spec(game.name)
    out: list[str] = []
    card_before = False
    for token in move.split():
        card = spec.card_info is not None and token in spec.card_codes
        word = str(spec.card_info(token)["name"]) if spec.card_info is not None and card else token
        out.append(f"+ {word}" if card and card_before else word)
        card_before = card
    return " ".join(out)


def decisions(text: str, seat: int) -> tuple[Game, list[Decision]]:
    """The decisions of ``seat`` in a record (JSON text, :mod:`motley.core.records`) with more than one legal move.

    Raises:
        RecordError: for a record that does not replay (:func:`motley.core.records.load`).
        MotleyError: for a seat the game does not have.
    """
    final = records.load(text)
    final.check_seat(seat)
    record = records.read(text)
    game = record.game
    state = game.new_initial_state(seed=record.seed, deal=record.deal)
    deal, start = 0, [0] * game.num_players  # the scores the current deal started from
    found: list[Decision] = []
    for index, (_, move) in enumerate(record.moves):
        action = state.string_to_action(move)
        if state.current_player() == seat:
            legal = state.legal_actions()
            if len(legal) > 1:
                found.append(decision_at(state, seat, action, index, start))
        state.apply_action(action)
        if state.deal_number() != deal:
            deal, start = state.deal_number(), state.scores()
    return game, found


def decision_at(state: State, seat: int, played: int, index: int = 0,
                deal_start: Sequence[int] | None = None) -> Decision:
    """The :class:`Decision` of ``seat``, to move in ``state``, that played ``played``: only the seat's observation,
    the legal moves and the public scores are kept.

    ``deal_start`` is the scores the current deal started from; by default 0 for each seat in the first deal and
    the current scores in a later one (the games score a later deal at its end).

    Raises:
        MotleyError: when ``seat`` is not to move or ``played`` is not legal.
    """
    if state.current_player() != seat:
        raise MotleyError(f"seat {seat} is not to move (seat {state.current_player()} is)")
    legal = state.legal_actions()
    if played not in legal:
        raise MotleyError(f"action {played} is not legal here")
    scores = state.scores()
    if deal_start is None:
        deal_start = scores if state.deal_number() else [0] * len(scores)
    return Decision(index, state.deal_number(), state.observation(seat), tuple(legal), played,
                    tuple(state.action_to_string(a) for a in legal),
                    tuple(b - a for a, b in zip(deal_start, scores, strict=True)))


class _Tally:
    """The outcomes of the iterations that began with one root move: count, sums and sums of squares, and each
    iteration's win share and points in order (for :func:`_batch_se`)."""

    __slots__ = ("gains", "n", "points", "points2", "win", "wins")

    def __init__(self) -> None:
        self.n = 0
        self.win = 0.0
        self.points = 0.0
        self.points2 = 0.0
        self.wins: list[float] = []
        self.gains: list[float] = []


class _AnalysisSearch(ISMCTSBot):
    """ISMCTS that also tallies, per root move, whether the seat won the deal and its points (module docstring)."""

    def __init__(self, game: Game, **options: Any) -> None:
        super().__init__(game, **options)
        self.tallies: dict[int, _Tally] = {}
        self.so_far: Sequence[int] = [0] * game.num_players  # Decision.so_far

    def _iterate(self, root: Node, world: SearchState, rng: random.Random) -> None:
        seat = world.current_player()
        start = len(world.history())
        start_scores = world.scores()
        super()._iterate(root, world, rng)
        action = world.history()[start]  # the observer moves first from the root
        gains = [g + b - a for g, a, b in zip(self.so_far, start_scores, world.scores(), strict=True)]
        top = max(gains)
        winners = sum(1 for g in gains if g == top)
        tally = self.tallies.get(action)
        if tally is None:
            tally = self.tallies[action] = _Tally()
        tally.n += 1
        share = 1.0 / winners if gains[seat] == top else 0.0
        tally.win += share
        tally.wins.append(share)
        tally.gains.append(gains[seat])
        tally.points += gains[seat]
        tally.points2 += gains[seat] * gains[seat]


def _searcher(game: Game, spec: str) -> _AnalysisSearch:
    parsed = parse_bot_spec(spec)
    if parsed.kind != "ismcts":
        raise MotleyError(f"the analysis searches with ismcts; got {spec!r}")
    return _AnalysisSearch(game, **parsed.resolved())


def _share_interval(wins: float, n: int) -> tuple[float, float, float]:
    """The Agresti-Coull centre, standard error and 95% interval half-width of a share of ``wins`` in ``n``."""
    centre = (wins + Z * Z / 2) / (n + Z * Z)
    se = math.sqrt(centre * (1 - centre) / (n + Z * Z))
    return centre, se, Z * se


def _move_row(game: Game, decision: Decision, action: int, tally: _Tally | None, value: float,
              pooled: float) -> dict[str, Any]:
    """The estimates of one legal move (module docstring), rounded for the reader. The points' standard error
    takes the move's variance shrunk towards ``pooled`` (the standard deviation over all the decision's
    iterations) by :data:`PRIOR` pseudo-iterations, so a move searched a few times is not taken as certain."""
    n = 0 if tally is None else tally.n
    win = 0.0 if tally is None or n == 0 else tally.win / n
    points = 0.0 if tally is None or n == 0 else tally.points / n
    centre, win_se, half = _share_interval(0.0 if tally is None else tally.win, n)
    squares = 0.0 if tally is None or n < 2 else max(0.0, tally.points2 - n * points * points)
    spread = (squares + PRIOR * pooled * pooled) / (max(n - 1, 0) + PRIOR)
    points_se = math.sqrt(spread / n) if n else 0.0
    if tally is not None:
        win_se = max(win_se, _batch_se(tally.wins))
        half = Z * win_se
        points_se = max(points_se, _batch_se(tally.gains))
    move = decision.names[decision.legal.index(action)]
    return {"move": move, "words": move_words(game, move), "action": action, "visits": n,
            "win": round(win, 4), "win_low": round(max(0.0, centre - half), 4),
            "win_high": round(min(1.0, centre + half), 4),
            "win_se": round(win_se, 4), "points": round(points, 3),
            "points_se": round(points_se, 3), "value": round(value, 4)}


def _batch_se(values: Sequence[float]) -> float:
    """The batch-means standard error of the mean of ``values`` (one move's iterations, in order): the standard
    deviation of the means of :data:`BATCHES` consecutive batches over the square root of their number. Consecutive
    iterations share much (the inference chain's worlds, the tree as it learns), so this is wider than the error of
    independent draws where they are alike; 0.0 for fewer than two iterations a batch."""
    n = len(values)
    if n < 2 * BATCHES:
        return 0.0
    means = []
    for b in range(BATCHES):
        part = values[b * n // BATCHES:(b + 1) * n // BATCHES]
        means.append(sum(part) / len(part))
    centre = sum(means) / BATCHES
    return math.sqrt(sum((m - centre) ** 2 for m in means) / (BATCHES - 1) / BATCHES)


def evaluate(game: Game, decision: Decision, spec: str, seed: int | str) -> dict[str, Any]:
    """The analysis of one decision (module docstring) by the ISMCTS ``spec`` with ``random.Random(seed)``.

    Returns:
        ``{"index", "deal", "played", "played_words", "choice", "choice_words", "moves": [per legal move: "move",
        "words", "action", "visits", "win", "win_low", "win_high", "win_se", "points", "points_se", "value"], most
        visited first, "cost": {"win", "win_se", "points", "points_se", "points_sd"}, "mark": None | "inaccuracy" |
        "mistake", "why"}``.
    Raises:
        MotleyError: for a spec that is not ISMCTS, or a game without search support.
    """
    searcher = _searcher(game, spec)
    searcher.so_far = decision.so_far
    choice = searcher.act(decision.observation, list(decision.legal), random.Random(seed))
    values = {entry["action"]: float(entry["mean"]) for entry in searcher.explain()}
    spread = _points_spread(searcher.tallies.values())
    rows = [_move_row(game, decision, a, searcher.tallies.get(a), values.get(a, 0.0), spread) for a in decision.legal]
    rows.sort(key=lambda r: (-r["visits"], -r["win"]))
    by_action = {r["action"]: r for r in rows}
    best, played = by_action[choice], by_action[decision.played]
    cost = best["win"] - played["win"]
    cost_se = math.hypot(best["win_se"], played["win_se"])
    points = best["points"] - played["points"]
    points_se = math.hypot(best["points_se"], played["points_se"])
    mark = None
    if choice != decision.played:
        mark = _worse(_mark(cost, cost_se, INACCURACY, MISTAKE),
                      _mark(points, points_se, POINTS_INACCURACY * spread, POINTS_MISTAKE * spread))
    return {"index": decision.index, "deal": decision.deal, "played": played["move"], "played_words": played["words"],
            "choice": best["move"], "choice_words": best["words"], "moves": rows,
            "cost": {"win": round(cost, 4), "win_se": round(cost_se, 4), "points": round(points, 3),
                     "points_se": round(points_se, 3), "points_sd": round(spread, 3)},
            "mark": mark, "why": _why(best, played, mark)}


def _points_spread(tallies: Iterable[_Tally]) -> float:
    """The standard deviation of the seat's deal points over all of a decision's iterations (0.0 for fewer than 2)."""
    n = points = points2 = 0.0
    for tally in tallies:
        n, points, points2 = n + tally.n, points + tally.points, points2 + tally.points2
    if n < 2:
        return 0.0
    return math.sqrt(max(0.0, (points2 - points * points / n) / (n - 1)))


def _mark(cost: float, cost_se: float, inaccuracy: float, mistake: float) -> str | None:
    """``"mistake"``, ``"inaccuracy"`` or None for a cost, its standard error and the thresholds (module
    docstring): None unless the cost less :data:`Z` standard errors is above 0."""
    if cost - Z * cost_se <= 0.0 or inaccuracy <= 0.0:
        return None
    if cost >= mistake:
        return "mistake"
    return "inaccuracy" if cost >= inaccuracy else None


def _worse(first: str | None, second: str | None) -> str | None:
    """The graver of two marks."""
    return "mistake" if "mistake" in (first, second) else first or second


def _why(best: dict[str, Any], played: dict[str, Any], mark: str | None) -> str:
    """One sentence from the search's statistics on the move played against the search's choice."""
    if best is played:
        return (f"{best['words']} is the search's choice: it won the deal in {best['win']:.0%} of "
                f"{best['visits']} sampled deals consistent with what the seat had seen.")
    verdict = f"{'An' if mark == 'inaccuracy' else 'A'} {mark}: " if mark else ""
    return (f"{verdict}{best['words']} won the deal in {best['win']:.0%} of {best['visits']} sampled deals "
            f"consistent with what the seat had seen ({best['points']:+.1f} points); {played['words']} in "
            f"{played['win']:.0%} of {played['visits']} ({played['points']:+.1f} points).")


def analyse_decision(state: State, seat: int, played: int, simulations: int | None = None,
                     seed: int | str = 0) -> dict[str, Any]:
    """The analysis (:func:`evaluate`) of ``seat``'s decision in ``state`` that played ``played``, from the seat's
    observation only, by the analysis's searcher (:func:`searcher_spec`).

    Raises:
        MotleyError: when ``seat`` is not to move, ``played`` is not legal or ``simulations`` is below 1.
    """
    decision = decision_at(state, seat, played)
    return evaluate(state.game, decision, searcher_spec(state.game, simulations), seed)


def _job(args: tuple[Game, Decision, str, str]) -> dict[str, Any]:
    """One decision's analysis in a worker process."""
    return evaluate(*args)


def analyse_record(text: str, seat: int, simulations: int | None = None, seed: int = 0,
                   progress: Progress | None = None, workers: int = 1) -> dict[str, Any]:
    """The analysis of ``seat``'s decisions in a record (module docstring).

    Args:
        text: the record (JSON text, :mod:`motley.core.records`), finished or not.
        seat: the seat analysed, from 0.
        simulations: search iterations per decision; default :data:`DEFAULT_SIMULATIONS`.
        seed: the analysis's seed (same record, seat, simulations and seed: same analysis).
        progress: called with ``(done, total)`` after each decision (and ``(0, total)`` first).
        workers: processes (1: this one; the result does not depend on it).
    Returns:
        JSON-able: ``{"format", "game", "seat", "searcher", "simulations", "seed", "estimates" (what each figure
        is), "thresholds", "decisions": [:func:`evaluate` per decision, in order], "summary": {"decisions",
        "agreed", "inaccuracies", "mistakes", "marked", "win_lost", "points_lost"}}``; the summary's losses add
        the costs of the marked decisions.
    Raises:
        RecordError: for a record that does not replay.
        MotleyError: for a seat the game does not have, ``simulations`` or ``workers`` below 1.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise MotleyError(f"workers must be a whole number of at least 1; got {workers!r}")
    game, found = decisions(text, seat)
    spec = searcher_spec(game, simulations)
    jobs = [(game, d, spec, f"{seed}:{d.index}") for d in found]
    if progress is not None:
        progress(0, len(jobs))
    results: list[dict[str, Any]] = []
    if workers == 1 or len(jobs) < 2:
        for job in jobs:
            results.append(_job(job))
            if progress is not None:
                progress(len(results), len(jobs))
    else:
        # spawned, not forked: a caller may hold threads (a progress bar's, a server's) that a fork would copy
        with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=multiprocessing.get_context("spawn")) as pool:
            for result in pool.map(_job, jobs):
                results.append(result)
                if progress is not None:
                    progress(len(results), len(jobs))
    return assemble(game, seat, spec, seed, results)


def assemble(game: Game, seat: int, spec: str, seed: int, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The result of :func:`analyse_record` from its parts: the analysed ``game``, ``seat``, the searcher's
    ``spec`` (:func:`searcher_spec`), the ``seed`` and each decision's :func:`evaluate` (seeded ``"{seed}:{index}"``),
    in order; for a caller that runs the decisions elsewhere (the server's worker processes)."""
    return {"format": FORMAT, "game": str(game), "seat": seat, "searcher": spec,
            "simulations": parse_bot_spec(spec).resolved()["simulations"], "seed": seed,
            "estimates": _ESTIMATES, "thresholds": _THRESHOLDS, "decisions": list(results),
            "summary": summarise(results)}


def hint(game: Game, decision: Decision, simulations: int, seed: int | str) -> dict[str, Any]:
    """The strongest bot's choice at ``decision`` (its ``played`` is ignored) by the analysis's searcher
    (:func:`searcher_spec` with ``simulations``), from the seat's observation only, with one sentence of why.

    Returns:
        ``{"action", "move", "words", "why", "win", "points", "visits"}``: the chosen action id and move string,
        the move in words, the sentence, and the search's estimates for it (win chance of the deal 0..1, expected
        deal points, iterations that began with it).
    Raises:
        MotleyError: for ``simulations`` below 1, or a game without search support.
    """
    result = evaluate(game, decision, searcher_spec(game, simulations), seed)
    best = next(row for row in result["moves"] if row["move"] == result["choice"])
    runner = next((row for row in result["moves"] if row is not best and row["visits"]), None)  # most visited next
    why = (f"{best['words']} won the deal in {best['win']:.0%} of {best['visits']} sampled deals consistent "
           f"with what you have seen ({best['points']:+.1f} points)")
    if runner is not None:
        why += f"; the next best, {runner['words']}, in {runner['win']:.0%} ({runner['points']:+.1f} points)"
    return {"action": best["action"], "move": best["move"], "words": best["words"], "why": why + ".",
            "win": best["win"], "points": best["points"], "visits": best["visits"]}


#: The marks' thresholds (the result's ``thresholds`` field; module docstring).
_THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "points_inaccuracy_sd": POINTS_INACCURACY,
               "points_mistake_sd": POINTS_MISTAKE, "z": Z}


#: What each figure of an analysis is (the result's ``estimates`` field).
_ESTIMATES = {
    "win": "the chance the seat wins the current deal (highest score gain; shared wins split) after the move, "
           "from the search's sampled deals consistent with what the seat had seen; win_low..win_high: 95% interval",
    "points": "the seat's expected score gain over the current deal after the move, in game points (points_se: "
              "its standard error)",
    "value": "the search's mean reward in [-1, 1], which its choice maximises",
    "cost": "the search's choice's estimate less the played move's (points_sd: the standard deviation of the "
            "seat's deal points over the decision's iterations); a decision is marked when a cost passes its "
            "threshold (win chance; points in points_sd) and the cost less 1.96 standard errors is above 0",
}


def summarise(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The per-seat summary of analysed decisions: reviewed, agreed with the search's choice, marked, and the
    costs of the marked ones added (win chance, points)."""
    marked = [r for r in results if r["mark"] is not None]
    return {"decisions": len(results), "agreed": sum(1 for r in results if r["played"] == r["choice"]),
            "inaccuracies": sum(1 for r in marked if r["mark"] == "inaccuracy"),
            "mistakes": sum(1 for r in marked if r["mark"] == "mistake"), "marked": len(marked),
            "win_lost": round(sum(r["cost"]["win"] for r in marked), 4),
            "points_lost": round(sum(r["cost"]["points"] for r in marked), 3)}
