"""N motley matches stepped together, as NumPy batches, in this process or on every core.

::

    from motley.envs.vector import VectorEnv
    envs = VectorEnv("fool(players=5)", num_envs=256, workers=2)   # workers=0: in this process
    obs, infos = envs.reset(seed=7)
    while training:
        actions = policy(obs["observation"], obs["action_mask"], infos)      # one action per slot
        obs, rewards, terminations, truncations, infos = envs.step(actions)
    envs.close()

**Slots and whose decision.** Slot ``i`` holds one match at a time. Motley games are turn-based, so a slot
holds exactly one decision at each step: that of the match's *current player*, ``infos["seat"][i]``.
``obs["observation"][i]`` is that seat's observation tensor (``state.observation_tensor(seat)``, float32,
docs/observation_tensors.md), ``obs["action_mask"][i]`` its legal actions (int8, 1 = legal), and
``step(actions)`` plays ``actions[i]`` for that seat. A slot never waits on another.

**Batches** (``N = num_envs``, ``P`` players, ``D`` the tensor size, ``A = num_distinct_actions``, ``F`` the
action feature size):

* ``obs``: ``{"observation": float32 (N, D), "action_mask": int8 (N, A)}`` (``single_observation_space`` is
  the Dict space of the PettingZoo environment; ``observation_space`` its batch);
* ``rewards``: float32 (N, P): ``rewards[i, s]`` is seat ``s``'s reward from slot ``i``'s last step (with the
  default ``reward="match"``: 0 until the match ends, then ``state.returns()``; ``reward="deal"`` adds the
  per-deal rewards of :mod:`motley.envs.pettingzoo`). Gymnasium's single-agent (N,) rewards do not fit a
  multi-agent match, so the seat axis is kept; :class:`SeatRewards` gives one seat's (N,) column;
* ``terminations``: bool (N,): the slot's match ended with this step; ``truncations``: bool (N,), all False;
* ``infos``: ``"seat"`` int64 (N,) (the seat to move in each slot), ``"legal_actions"`` int64 (L,) the legal
  action ids of every slot in slot order, ``"legal_offsets"`` int64 (N + 1,) (slot ``i``'s are
  ``legal_actions[legal_offsets[i]:legal_offsets[i + 1]]``, ascending as ``state.legal_actions()``),
  ``"action_features"`` float32 (L, F) aligned row for row with ``"legal_actions"`` (layouts:
  docs/observation_tensors.md); with ``illegal="lose"`` also ``"illegal_action"`` bool (N,) (the slot's
  last action was illegal and lost its match). Nothing in ``obs`` or ``infos`` depends on a card hidden
  from the seat to move, and no seed is handed out: the seed of a slot's match deals every hand.
  ``privileged=True`` adds ``"match_seed"`` int64 (N,), the seed of each slot's current match
  (``game.new_initial_state(seed=...)`` rebuilds it: for logging and replays, never for a policy's input).

The observation rows come from the game's batch observer (``GameSpec.batch_observer``, :mod:`motley.envs.tensors`;
Fool!'s updates each slot's tensor fields from the cards played since the previous step), else from
``state.observation_tensor(seat)`` per slot: the same bytes either way.

**Autoreset** (Gymnasium's ``AutoresetMode.SAME_STEP``, in ``metadata["autoreset_mode"]``): when a slot's
match ends, the step that ended it returns ``terminations[i] = True`` with the final rewards, and already
the first decision of the slot's next match in ``obs`` and ``infos``. A match that ends before any decision
(none of the current games has one) is skipped.

**Seeds.** ``reset(seed=s)`` starts slot ``i`` with the match ``game.new_initial_state(seed=s + i)`` (a list
of N seeds sets each slot's), and each slot draws its later matches from a generator seeded with its seed,
exactly as ``motley.envs.pettingzoo`` does on ``reset(seed=s + i)`` then ``reset()``: slot ``i`` replays
the matches of such a single environment given the same actions. ``reset()`` without a seed starts every
slot's next match from its generator (fresh entropy if it never had a seed).

**Workers.** ``workers=k`` (k >= 1) steps the slots in ``k`` subprocesses, each owning a contiguous block
of slots and writing its outputs straight into shared-memory NumPy buffers; ``workers=0`` steps them in
this process. Both run the same code and give the same batches. Returned arrays are copies unless
``copy=False`` (then read-only views of the buffers, overwritten by the next step).

**Illegal actions** are checked in this process before anything is played. An action outside
``0 .. A-1`` (or not a whole number) raises :class:`motley.InvalidMoveError` naming the slot, whatever the
mode. An action the rules forbid: with ``illegal="raise"`` (default) :class:`motley.IllegalMoveError`
naming the slot, and nothing is played in any slot; with ``illegal="lose"`` the offending slot's match
ends at once (as PettingZoo's ``TerminateIllegalWrapper``): the seat that played it gets the worst
outcome, -1 (returns are in [-1, 1]), the other seats 0, ``terminations[i]`` is True,
``infos["illegal_action"][i]`` is True and the slot starts its next match; the other slots play on.

**Sampling.** ``action_space.sample()`` draws a uniformly random *legal* action in every slot (the mask of
the current decisions; Gymnasium's ``mask=`` / ``probability=`` arguments work as in ``MultiDiscrete``), from
``action_space.np_random`` (``action_space.seed(s)``). :mod:`motley.envs.segments` gives softmax and sampling
over the ragged legal lists from a policy's logits.

**Gymnasium's vector wrappers.** ``rewards`` have a seat axis, (N, P); Gymnasium's reward wrappers
(``RecordEpisodeStatistics``, ``NormalizeReward``, ...) expect (N,). :class:`SeatRewards` is the view of
one seat's rewards, ``SeatRewards(envs, seat=0)``, with everything else unchanged, so
``NormalizeReward(RecordEpisodeStatistics(SeatRewards(envs, 0)))`` records and normalises seat 0's returns.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing as mp
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorWrapper
from gymnasium.vector import VectorEnv as GymVectorEnv
from gymnasium.vector.utils import batch_space

from motley.core import Game, IllegalMoveError, InvalidMoveError, MotleyError, State, load_game
from motley.core.features import action_feature_table
from motley.core.rewards import deal_points
from motley.envs import as_game, match_seed
from motley.envs.tensors import batch_observer

__all__ = ["LegalActionSpace", "SeatRewards", "VectorEnv"]

Batch = dict[str, npt.NDArray[Any]]

#: Matches skipped in a row in one slot because they ended before any decision, before giving up.
MAX_SKIPPED_MATCHES = 1000

#: The reward of the seat whose illegal action lost its match (``illegal="lose"``): the worst return.
ILLEGAL_REWARD = -1.0


class _Buffers:
    """The batch arrays of N slots (``obs``, ``mask``, ``seat``, ``rewards``, ``terminated``, ``seeds``,
    ``actions``), over shared memory (``shared=True``, for workers) or plain NumPy memory."""

    def __init__(self, game: Game, num: int, shared: bool) -> None:
        size = int(np.prod(game.observation_tensor_shape()))
        self.specs: dict[str, tuple[tuple[int, ...], Any]] = {
            "obs": ((num, size), np.float32), "mask": ((num, game.num_distinct_actions()), np.int8),
            "seat": ((num,), np.int64), "rewards": ((num, game.num_players), np.float32),
            "terminated": ((num,), np.bool_), "seeds": ((num,), np.int64), "actions": ((num,), np.int64)}
        self.raw: dict[str, Any] = {}
        self.arrays: dict[str, npt.NDArray[Any]] = {}
        for name, (shape, dtype) in self.specs.items():
            nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
            if shared:
                self.raw[name] = mp.RawArray("b", max(nbytes, 1))
                self.arrays[name] = np.frombuffer(self.raw[name], dtype=dtype, count=int(np.prod(shape))).reshape(shape)
            else:
                self.arrays[name] = np.zeros(shape, dtype=dtype)

    @staticmethod
    def attach(raw: dict[str, Any], specs: dict[str, tuple[tuple[int, ...], Any]]) -> dict[str, npt.NDArray[Any]]:
        """The arrays over shared buffers made in another process."""
        return {name: np.frombuffer(raw[name], dtype=dtype, count=int(np.prod(shape))).reshape(shape)
                for name, (shape, dtype) in specs.items()}


class _Slots:
    """The matches of slots ``lo .. hi-1``: plays them and writes their rows of the batch arrays.

    Used as is in this process (``workers=0``) and inside each worker process, so both modes run this code.
    """

    def __init__(self, game: Game, arrays: dict[str, npt.NDArray[Any]], lo: int, hi: int, reward: str,
                 deal_weight: float) -> None:
        self.game = game
        self.lo, self.hi = lo, hi
        self.a = {name: array[lo:hi] for name, array in arrays.items()}
        self.obs, self.mask, self.seat = self.a["obs"], self.a["mask"], self.a["seat"]
        self.reward = reward
        self.deal_weight = deal_weight
        count = hi - lo
        self.observer = batch_observer(game, count)
        self.states: list[Any] = [None] * count
        self.rngs: list[Any] = [None] * count
        self.deals = [0] * count
        self.deal_scores: list[list[int]] = [[] for _ in range(count)]
        self.legal: list[list[int]] = [[] for _ in range(count)]
        self.seats = [0] * count
        self._row_starts = np.arange(count, dtype=np.int64) * self.mask.shape[1]  # of each slot's mask row

    def reset(self, seeds: Sequence[int | None]) -> tuple[bytes, list[int]]:
        """Start a match in every slot (``seeds[j]`` for slot ``lo + j``, None: from its generator)."""
        self.a["rewards"][:] = 0.0
        self.a["terminated"][:] = False
        for j, seed in enumerate(seeds):
            self._start(j, seed)
        self.observer.write(self.states, self.seats, self.obs)
        return self._publish()

    def step(self, forfeits: Sequence[int] = ()) -> tuple[bytes, list[int]]:
        """Play every slot's action (already checked legal) and write the slots' next decisions.

        Slots ``lo + j`` for ``j`` in ``forfeits`` played an illegal action (``illegal="lose"``): their match
        ends with ``ILLEGAL_REWARD`` for the seat to move and 0 for the others, and the next one starts."""
        rewards, terminated = self.a["rewards"], self.a["terminated"]
        rewards[:] = 0.0
        terminated[:] = False
        deal_mode = self.reward == "deal"
        seats, legal = self.seats, self.legal
        lost = set(forfeits)
        for j, (state, action) in enumerate(zip(self.states, self.a["actions"].tolist(), strict=True)):
            if j in lost:
                rewards[j, seats[j]] = ILLEGAL_REWARD
                terminated[j] = True
                self._start(j, None)
                continue
            state.apply_action(action)
            if deal_mode and (state.is_terminal() or state.deal_number() != self.deals[j]):
                scores = list(state.scores())
                rewards[j] += np.multiply(self.deal_weight, deal_points(self.deal_scores[j], scores),
                                          dtype=np.float32)
                self.deals[j], self.deal_scores[j] = state.deal_number(), scores
            if state.is_terminal():
                rewards[j] += np.asarray(state.returns(), dtype=np.float32)
                terminated[j] = True
                self._start(j, None)
            else:  # as _write
                seats[j] = state.current_player()
                legal[j] = state.legal_actions()
        self.observer.write(self.states, seats, self.obs)
        return self._publish()

    def _start(self, j: int, seed: int | None) -> None:
        for _ in range(MAX_SKIPPED_MATCHES):
            self.rngs[j], used = match_seed(self.rngs[j], seed)
            seed = None
            state = self.game.new_initial_state(seed=used)
            if not state.is_terminal():
                self.states[j] = state
                self.a["seeds"][j] = used
                self.deals[j], self.deal_scores[j] = state.deal_number(), list(state.scores())
                self._write(j, state)
                return
        raise RuntimeError(f"{MAX_SKIPPED_MATCHES} matches in a row ended before any decision")

    def _write(self, j: int, state: State) -> None:
        """Slot ``j``'s seat to move and legal actions; its observation row is written with the other slots'
        (the game's batch observer), and the rest goes out with the batch (``_publish``)."""
        self.seats[j] = state.current_player()
        self.legal[j] = state.legal_actions()

    def _publish(self) -> tuple[bytes, list[int]]:
        """Write every slot's seat and mask row; return the legal actions in slot order (int64 bytes) and
        their counts."""
        self.seat[:] = self.seats
        counts = [len(legal) for legal in self.legal]
        flat = np.fromiter(itertools.chain.from_iterable(self.legal), dtype=np.int64, count=sum(counts))
        mask = self.mask
        mask[:] = 0
        mask.reshape(-1)[np.repeat(self._row_starts, counts) + flat] = 1
        return flat.tobytes(), counts


def _worker(conn: Connection, spec: str, raw: dict[str, Any], specs: dict[str, tuple[tuple[int, ...], Any]],
            lo: int, hi: int, reward: str, deal_weight: float) -> None:
    """A worker process: owns slots ``lo .. hi-1`` and answers ``reset`` / ``step`` / ``close`` on ``conn``."""
    try:
        slots = _Slots(load_game(spec), _Buffers.attach(raw, specs), lo, hi, reward, deal_weight)
        while True:
            command, argument = conn.recv()
            if command == "close":
                break
            try:
                answer = slots.reset(argument) if command == "reset" else slots.step(argument)
                conn.send(("ok", answer))
            except Exception:  # a bug: the traceback goes back to the parent, which raises
                conn.send(("error", traceback.format_exc()))
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        conn.close()


class LegalActionSpace(spaces.MultiDiscrete):
    """``MultiDiscrete([A] * N)``, the batch action space, whose ``sample()`` draws a legal action per slot.

    Without ``mask`` or ``probability``, ``sample()`` draws each slot's action uniformly from its current
    legal actions (``legal()`` gives them flat with their offsets, as ``infos``), from ``self.np_random``;
    with either, it samples as ``MultiDiscrete`` does.

    Raises:
        RuntimeError: from ``sample()`` before the environment's first ``reset()``.
    """

    def __init__(self, num_envs: int, num_actions: int,
                 legal: Callable[[], tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]) -> None:
        super().__init__(np.full(num_envs, num_actions, dtype=np.int64))
        self._legal = legal

    def sample(self, mask: tuple[Any, ...] | None = None,
               probability: tuple[Any, ...] | None = None) -> npt.NDArray[np.int64]:
        """One action per slot, shape (N,), int64: a uniformly random legal one unless ``mask``/``probability``."""
        if mask is not None or probability is not None:
            return np.asarray(super().sample(mask=mask, probability=probability), dtype=np.int64)
        legal, offsets = self._legal()
        counts = np.diff(offsets)
        if legal.size == 0 or not counts.all():
            raise RuntimeError("no legal actions to sample from: call reset() first")
        chosen: npt.NDArray[np.int64] = legal[offsets[:-1] + self.np_random.integers(counts)]
        return chosen


class SeatRewards(VectorWrapper):
    """One seat's rewards of a :class:`VectorEnv`: ``step`` returns ``rewards[:, seat]``, shape (N,), float32.

    Everything else passes through, so Gymnasium's vector reward wrappers (``RecordEpisodeStatistics``,
    ``NormalizeReward``, ``ClipReward``) apply: ``RecordEpisodeStatistics(SeatRewards(envs, 0))`` records
    seat 0's match returns, one episode per match of a slot.

    Raises:
        ValueError: for a seat that is not a seat of the game.
    """

    def __init__(self, env: VectorEnv, seat: int) -> None:
        super().__init__(env)
        players = env.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}; got {seat!r}")
        self.seat = seat

    def step(self, actions: Any) -> tuple[Any, npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], dict[str, Any]]:
        """``env.step(actions)`` with the rewards of ``seat`` only."""
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        return obs, rewards[:, self.seat], terminations, truncations, infos


class VectorEnv(GymVectorEnv[Batch, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` matches of one game stepped together (see the module docstring).

    Args:
        game: a :class:`motley.Game`, a game name or a game string (``"fool(players=5)"``).
        num_envs: the number of slots N (>= 1).
        workers: subprocesses stepping the slots (0: in this process); at most ``num_envs``.
        reward: ``"match"`` or ``"deal"`` (as in :mod:`motley.envs.pettingzoo`).
        deal_weight: scale of the per-deal rewards in ``"deal"`` mode.
        copy: return copies of the batch arrays (default) or read-only views overwritten by the next step.
        illegal: ``"raise"`` or ``"lose"`` (see "Illegal actions" in the module docstring).
        privileged: also hand out ``infos["match_seed"]``, which reveals every hidden card (logging, replays).
        params: game options when ``game`` is a name, e.g. ``players=5``.
    Raises:
        motley.OptionError: for an unknown game or option.
        ValueError: for a bad ``num_envs``, ``workers``, ``reward`` or ``illegal``.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012  (as gymnasium declares it)

    def __init__(self, game: Game | str, num_envs: int, workers: int = 0, reward: str = "match",
                 deal_weight: float = 0.1, copy: bool = True, illegal: str = "raise", privileged: bool = False,
                 **params: Any) -> None:
        self.game = as_game(game, **params)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1; got {num_envs!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or not 0 <= workers <= num_envs:
            raise ValueError(f"workers must be a whole number from 0 to num_envs ({num_envs}); got {workers!r}")
        if reward not in ("match", "deal"):
            raise ValueError(f"reward must be 'match' or 'deal'; got {reward!r}")
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal must be 'raise' or 'lose'; got {illegal!r}")
        self.illegal = illegal
        self.privileged = bool(privileged)
        self._lost = np.zeros(num_envs, dtype=np.bool_)
        self.num_envs = num_envs
        self.workers = workers
        self.copy = copy
        self.num_actions = self.game.num_distinct_actions()
        shape = self.game.observation_tensor_shape()
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low=-1.0, high=1.0, shape=shape, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
        })
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = LegalActionSpace(num_envs, self.num_actions,
                                             lambda: (self._legal, self._offsets))
        self.features = action_feature_table(self.game)
        self._buffers = _Buffers(self.game, num_envs, shared=workers > 0)
        self._arrays = self._buffers.arrays
        self._started = False
        self.closed = False
        self._legal = np.zeros(0, dtype=np.int64)
        self._offsets = np.zeros(num_envs + 1, dtype=np.int64)
        bounds = np.linspace(0, num_envs, max(workers, 1) + 1).astype(int).tolist()
        self._blocks = list(itertools.pairwise(bounds))
        self._local: _Slots | None = None
        self._conns: list[Connection] = []
        self._processes: list[Any] = []
        if workers == 0:
            self._local = _Slots(self.game, self._arrays, 0, num_envs, reward, float(deal_weight))
            return
        context = mp.get_context()
        for lo, hi in self._blocks:
            parent, child = context.Pipe()
            process = context.Process(target=_worker, daemon=True, args=(
                child, str(self.game), self._buffers.raw, self._buffers.specs, lo, hi, reward, float(deal_weight)))
            process.start()
            child.close()
            self._conns.append(parent)
            self._processes.append(process)

    # ---- the Gymnasium vector API -------------------------------------------------------------
    def reset(self, *, seed: int | np.integer[Any] | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Batch, dict[str, Any]]:
        """Start a match in every slot (see "Seeds" in the module docstring); ``options`` is ignored.

        Returns:
            ``(obs, infos)`` of the slots' first decisions.
        Raises:
            ValueError: for a seed list of another length than ``num_envs``.
            motley.MotleyError: for a negative seed.
            RuntimeError: after ``close()``.
        """
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset needs one seed per slot ({self.num_envs}); got {len(seeds)}")
        for s in seeds:  # checked before any slot changes
            if s is not None and (isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0):
                raise MotleyError(f"seed must be a non-negative whole number; got {s!r}")
        self._run("reset", [seeds[lo:hi] for lo, hi in self._blocks])
        self._lost = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = True
        return self._obs(), self._infos()

    def step(self, actions: npt.ArrayLike) -> tuple[Batch, npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any],
                                                  dict[str, Any]]:
        """Play ``actions[i]`` for the seat to move in slot ``i``, for every slot.

        Returns:
            ``(obs, rewards (N, P), terminations (N,), truncations (N,), infos)``; see the module docstring.
        Raises:
            RuntimeError: before ``reset()`` or after ``close()``.
            ValueError: for actions of another shape than (N,) or not whole numbers.
            motley.InvalidMoveError: for an action id outside ``0 .. A-1`` (naming the slot); nothing is played.
            motley.IllegalMoveError: with ``illegal="raise"``, for an action not legal in its slot (naming the
                slot); nothing is played.
        """
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() first")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} whole numbers, shape ({self.num_envs},); "
                             f"got {chosen.dtype} {chosen.shape}")
        inside = (chosen >= 0) & (chosen < self.num_actions)
        if not inside.all():
            slot = int(np.flatnonzero(~inside)[0])
            raise InvalidMoveError(int(chosen[slot]), f"slot {slot}: action ids are 0..{self.num_actions - 1}")
        legal = self._arrays["mask"][np.arange(self.num_envs), chosen] == 1
        if not legal.all() and self.illegal == "raise":
            slot = int(np.flatnonzero(~legal)[0])
            raise IllegalMoveError(int(chosen[slot]), f"not legal in slot {slot} (seat {self._arrays['seat'][slot]} "
                                   f"to move; legal: {self._slot_legal(slot).tolist()})")
        self._lost = ~legal
        self._arrays["actions"][:] = np.where(legal, chosen, 0)
        self._run("step", [np.flatnonzero(self._lost[lo:hi]).tolist() for lo, hi in self._blocks])
        terminated = self._out(self._arrays["terminated"])
        return (self._obs(), self._out(self._arrays["rewards"]), terminated,
                np.zeros(self.num_envs, dtype=np.bool_), self._infos())

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the worker processes (idempotent)."""
        for conn in self._conns:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(("close", None))
            conn.close()
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self._conns, self._processes = [], []

    # ---- helpers ------------------------------------------------------------------------------
    def _run(self, command: str, arguments: list[Any]) -> None:
        """Run ``command`` on every block of slots (in the workers, all at once) and gather the legal lists."""
        if self.closed:
            raise RuntimeError("the environment is closed")
        if self._local is not None:
            answers = [self._local.reset(arguments[0]) if command == "reset" else self._local.step(arguments[0])]
        else:
            for conn, argument in zip(self._conns, arguments, strict=True):
                conn.send((command, argument))
            answers = []
            failures = []
            for conn in self._conns:
                status, answer = conn.recv()
                if status == "ok":
                    answers.append(answer)
                else:
                    failures.append(answer)
            if failures:
                raise RuntimeError(f"a worker failed on {command}:\n{failures[0]}")
        self._legal = np.frombuffer(b"".join(flat for flat, _ in answers), dtype=np.int64)
        counts = [c for _, block in answers for c in block]
        self._offsets[1:] = np.cumsum(counts)

    def _slot_legal(self, slot: int) -> npt.NDArray[np.int64]:
        return self._legal[self._offsets[slot]:self._offsets[slot + 1]]

    def _out(self, array: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """A copy of ``array``, or with ``copy=False`` a read-only view of it."""
        if self.copy:
            return array.copy()
        view = array.view()
        view.setflags(write=False)
        return view

    def _obs(self) -> Batch:
        return {"observation": self._out(self._arrays["obs"]), "action_mask": self._out(self._arrays["mask"])}

    def _infos(self) -> dict[str, Any]:
        """The batch infos (module docstring): what the seats to move may know, plus the seeds if privileged."""
        infos: dict[str, Any] = {
            "seat": self._out(self._arrays["seat"]), "legal_actions": self._legal.copy(),
            "legal_offsets": self._offsets.copy(), "action_features": self.features.take(self._legal, axis=0)}
        if self.illegal == "lose":
            infos["illegal_action"] = self._lost.copy()
        if self.privileged:
            infos["match_seed"] = self._out(self._arrays["seeds"])
        return infos
