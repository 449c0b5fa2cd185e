"""Inference from play: determinizations weighted by what the other seats have shown.

A game's sampler (``game.determinizer(observation)``) draws full states uniformly over the worlds consistent
with the hard constraints of an observation (voids shown by play, cards passed in an exchange, titles). This
module adds soft evidence: each seat other than the observer chose its past moves of the current deal from
its own information state, and a *player model* says how likely each of those choices was. A world in which
the other seats' actual plays are what the model expects is more likely than one in which they are not.

* :class:`PlayerModel` -- the likelihood of one move at a full state: ``temperature == 0`` is the
  deterministic model (``1 - epsilon`` for the move the game's heuristic makes, the rest of ``epsilon`` spread
  over the other legal moves), ``temperature > 0`` a softmax over the heuristic's move scores at that
  temperature, mixed with ``epsilon`` of uniform play. With ``trust="per_seat"`` each seat's share of plays that
  are not the heuristic's move is its own and unknown, with ``trust="table"`` one unknown share is the other
  seats' together (:meth:`PlayerModel.shared_log_likelihood`): a table of heuristics is trusted nearly as
  before, a table that often plays otherwise (searching bots, people) soon is not.
* :func:`log_likelihood` -- the sum of the log-likelihoods of the other seats' decisions of the deal in a
  sampled world: :func:`replay_log_likelihood` replays the deal from its start (the game's ``rewind``); a game
  may give the same figure faster from its own hands and tricks (``InferenceSupport.log_likelihood``; the
  chain computes it for every proposal, so it is most of the cost of inferred worlds).
* :class:`InferredSampler` -- importance resampling (sampling-importance-resampling): draws ``candidates``
  worlds from the game's sampler, weights each by its likelihood and returns one in proportion to the
  weights. Each world it returns is one the game's sampler drew, so every hard constraint still holds; as
  ``candidates`` grows the returned worlds approach the posterior over worlds given the plays.
* :class:`InferredChain` -- a Metropolis-Hastings chain over worlds, kept for one decision: it starts from
  a world of the sampler (or of an :class:`InferredSampler`) and each call takes ``steps`` steps, each a
  change of the hidden cards by the game's symmetric ``perturb`` (a swap of two cards between two other
  seats, within the hard constraints) accepted with probability ``min(1, L' / L)``. The sampler being
  uniform over the consistent worlds, the chain's worlds tend to the posterior; unlike importance
  resampling it keeps the worlds it has found to fit the plays, so a near-deterministic model is followed.

A game opts in with an :class:`InferenceSupport` in its spec (``GameSpec.inference``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from motley.core.errors import MotleyError
from motley.core.game import State
from motley.core.search import SearchState

#: ``rewind(world) -> (start, actions)``: ``start`` is a new state at the start of ``world``'s current deal
#: holding the hands ``world`` implies (its hidden cards), and playing ``actions`` (legal in turn) from it
#: gives a state with ``world``'s hands, trick and everything the seats see. ``world`` is left unchanged.
Rewind = Callable[[State], tuple[State, list[int]]]

#: ``perturb(world, observer, rng) -> world or None``: a new world that differs from ``world`` in the hidden
#: cards of the seats other than ``observer`` (e.g. two of their cards swapped), drawn from a symmetric
#: proposal (the reverse change is as likely) that keeps every hard constraint and the observer's
#: observation; ``None`` when the draw is refused (a constraint broken). ``world`` is unchanged.
Perturb = Callable[[State, int, random.Random], "State | None"]

#: ``scores(state) -> {action: score}`` for every legal action of the seat to move of a full state: the
#: heuristic's preferences (a larger score is preferred; the heuristic's own move has the largest).
MoveScores = Callable[[State], Mapping[int, float]]


@dataclass(frozen=True)
class InferenceSupport:
    """What a game offers for inference (``GameSpec.inference``).

    Attributes:
        rewind: the world at the start of its deal and the moves since (:data:`Rewind`).
        move: ``move(state) -> action``: the heuristic's move for the seat to move of a full state (the same
            as ``SearchPolicy.move``); the deterministic player model.
        scores: the heuristic's preference per legal move (:data:`MoveScores`); the softmax player model.
        perturb: the proposal of :class:`InferredChain` (:data:`Perturb`), or ``None``: no chain.
        log_likelihood: the game's own ``(world, observer, model) -> float``, exactly
            :func:`replay_log_likelihood` for the models of this support (the same floats, summed in the same
            order) but without replaying the deal through the engine; ``None``: the replay is used.
    """

    rewind: Rewind
    move: Callable[[State], int]
    scores: MoveScores
    perturb: Perturb | None = None
    log_likelihood: Callable[[State, int, PlayerModel], float] | None = None


#: The player models' trusts (:class:`PlayerModel`).
TRUSTS = ("fixed", "per_seat", "table")


@dataclass(frozen=True)
class PlayerModel:
    """How likely a seat's move is at a full state (see the module docstring).

    Attributes:
        support: the game's heuristic as :class:`InferenceSupport`.
        temperature: 0 for the deterministic model, else the softmax temperature in score units; >= 0.
        epsilon: the share of uniformly random play mixed in, so no legal move has likelihood 0; in (0, 1).
        trust: ``"fixed"`` (the share of plays off the heuristic is ``epsilon`` for every seat), ``"per_seat"``
            (each seat's share is unknown and its own) or ``"table"`` (one unknown share for all the other seats),
            the unknown share weighed by :meth:`shared_log_likelihood` (``epsilon`` the mean of the prior's
            heuristic part); the deterministic model only.
    Raises:
        MotleyError: a temperature below 0, an epsilon outside (0, 1), an unknown ``trust``, or a learned trust
            with a temperature.
    """

    support: InferenceSupport
    temperature: float = 0.0
    epsilon: float = 0.05
    trust: str = "fixed"

    def __post_init__(self) -> None:
        if not self.temperature >= 0.0:
            raise MotleyError(f"player model temperature must be >= 0, got {self.temperature}")
        if not 0.0 < self.epsilon < 1.0:
            raise MotleyError(f"player model epsilon must be in (0, 1), got {self.epsilon}")
        if self.trust not in TRUSTS:
            raise MotleyError(f"player model trust must be one of {', '.join(TRUSTS)}, got {self.trust!r}")
        if self.learned and self.temperature != 0.0:
            raise MotleyError(f"the {self.trust} player model is the deterministic one: it takes no temperature")

    @property
    def learned(self) -> bool:
        """Whether the share of plays off the heuristic is unknown (``trust`` per seat or table), not ``epsilon``."""
        return self.trust != "fixed"

    def shared_log_likelihood(self, agreements: int, disagreements: int, log_choices: float) -> float:
        """The log-likelihood of unforced plays that share one unknown share of moves off the heuristic (one
        seat's under ``trust="per_seat"``, all the other seats' under ``"table"``).

        Given the share ``e``, a play is the heuristic's move with probability ``1 - e`` and each other legal
        move with ``e / (n - 1)``. The share is unknown: its prior is half a heuristic player,
        ``Beta(1, (1 - epsilon) / epsilon)`` (mean ``epsilon``), and half any player, ``Beta(1, 1)``;
        integrated out, the plays' likelihood is ``sum_k w_k B(a_k + d, b_k + g) / B(a_k, b_k)`` times
        ``prod 1 / (n_i - 1)`` over the disagreeing plays, for ``g`` agreeing and ``d`` disagreeing plays. Plays
        that were the heuristic's every time are trusted nearly as the fixed model trusts them; plays that often
        were not (a searching bot agrees about half the time) hardly weigh the worlds at all.

        Args:
            agreements: the unforced plays that were the heuristic's move; >= 0.
            disagreements: the others; >= 0.
            log_choices: ``-sum log(n_i - 1)`` over the disagreeing plays, ``n_i`` their legal moves.
        Returns:
            A log-likelihood <= 0 (0 without unforced plays).
        """
        if agreements == disagreements == 0:
            return 0.0
        parts = [math.log(weight) + _log_beta(a + disagreements, b + agreements) - _log_beta(a, b)
                 for weight, a, b in ((0.5, 1.0, (1.0 - self.epsilon) / self.epsilon), (0.5, 1.0, 1.0))]
        top = max(parts)
        return top + math.log(sum(math.exp(p - top) for p in parts)) + log_choices

    def counts_log_likelihood(self, counts: Sequence[Sequence[float]]) -> float:
        """The learned trust's log-likelihood of the other seats' plays from each seat's ``(agreements,
        disagreements, log_choices)`` (:meth:`shared_log_likelihood`), seat by seat in seat order: their sum
        per seat, or one term of the counts added up (``"table"``)."""
        if self.trust == "per_seat":
            total = 0.0
            for agreements, disagreements, log_choices in counts:
                total += self.shared_log_likelihood(int(agreements), int(disagreements), log_choices)
            return total
        agreed = disagreed = 0
        choices = 0.0
        for agreements, disagreements, log_choices in counts:
            agreed, disagreed, choices = agreed + int(agreements), disagreed + int(disagreements), choices + log_choices
        return self.shared_log_likelihood(agreed, disagreed, choices)

    def log_prob(self, state: State, action: int) -> float:
        """The natural log of the probability that the seat to move of ``state`` plays ``action``.

        Args:
            state: a full state (not terminal); ``action`` one of its legal actions.
        Returns:
            A log-probability <= 0 (0 for a forced move).
        Raises:
            MotleyError: a learned trust, whose plays are not independent (:meth:`shared_log_likelihood`).
        """
        if self.learned:
            raise MotleyError("a learned player model weighs plays together (shared_log_likelihood)")
        n = len(state.legal_actions())
        if n == 1:
            return 0.0
        if self.temperature == 0.0:
            return self.log_prob_given_move(n, action, self.support.move(state))
        return self.log_prob_given_scores(n, action, self.support.scores(state))

    def log_prob_given_move(self, n: int, action: int, move: int) -> float:
        """:meth:`log_prob` of the deterministic model (``temperature == 0``) at a decision of ``n`` > 1 legal
        moves where the heuristic plays ``move``."""
        eps = self.epsilon
        return math.log(1.0 - eps + eps / n if action == move else eps / n)

    def log_prob_given_scores(self, n: int, action: int, scores: Mapping[int, float]) -> float:
        """:meth:`log_prob` of the softmax model (``temperature > 0``) at a decision of ``n`` > 1 legal moves
        whose heuristic scores are ``scores`` (:data:`MoveScores`)."""
        eps = self.epsilon
        top = max(scores.values())
        t = self.temperature
        weights = {a: math.exp((s - top) / t) for a, s in scores.items()}
        return math.log((1.0 - eps) * weights.get(action, 0.0) / sum(weights.values()) + eps / n)


#: The shares of random play over which :func:`random_share` integrates (midpoints of 40 equal steps of 0..1).
_SHARES = tuple((i + 0.5) / 40 for i in range(40))
#: How fast a skilled player's chance of a move falls with its rank by the heuristic (:func:`random_share`).
SKILL_DECAY = 0.25


def skilled_chance(n: int, rank: int) -> float:
    """A skilled player's chance of the move of ``rank`` among ``n`` legal moves: ``(1 - r) r^rank / (1 - r^n)``
    with ``r`` = :data:`SKILL_DECAY` (the heuristic's move, rank 0, most likely; a searcher's other choices mostly
    the next best), or for ``rank`` -1 (a move other than the heuristic's, not ranked) the mean of ranks 1..n-1."""
    r = SKILL_DECAY
    top = (1.0 - r) / (1.0 - r ** n)
    if rank < 0:
        return (1.0 - top) / (n - 1)
    return top * r ** rank


def random_share(plays: Sequence[tuple[int, int]], epsilon: float = 0.1, heuristic_weight: float = 0.8) -> float:
    """A seat's share of uniformly random moves learned from its unforced plays: the posterior mean of ``e`` where
    each play is a skilled player's (:func:`skilled_chance` of its rank by the game's heuristic) with probability
    ``1 - e``, else uniform over its ``n`` legal moves, under the prior ``heuristic_weight * Beta(1, (1 - epsilon) /
    epsilon)`` (mean ``epsilon``) plus the rest uniform. A seat that plays the heuristic's move every time tends to
    0, one that plays at random to 1; a searcher, whose other moves are mostly ones the heuristic ranks next, stays
    low (the search models it as the heuristic with that share of random moves). With no plays it is the prior's
    mean.

    Args:
        plays: per unforced play, ``(n, rank)``: its number of legal moves (>= 2) and the rank of the move played
            by the heuristic (0: its move; 1..n-1 by its scores; -1: another move, not ranked).
        epsilon: the mean of the prior's heuristic part, in (0, 1); ``heuristic_weight`` its weight, in [0, 1].
    Returns:
        The share, in (0, 1).
    Raises:
        MotleyError: a play of fewer than 2 legal moves or a rank out of range, or ``epsilon`` or
            ``heuristic_weight`` out of range.
    """
    if not 0.0 < epsilon < 1.0 or not 0.0 <= heuristic_weight <= 1.0:
        raise MotleyError(f"random_share needs epsilon in (0, 1) and heuristic_weight in [0, 1]; "
                          f"got {epsilon!r}, {heuristic_weight!r}")
    if any(n < 2 or not -1 <= rank < n for n, rank in plays):
        raise MotleyError("random_share counts unforced plays (at least 2 legal moves), ranked from 0 (or -1)")
    b = (1.0 - epsilon) / epsilon
    chances = [(skilled_chance(n, rank), 1.0 / n) for n, rank in plays]
    logs = []
    for e in _SHARES:
        prior = heuristic_weight * b * (1.0 - e) ** (b - 1.0) + (1.0 - heuristic_weight)
        logs.append(math.log(prior) + sum(math.log((1.0 - e) * skilled + e * uniform) for skilled, uniform in chances))
    top = max(logs)
    weights = [math.exp(w - top) for w in logs]
    return sum(e * w for e, w in zip(_SHARES, weights, strict=True)) / sum(weights)


def _log_beta(a: float, b: float) -> float:
    """The natural log of the beta function ``B(a, b)``; ``a, b > 0``."""
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def log_likelihood(world: State, observer: int, model: PlayerModel) -> float:
    """The log-likelihood of the other seats' plays of the current deal if ``world`` holds the hidden cards:
    :func:`replay_log_likelihood`, computed by the game's own ``InferenceSupport.log_likelihood`` where it has
    one. ``world`` is unchanged.

    Args:
        world: a full state (a determinization of ``observer``'s observation).
        observer: the seat whose observation the world was sampled from; its own moves carry no evidence.
    Returns:
        A log-likelihood <= 0.
    """
    own = model.support.log_likelihood
    if own is not None:
        return own(world, observer, model)
    return replay_log_likelihood(world, observer, model)


def replay_log_likelihood(world: State, observer: int, model: PlayerModel) -> float:
    """:func:`log_likelihood` by replaying the deal: from its start (the game's ``rewind``, ``model.support``),
    at each decision of a seat other than ``observer`` the model's log-probability of the move actually made
    (:meth:`PlayerModel.log_prob`) is added, in play order; for a learned trust each seat's unforced plays are
    counted in play order and :meth:`PlayerModel.counts_log_likelihood` weighs the counts. ``world`` is
    unchanged."""
    state, actions = model.support.rewind(world)
    apply = state.apply_legal if isinstance(state, SearchState) else state.apply_action  # rewind's moves are legal
    if model.learned:
        return _replay_counts(state, actions, observer, model, apply)
    total = 0.0
    for action in actions:
        if state.current_player() != observer:
            total += model.log_prob(state, action)
        apply(action)
    return total


def _replay_counts(state: State, actions: Sequence[int], observer: int, model: PlayerModel,
                   apply: Callable[[int], object]) -> float:
    """:func:`replay_log_likelihood` of a learned trust from the deal's start ``state``."""
    counts: dict[int, list[float]] = {}  # seat -> [agreements, disagreements, log_choices]
    for seat, n, agreed in _unforced_plays(state, actions, observer, model.support, apply):
        count = counts.setdefault(seat, [0, 0, 0.0])
        if agreed:
            count[0] += 1
        else:
            count[1] += 1
            count[2] -= math.log(n - 1)
    return model.counts_log_likelihood([counts[seat] for seat in sorted(counts)])


def _unforced_plays(state: State, actions: Sequence[int], observer: int, support: InferenceSupport,
                    apply: Callable[[int], object]) -> Iterator[tuple[int, int, bool]]:
    """Plays ``actions`` from ``state`` (with ``apply``); for each decision of a seat other than ``observer`` with
    more than one legal move, its seat, its number of legal moves and whether it was the heuristic's move."""
    for action in actions:
        seat = state.current_player()
        if seat != observer:
            n = len(state.legal_actions())
            if n > 1:
                yield seat, n, support.move(state) == action
        apply(action)


def disagreements(world: State, observer: int, support: InferenceSupport) -> int:
    """How many of the other seats' decisions of the current deal in ``world`` are not the heuristic's move
    (``support.move``; forced moves are not counted): 0 when ``world`` fits a heuristic table exactly.

    A diagnostic of samplers (tests, benchmarks); ``world`` is unchanged.
    """
    state, actions = support.rewind(world)
    return sum(not agreed for _, _, agreed in _unforced_plays(state, actions, observer, support, state.apply_action))


def resample(log_weights: Sequence[float], rng: random.Random) -> int:
    """An index drawn in proportion to ``exp(log_weights)`` (one ``rng.random()``).

    Raises:
        MotleyError: no weights.
    """
    if not log_weights:
        raise MotleyError("resample needs at least one weight")
    top = max(log_weights)
    weights = [math.exp(w - top) for w in log_weights]
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x < 0.0:
            return i
    return len(weights) - 1


class InferredSampler:
    """Importance resampling over a game's sampler: one world of ``candidates``, drawn by likelihood.

    Args:
        sample: the game's sampler for one observation (``game.determinizer(observation)``).
        observer: the seat of that observation, or ``None``: the seat to move in each sampled world (for a
            bot, which is asked at its own turn).
        model: the player model of the other seats.
        candidates: worlds drawn per call; 1 is the game's sampler unchanged; >= 1.
    Raises:
        MotleyError: ``candidates`` below 1.
    """

    def __init__(self, sample: Callable[[random.Random], State], observer: int | None, model: PlayerModel,
                 candidates: int) -> None:
        if candidates < 1:
            raise MotleyError(f"inference needs candidates >= 1, got {candidates}")
        self.sample, self.observer, self.model, self.candidates = sample, observer, model, candidates

    def weighted(self, rng: random.Random) -> list[tuple[State, float]]:
        """``candidates`` worlds from the game's sampler, each with its log-likelihood."""
        model, observer = self.model, self.observer
        worlds = [self.sample(rng) for _ in range(self.candidates)]
        return [(w, log_likelihood(w, w.current_player() if observer is None else observer, model))
                for w in worlds]

    def __call__(self, rng: random.Random) -> State:
        """One world, drawn from ``candidates`` in proportion to their likelihoods (all draws from ``rng``)."""
        if self.candidates == 1:
            return self.sample(rng)
        pairs = self.weighted(rng)
        return pairs[resample([lw for _, lw in pairs], rng)][0]


class InferredChain:
    """A Metropolis-Hastings chain over the worlds of one observation (module docstring).

    Args:
        start: draws the chain's first world (the game's sampler, or an :class:`InferredSampler` over it).
        observer: as for :class:`InferredSampler`.
        model: the player model of the other seats; its support must have a ``perturb``.
        steps: proposals per call; >= 1.
    Raises:
        MotleyError: ``steps`` below 1, or a game without ``perturb``.
    """

    def __init__(self, start: Callable[[random.Random], State], observer: int | None, model: PlayerModel,
                 steps: int) -> None:
        if steps < 1:
            raise MotleyError(f"an inference chain needs steps >= 1, got {steps}")
        if model.support.perturb is None:
            raise MotleyError("an inference chain needs a game whose InferenceSupport has perturb")
        self.start, self.observer, self.model, self.steps = start, observer, model, steps
        self.perturb: Perturb = model.support.perturb
        self.world: State | None = None
        self.log_weight = 0.0
        self.accepted = 0  # proposals accepted so far (a diagnostic)

    def _weigh(self, world: State) -> float:
        observer = world.current_player() if self.observer is None else self.observer
        return log_likelihood(world, observer, self.model)

    def __call__(self, rng: random.Random) -> State:
        """The chain's world after ``steps`` more proposals, as a new state (all draws from ``rng``)."""
        world = self.world
        if world is None:
            world = self.start(rng)
            self.log_weight = self._weigh(world)
        observer = world.current_player() if self.observer is None else self.observer
        for _ in range(self.steps):
            proposal = self.perturb(world, observer, rng)
            if proposal is None:
                continue
            log_weight = self._weigh(proposal)
            if log_weight >= self.log_weight or rng.random() < math.exp(log_weight - self.log_weight):
                world, self.log_weight = proposal, log_weight
                self.accepted += 1
        self.world = world
        out = world.clone()
        if isinstance(out, SearchState):
            out.use_seed(rng.getrandbits(64))  # its own later shuffles, as the game's sampler gives each world
        return out
