"""Self-play for Deep Monte-Carlo training: deals played by a Q network and the game's heuristic, in NumPy.

A *seating* names the controller of each seat of a deal:

* ``"net"``: the network, greedy on Q with probability ``1 - epsilon``, else a uniformly random legal action;
  its decisions are recorded;
* ``"teacher"``: the game's heuristic (``GameSpec.search_policy.move``), a random legal action with
  probability ``epsilon``; its decisions are recorded too. Training starts this way: the network first
  learns the values of the heuristic's play (Q of the heuristic), and playing greedily on them is already a
  policy-improvement step over the heuristic;
* ``"heuristic"``: the game's heuristic, not recorded (an opponent).

Every deal of a batch is stepped together: the positions where a network seat is to move are scored in one
NumPy call (:meth:`motley.bots.qnet.QNetwork.q_batch`). When a deal ends, each recorded decision gets its
seat's **target**, the Monte-Carlo return of the deal::

    target = (1 - points_weight) * returns[seat] + points_weight * centred_gain[seat]

where ``returns`` is ``state.returns()`` (+1 for every winner, -1 otherwise, in single-deal games) and
``centred_gain`` the seat's score gain less the mean gain, divided by the largest such deviation (in [-1, 1],
``motley.core.rewards.deal_points``), so a seat also learns to lose fewer points when it cannot win.

**Rollout targets** (``rollouts=True``): instead of the one return of the move played, every legal action of a
recorded decision (at most ``max_actions`` of them, the one played always among them) gets the return of playing
it and then letting the heuristic play every seat to the end of the deal *in the true deal*, less the mean of
those returns over the actions tried (an advantage: what the world adds to every action alike cancels out).
The heuristic is deterministic, so this is the heuristic's advantage in that world, without the noise of
everyone's later choices; and
as the worlds are the real ones, met in real play, the network fitted to them learns the heuristic's Q under
the true distribution of hidden cards given what the seat has seen (inference, learned), which uniform
determinizations miss. Acting greedily on it is one step of policy improvement over the heuristic. One world
makes a noisy target (most of a return is the deal, not the move); with ``worlds=K`` each action's return is
averaged over the true deal and ``K - 1`` worlds drawn from the seat's observation, as a determinized search
would average them: K times the rollouts for a target with about 1/K of the noise, which the learner, the
slower side, turns into more learning per second. With a
``continuation`` network the recorded seat plays on by that network in the rollouts (the others still by the
heuristic): trained so, a network improves on the continuation network, one step further.

The network and the heuristic see what the seat sees: the network reads ``state.observation_tensor(seat)``
(a function of the seat's information state alone, tested for every game), and the heuristic's full-state
form plays as the ``heuristic`` bot does on the observation.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from motley.bots.qnet import QNetwork
from motley.core import Game, MotleyError, State
from motley.core.features import action_feature_table
from motley.core.registry import game_spec
from motley.core.rewards import deal_points, with_points
from motley.core.search import SearchPolicy, SearchState

__all__ = ["CONTROLLERS", "Samples", "Tally", "play_deals", "random_seatings"]

CONTROLLERS = ("net", "teacher", "heuristic")


@dataclass
class Samples:
    """Recorded decisions: ``M`` rows.

    Attributes:
        obs: float16 ``(M, D)`` observation tensors of the seat that decided (float16 halves what travels
            between processes; every tensor value of the games is in [-1, 1]).
        actions: int32 ``(M,)`` the action ids played.
        targets: float32 ``(M,)`` the deal's return of that seat (module docstring).
        hints: int8 ``(M,)``: 1 where the action is the heuristic's choice in that position.
    """

    obs: npt.NDArray[np.float16]
    actions: npt.NDArray[np.int32]
    targets: npt.NDArray[np.float32]
    hints: npt.NDArray[np.int8]

    def __len__(self) -> int:
        return int(self.actions.shape[0])


@dataclass
class Tally:
    """What the network seats did in a batch of deals.

    Attributes:
        deals: deals played.
        net_seats: network seats over those deals.
        net_wins: wins of network seats (a shared win counts 1 / number of winners).
        net_points: score gains of network seats, summed.
        other_points: score gains of the other seats, summed; ``other_seats`` their number.
    """

    deals: int = 0
    net_seats: int = 0
    net_wins: float = 0.0
    net_points: float = 0.0
    other_seats: int = 0
    other_points: float = 0.0


@dataclass
class _Deal:
    state: SearchState
    seating: Sequence[str]
    start: list[int]
    rows: list[tuple[int, npt.NDArray[np.float32], int, int]] = field(default_factory=list)  # seat, obs, action, hint


@dataclass
class _Out:
    """Rows recorded so far, and how they are made."""

    policy: SearchPolicy
    points_weight: float
    rollouts: bool
    max_actions: int
    continuation: QNetwork | None = None
    table: npt.NDArray[np.float32] | None = None
    worlds: int = 1
    obs: list[npt.NDArray[np.float32]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    targets: list[float] = field(default_factory=list)
    hints: list[int] = field(default_factory=list)

    def record(self, deal: _Deal, seat: int, obs: npt.NDArray[np.float32], action: int, legal: Sequence[int],
               rng: random.Random, heuristic: int) -> None:
        """Keep a decision (``heuristic``: the heuristic's choice there): its rollout targets now, or its deal's
        return when the deal ends."""
        if not self.rollouts:
            deal.rows.append((seat, obs, action, int(action == heuristic)))
            return
        tried = [a for a in legal if a != action]
        if len(tried) >= self.max_actions:
            tried = rng.sample(tried, self.max_actions - 1)
        bases: list[State] = [deal.state]
        if self.worlds > 1:
            draw = deal.state.game.determinizer(deal.state.observation(seat))
            bases += [draw(rng) for _ in range(self.worlds - 1)]
        values = []
        for a in [action, *tried]:
            total = 0.0
            for base in bases:
                total += self._rollout(base, a, seat, deal.start, rng)
            self.obs.append(obs)
            self.actions.append(a)
            self.hints.append(int(a == heuristic))
            values.append(total / len(bases))
        mean = sum(values) / len(values)
        self.targets.extend(v - mean for v in values)

    def _rollout(self, base: State, action: int, seat: int, start: Sequence[int], rng: random.Random) -> float:
        """``seat``'s target after ``action`` in ``base`` and the deal played on (module docstring)."""
        world = base.clone()
        assert isinstance(world, SearchState)
        world.apply_legal(action)
        if self.continuation is None:
            self.policy.rollout(world, rng, 0.0)
        else:
            assert self.table is not None
            continue_deal(world, seat, self.continuation, self.table, self.policy.move)
        return target_values(start, world, self.points_weight)[seat]


def continue_deal(world: SearchState, seat: int, net: QNetwork, table: npt.NDArray[np.float32],
                  heuristic_move: Callable[[State], int]) -> None:
    """Play ``world`` to the end of its deal: ``seat`` greedily by ``net`` (with the heuristic's hint), every other
    seat by the heuristic."""
    deal = world.deal_number()
    while not world.is_terminal() and world.deal_number() == deal:
        legal = world.legal_actions()
        if len(legal) == 1:
            world.apply_legal(legal[0])
            continue
        choice = heuristic_move(world)
        if world.current_player() == seat:
            q = net.q_values(world.observation_tensor(seat), legal, table, net.hints_for(legal, choice))
            choice = legal[int(np.argmax(q))]
        world.apply_legal(choice)


def target_values(start: Sequence[int], state: State, points_weight: float) -> list[float]:
    """Every seat's target at the end of a deal that started with scores ``start`` (module docstring)."""
    return with_points(state.returns(), deal_points(start, state.scores()), points_weight)


def random_seatings(players: int, count: int, net_share: float, rng: random.Random,
                    recorded: str = "net") -> list[list[str]]:
    """``count`` seatings: each seat is ``recorded`` (``"net"`` or ``"teacher"``) with probability ``net_share``,
    else ``"heuristic"``, with at least one ``recorded`` seat per deal."""
    out = []
    for _ in range(count):
        seating = [recorded if rng.random() < net_share else "heuristic" for _ in range(players)]
        if recorded not in seating:
            seating[rng.randrange(players)] = recorded
        out.append(seating)
    return out


def play_deals(game: Game, net: QNetwork | None, seeds: Sequence[int], seatings: Sequence[Sequence[str]],
               epsilon: float, rng: random.Random, points_weight: float = 0.3, record: bool = True,
               rollouts: bool = False, max_actions: int = 8,
               continuation: QNetwork | None = None, worlds: int = 1) -> tuple[Samples, Tally]:
    """Play one deal (a whole match of a single-deal game) per seed, every deal stepped together.

    Args:
        game: the game (its spec must give a ``search_policy``: the heuristic on full states).
        net: the network of the ``"net"`` seats (None only if no seating has one).
        seeds: one match seed per deal (``game.new_initial_state(seed=...)``).
        seatings: one seating per deal (:data:`CONTROLLERS` per seat).
        epsilon: share of random moves of ``"net"`` and ``"teacher"`` seats, in [0, 1].
        rng: draws the random moves.
        points_weight: the weight of the centred score gain in the targets, in [0, 1].
        record: keep the decisions (training) or only count (:class:`Tally`, evaluation).
        rollouts: give recorded decisions rollout targets (module docstring) instead of the deal's return.
        max_actions: with ``rollouts``, the most actions of one decision given a target; >= 1.
        continuation: with ``rollouts``, the network the recorded seat plays by after the action tried (the other
            seats still play the heuristic), instead of the heuristic: the next step of policy improvement.
        worlds: with ``rollouts``, each action's target is the mean over the true deal and ``worlds - 1`` worlds
            drawn from the seat's observation (``game.determinizer``, every hard constraint kept); >= 1.
    Returns:
        ``(samples, tally)``; ``samples`` is empty when ``record`` is False.
    Raises:
        MotleyError: a game without a heuristic on full states, an unknown controller, a seating of the wrong
            length, or a ``"net"`` seat without a network.
    """
    policy = game_spec(game.name).search_policy
    if policy is None:
        raise MotleyError(f"{game.name} has no heuristic on full states to play or teach with")
    if len(seeds) != len(seatings):
        raise MotleyError(f"{len(seeds)} seeds for {len(seatings)} seatings")
    for seating in seatings:
        if len(seating) != game.num_players or any(c not in CONTROLLERS for c in seating):
            raise MotleyError(f"bad seating {list(seating)} for {game.num_players} players; controllers: "
                              f"{', '.join(CONTROLLERS)}")
        if "net" in seating and net is None:
            raise MotleyError("a 'net' seat needs a network")
    table = action_feature_table(game)
    deals = [_new_deal(game, seed, seating) for seed, seating in zip(seeds, seatings, strict=True)]
    tally = Tally()
    out = (_Out(policy, points_weight, rollouts, max(1, max_actions), continuation, table, max(1, worlds))
           if record else None)
    active = deals
    while active:
        waiting = [d for d in active if _advance(d, policy.move, epsilon, rng, out)]
        if waiting:
            assert net is not None
            _net_moves(waiting, net, table, epsilon, rng, out, policy.move)
        still = []
        for d in active:
            if d.state.is_terminal():
                _finish(d, points_weight, tally, out)
            else:
                still.append(d)
        active = still
    if out is None:
        return _samples(game, [], [], [], []), tally
    return _samples(game, out.obs, out.actions, out.targets, out.hints), tally


def _new_deal(game: Game, seed: int, seating: Sequence[str]) -> _Deal:
    state = game.new_initial_state(seed=seed)
    if not isinstance(state, SearchState):
        raise MotleyError(f"{game.name} does not support search states")
    return _Deal(state, seating, list(state.scores()))


def _advance(deal: _Deal, heuristic_move: Callable[[State], int], epsilon: float, rng: random.Random,
             out: _Out | None) -> bool:
    """Play the deal's heuristic and teacher seats until a network seat is to move (True) or the match ends."""
    state = deal.state
    while not state.is_terminal():
        seat = state.current_player()
        who = deal.seating[seat]
        if who == "net":
            return True
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply_legal(legal[0])
            continue
        choice = int(heuristic_move(state))
        action = choice
        if epsilon and who == "teacher" and rng.random() < epsilon:
            action = legal[rng.randrange(len(legal))]
        if who == "teacher" and out is not None:
            out.record(deal, seat, state.observation_tensor(seat), action, legal, rng, choice)
        state.apply_legal(action)
    return False


def _net_moves(waiting: Sequence[_Deal], net: QNetwork, table: npt.NDArray[np.float32], epsilon: float,
               rng: random.Random, out: _Out | None, heuristic_move: Callable[[State], int]) -> None:
    """One move in each deal of ``waiting`` (a network seat to move in each), scored in one batch."""
    seats = [d.state.current_player() for d in waiting]
    legals = [d.state.legal_actions() for d in waiting]
    choices = [legal[0] if len(legal) == 1 else int(heuristic_move(d.state)) for d, legal in zip(waiting, legals,
                                                                                                  strict=True)]
    obs = np.stack([d.state.observation_tensor(s) for d, s in zip(waiting, seats, strict=True)])
    sizes = np.array([len(legal) for legal in legals], dtype=np.int64)
    owner = np.repeat(np.arange(len(waiting), dtype=np.int64), sizes)
    flat = np.fromiter((a for legal in legals for a in legal), dtype=np.int64, count=int(sizes.sum()))
    hints = (flat == np.repeat(np.array(choices, dtype=np.int64), sizes)).astype(np.float32)
    q = net.q_batch(obs, flat, owner, table, hints)
    start = 0
    for i, (deal, legal) in enumerate(zip(waiting, legals, strict=True)):
        end = start + len(legal)
        if len(legal) > 1 and epsilon and rng.random() < epsilon:
            action = legal[rng.randrange(len(legal))]
        else:
            action = legal[int(np.argmax(q[start:end]))]
        if out is not None and len(legal) > 1:
            out.record(deal, seats[i], obs[i], action, legal, rng, choices[i])
        deal.state.apply_legal(action)
        start = end


def _finish(deal: _Deal, points_weight: float, tally: Tally, out: _Out | None) -> None:
    state = deal.state
    returns = state.returns()
    gains = [b - a for a, b in zip(deal.start, state.scores(), strict=True)]
    value = target_values(deal.start, state, points_weight)
    winners = [s for s, r in enumerate(returns) if r > 0]
    tally.deals += 1
    for seat, who in enumerate(deal.seating):
        if who == "heuristic":
            tally.other_seats += 1
            tally.other_points += gains[seat]
        else:
            tally.net_seats += 1
            tally.net_points += gains[seat]
            if seat in winners:
                tally.net_wins += 1.0 / len(winners)
    if out is not None:
        for seat, obs, action, hint in deal.rows:
            out.obs.append(obs)
            out.actions.append(action)
            out.targets.append(value[seat])
            out.hints.append(hint)


def _samples(game: Game, obs_rows: list[npt.NDArray[np.float32]], actions: list[int], targets: list[float],
             hints: list[int]) -> Samples:
    size = int(np.prod(game.observation_tensor_shape()))
    obs = np.stack(obs_rows).astype(np.float16) if obs_rows else np.zeros((0, size), dtype=np.float16)
    return Samples(obs, np.array(actions, dtype=np.int32), np.array(targets, dtype=np.float32),
                   np.array(hints, dtype=np.int8))
