"""PettingZoo AEC environment for every motley game (one agent per seat).

::

    from motley.envs.pettingzoo import env
    e = env("fool", players=5)            # wrapped as PettingZoo's classic games are; raw_env() is bare
    e.reset(seed=7)                       # the match of motley.load_game("fool", players=5).new_initial_state(seed=7)
    rng = random.Random(0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        legal = info["legal_actions"]         # the legal action ids (no need to scan the mask)
        action = None if terminated or truncated else int(legal[rng.randrange(len(legal))])
        e.step(action)

Agents are ``"player_0" .. "player_{n-1}"`` (seat order). The observation of an agent is a dict
``{"observation": state.observation_tensor(seat), "action_mask": int8[num_distinct_actions]}``: the
tensor is the seat's information state (float32, ``game.observation_tensor_shape()``, every value in
[-1, 1], see docs/observation_tensors.md) and the mask is 1 for the legal actions of the agent to move
and all 0 for every other agent. Actions are the game's action ids (``Discrete(num_distinct_actions)``).
An observation is computed once per agent and position (``observe`` returns the same dict until the next
``step`` or ``reset``); its arrays are read-only (writing raises ValueError) and never change once handed
out: each tensor and each narrow mover's mask is a new array (Foolery's tensor a view of the immutable bytes
of ``state.observation_bytes(seat)``, which its compiled core writes); a wide mask (Foolery's) is a view of the
immutable bytes of ``state.legal_mask_bytes()``, and the same one may be given again for the same legal actions.

``infos[agent]`` holds ``"legal_actions"`` (int64, the agent's legal action ids, ascending, as
``state.legal_actions()``; empty for an agent not to move) and ``"action_features"`` (float32 of shape
``(len(legal_actions), F)``, row ``i`` the features of ``legal_actions[i]``, F fixed per game configuration;
layouts in docs/observation_tensors.md, "Action features"); :meth:`MotleyAECEnv.action_features` returns
the latter. The mover's arrays are new every turn (writing them changes nothing in the environment).

Nothing in an agent's observation, ``infos[agent]`` or ``last()`` depends on a card hidden from that agent,
and no seed is handed out (the match seed deals every hand). ``privileged=True`` adds
``infos[agent]["match_seed"]`` (int, the seed of the match: ``game.new_initial_state(seed=...)`` rebuilds
it) for every agent: for logging and replays, never a policy's input. ``state()`` is privileged in the same
sense: it holds every seat's own cards.

Observation and info options (for libraries that need one shape everywhere):

* ``observation="flat"``: the observation is the tensor alone (``observation_space(agent)`` a ``Box``), and the
  mask moves to ``infos[agent]["action_mask"]`` (int8, the same values), as PettingZoo's classic games do for a
  non-Dict observation and as ``TerminateIllegalWrapper`` reads it; SuperSuit's observation wrappers
  (``dtype_v0``, ``normalize_obs_v0``, ``frame_stack_v1``, ``pad_observations_v0``, ...) accept it.
* ``infos="fixed"``: every key of an agent's info has one shape at every step: ``"illegal_action"`` (bool, True
  only for the offender of ``illegal="lose"``), ``"match_seed"`` with ``privileged=True`` and ``"action_mask"``
  with ``observation="flat"``; the variable-length ``"legal_actions"`` and ``"action_features"`` are left out
  (``action_features(agent)`` still gives the latter). Tianshou's ``Collector`` stacks infos into its buffer and
  needs it: ``tianshou.env.PettingZooEnv(env("fool", players=4, infos="fixed"))``.

The mask is ``int8`` (what Gymnasium's ``Discrete.sample(mask=)`` takes); a wide one (4,096 entries or more:
Foolery's) is an :class:`ActionMask`, an ``int8`` ndarray whose ``nonzero`` scans it as ``bool`` (a narrow one is a
plain ndarray: NumPy scans it about as fast either way), so the conventional ``np.flatnonzero(obs["action_mask"])``
(also ``np.nonzero``, ``np.argwhere``, one-argument ``np.where``) runs at NumPy's ``bool`` speed (about 15x its
``int8`` scan over Foolery's 25,741 entries); ``mask.view(np.bool_)`` is a ``bool`` view of it at no cost. To draw a
legal action, ``info["legal_actions"]`` (the ids, already made) is cheaper still than any scan of the mask
(docs/speed.md).

Rewards (``reward=``):

* ``"match"`` (default): 0 until the match ends, then ``state.returns()`` (per seat, in [-1, 1]).
* ``"deal"``: in addition, at the end of every deal (a round of Fool!, a hand of Foolery:
  ``state.deal_number()`` changes) each seat gets its score gain over that deal relative to the others:
  ``(gain - mean gain) / max |gain - mean gain|``, in [-1, 1] (0 when all gains are equal), scaled by
  ``deal_weight`` (default 0.1). The match return is still paid at the end. One-deal games see only the
  match reward.

A match ends for all agents at once (``terminations`` all True); the game itself never truncates.

``env()`` applies PettingZoo's standard wrappers, as its classic card games do:
``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.
An illegal action through ``env()`` therefore ends the match at once: the offender gets -1, every other
agent 0, and every agent is marked terminated *and* truncated (the wrapper's convention). The wrappers are
subclasses of those three that read the attributes used at every step (``agent_selection``, ``terminations``,
``infos``, ...) from the bare environment at once instead of through each wrapper's ``__getattr__``; they
behave as the standard ones otherwise (PettingZoo's api and seed tests run on ``env()``). ``raw_env()``
is the bare :class:`MotleyAECEnv`, which raises :class:`motley.IllegalMoveError` instead and leaves the
state unchanged.

``illegal=`` chooses, on both: ``"lose"`` (the default of ``env()``) ends the match at once, the offender
gets the worst outcome -1 and every other agent 0 (``raw_env(illegal="lose")`` does it itself: every agent
terminated, ``infos[offender]["illegal_action"]`` True); ``"raise"`` (the default of ``raw_env()``; ``env()``
then leaves out ``TerminateIllegalWrapper``) raises :class:`motley.IllegalMoveError` and changes nothing.
An action outside the action space raises :class:`motley.InvalidMoveError` from ``raw_env()`` and fails
``AssertOutOfBoundsWrapper``'s assertion in ``env()``.

The motley :class:`motley.State` of the match is ``e.game_state`` (also through the wrappers of ``env()``),
None before the first ``reset()``. ``e.state()`` is PettingZoo's global state for centralised critics:
the observation tensors of every seat, seat 0's first, concatenated into one float32 vector of shape
``(num_players * observation_size,)`` (``observation_size`` = the single dimension of
``game.observation_tensor_shape()``), declared as ``e.state_space = Box(-1, 1, that shape, float32)``.
It holds what the seats know between them (each seat's own cards and all public information), not what
no seat has seen (see docs/observation_tensors.md, "Global state").
"""

from __future__ import annotations

from motley.core.extras import require

require("gymnasium", extra="rl", feature="the PettingZoo environment (motley.envs.pettingzoo)")
require("pettingzoo", extra="rl", feature="the PettingZoo environment (motley.envs.pettingzoo)")

import operator
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from motley.core import Game, InvalidMoveError, MoveError, State
from motley.core.features import action_feature_table
from motley.core.rewards import deal_points
from motley.envs import MatchSeeds, as_game, match_seed
from motley.envs.tensors import game_observer, one_state_observer

__all__ = ["ActionMask", "MotleyAECEnv", "env", "raw_env"]

#: The illegal-move penalty (``illegal="lose"``; ``TerminateIllegalWrapper`` in ``env()``), as in PettingZoo's
#: classic games: the worst return.
ILLEGAL_REWARD = -1.0

ObsDict = dict[str, npt.NDArray[Any]]

_NOT_RESET = "call reset() before using the environment"
_NO_ACTIONS: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
_NO_ACTIONS.setflags(write=False)
#: The dtypes of the arrays made at every turn, as dtype objects (NumPy takes one faster than a scalar type), and
#: ``ndarray.__new__`` (a wide mask over its bytes: faster than calling the subclass).
_FLOAT32 = np.dtype(np.float32)
_INT64 = np.dtype(np.int64)
_INT8 = np.dtype(np.int8)
_new_array = np.ndarray.__new__


class ActionMask(np.ndarray[Any, np.dtype[np.int8]]):
    """An ``int8`` action mask (values 0 and 1; what ``Discrete.sample(mask=)`` takes) whose :meth:`nonzero` reads
    it as ``bool`` (a view, no copy): NumPy's ``nonzero`` is fast for ``bool`` only, and ``np.flatnonzero``,
    ``np.nonzero``, ``np.argwhere`` and one-argument ``np.where`` all call it. Everything else is the ``int8``
    ndarray's (NumPy keeps the class on results of arithmetic and ``astype``: their ``nonzero`` is NumPy's own
    unless they are still one byte an entry)."""

    def nonzero(self) -> tuple[npt.NDArray[np.intp], ...]:
        """The indices of the entries that are not 0, per dimension, as ``ndarray.nonzero`` gives them."""
        plain = self.view(np.ndarray)
        if plain.dtype.itemsize != 1 or plain.dtype.kind not in "iub" or not plain.ndim:
            return plain.nonzero()
        return plain.view(np.bool_).nonzero()  # a byte that is not 0 is an entry that is not 0


#: A mask at least this wide (Foolery's) is an :class:`ActionMask`; a narrower one (Fool!'s 88 entries) is a plain
#: ``int8`` ndarray. A mask a consumer kept never changes: a wide mover's mask is a read-only view of the bytes
#: ``state.legal_mask_bytes()`` gave (immutable; the same view may be given again for the same legal actions), a
#: narrow one a new array each turn.
_WIDE = 4096
#: Wide masks kept for their legal actions (:meth:`MotleyAECEnv._wide_mask`): a mask is read-only over immutable
#: bytes, so the same one can be handed out again for the same legal actions. About 25 KB each for Foolery.
_WIDE_MASKS_KEPT = 32


def _new_mask(size: int) -> npt.NDArray[np.int8]:
    """An all-0 ``int8`` mask of ``size`` entries: an :class:`ActionMask` from :data:`_WIDE` entries on, a
    plain ndarray below (NumPy scans a narrow ``int8`` mask about as fast as a ``bool`` one, and the override's
    Python call would cost more than it saves)."""
    mask = np.zeros(size, dtype=np.int8)
    return mask.view(ActionMask) if size >= _WIDE else mask


class _ActionSpace(spaces.Discrete):
    """``Discrete(n)``: the action ids. ``contains`` answers a plain ``int`` (what ``AssertOutOfBoundsWrapper``
    checks at every step) without NumPy; every other value as ``Discrete`` does, and the answer is the same."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return bool(0 <= x < self.n)
        return bool(super().contains(x))


class MotleyAECEnv(AECEnv):  # type: ignore[misc]
    """A motley match as a PettingZoo AEC environment (see the module docstring).

    Args:
        game: a :class:`motley.Game`, a game name or a game string (``"foolery(players=5)"``).
        reward: ``"match"`` or ``"deal"`` (see the module docstring).
        deal_weight: scale of the per-deal rewards in ``"deal"`` mode.
        render_mode: None, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        illegal: ``"raise"`` or ``"lose"`` (see the module docstring).
        privileged: also put the match seed in every agent's ``infos`` (it reveals every hidden card).
        observation: ``"dict"`` (the tensor and the mask in a Dict) or ``"flat"`` (the tensor alone, a Box; the
            mask in ``infos[agent]["action_mask"]``), see "Observation and info options" in the module docstring.
        infos: ``"lists"`` (the legal ids and their features in the infos) or ``"fixed"`` (every info key of one
            shape at every step, for buffers that stack infos such as Tianshou's).
        params: game options when ``game`` is a name, e.g. ``players=5``.
    Raises:
        motley.OptionError: for an unknown game or option.
        ValueError: for a bad ``reward``, ``render_mode``, ``illegal``, ``observation`` or ``infos``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1,  # noqa: RUF012
                                "is_parallelizable": False}

    def __init__(self, game: Game | str, reward: str = "match", deal_weight: float = 0.1,
                 render_mode: str | None = None, illegal: str = "raise", privileged: bool = False,
                 observation: str = "dict", infos: str = "lists", **params: Any) -> None:
        super().__init__()
        self.game = as_game(game, **params)
        if reward not in ("match", "deal"):
            raise ValueError(f"reward must be 'match' or 'deal'; got {reward!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}; got {render_mode!r}")
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal must be 'raise' or 'lose'; got {illegal!r}")
        self.illegal = illegal
        if observation not in ("dict", "flat"):
            raise ValueError(f"observation must be 'dict' or 'flat'; got {observation!r}")
        if infos not in ("lists", "fixed"):
            raise ValueError(f"infos must be 'lists' or 'fixed'; got {infos!r}")
        self.flat = observation == "flat"
        self.fixed_infos = infos == "fixed"
        self.privileged = bool(privileged)
        self.metadata = {**self.metadata, "name": f"motley_{self.game.name}_v0"}
        self.reward_mode = reward
        self.deal_weight = float(deal_weight)
        self.render_mode = render_mode
        #: The mover's info is the legal ids and their features alone (no option adds to it).
        self._plain_infos = not (self.flat or self.fixed_infos or self.privileged)
        #: A turn that pays no reward and renders nothing takes ``_play``'s short path.
        self._quick = self._plain_infos and reward == "match" and render_mode != "human"
        n = self.game.num_players
        self.possible_agents: list[str] = [f"player_{seat}" for seat in range(n)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._num_actions = self.game.num_distinct_actions()
        shape = self.game.observation_tensor_shape()
        tensor_space = spaces.Box(low=-1.0, high=1.0, shape=shape, dtype=np.float32)
        mask_space = spaces.Box(low=0, high=1, shape=(self._num_actions,), dtype=np.int8)
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            agent: tensor_space if self.flat else spaces.Dict({"observation": tensor_space, "action_mask": mask_space})
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: _ActionSpace(self._num_actions) for agent in self.possible_agents}
        size = int(np.prod(shape))
        self.state_space = spaces.Box(low=-1.0, high=1.0, shape=(n * size,), dtype=np.float32)
        self._rng: MatchSeeds | None = None
        self._features = action_feature_table(self.game)
        #: The game's own batch observer with one slot, if it has one (motley.envs.tensors): it updates the
        #: tensors from the moves made since the last one instead of encoding the state anew.
        self._observer = game_observer(self.game, 1)
        #: The game's tensor of one state kept up to date between calls, if its batch observer gives it.
        self._one_state = one_state_observer(self.game)
        self._observation_shape = shape
        self._tensor_bytes = False
        no_features = self._features[_NO_ACTIONS]
        no_features.setflags(write=False)
        self._no_mask = _new_mask(self._num_actions)
        #: A wide mover's mask is an ActionMask over ``state.legal_mask_bytes()``; a narrow one a copy of this one.
        self._wide = self._num_actions >= _WIDE
        self._mask_shape = (self._num_actions,)
        self._wide_masks: dict[tuple[int, ...], ActionMask] = {}  # by legal actions (_wide_mask)
        self._zero_mask = _new_mask(self._num_actions)  # copied for the mover's narrow masks, never handed out
        self._no_mask.setflags(write=False)
        idle: dict[str, Any] = {"illegal_action": False} if self.fixed_infos else {
            "legal_actions": _NO_ACTIONS, "action_features": no_features}
        if self.flat:
            idle["action_mask"] = self._no_mask
        #: The info of each agent while it is not to move (made once; treat infos as read-only).
        self._idle: dict[str, dict[str, Any]] = {agent: dict(idle) for agent in self.possible_agents}
        self._observed: dict[str, ObsDict | npt.NDArray[np.float32]] = {}
        self._paid = False  # did the last step pay any reward (so that rewards must be set back to 0)?
        self._mover: str | None = None
        self._legal = _NO_ACTIONS
        self._legal_list: list[int] = []  # the same as a list (the legality checks of illegal="lose" and env())
        #: The motley State of the current match (None before the first ``reset()``).
        self.game_state: State | None = None
        self.agents: list[str] = []

    # ---- spaces ---------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The (cached) Dict space of ``agent``'s observations."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The (cached) ``Discrete(num_distinct_actions)`` space of ``agent``."""
        return self.action_spaces[agent]

    # ---- the AEC interface ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match.

        ``reset(seed=s)`` plays the match ``game.new_initial_state(seed=s)``; a later ``reset()`` without
        a seed draws the next match seed from a generator seeded by ``s`` (so a seeded sequence of resets
        is reproducible); without any seed ever given, seeds come from the system's entropy.
        ``options`` is accepted and ignored.

        Raises:
            motley.MotleyError: for a negative seed.
        """
        self._rng, seed = match_seed(self._rng, seed)
        self.game_state = self.game.new_initial_state(seed=seed)
        #: The game's compiled core writes a tensor's bytes (State.observation_bytes overridden; a flat tensor).
        self._tensor_bytes = (type(self.game_state).observation_bytes is not State.observation_bytes
                              and len(self._observation_shape) == 1)
        if self.privileged:
            self._idle = {agent: {**idle, "match_seed": seed} for agent, idle in self._idle.items()}
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._paid = False
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: self._idle[agent] for agent in self.agents}
        self._mover = None
        self._deal = self.game_state.deal_number()
        self._deal_start_scores = list(self.game_state.scores())
        if self.game_state.is_terminal():  # a match that ends before any decision: everyone is done at once
            self._finish()
            self.agent_selection = self.agents[0]
        self._next_turn(self.game_state.is_terminal())

    def observe(self, agent: str) -> Any:  # ObsDict, or the tensor with observation="flat"
        """``{"observation": float32 tensor, "action_mask": int8 mask}`` of ``agent`` (mask all 0 unless to move);
        with ``observation="flat"`` the tensor alone (the mask is in ``infos[agent]["action_mask"]``).

        The observation is computed once per agent and position: later calls until the next ``step()`` or
        ``reset()`` return the same object; its arrays are read-only.

        Raises:
            RuntimeError: before the first ``reset()``.
        """
        cached = self._observed.get(agent)
        if cached is not None:
            return cached
        state = self.game_state
        if state is None:
            raise RuntimeError(_NOT_RESET)
        seat = self._seat[agent]
        if self._tensor_bytes:  # the game writes the bytes itself: read-only as they are (immutable)
            tensor = np.frombuffer(state.observation_bytes(seat), _FLOAT32)
        else:
            if self._one_state is not None:
                tensor = self._one_state(state, seat)  # = state.observation_tensor(seat)
            elif self._observer is None:
                tensor = state.observation_tensor(seat)
            else:
                tensor = np.empty(self._observation_shape, dtype=np.float32)
                self._observer.write((state,), (seat,), tensor[None])  # = state.observation_tensor(seat)
            # write=False by position (NumPy parses a keyword slower than it sets the flag; its stubs want the keyword)
            tensor.setflags(False)  # type: ignore[call-arg]
        if self.flat:
            self._observed[agent] = tensor
            return tensor
        if agent != self._mover:
            mask = self._no_mask
        elif self._wide:
            mask = self._wide_mask(state)
        else:  # the mover's narrow mask (self._mask inline: one call fewer a turn)
            mask = self._zero_mask.copy()
            mask[self._legal] = 1
            mask.setflags(False)  # type: ignore[call-arg]  # write=False, as the tensor's
        obs: ObsDict = {"observation": tensor, "action_mask": mask}
        self._observed[agent] = obs
        return obs

    def _mask(self, agent: str) -> npt.NDArray[np.int8]:
        """The (read-only) int8 mask of ``agent``: 1 at its legal actions while it is to move, else all 0."""
        if agent != self._mover:
            return self._no_mask
        if self._wide:
            return self._wide_mask(self._require_state())
        mask = self._zero_mask.copy()
        mask[self._legal] = 1
        mask.setflags(write=False)
        return mask

    def _wide_mask(self, state: State) -> ActionMask:
        """The mover's wide mask: an ActionMask over the state's mask bytes (read-only as they are: immutable), the
        one made for the same legal actions at an earlier turn if it is among the last few kept (Foolery's
        pass-only turn is two in five)."""
        key = tuple(self._legal_list)
        mask = self._wide_masks.get(key)
        if mask is None:
            if len(self._wide_masks) >= _WIDE_MASKS_KEPT:
                self._wide_masks.clear()
            mask = self._wide_masks[key] = _new_array(ActionMask, self._mask_shape, _INT8, state.legal_mask_bytes())
        return mask

    def action_features(self, agent: str) -> npt.NDArray[np.float32]:
        """Features of ``agent``'s legal actions: float32 of shape (num_legal, F), row ``i`` the features of
        ``infos[agent]["legal_actions"][i]`` (also ``infos[agent]["action_features"]``); (0, F) for an agent
        not to move. F and the layout per game: docs/observation_tensors.md, "Action features".

        Raises:
            RuntimeError: before the first ``reset()``.
            KeyError: for an unknown agent.
        """
        self._require_state()
        if agent not in self._seat:
            raise KeyError(agent)
        if not self.fixed_infos:
            features: npt.NDArray[np.float32] = self.infos[agent]["action_features"]
            return features
        return self._features.take(self._legal if agent == self._mover else _NO_ACTIONS, axis=0)

    def state(self) -> npt.NDArray[np.float32]:
        """The global state: every seat's observation tensor, seat 0's first, in one float32 vector.

        Shape ``(num_players * observation_size,)`` = ``state_space.shape``; values in [-1, 1]. Seat ``s``'s
        tensor (written from seat ``s``'s point of view) is
        ``state()[s * observation_size:(s + 1) * observation_size]``.
        Meant for centralised critics: it holds each seat's own cards and all public information.

        Raises:
            RuntimeError: before the first ``reset()``.
        """
        state = self._require_state()
        return np.concatenate([np.asarray(state.observation_tensor(seat), dtype=np.float32).ravel()
                               for seat in range(self.game.num_players)])

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for an agent whose match is over).

        Raises:
            RuntimeError: before the first ``reset()``.
            motley.InvalidMoveError: for a value that is no action id (the state is unchanged).
            motley.IllegalMoveError: with ``illegal="raise"``, for an action that is not legal now (the state
                is unchanged); with ``"lose"`` the match ends instead (module docstring).
            ValueError: for an action other than None from a finished agent.
        """
        state = self.game_state
        if state is None:
            raise RuntimeError("step() called before reset(): call reset() to start a match first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move and must give an action, not None")
        if type(action) is not int:
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                raise InvalidMoveError(action, "an action must be a whole number")
            action = int(action)
        if self.illegal == "lose" and action not in self._legal_list and 0 <= action < self._num_actions:
            self._lose(agent)
            return
        self._play(state, agent, action)

    def _play(self, state: State, agent: str, action: int) -> None:
        """``step`` of an ``int`` action by ``agent``, the agent to move and still playing: checked by the
        state (``apply_action``), then the rewards and the next turn (:meth:`_moved`)."""
        state.apply_action(action)
        self._moved(state, agent)

    def _moved(self, state: State, agent: str) -> None:
        """After ``agent``'s move (``apply_action`` done): its reward cleared, the rewards paid, the next turn."""
        self._cumulative_rewards[agent] = 0.0
        if self._quick and not self._paid and not state.is_terminal():
            # the common turn (no reward to pay or clear, no option in the infos): _next_turn's plain path inline
            self._observed.clear()
            infos = self.infos
            infos[agent] = self._idle[agent]
            mover = self.agent_selection = self._mover = self.possible_agents[state.current_player()]
            legal_list = self._legal_list = state.legal_actions()
            legal = self._legal = np.array(legal_list, _INT64)  # dtype by position: no keyword to parse
            infos[mover] = {"legal_actions": legal, "action_features": self._features.take(legal, 0)}
            return
        if self._paid:  # the last step paid rewards: back to 0 (otherwise they are all 0 already)
            self._clear_rewards()
            self._paid = False
        over = state.is_terminal()
        if self.reward_mode == "deal" and (over or state.deal_number() != self._deal):
            scores = list(state.scores())
            for seat, r in enumerate(deal_points(self._deal_start_scores, scores)):
                self.rewards[self.possible_agents[seat]] += self.deal_weight * r
            self._deal, self._deal_start_scores = state.deal_number(), scores
            self._paid = True
        if over:
            self._finish()
        self._next_turn(over)
        if self._paid:  # adding all-0 rewards changes nothing
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _next_turn(self, over: bool) -> None:
        """Hand the turn to the seat to move: its legal actions and their features in its info, the mask
        source for ``observe``; the previous mover's info emptied. At the end of the match (``over``) nobody
        moves."""
        self._observed.clear()
        if self._mover is not None:
            self.infos[self._mover] = self._idle[self._mover]
        if over:
            self._mover, self._legal, self._legal_list = None, _NO_ACTIONS, []
            return
        state = self.game_state
        assert state is not None  # a turn follows reset()
        agent = self.agent_selection = self.possible_agents[state.current_player()]
        self._mover = agent
        self._legal_list = state.legal_actions()
        legal = self._legal = np.array(self._legal_list, dtype=np.int64)
        if self._plain_infos:
            self.infos[agent] = {"legal_actions": legal, "action_features": self._features.take(legal, 0)}
            return
        if self.fixed_infos:
            info = dict(self._idle[agent])
        else:
            info = {"legal_actions": legal, "action_features": self._features.take(legal, axis=0)}
            if self.privileged:
                info["match_seed"] = self._idle[agent]["match_seed"]
        if self.flat:
            info["action_mask"] = self._mask(agent)
        self.infos[agent] = info

    def _lose(self, agent: str) -> None:
        """``agent`` played an illegal action with ``illegal="lose"``: the match ends, -1 for it, 0 for the others."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_REWARD
        self._paid = True
        self.terminations = dict.fromkeys(self.agents, True)
        self._next_turn(True)
        self.infos[agent] = {**self.infos[agent], "illegal_action": True}
        self._accumulate_rewards()

    def _finish(self) -> None:
        self._paid = True
        state = self._require_state()
        for seat, r in enumerate(state.returns()):
            self.rewards[self.possible_agents[seat]] += float(r)
        self.terminations = dict.fromkeys(self.agents, True)

    def render(self) -> str | None:
        """The state as text: the JSON observation of the seat to move (scores when over).

        Returns the text for ``render_mode="ansi"``, prints it and returns None for ``"human"``, and
        returns None (without output) when no render mode was set.
        """
        if self.render_mode is None or self.game_state is None:
            return None
        text = str(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def _require_state(self) -> State:
        if self.game_state is None:
            raise RuntimeError(_NOT_RESET)
        return self.game_state


def raw_env(game: Game | str, **kwargs: Any) -> MotleyAECEnv:
    """The bare :class:`MotleyAECEnv` (no PettingZoo wrappers); arguments as for the class."""
    return MotleyAECEnv(game, **kwargs)


def env(game: Game | str, illegal: str = "lose", **kwargs: Any) -> AECEnv:
    """A :class:`MotleyAECEnv` for ``game`` (name, game string or Game) with options ``kwargs``, wrapped.

    The wrappers are PettingZoo's standard ones, applied as in its classic card games:
    ``TerminateIllegalWrapper(illegal_reward=-1)`` (an illegal action ends the match: -1 for the offender,
    0 for the others), ``AssertOutOfBoundsWrapper`` (an action outside the action space fails an assertion)
    and ``OrderEnforcingWrapper`` (using the environment before ``reset()`` is an error). Attributes of the
    bare environment (``game``, ``game_state``, ``state_space``, ...) are reachable through the wrappers;
    ``.unwrapped`` is the :class:`MotleyAECEnv`. With ``illegal="raise"`` the first wrapper is left out
    and an illegal action raises :class:`motley.IllegalMoveError`.

    Raises:
        ValueError: for a bad ``illegal`` (and as :class:`MotleyAECEnv`).
    """
    bare = MotleyAECEnv(game, illegal=illegal, **kwargs)
    wrapped = bare if illegal == "raise" else _TerminateIllegal(bare, illegal_reward=ILLEGAL_REWARD)
    return _OrderEnforcing(_AssertOutOfBounds(wrapped))


#: The attributes of the bare environment read at every step through the wrappers (``last()``, the wrappers'
#: own ``step()``, ``agent_iter``). PettingZoo's ``BaseWrapper`` forwards them one wrapper at a time through
#: ``__getattr__``, which costs more than a step of the game; the subclasses below read them from the bare
#: environment directly and behave otherwise exactly as the standard wrappers.
_HOT_ATTRIBUTES = ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos",
                   "_cumulative_rewards")


def _direct(path: str, name: str) -> property:
    """A read-only property reading ``name`` from the object at ``path`` (attrgetter: no Python frame)."""
    return property(operator.attrgetter(f"{path}.{name}"), doc=f"``{name}`` of the bare environment.")


class _NotReset:
    """What ``_OrderEnforcing`` reads the hot attributes from before the first ``reset()``: the standard
    wrapper's AttributeError for each."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{name} cannot be accessed before reset")


class _DirectAttributes:
    """Mixin: the hot attributes, and the action spaces, read from the bare environment (``self._bare``) in one
    step."""

    _bare: MotleyAECEnv

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._bare.action_spaces[agent]


for _name in _HOT_ATTRIBUTES:
    setattr(_DirectAttributes, _name, _direct("_bare", _name))


class _TerminateIllegal(_DirectAttributes, wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """``TerminateIllegalWrapper`` with direct reads of the hot attributes."""

    def __init__(self, env: MotleyAECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._bare = env


class _AssertOutOfBounds(_DirectAttributes, wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    """``AssertOutOfBoundsWrapper`` with direct reads of the hot attributes."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._bare = env.unwrapped


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """``OrderEnforcingWrapper`` with direct reads of the hot attributes after ``reset()`` (before it, the
    same AttributeError as the standard wrapper), and the common step and observation passed to the bare
    environment at once.

    ``step`` of a legal action (a plain ``int``) of an agent still playing is what the three wrappers do with
    it: ``AssertOutOfBoundsWrapper`` finds it in the space, ``TerminateIllegalWrapper`` finds it in the mask
    (the legal actions), and the bare ``step`` plays it. Here the state's ``apply_action`` checks it, once: an
    illegal or out-of-range action raises :class:`motley.MoveError` there and changes nothing, and then goes
    through the standard wrappers. A finished agent's ``None`` is the bare environment's dead step
    (``_was_dead_step``), which is what ``TerminateIllegalWrapper`` passes it to in either of its branches.
    ``observe`` and ``last`` read the bare environment. ``TerminateIllegalWrapper`` therefore keeps no
    observation between steps (its ``_prev_obs`` stays None): its own ``step``, the only reader, then observes
    the agent to move itself, which gives the same observation (nothing changes between two steps). Everything
    else (before ``reset()``, an action of another type, any step once every agent is done) goes through the
    standard wrappers, one after the other.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._view: Any = _NotReset()

    def agent_iter(self, max_iter: int = 2**63) -> _OrderIterable:
        """``OrderEnforcingWrapper.agent_iter``, its iterator reading the bare environment at once."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderIterable(self, max_iter)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self._view = self.env.unwrapped

    def step(self, action: Any) -> None:
        bare = self._view
        if type(bare) is not _NotReset and bare.agents:
            agent = bare.agent_selection
            done = bare.terminations[agent] or bare.truncations[agent]
            if type(action) is int and not done:
                state = bare.game_state
                try:
                    state.apply_action(action)  # the one check of a move (the state is unchanged if it fails)
                except MoveError:
                    pass  # illegal, or outside the action space: the standard wrappers answer it below
                else:
                    self._has_updated = True
                    bare._moved(state, agent)
                    return
            elif action is None and done:  # what the three wrappers do with it: the bare dead step
                self._has_updated = True
                bare._was_dead_step(None)
                return
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` read from the bare environment at once (``observe`` as :meth:`observe`)."""
        bare = self._view
        if type(bare) is _NotReset:
            return super().last(observe)  # type: ignore[no-any-return]  # the standard wrapper's error
        agent = bare.agent_selection
        obs = None
        if observe:
            obs = bare._observed.get(agent)  # MotleyAECEnv.observe's cache, read here: one call fewer a turn
            if obs is None:
                obs = bare.observe(agent)
        return (obs, bare._cumulative_rewards[agent], bare.terminations[agent], bare.truncations[agent],
                bare.infos[agent])

    def observe(self, agent: str) -> Any:
        bare = self._view
        if type(bare) is _NotReset:
            return super().observe(agent)
        return bare.observe(agent)


class _OrderIterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """``AECOrderEnforcingIterator`` (the agent to move until the match is over, ``step()`` required between two)
    with the agents and the agent to move read from the bare environment at once."""

    def __next__(self) -> str:
        env = self.env
        bare = env._view
        if not bare.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"  # PettingZoo's check
        env._has_updated = False
        agent: str = bare.agent_selection
        return agent


class _OrderIterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    """``AECOrderEnforcingIterable`` of :class:`_OrderIterator`."""

    def __iter__(self) -> _OrderIterator:
        return _OrderIterator(self.env, self.max_iter)


for _name in _HOT_ATTRIBUTES:
    setattr(_OrderEnforcing, _name, _direct("_view", _name))
