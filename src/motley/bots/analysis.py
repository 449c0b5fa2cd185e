"""The analysis of a match: each decision of one seat reviewed by the search that ``best`` plays.

For each decision of the seat with more than one legal move (forced moves and forced passes are skipped), the
search is run from that seat's information state alone -- ``state.observation(seat)`` and the legal moves, never
the State: the cards the seat could not see are re-dealt by the game's sampler in every iteration, as when
``best`` plays. The search is ``best``'s with at most two differences (:func:`searcher_spec`): where ``best`` weighs the
re-dealt worlds by how well the heuristic explains the other seats' plays with a fixed share of plays off it
(``infer_trust="fixed"``), the analysis learns that share from the table's plays (``infer_trust="table"``), so a
table that does not play like the heuristic (people, random players) does not collapse the worlds' weights and
make the win chance overconfident (docs/reports/README.md#calibration-of-the-win-chance); and where ``best``
plays every other seat in its rollouts (and model moves) by the heuristic with a fixed share of random moves, the
analysis can play each other seat by its own share learned from its moves of the match before the decision
(:attr:`Decision.seats`, ``seat_model="learned"``; :data:`SEAT_MODEL`, fixed by default: measured less well
calibrated, docs/reports/README.md#at-mixed-tables). Every legal move gets the search's estimates from the
iterations that began with it:

* **win chance** (``win``): the share of those iterations in which the seat wins the current *deal* (its score gain
  over the deal is the highest; a win shared by ``k`` seats counts ``1/k``). The search looks no further than the
  end of the deal, so this is the chance of winning the deal (the match, in a game of one deal);
* **points** (``points``): the seat's expected score gain over the deal, in game points;
* **value** (``value``): the search's own mean reward in [-1, 1] (:mod:`motley.bots.ismcts`: the match outcome at
  the end of the match, the shaped deal points at the end of a deal), which the search's choice maximises.

Noise. Each win chance comes with a 95% interval (the Agresti-Coull interval of a share from the move's iterations),
each points estimate with its standard error. Neither takes the iterations as independent draws only: consecutive
iterations share much (the inference chain's worlds, the tree as it learns), so each error is the larger of the
independent one and the batch-means one (:data:`BATCHES` consecutive batches of the move's iterations). A move with
fewer than :data:`THIN` iterations is "not searched enough" (``enough`` False): its interval leaves out how much
another seed would move it, so it is shown as such and never judged on.

Marks. The **cost** of the move played is the estimate of a better move minus the estimate of the move played, in win
chance and in points. Where by the first search another move searched enough may win the deal more often than the move
played by :data:`INACCURACY`, or may score more points by :data:`POINTS_INACCURACY` standard deviations while winning as
often (its lead with :data:`Z_GATE` standard errors of it reaches the threshold: :func:`_rivals`; not the search's
choice, its most visited move, which is a coin toss where the search is indifferent), the decision may be marked, and
before it is, the played move and that rival (and, where the first search cannot tell the rival from other moves, the
first of those in the game's order) are searched again (:func:`_check`), each alone (every iteration begins with it)
with a quarter of the budget per round, all over the same sampled deals in a round (common random numbers: the cost is
measured deal by deal, so the deal's luck cancels out of it), round after round until the cost is out of its noise on
one side of its threshold (a sequential test; below it only from :data:`CHECK_UNMARKED` rounds on), its mark is out of
reach (from :data:`CHECK_FUTILE` rounds on: were the cost :data:`Z_REACH` standard errors above its estimate,
:data:`CHECK_MAX_ROUNDS` rounds would still not take it out of the mark's margin), or :data:`CHECK_MAX_ROUNDS` rounds
are run: so the rounds go to the decisions near a mark's line, where another seed would mark or not by chance. A move
another re-searched rival clearly leads is searched no more. Their estimates replace the first search's (``checked``),
with errors that hold the rounds' spread (the between-seed error itself). The move called best is then the one of the
higher win chance (``choice``; of two the re-search cannot tell apart, the first in the game's order of moves, so
another seed names the same; unmarked after a re-search for a lead in points, the move a points mark would name),
and the decision is marked ("inaccuracy", "mistake", ``mark_on`` saying on what) when the
cost in win chance less the mark's margin (:func:`z_mark`: :data:`Z_MARK`, 3, standard errors after one round) is above
:data:`INACCURACY` (a mistake where the cost less :data:`Z` standard errors reaches :data:`MISTAKE`), or else, where the
rival wins the deal at least as often, when the cost in points less that margin is above :data:`POINTS_INACCURACY`
standard deviations of the seat's deal points (a mistake from :data:`POINTS_MISTAKE`, with the same 95% margin; a
seat with no chance of winning the deal can still throw points away). The margin
of a mark is wider than that of its absence (the cost plus 1.96 standard errors below the threshold settles a decision
unmarked): a mark is a claim another seed's search repeats. It grows with the rounds (:data:`Z_LOOKS` more per doubling
of them): each round is another look at the cost, and a cost near the line crosses a fixed margin at one of many looks
by chance, so a mark found late was one another seed made about half the time (benchmarks/analysis_marks.py). A move
with the higher win chance is never marked; a decision whose cost stays in its noise at the cap is not marked. The other
decisions cost what the first search costs.

Best among near-equals. A move is called best only above the moves it is separated from: the other moves as good
as it within the noise (``as_good``: by the re-search's paired costs for the moves searched again, by the first
search's estimates for the others searched enough) are named with it
("green 12 (or green 7, as good) wins 40%"), so the claim made is one another seed keeps. Which of the near-equals is
named first is not the seed's: at a decision searched again, those the first search could not tell from the move called
best that come before it in the game's order are searched over the re-search's deals too (:func:`_ties`, at most
:data:`CHECK_TIES` of them in :data:`CHECK_TIE_ROUNDS` rounds), and the first in that order of the moves the
re-search cannot tell from the best is named (the mark and its cost are the re-search's, as found).
``benchmarks/analysis_marks.py`` measures whether the marks hold at another seed and at ten times the budget, and
whether the move called best at another seed is one of those named.

Words. Each decision says who made it (``actor``: the player, or a stand-in bot or a timer, from the server's record)
and where it was in the seat's own moves (``number`` in the match, ``deal_number`` in the deal), and one sentence
(``why``) a player reads: "You played green 12: it wins the deal 13% of the time; green 19 wins 25%". The summary
counts the player's own decisions only, with the accuracy (the share not marked) and the win chance and points lost
per decision.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from motley.bots.best import BEST_DEFAULT, best_spec
from motley.bots.ismcts import ISMCTSBot, Node
from motley.bots.spec import BotSpec, parse_bot_spec
from motley.core import Game, MotleyError, Observation, State, jsonsafe, records
from motley.core.inference import random_share
from motley.core.registry import game_spec
from motley.core.search import SearchState
from motley.core.spec import Heuristic

__all__ = ["BATCHES", "CHECK_FUTILE", "CHECK_MAX_ROUNDS", "CHECK_ROUNDS", "CHECK_TIES", "CHECK_TIE_ROUNDS",
           "CHECK_UNMARKED", "DEFAULT_SIMULATIONS",
           "FORMAT", "INACCURACY", "MISTAKE", "POINTS_INACCURACY", "POINTS_MISTAKE", "SEAT_MODEL", "THIN", "Z_GATE",
           "Z_LOOKS", "Z_MARK", "Z_REACH", "Decision", "analyse_decision", "analyse_record", "assemble", "decision_at",
           "decisions", "evaluate", "hint", "move_words", "searcher_spec", "searcher_words", "summarise", "z_mark"]

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
#: The normal quantile of the 95% intervals, and of the noise test that settles a decision as not marked.
Z = 1.96
#: The normal quantile of the noise test of a mark: a mark needs its cost less this many standard errors above its
#: threshold, a wider margin than the one that settles a decision unmarked (:data:`Z`), so a mark made is one another
#: seed's search makes too (a mark made on a cost 1.96 standard errors clear of its threshold is one that another
#: seed, whose cost lands about as far on either side, makes about half the time: benchmarks/analysis_marks.py).
Z_MARK = 3.0
#: Standard errors added to the mark's margin (:data:`Z_MARK` after one round of the re-search) per doubling of the
#: rounds (:func:`z_mark`): 4.25 at the cap of 32. A sequential test looks at the cost after every round, and a cost
#: near the mark's line that crosses a fixed margin at the 16th look is one another seed's search marks about half the
#: time (against 0.93-0.96 for marks made in the first three rounds; benchmarks/analysis_marks.py, docs/reports).
Z_LOOKS = 0.25
#: Pseudo-iterations of the decision's pooled points variance in each move's (see ``_move_row``).
PRIOR = 2.0
#: Consecutive batches of a move's iterations whose means give its batch-means standard error (``_batch_se``).
BATCHES = 5
#: Iterations below which a move is "not searched enough" (``enough`` False): its estimates are too thin to judge
#: and its interval too narrow (the between-seed error of so few iterations is not known).
THIN = 30
#: Rounds of the re-search before a mark: at least, and at most (each round searches the played move and its rival
#: alone, over the same sampled deals, with a quarter of the decision's budget each: :func:`_check`). Few decisions
#: run to the cap: from :data:`CHECK_FUTILE` rounds on, a decision whose mark is out of reach stops (:func:`_side`),
#: so the rounds past the first few go to the decisions whose cost is near a mark's line.
CHECK_ROUNDS = 1
CHECK_MAX_ROUNDS = 32
#: Rounds from which the re-search of a decision stops, unmarked, once its mark is out of reach: were the cost
#: :data:`Z_REACH` standard errors above its estimate, it would still be within the mark's margin at the cap
#: (:func:`z_mark`) of its threshold after :data:`CHECK_MAX_ROUNDS` rounds (the error shrinking as one over the
#: square root of the rounds: :func:`_side`). Not before: a round or two's error holds no spread of the rounds.
CHECK_FUTILE = 3
Z_REACH = 1.0
#: Rounds from which a decision may be settled unmarked by its cost :data:`Z` standard errors under the threshold
#: (:func:`_side`). Not after one: one round's error is its iterations' alone, without the spread of the rounds
#: (another seed's), so a cost a round puts under the line is one another seed's re-search marks a round or two later
#: (as a mark after one round needs :data:`Z_MARK`, not :data:`Z`). A mark on win chance may still be made after one
#: round; one on points, judged only once the win chance is settled unmarked (:func:`_settled`), from this round on.
CHECK_UNMARKED = 2
#: Standard errors of the first search's lead over the played move with which a move may make the decision a mark and
#: sends it to the re-search (:func:`_may_lead`, :func:`_rivals`).
Z_GATE = 2.0
#: At a decision searched again, the near-equals of the move called best that come before it in the game's order and
#: were not searched again with it (:func:`_ties`): at most this many are searched, in at most
#: :data:`CHECK_TIE_ROUNDS` of the re-search's rounds, so that the first in the game's order of the moves the re-search
#: cannot tell apart is named best at every seed, not the near-equal this seed's first search happened to rank first.
CHECK_TIES = 3
CHECK_TIE_ROUNDS = 4

#: The searcher's model of the other seats (``ismcts(seat_model=...)``): ``"fixed"`` plays every seat by the
#: searcher's ``epsilon``; ``"learned"`` each other seat by its share of random moves learned from its play
#: (:attr:`Decision.seats`). Fixed: at the mixed tables of docs/reports/README.md#at-mixed-tables the learned
#: model's win chances were less well calibrated (a searcher agrees with the heuristic little more often than a
#: random player, so it is searched as a weak player); ``benchmarks/analysis_calibration.py --options
#: seat_model=learned`` measures it.
SEAT_MODEL = "fixed"

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
        number: the seat's own move number in the match (its 1st, 2nd... move, forced ones counted), from 1.
        deal_number: the seat's own move number in the deal, from 1.
        actor: who made the move for the seat: ``"seat"`` (the player), ``"bot"`` (a bot's seat, or a bot standing
            in), ``"timer"`` (the move a timer made), ``"away"`` (a stand-in for a player away): the server's record
            of who acted; ``"seat"`` where the record does not say.
        seats: per seat (the analysed one too), its share of moves played at random, learned from its unforced
            moves of the match before this one (:func:`decisions`): the search plays each seat by it
            (:attr:`motley.bots.ismcts.ISMCTSBot.seat_epsilons`); empty: the searcher's ``epsilon`` for every
            seat.
    """

    index: int
    deal: int
    observation: Observation
    legal: tuple[int, ...]
    played: int
    names: tuple[str, ...]
    so_far: tuple[int, ...]
    number: int = 1
    deal_number: int = 1
    actor: str = "seat"
    seats: tuple[float, ...] = ()


def searcher_spec(game: Game, simulations: int | None = None) -> str:
    """The ISMCTS spec of the analysis: what ``best`` plays in ``game`` (:func:`motley.bots.best.best_spec`; a
    best that is not a search, such as a network, gives way to :data:`motley.bots.best.BEST_DEFAULT`) with
    ``simulations`` (default :data:`DEFAULT_SIMULATIONS`) per decision, and inference from play with the trust
    learned from the table (``infer_trust="table"``) where ``best``'s is fixed, and the seat model
    :data:`SEAT_MODEL` (module docstring).

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
    if SEAT_MODEL != "fixed":
        options["seat_model"] = SEAT_MODEL
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


def decisions(text: str, seat: int, actors: Sequence[str] | None = None,
              learn: bool = SEAT_MODEL != "fixed") -> tuple[Game, list[Decision]]:
    """The decisions of ``seat`` in a record (JSON text, :mod:`motley.core.records`) with more than one legal move.

    ``actors`` gives who made each move of the record (:attr:`Decision.actor`; the server's record of a table keeps
    it); by default each move object's ``"actor"`` field where the record has one, else ``"seat"``. With ``learn``
    (by default where the analysis's :data:`SEAT_MODEL` is learned) each decision carries each seat's share of
    random moves learned from its moves before it (:attr:`Decision.seats`; the game's heuristic asked at every
    unforced move of the record).

    Raises:
        RecordError: for a record that does not replay (:func:`motley.core.records.load`).
        MotleyError: for a seat the game does not have, or ``actors`` not one per move.
    """
    final = records.load(text)
    final.check_seat(seat)
    record = records.read(text)
    if actors is None:
        actors = _recorded_actors(text)
    if len(actors) != len(record.moves):
        raise MotleyError(f"actors must name who made each of the {len(record.moves)} moves; got {len(actors)}")
    game = record.game
    state = game.new_initial_state(seed=record.seed, deal=record.deal)
    deal, start = 0, [0] * game.num_players  # the scores the current deal started from
    number = deal_number = 0
    found: list[Decision] = []
    heuristic = game_spec(game.name).heuristic if learn else None
    plays: list[list[tuple[int, int]]] = [[] for _ in range(game.num_players)]
    for index, (_, move) in enumerate(record.moves):
        action = state.string_to_action(move)
        mover = state.current_player()
        legal = state.legal_actions()
        if mover == seat:
            number, deal_number = number + 1, deal_number + 1
            if len(legal) > 1:
                seats = tuple(random_share(p) for p in plays) if heuristic is not None else ()
                found.append(replace(decision_at(state, seat, action, index, start), number=number,
                                     deal_number=deal_number, actor=str(actors[index]), seats=seats))
        if heuristic is not None and len(legal) > 1:
            plays[mover].append((len(legal), _rank(game, heuristic, state, mover, legal, action)))
        state.apply_action(action)
        if state.deal_number() != deal:
            deal, start, deal_number = state.deal_number(), state.scores(), 0
    return game, found


def _rank(game: Game, heuristic: Heuristic, state: State, seat: int, legal: Sequence[int], action: int) -> int:
    """The rank of ``action`` by the game's heuristic for ``seat`` (to move in ``state``): 0 for its move from the
    seat's observation, else 1.. by its move scores on the full state where the game has them
    (``InferenceSupport.scores``), else -1 (:func:`motley.core.inference.random_share`)."""
    chosen = heuristic(game, state.observation(seat), legal, random.Random(0))
    if action == chosen:
        return 0
    support = game_spec(game.name).inference
    if support is None:
        return -1
    scores = support.scores(state)
    others = sorted((a for a in legal if a != chosen), key=lambda a: (-scores.get(a, -math.inf), a))
    return 1 + others.index(action)


def _recorded_actors(text: str) -> list[str]:
    """Each move's ``"actor"`` field of a record (JSON text already read), ``"seat"`` where it has none."""
    moves = jsonsafe.loads(text).get("moves") or []
    return [str(m.get("actor") or "seat") if isinstance(m, dict) else "seat" for m in moves]


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
        #: Where set, the sampled deals are drawn from this generator alone (not the search's): two searches given
        #: generators of one seed see the same deals in the same order, so the difference of two moves searched
        #: apart is measured deal by deal (common random numbers: the deal's luck cancels out of the cost).
        self.worlds: random.Random | None = None

    def _sampler(self, observation: Observation) -> Callable[[random.Random], State]:
        sample = super()._sampler(observation)
        worlds = self.worlds
        if worlds is None:
            return sample
        return lambda _rng: sample(worlds)

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


def _seat_model(decision: Decision, options: Mapping[str, Any]) -> list[float] | None:
    """The searcher's share of random moves per seat (``ISMCTSBot.seat_epsilons``) at ``decision``: each other
    seat's learned one (:attr:`Decision.seats`), the analysed seat's own future moves the searcher's ``epsilon``
    (they are searched: the win chance of a move is the chance with the seat's best play after it); None where
    nothing was learned."""
    if not decision.seats:
        return None
    shares = list(decision.seats)
    shares[int(decision.observation["seat"])] = float(options["epsilon"])
    return shares


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
            "points_se": round(points_se, 3), "value": round(value, 4), "enough": n >= THIN, "checked": False}


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


def evaluate(game: Game, decision: Decision, spec: str, seed: int | str, check: bool = True) -> dict[str, Any]:
    """The analysis of one decision (module docstring) by the ISMCTS ``spec`` with ``random.Random(seed)``: the
    search of every move, then, where the decision may be marked (and ``check``: a hint, which marks nothing,
    skips it), the re-search of the played move and its rival (:func:`_check`).

    Returns:
        ``{"index", "deal", "number", "deal_number", "actor", "played", "played_words", "choice", "choice_words",
        "as_good": [moves as good as the choice within the noise: the choice is the best of them, not above them],
        "moves": [per legal move: "move", "words", "action", "visits", "win", "win_low", "win_high", "win_se",
        "points", "points_se", "value", "enough", "checked"], most visited first, "cost": {"win", "win_se",
        "points", "points_se", "points_sd"}, "mark": None | "inaccuracy" | "mistake", "mark_on": None | "win" |
        "points", "checked": None | {"rounds", "simulations" (per move and round), "moves" (re-searched, the played
        one with them)}, "why"}``.
    Raises:
        MotleyError: for a spec that is not ISMCTS, or a game without search support.
    """
    searcher = _searcher(game, spec)
    searcher.so_far = decision.so_far
    searcher.seat_epsilons = _seat_model(decision, parse_bot_spec(spec).resolved())
    choice = searcher.act(decision.observation, list(decision.legal), random.Random(seed))
    values = {entry["action"]: float(entry["mean"]) for entry in searcher.explain()}
    spread = _points_spread(searcher.tallies.values())
    rows = [_move_row(game, decision, a, searcher.tallies.get(a), values.get(a, 0.0), spread) for a in decision.legal]
    rows.sort(key=lambda r: (-r["visits"], -r["win"]))
    by_action = {r["action"]: r for r in rows}
    first = {a: dict(r) for a, r in by_action.items()}  # the first search's rows, before any re-search
    checked = None
    rivals, kind = _rivals(rows, by_action[decision.played], spread) if check else ([], "win")
    key = "win"
    estimates: dict[int, _Estimate] = {}
    if rivals:
        rounds, estimates, kept = _check(game, decision, spec, seed, decision.played, rivals, kind, spread)
        choice, mark, mark_on, cost = _verdict(estimates, decision.played, spread, kept, kind)
        key, mark_on = ("points" if mark_on == "points" else "win"), (mark_on if mark else None)
        if choice != decision.played:  # the mark and its cost stand; which of the near-equals is named best is settled
            choice = _ties(game, decision, spec, seed, first, estimates, choice, key)
        budget = _check_budget(spec)
        for action, estimate in estimates.items():
            by_action[action].update(estimate.row(len(estimate.rounds) * budget))
        rows.sort(key=lambda r: (-r["visits"], -r["win"]))
        checked = {"rounds": rounds, "simulations": budget, "moves": len(estimates)}
    else:
        cost = _Cost.between(by_action[choice], by_action[decision.played])
        mark = mark_on = None
    as_good = _as_good(first, estimates, choice, decision.played, key)
    best, played = by_action[choice], by_action[decision.played]
    return {"index": decision.index, "deal": decision.deal, "number": decision.number,
            "deal_number": decision.deal_number, "actor": decision.actor,
            "played": played["move"], "played_words": played["words"],
            "choice": best["move"], "choice_words": best["words"],
            "as_good": [by_action[a]["move"] for a in as_good], "moves": rows,
            "cost": {"win": round(cost.win, 4), "win_se": round(cost.win_se, 4), "points": round(cost.points, 3),
                     "points_se": round(cost.points_se, 3), "points_sd": round(spread, 3)},
            "mark": mark, "mark_on": mark_on, "checked": checked,
            "why": _why(best, played, mark, mark_on, [by_action[a]["words"] for a in as_good],
                        _near_mistake(cost, mark, mark_on, spread), key)}


def _as_good(first: dict[int, dict[str, Any]], estimates: dict[int, _Estimate], choice: int, played: int,
             key: str) -> list[int]:
    """The moves other than the ``choice`` and the ``played`` one that are as good as the choice within the noise
    in ``key`` (``"win"``, ``"points"``), best first: the choice is then called the best among near-equals, never
    the best above them (a claim another seed would not keep). A move re-searched with the choice is judged by their
    paired cost (:func:`_paired`); another one by the first search (``first``, its rows), and only where it was
    searched enough (a thin move's estimate judges nothing)."""
    top = first[choice]
    near = []
    for action, row in first.items():
        if action in (choice, played):
            continue
        if action in estimates and choice in estimates:
            cost, se = _paired(estimates, choice, action, key)
        elif row["enough"] and action not in estimates:
            cost, se = top[key] - row[key], math.hypot(top[f"{key}_se"], row[f"{key}_se"])
        else:
            continue
        if cost - Z * se <= 0.0:
            near.append(action)
    return sorted(near, key=lambda a: -first[a][key])


def _rival(rows: Sequence[dict[str, Any]], played: dict[str, Any], spread: float) -> int | None:
    """The move that may make the decision a mark (the first of :func:`_rivals`), or None."""
    rivals = _rivals(rows, played, spread)[0]
    return rivals[0] if rivals else None


def _rivals(rows: Sequence[dict[str, Any]], played: dict[str, Any], spread: float) -> tuple[list[int], str]:
    """The moves that may make the decision a mark, by the first search, and what their lead is in (``"win"``,
    ``"points"``): of the other moves searched enough (any searched move where none is), the one that wins the deal the
    most often, where it may win more often than the ``played`` one by :data:`INACCURACY` (its lead and :data:`Z_GATE`
    standard errors of it reach the threshold), or else the one that scores the most points of those that win at least
    as often, where it may score :data:`POINTS_INACCURACY` standard deviations more (the same test); none when there is
    none (the decision is not searched again, so it costs what the first search costs). After it, where the first search
    cannot tell it from other moves, the first of them in the game's order (:func:`_runner_up`): both are searched
    again, so where the two are near-equals the move called best is that one (:func:`_verdict`), not the seed's pick of
    the near-equals. Two standard errors, not none: a decision that a search marks after its re-search is to be searched
    again at another seed too, though that seed's first search may see its rival's lead short of the threshold (with
    one, 6 of the 20 marks another seed did not make in The Fool's Errand were never searched again there:
    docs/reports/README.md#a-wider-gate-and-no-unmarked-verdict-after-one-round). Not the search's choice: a search
    indifferent between moves (a deal won or lost whatever is played) picks one by its visits; nor a thin move, whose
    estimate is a few deals'."""
    searched = [r for r in rows if r is not played and r["visits"]]
    others = [r for r in searched if r.get("enough", True)] or searched
    win = max(others, key=lambda r: (r["win"], r["points"]), default=None)
    if win is not None and _may_lead(win, played, "win", INACCURACY):
        return [int(win["action"]), *_runner_up(others, win, played, "win", INACCURACY)], "win"
    level = [r for r in others if r["win"] >= played["win"]]
    rich = max(level, key=lambda r: (r["points"], r["win"]), default=None)
    threshold = POINTS_INACCURACY * spread
    if rich is not None and spread > 0 and _may_lead(rich, played, "points", threshold):
        return [int(rich["action"]), *_runner_up(level, rich, played, "points", threshold)], "points"
    return [], "win"


def _runner_up(pool: Sequence[dict[str, Any]], rival: dict[str, Any], played: dict[str, Any], key: str,
               threshold: float) -> list[int]:
    """Of the moves of ``pool`` the first search cannot tell from the ``rival`` in ``key`` (``"win"``,
    ``"points"``: the rival's lead over it within :data:`Z` standard errors) and that too may lead the ``played``
    move by ``threshold`` (:func:`_may_lead`), the first in the game's order (the lowest action id), as one action in
    a list, where it comes before the rival; else an empty list. Another seed's first search, which may rank the
    near-equals the other way, searches that move again too."""
    def near(row: dict[str, Any]) -> bool:
        error = math.hypot(rival.get(f"{key}_se", 0.0), row.get(f"{key}_se", 0.0))
        return float(rival[key]) - float(row[key]) <= Z * error and _may_lead(row, played, key, threshold)

    first = min((int(r["action"]) for r in pool if r is not rival and near(r)), default=None)
    return [first] if first is not None and first < int(rival["action"]) else []


def _may_lead(row: dict[str, Any], played: dict[str, Any], key: str, threshold: float) -> bool:
    """Whether ``row``'s lead over ``played`` in ``key``, with :data:`Z_GATE` standard errors of it, reaches
    ``threshold``."""
    error = math.hypot(row.get(f"{key}_se", 0.0), played.get(f"{key}_se", 0.0))
    return float(row[key]) - float(played[key]) + Z_GATE * error >= threshold


@dataclass(frozen=True)
class _Cost:
    """A cost (the better move's estimate less the played one's) in win chance and points, with standard errors."""

    win: float
    win_se: float
    points: float
    points_se: float

    @staticmethod
    def between(best: dict[str, Any], played: dict[str, Any]) -> _Cost:
        """The cost of two moves' rows searched together (their errors taken as independent)."""
        return _Cost(best["win"] - played["win"], math.hypot(best["win_se"], played["win_se"]),
                     best["points"] - played["points"], math.hypot(best["points_se"], played["points_se"]))


class _Estimate:
    """One move's re-search (:func:`_check`): the tally of each round (its iterations' win shares and points in
    order, deal by deal the same sampled deals as the other re-searched move's in that round), with each round's
    mean and paired cost kept once worked out (a round's tally does not change once added)."""

    __slots__ = ("_costs", "_means", "rounds")

    def __init__(self) -> None:
        self.rounds: list[_Tally] = []
        self._means: dict[tuple[int, str], tuple[float, float]] = {}
        self._costs: dict[tuple[_Estimate, int, str], tuple[float, float]] = {}

    def add(self, tally: _Tally) -> None:
        """One round's iterations."""
        self.rounds.append(tally)

    def series(self, key: str) -> list[list[float]]:
        """Per round, each iteration's ``"win"`` share or ``"points"``."""
        return [tally.wins if key == "win" else tally.gains for tally in self.rounds]

    def round_mean(self, index: int, key: str) -> tuple[float, float]:
        """Round ``index``'s mean of ``"win"`` or ``"points"`` and its standard error (:func:`_series_mean`)."""
        found = self._means.get((index, key))
        if found is None:
            found = self._means[index, key] = _series_mean(self.series(key)[index])
        return found

    def round_cost(self, played: _Estimate, index: int, key: str) -> tuple[float, float]:
        """Round ``index``'s cost in ``key`` of the ``played`` move's re-search against this one, and its error: the
        mean of the deal-by-deal differences where both searched the round's deals in pairs, else the difference of
        the two means with their errors taken as independent."""
        found = self._costs.get((played, index, key))
        if found is None:
            ours, theirs = self.series(key)[index], played.series(key)[index]
            if len(ours) == len(theirs):
                found = _series_mean([x - y for x, y in zip(ours, theirs, strict=True)])
            else:
                (ma, ea), (mb, eb) = self.round_mean(index, key), played.round_mean(index, key)
                found = ma - mb, math.hypot(ea, eb)
            self._costs[played, index, key] = found
        return found

    def mean(self, key: str) -> tuple[float, float]:
        """The mean over the rounds of ``"win"`` or ``"points"`` and its standard error (:func:`_combined_se`)."""
        rounds = [self.round_mean(index, key) for index in range(len(self.rounds))]
        return sum(m for m, _ in rounds) / len(rounds), _combined_se([m for m, _ in rounds], [e for _, e in rounds])

    def row(self, visits: int) -> dict[str, Any]:
        """The fields of the move's row the re-search replaces."""
        win, win_se = self.mean("win")
        points, points_se = self.mean("points")
        return {"visits": visits, "win": round(win, 4), "win_low": round(max(0.0, win - Z * win_se), 4),
                "win_high": round(min(1.0, win + Z * win_se), 4), "win_se": round(win_se, 4),
                "points": round(points, 3), "points_se": round(points_se, 3), "enough": True, "checked": True}


def _series_mean(values: Sequence[float]) -> tuple[float, float]:
    """The mean of one round's iterations and its standard error: the larger of the independent-draw error, the
    batch-means error (:func:`_batch_se`) and the error of one iteration in ``n`` (so a round whose iterations all
    agree is not taken as certain); ``(0.0, 1.0)`` for no iterations."""
    n = len(values)
    if not n:
        return 0.0, 1.0
    mean = sum(values) / n
    spread = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, max(math.sqrt(spread / n), _batch_se(values), 1.0 / n)


def _combined_se(values: Sequence[float], errors: Sequence[float]) -> float:
    """The standard error of the mean of independent runs' ``values``: the larger of the one from the runs' own
    errors and the one from their spread (the between-seed error itself, once there are 3 runs)."""
    rounds = len(values)
    within = math.sqrt(sum(e * e for e in errors)) / rounds
    if rounds < 3:
        return within
    centre = sum(values) / rounds
    between = math.sqrt(sum((v - centre) ** 2 for v in values) / (rounds - 1) / rounds)
    return max(within, between)


def _check_budget(spec: str) -> int:
    """Iterations of one move's re-search in one round: a quarter of the decision's budget, at least 20."""
    return max(20, int(parse_bot_spec(spec).resolved()["simulations"]) // 4)


def _check(game: Game, decision: Decision, spec: str, seed: int | str, played: int, rivals: Sequence[int],
           kind: str, spread: float) -> tuple[int, dict[int, _Estimate], list[int]]:
    """The re-search of the ``played`` move and its ``rivals`` (:func:`_rivals`: one, or two the first search could
    not tell apart): in each round each of them is searched alone (every iteration begins with it,
    :attr:`ISMCTSBot.root_move`) by a fresh searcher with :func:`_check_budget` iterations, the round's generator
    (``"{seed}:check:{round}"``) and the round's sampled deals (``"{seed}:deals:{round}"``, the same for all:
    :attr:`_AnalysisSearch.worlds`), from :data:`CHECK_ROUNDS` rounds until :data:`CHECK_MAX_ROUNDS`, stopping once
    the cost against the move called best (:func:`_verdict`) is settled on one side of its threshold
    (:func:`_settled`): a sequential test with a cap on its budget. A rival the other leads by more than :data:`Z`
    standard errors of their paired cost in ``kind`` (what their lead is in) is searched no more. Returns the rounds
    run, each move's estimate (of the rounds it was searched in) and the moves searched to the end."""
    options = _round_options(spec)
    estimates = {m: _Estimate() for m in (played, *rivals)}
    kept = [played, *rivals]
    rounds = 0
    while rounds < CHECK_MAX_ROUNDS:
        for move in kept:
            estimates[move].add(_round(game, decision, options, seed, rounds, move))
        rounds += 1
        kept = [played, *_undecided(estimates, kept[1:], kind)]
        called, mark, _, _ = _verdict(estimates, played, spread, kept)
        if called == played or (mark is None and kind == "points"):  # the settled test is of the mark's own rival
            called = max(kept[1:], key=lambda m: estimates[m].mean(kind)[0])
        if rounds >= CHECK_ROUNDS and _settled(estimates, played, called, spread):
            break
    return rounds, estimates, kept


def _round_options(spec: str) -> dict[str, Any]:
    """The searcher's options of one round of the re-search: ``spec``'s, with :func:`_check_budget` iterations."""
    options = dict(parse_bot_spec(spec).resolved())
    options["simulations"] = _check_budget(spec)
    return options


def _round(game: Game, decision: Decision, options: Mapping[str, Any], seed: int | str, index: int,
           move: int) -> _Tally:
    """Round ``index`` of the re-search of ``move`` (:func:`_check`): a fresh searcher with ``options`` (the round's
    budget) begins every iteration with it, with the round's generator and the round's sampled deals (the same for
    every move searched in that round, so their costs are paired deal by deal)."""
    searcher = _AnalysisSearch(game, **options)
    searcher.so_far, searcher.root_move = decision.so_far, move
    searcher.seat_epsilons = _seat_model(decision, options)
    searcher.worlds = random.Random(f"{seed}:deals:{index}")
    searcher.act(decision.observation, list(decision.legal), random.Random(f"{seed}:check:{index}"))
    return searcher.tallies.get(move) or _Tally()


def _ties(game: Game, decision: Decision, spec: str, seed: int | str, first: dict[int, dict[str, Any]],
          estimates: dict[int, _Estimate], choice: int, key: str) -> int:
    """The move to call best at a decision whose re-search called ``choice`` best (not the played move): the
    near-equals of it in ``key`` by the first search (:func:`_as_good` of ``first``, its rows) that come before it in
    the game's order and were not searched again (the first in that order) are searched as the re-search's moves were
    (:func:`_round`: its first rounds, over the same deals, at most :data:`CHECK_TIE_ROUNDS` and no more than
    ``choice``'s), one the choice leads by :data:`Z` standard errors of their paired cost searched no more; the move
    named is the first in the game's order of those the re-search cannot tell from the best of them
    (:func:`_first_of_equals`; on points, ``key``, of those that win the deal at least as often as the played move),
    and where that is a near-equal, its own near-equals before it are searched in turn, :data:`CHECK_TIES` moves in
    all at most. Their estimates are added to ``estimates``. Another seed, whose first search may rank the near-equals
    the other way and whose re-search may call another of them best, then names the same move."""
    played, named = decision.played, choice
    options = _round_options(spec)
    pool, searched = [choice], 0
    while searched < CHECK_TIES:
        near = sorted(a for a in _as_good(first, {}, named, played, key) if a < named and a not in estimates)
        if not near:
            break
        near = near[:CHECK_TIES - searched]
        searched += len(near)
        for move in near:
            estimates[move] = _Estimate()
        searching = list(near)
        for index in range(min(CHECK_TIE_ROUNDS, len(estimates[choice].rounds))):
            for move in searching:
                estimates[move].add(_round(game, decision, options, seed, index, move))
            searching = [m for m in searching if not _leads(estimates, choice, m, key)]
            if not searching:
                break
        pool += [m for m in near if key == "win" or _paired(estimates, m, played, "win")[0] >= 0.0]
        top = max(pool, key=lambda m: 0.0 if m == choice else _paired(estimates, m, choice, key)[0])
        again = _first_of_equals(estimates, pool, top, key)
        if again == named:
            break
        named = again
    return named


def _undecided(estimates: dict[int, _Estimate], rivals: Sequence[int], key: str) -> list[int]:
    """The ``rivals`` that no other of them leads in ``key`` by more than :data:`Z` standard errors of their paired
    cost (the ones still in the running to be called best)."""
    return [m for m in rivals if not any(_leads(estimates, other, m, key) for other in rivals if other != m)]


def _leads(estimates: dict[int, _Estimate], better: int, worse: int, key: str) -> bool:
    """Whether ``better`` leads ``worse`` in ``key`` by more than :data:`Z` standard errors of their paired cost."""
    cost, se = _paired(estimates, better, worse, key)
    return cost - Z * se > 0.0


def _paired(estimates: dict[int, _Estimate], better: int, played: int, key: str) -> tuple[float, float]:
    """The cost in ``key`` of ``played`` against ``better`` over the rounds and its standard error: in each round
    the two moves were searched over the same sampled deals, so the round's cost is the mean of the deal-by-deal
    differences, with that series' error (:func:`_series_mean`); the rounds' costs are combined by
    :func:`_combined_se`. A round of unequal lengths (not searched in pairs) takes the two means' errors as
    independent. Only the rounds both moves were searched in count (a rival searched no more has fewer)."""
    ours, theirs = estimates[better], estimates[played]
    rounds = [ours.round_cost(theirs, index, key) for index in range(min(len(ours.rounds), len(theirs.rounds)))]
    means = [mean for mean, _ in rounds]
    return sum(means) / len(means), _combined_se(means, [se for _, se in rounds])


def _settled(estimates: dict[int, _Estimate], played: int, rival: int, spread: float) -> bool:
    """Whether the re-search has said what it can: the cost in win chance of the ``played`` move against the
    ``rival`` settled on one side of :data:`INACCURACY` (:func:`_side`: a mark, or none), and where it is settled
    unmarked and the rival wins at least as often, the cost in points likewise against :data:`POINTS_INACCURACY`
    standard deviations."""
    rounds = min(len(estimates[played].rounds), len(estimates[rival].rounds))
    win, win_se = _paired(estimates, rival, played, "win")
    side = _side(win, win_se, INACCURACY, rounds)
    if side is not False:
        return side is True
    threshold = POINTS_INACCURACY * spread
    if threshold <= 0 or win < 0:
        return True
    points, points_se = _paired(estimates, rival, played, "points")
    return _side(points, points_se, threshold, rounds) is not None


def _side(cost: float, se: float, threshold: float, rounds: int) -> bool | None:
    """Where a ``cost`` with its standard error ``se`` after ``rounds`` rounds of the re-search stands against a mark's
    ``threshold``: True, a mark (:func:`z_mark` of the rounds standard errors above it); False, settled unmarked
    (:data:`Z` below it, from :data:`CHECK_UNMARKED` rounds on; or from :data:`CHECK_FUTILE` rounds on, its mark out of
    reach: were the cost :data:`Z_REACH` standard errors above its estimate, the error shrinking as one over the square
    root of the rounds would still leave it within the margin at :data:`CHECK_MAX_ROUNDS` rounds of the threshold then);
    None, still in its noise near the mark's line (the rounds past the first few go to these decisions)."""
    if cost - z_mark(rounds) * se > threshold:
        return True
    if cost + Z * se < threshold and rounds >= CHECK_UNMARKED:
        return False
    if rounds < CHECK_FUTILE:
        return None
    reach = (cost + Z_REACH * se - threshold) * math.sqrt(CHECK_MAX_ROUNDS / rounds)
    return False if reach <= z_mark(CHECK_MAX_ROUNDS) * se else None


def z_mark(rounds: int) -> float:
    """The margin of a mark, in standard errors of its cost, after ``rounds`` rounds of the re-search (at least 1):
    :data:`Z_MARK` plus :data:`Z_LOOKS` per doubling of the rounds."""
    return Z_MARK + Z_LOOKS * math.log2(max(rounds, 1))


def _verdict(estimates: dict[int, _Estimate], played: int, spread: float,
             moves: Sequence[int] | None = None, kind: str = "win") -> tuple[int, str | None, str | None, _Cost]:
    """The move called best, the mark, what it is on (``"win"``, ``"points"``; unmarked, what the move called best
    was named for, or None where it is the played move) and the cost, from the re-search of ``moves`` (by default all
    of ``estimates``; the played move among them).

    The best is the move of the highest win chance, or of the moves that win more often than the played one and as
    often as it within the noise, the first in the game's order (:func:`_first_of_equals`: another seed, which
    may rank near-equals the other way, names the same move). A win-chance mark needs the cost against it less the
    mark's margin (:func:`z_mark` of the played move's rounds) standard errors above :data:`INACCURACY` (the mark is
    a mistake where its 95% interval lies above :data:`MISTAKE`: :func:`_level`); a points mark, only where no
    win-chance mark is, is against the move of the most points (the same way among near-equals) among those that win
    the deal at least as often as the played one, with the cost less that margin above :data:`POINTS_INACCURACY`
    standard deviations of the deal's points (a mistake the same way from :data:`POINTS_MISTAKE`). So
    the move of the higher win chance is never marked, and each mark says what it is on. Unmarked, a decision
    searched again for a lead in points (``kind``, :func:`_rivals`) names that move of the most points where it
    scores more than the played one and the move of the highest win chance does not win clearly more often (by
    :data:`Z` standard errors of their paired cost): the move a mark would name, so that a seed that marks the
    decision and one that does not name the same best."""
    def cost_of(move: int) -> _Cost:
        return _Cost(*_paired(estimates, move, played, "win"), *_paired(estimates, move, played, "points"))

    moves = list(estimates) if moves is None else list(moves)
    win = {m: estimates[m].mean("win")[0] for m in moves}
    points = {m: estimates[m].mean("points")[0] for m in moves}
    top = max(moves, key=lambda m: (win[m], points[m], m == played))
    if top == played:
        return played, None, None, _Cost(0.0, 0.0, 0.0, 0.0)
    best = _first_of_equals(estimates, [m for m in moves if win[m] > win[played]] or [top], top, "win")
    cost = cost_of(best)
    margin = z_mark(len(estimates[played].rounds))
    if cost.win - margin * cost.win_se > INACCURACY:
        return best, _level(cost.win, cost.win_se, MISTAKE), "win", cost
    rivals = [m for m in moves if m != played and win[m] >= win[played]]
    richest = max(rivals, key=lambda m: (points[m], win[m]))
    richest = _first_of_equals(estimates, [m for m in rivals if points[m] > points[played]] or [richest], richest,
                               "points")
    richer = cost_of(richest)
    if spread > 0 and richer.points - margin * richer.points_se > POINTS_INACCURACY * spread:
        return richest, _level(richer.points, richer.points_se, POINTS_MISTAKE * spread), "points", richer
    if kind == "points" and points[richest] > points[played] and not _leads(estimates, best, richest, "win"):
        return richest, None, "points", richer
    return best, None, "win", cost


def _level(cost: float, se: float, mistake: float) -> str:
    """The level of a mark whose ``cost`` (with its standard error ``se``) is out of its noise above the inaccuracy
    line: ``"mistake"`` where the cost less :data:`Z` standard errors still reaches the ``mistake`` threshold (its 95%
    interval lies above it), else ``"inaccuracy"``. A mistake is a claim too: by the cost alone, a cost near the
    mistake line was called a mistake at one seed and an inaccuracy at another, and a deeper search found it under the
    line a quarter of the time (docs/reports/README.md#a-mistake-only-out-of-its-noise)."""
    return "mistake" if cost - Z * se >= mistake else "inaccuracy"


def _first_of_equals(estimates: dict[int, _Estimate], moves: Sequence[int], top: int, key: str) -> int:
    """Of ``moves`` (``top`` among them), the first in the game's order (the lowest action id) that ``top`` does not
    lead in ``key`` by more than :data:`Z` standard errors of their paired cost: between near-equals the re-search
    cannot tell apart, a fixed order, not the seed's noise, decides which is named first."""
    return min(m for m in moves if m == top or not _leads(estimates, top, m, key))


def _points_spread(tallies: Iterable[_Tally]) -> float:
    """The standard deviation of the seat's deal points over all of a decision's iterations (0.0 for fewer than 2)."""
    n = points = points2 = 0.0
    for tally in tallies:
        n, points, points2 = n + tally.n, points + tally.points, points2 + tally.points2
    if n < 2:
        return 0.0
    return math.sqrt(max(0.0, (points2 - points * points / n) / (n - 1)))


def _near_mistake(cost: _Cost, mark: str | None, mark_on: str | None, spread: float) -> bool:
    """Whether an inaccuracy's cost is itself past the mistake line, but not out of its noise (:func:`_level`)."""
    if mark != "inaccuracy":
        return False
    return cost.win >= MISTAKE if mark_on == "win" else cost.points >= POINTS_MISTAKE * spread


def _why(best: dict[str, Any], played: dict[str, Any], mark: str | None, mark_on: str | None,
         as_good: Sequence[str] = (), near_mistake: bool = False, key: str = "win") -> str:
    """One sentence a player reads: the move played and what it wins, against the move called best (and the moves
    ``as_good``, in words, as good within the search's noise); an inaccuracy ``near_mistake`` (:func:`_near_mistake`)
    says it may be a mistake. A best named for its points (``key``, unmarked: :func:`_verdict`) is said in points."""
    you = f"you played {played['words']}: it wins the deal {_pct(played['win'])} of the time"
    if best is played:
        return f"Y{you[1:]} ({_signed(played['points'])} points on average), as well as any move the search found."
    if not played["enough"]:
        return (f"Y{you[1:]}, by too few sampled deals ({played['visits']}) to judge; {best['words']} wins "
                f"{_pct(best['win'])}.")
    on = "in points" if mark_on == "points" else "in win chance"
    maybe = " (perhaps a mistake, within the search's noise)" if near_mistake else ""
    verdict = f"{'An' if mark == 'inaccuracy' else 'A'} {mark} {on}{maybe}: " if mark else ""
    if mark_on == "points" or key == "points":
        close = "" if mark else " (too close to call an inaccuracy)"
        return (f"{verdict or 'Y'}{you[len(verdict) == 0:]} and scores {_signed(played['points'])} points in the deal "
                f"on average; {best['words']} scores {_signed(best['points'])} and wins {_pct(best['win'])}{close}.")
    tail = "" if mark else " (too close to call a mistake)" if best["win"] > played["win"] else ""
    also = f" ({' or '.join(as_good)}, as good)" if as_good else ""
    return f"{verdict or 'Y'}{you[len(verdict) == 0:]}; {best['words']}{also} wins {_pct(best['win'])}{tail}."


def _pct(share: float) -> str:
    """A share as a whole percentage, never ``"-0%"``."""
    return f"{round(share * 100) + 0:d}%"


def _signed(points: float) -> str:
    """Points with their sign and one decimal, never ``"-0.0"``."""
    text = f"{points:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def analyse_decision(state: State, seat: int, played: int, simulations: int | None = None,
                     seed: int | str = 0) -> dict[str, Any]:
    """The analysis (:func:`evaluate`) of ``seat``'s decision in ``state`` that played ``played``, from the seat's
    observation only, by the analysis's searcher (:func:`searcher_spec`).

    Raises:
        MotleyError: when ``seat`` is not to move, ``played`` is not legal or ``simulations`` is below 1.
    """
    decision = decision_at(state, seat, played)
    return evaluate(state.game, decision, searcher_spec(state.game, simulations), seed)


def _job(args: tuple[Game, Decision, str, str, bool]) -> dict[str, Any]:
    """One decision's analysis in a worker process."""
    return evaluate(*args)


def analyse_record(text: str, seat: int, simulations: int | None = None, seed: int = 0,
                   progress: Progress | None = None, workers: int = 1,
                   actors: Sequence[str] | None = None, check: bool = True) -> dict[str, Any]:
    """The analysis of ``seat``'s decisions in a record (module docstring).

    Args:
        text: the record (JSON text, :mod:`motley.core.records`), finished or not.
        seat: the seat analysed, from 0.
        simulations: search iterations per decision; default :data:`DEFAULT_SIMULATIONS`.
        seed: the analysis's seed (same record, seat, simulations and seed: same analysis).
        progress: called with ``(done, total)`` after each decision (and ``(0, total)`` first).
        workers: processes (1: this one; the result does not depend on it).
        actors: who made each move of the record (:func:`decisions`).
        check: whether the decisions that may be marked are searched again before a mark (:func:`evaluate`); False
            marks nothing and costs the first search alone (``benchmarks/analysis_time.py --first-only``).
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
    game, found = decisions(text, seat, actors)
    spec = searcher_spec(game, simulations)
    jobs = [(game, d, spec, f"{seed}:{d.index}", check) for d in found]
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
    return {"format": FORMAT, "game": str(game), "seat": seat, "searcher": spec, "searcher_words": searcher_words(spec),
            "simulations": parse_bot_spec(spec).resolved()["simulations"], "seed": seed,
            "estimates": _ESTIMATES, "thresholds": _THRESHOLDS, "decisions": list(results),
            "summary": summarise(results)}


def hint(game: Game, decision: Decision, simulations: int, seed: int | str) -> dict[str, Any]:
    """The strongest bot's choice at ``decision`` (its ``played`` is ignored) by the analysis's searcher
    (:func:`searcher_spec` with ``simulations``), from the seat's observation only, with one sentence of why. The
    hint is the best by the figures its sentence gives (:func:`_hinted`): the next best it names never has a
    higher win chance, nor the same with more points.

    Returns:
        ``{"action", "move", "words", "why", "win", "points", "visits"}``: the chosen action id and move string,
        the move in words, the sentence, and the search's estimates for it (win chance of the deal 0..1, expected
        deal points, iterations that began with it).
    Raises:
        MotleyError: for ``simulations`` below 1, or a game without search support.
    """
    result = evaluate(game, decision, searcher_spec(game, simulations), seed, check=False)
    best, runner = _hinted(result["moves"])
    why = (f"{best['words']} won the deal in {best['win']:.0%} of {best['visits']} sampled deals consistent "
           f"with what you have seen ({best['points']:+.1f} points)")
    if runner is not None:
        why += f"; the next best, {runner['words']}, in {runner['win']:.0%} ({runner['points']:+.1f} points)"
    return {"action": best["action"], "move": best["move"], "words": best["words"], "why": why + ".",
            "win": best["win"], "points": best["points"], "visits": best["visits"]}


def _hinted(moves: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The hint and the next best among a search's ``moves`` (:func:`evaluate`'s rows): the moves searched enough
    (``enough``; all moves searched at all where none is), ranked by win chance, then points, then visits."""
    searched = [row for row in moves if row["visits"]]
    pool = [row for row in searched if row["enough"]] or searched or list(moves)
    ranked = sorted(pool, key=lambda row: (-row["win"], -row["points"], -row["visits"]))
    return ranked[0], (ranked[1] if len(ranked) > 1 else None)


#: The marks' thresholds (the result's ``thresholds`` field; module docstring).
_THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "points_inaccuracy_sd": POINTS_INACCURACY,
               "points_mistake_sd": POINTS_MISTAKE, "z": Z, "z_mark": Z_MARK, "z_looks": Z_LOOKS}


#: What each figure of an analysis is (the result's ``estimates`` field).
_ESTIMATES = {
    "win": "the chance the seat wins the current deal (highest score gain; shared wins split) after the move, "
           "from the search's sampled deals consistent with what the seat had seen; win_low..win_high: 95% interval",
    "points": "the seat's expected score gain over the current deal after the move, in game points (points_se: "
              "its standard error)",
    "value": "the search's mean reward in [-1, 1], which its choice maximises",
    "cost": "the search's choice's estimate less the played move's (points_sd: the standard deviation of the "
            "seat's deal points over the decision's iterations); a decision is marked when a cost passes its "
            "threshold (win chance; points in points_sd) by 3 of its standard errors (z_mark)",
}


def summarise(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The per-seat summary of analysed decisions, of the player's own only (:func:`own_actors`): reviewed, agreed
    with the move called best, marked; the accuracy (the share not marked) and the win chance and points lost per
    decision (the marked decisions' costs over all the reviewed ones: an average, as chess sites give); the marked
    costs added up (``win_lost``, ``points_lost``, kept for readers of the first format); and ``stand_in``, the
    decisions a stand-in bot or a timer made for the player, left out of every other figure."""
    own = own_actors(results)
    mine = [r for r in results if r.get("actor", "seat") in own]
    marked = [r for r in mine if r["mark"] is not None]
    count = len(mine)
    win_lost = sum(r["cost"]["win"] for r in marked)
    points_lost = sum(r["cost"]["points"] for r in marked)
    return {"decisions": count, "agreed": sum(1 for r in mine if r["played"] == r["choice"]),
            "inaccuracies": sum(1 for r in marked if r["mark"] == "inaccuracy"),
            "mistakes": sum(1 for r in marked if r["mark"] == "mistake"), "marked": len(marked),
            "win_lost": round(win_lost, 4), "points_lost": round(points_lost, 3),
            "accuracy": round(1 - len(marked) / count, 4) if count else None,
            "win_lost_per_decision": round(win_lost / count, 4) if count else None,
            "points_lost_per_decision": round(points_lost / count, 3) if count else None,
            "stand_in": len(results) - count}


def own_actors(results: Sequence[dict[str, Any]]) -> frozenset[str]:
    """Whose moves are the seat's own: the player's (``"seat"``), or a bot's at a bot's seat (no move of the player)."""
    if any(r.get("actor", "seat") == "seat" for r in results):
        return frozenset({"seat"})
    return frozenset({"bot"})


def searcher_words(spec: str) -> str:
    """The analysis's searcher in words: ``"a search of 500 sampled deals per decision (ISMCTS), reading the other
    seats' hidden cards from their play"``."""
    options = parse_bot_spec(spec).resolved()
    words = f"a search of {options['simulations']} sampled deals per decision (ISMCTS)"
    if _infers(dict(options)):
        words += ", reading the other seats' hidden cards from their play"
    return words
