"""Gymnasium single-seat environment: one learning seat, the other seats played by motley bots.

::

    from motley.envs.gymnasium import SingleSeatEnv
    e = SingleSeatEnv("fool", players=5, opponents="heuristic")
    obs, info = e.reset(seed=3)
    action = int(np.flatnonzero(info["action_mask"])[0])
    obs, reward, terminated, truncated, info = e.step(action)

    import gymnasium
    import motley.envs.gymnasium                 # importing it registers the ids "motley/<game>-v0"
    e = gymnasium.make("motley/fool-v0", players=5, opponents="random")

    # or, without importing motley first (Gymnasium imports the module named before the colon):
    e = gymnasium.make("motley.envs.gymnasium:motley/fool-v0", players=5)

Gymnasium 1.x has no plugin entry points (the ``gymnasium.envs`` entry-point group of Gymnasium 0.x was
removed in 1.0), so a bare ``gymnasium.make("motley/fool-v0")`` in an interpreter that never imported
this module cannot find the id; use the ``"module:id"`` form above there. Games registered after this
module was imported get their ids from :func:`register`.

Observation: ``state.observation_tensor(seat)`` (float32, ``game.observation_tensor_shape()``, values
in [-1, 1]; docs/observation_tensors.md). Action: ``Discrete(num_distinct_actions)``, the game's action
ids. With every observation, ``info`` holds:

* ``"action_mask"``: int8 (A,), 1 = legal (:meth:`SingleSeatEnv.action_masks` returns it as bool, the hook
  ``sb3_contrib.MaskablePPO`` looks for);
* ``"seat"``: int, the learning seat; ``"num_legal"``: int, the number of legal actions (0 when over);
* ``"legal"``: a :class:`LegalActions`, ``legal.actions`` int64 (L,) the legal action ids ascending (empty
  when the match is over) and ``legal.features`` float32 (L, F), row ``i`` the features of ``actions[i]``
  (layouts: docs/observation_tensors.md, "Action features"); both read-only;
* at the end, ``"returns"`` float64 (P,) and ``"scores"`` int64 (P,) of every seat; after an illegal action
  (``illegal="lose"``), ``"illegal_action"``: True.

Every value stacks in Gymnasium's vector environments: ``gymnasium.make_vec("motley/fool-v0", num_envs=8,
vectorization_mode="sync")`` (or ``"async"``) gives ``infos["action_mask"]`` (8, A), ``infos["seat"]``
and ``infos["num_legal"]`` (8,), and ``infos["legal"]`` an object array of the 8 :class:`LegalActions`
(the legal lists are ragged, so they are the one key Gymnasium keeps as objects rather than padding
them to a bound: Foolery has 25,741 action ids and hundreds of legal ones in an exchange).

**At the end of a match under** ``gymnasium.make_vec``: Gymnasium's vector environments autoreset in the
*next-step* mode by default (``AutoresetMode.NEXT_STEP``): the step that ends a match returns its last
observation and info, whose ``action_mask`` is all 0 (the learner has no move), and the actions given at the
next step are ignored for that env while it resets. A policy that draws from the mask then meets an empty
mask: ``rng.choice(np.flatnonzero(mask))`` raises and a masked softmax gives NaN. Two ways out:

* ``final_mask="ones"``: the final step's ``action_mask`` is all 1 (any action; the vector environment ignores
  it), so every row of ``infos["action_mask"]`` has a legal entry; ``legal`` and ``num_legal`` stay empty and
  0, and :meth:`SingleSeatEnv.action_masks` stays all False;
* same-step autoreset: ``gymnasium.make_vec(..., vector_kwargs={"autoreset_mode":
  gymnasium.vector.AutoresetMode.SAME_STEP})`` returns the next match's first observation and info at once
  (the final ones in ``infos["final_obs"]`` and ``infos["final_info"]``), so no step carries the empty mask.

motley's own batch stepper (:mod:`motley.envs.vector`) always autoresets in the same step.

Nothing in an observation or ``info`` depends on a card hidden from the learner, and no seed is handed
out (the match seed deals every hand). ``privileged=True`` adds ``info["match_seed"]`` (int), the seed of
the match (``game.new_initial_state(seed=...)`` rebuilds it): for logging and replays, never a policy's input.

An episode is one match. After ``reset`` and after every ``step`` the bots play until the learning
seat is to move again or the match ends. The reward is 0 until the end, then ``state.returns()[seat]``
(in [-1, 1]). A match in which the learning seat never gets a decision (possible in games whose
moves are mostly automatic) is skipped by ``reset``, which starts the next one. ``info`` at the end
holds ``"returns"`` and ``"scores"`` of every seat.

An illegal action is refused: with ``illegal="lose"`` (default) the episode ends at once with reward
``illegal_reward`` (-1.0, the worst return) and ``info["illegal_action"] = True``; with ``"raise"`` a
:class:`motley.IllegalMoveError` is raised and the state is unchanged. An action that is no action id
(outside ``0 .. A-1`` or not a whole number) raises :class:`motley.InvalidMoveError` in either mode.
"""

from __future__ import annotations

from motley.core.extras import require

require("gymnasium", extra="rl", feature="the Gymnasium environment (motley.envs.gymnasium)")

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from motley.bots import Bot, make_bot
from motley.core import Game, IllegalMoveError, InvalidMoveError, State
from motley.core.features import action_feature_table
from motley.core.play import play
from motley.envs import as_game
from motley.envs.tensors import game_observer

__all__ = ["LegalActions", "SingleSeatEnv", "env_id", "register"]

Obs = npt.NDArray[np.float32]

_NO_ACTIONS: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
_NO_ACTIONS.setflags(write=False)


@dataclass(frozen=True, slots=True, eq=False)
class LegalActions:
    """The learner's legal actions and their features (``info["legal"]``); both arrays read-only.

    Attributes:
        actions: int64 (L,), the legal action ids, ascending as ``state.legal_actions()``; (0,) when not to move.
        features: float32 (L, F), row ``i`` the features of ``actions[i]`` (docs/observation_tensors.md).
    """

    actions: npt.NDArray[np.int64]
    features: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def __eq__(self, other: object) -> bool:
        """Equal legal lists and features (what Gymnasium's determinism checks compare)."""
        if not isinstance(other, LegalActions):
            return NotImplemented
        return bool(np.array_equal(self.actions, other.actions) and np.array_equal(self.features, other.features))

    __hash__ = None  # type: ignore[assignment]  # compared by value, so unhashable (as its arrays)

#: Matches skipped in a row by ``reset`` (the seat had no decision) before giving up.
MAX_SKIPPED_MATCHES = 1000


class SingleSeatEnv(gym.Env[Obs, np.int64]):
    """One seat of a motley match as a Gymnasium environment (see the module docstring).

    Args:
        game: a :class:`motley.Game`, a game name or a game string.
        seat: the learning seat (0 .. players-1), or None for a seat drawn at random at every reset.
        opponents: a bot spec (``"random"``, ``"heuristic"``, ``"ismcts(simulations=50)"``) for every
            other seat, or a list of specs, one per other seat in seat order (skipping the learner).
        illegal: ``"lose"`` or ``"raise"`` (see the module docstring).
        illegal_reward: reward of an illegal action in ``"lose"`` mode.
        privileged: also put the match seed in ``info["match_seed"]`` (it reveals every hidden card).
        render_mode: None or ``"ansi"`` (``render()`` returns the learner's observation as JSON text).
        final_mask: ``"zeros"`` (the final step's ``info["action_mask"]`` all 0) or ``"ones"`` (all 1, for
            Gymnasium's next-step autoreset; see the module docstring).
        params: game options when ``game`` is a name, e.g. ``players=5``.
    Raises:
        motley.OptionError: for an unknown game or option.
        motley.MotleyError: for an unknown bot spec.
        ValueError: for a bad seat, a wrong number of opponent specs, a bad mode or a bad ``final_mask``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (as gymnasium declares it)

    def __init__(self, game: Game | str, seat: int | None = 0,
                 opponents: str | Sequence[str] = "random", illegal: str = "lose",
                 illegal_reward: float = -1.0, render_mode: str | None = None, privileged: bool = False,
                 final_mask: str = "zeros", **params: Any) -> None:
        super().__init__()
        self.game = as_game(game, **params)
        n = self.game.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} or None; got {seat!r}")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"{self.game.name} with {n} players needs {n - 1} opponent specs; got {len(specs)}")
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise'; got {illegal!r}")
        if final_mask not in ("zeros", "ones"):
            raise ValueError(f"final_mask must be 'zeros' or 'ones'; got {final_mask!r}")
        self.final_mask = final_mask
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi'; got {render_mode!r}")
        self.opponent_specs = specs
        self.opponents: list[Bot] = [make_bot(spec, self.game) for spec in specs]
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.illegal = illegal
        self.privileged = bool(privileged)
        self._match_seed = 0
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self._num_actions = self.game.num_distinct_actions()
        self._features = action_feature_table(self.game)
        self.observation_space = spaces.Box(low=-1.0, high=1.0, shape=self.game.observation_tensor_shape(),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(self._num_actions)
        self._observer = game_observer(self.game, 1)
        self.state: State | None = None
        self._bot_rng = random.Random(0)
        self._bots: dict[int, Bot] = {}

    # ---- gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Start a match and let the bots play up to the learner's first decision.

        Every random choice (match seed, learner's seat when ``seat=None``, the bots' moves) comes
        from ``self.np_random``, so ``reset(seed=s)`` and the same actions replay the same episode.
        ``options`` is accepted and ignored.

        Raises:
            RuntimeError: if ``MAX_SKIPPED_MATCHES`` matches in a row gave the learner no decision.
        """
        super().reset(seed=seed)
        for _ in range(MAX_SKIPPED_MATCHES):
            self.seat = (int(self.np_random.integers(self.game.num_players)) if self.fixed_seat is None
                         else self.fixed_seat)
            others = [s for s in range(self.game.num_players) if s != self.seat]
            self._bots = dict(zip(others, self.opponents, strict=True))
            self._bot_rng = random.Random(int(self.np_random.integers(2**63)))
            self._match_seed = int(self.np_random.integers(2**63))
            self.state = self.game.new_initial_state(seed=self._match_seed)
            self._play_bots()
            if not self.state.is_terminal():
                return self._observation(), self._info()
        raise RuntimeError(f"{MAX_SKIPPED_MATCHES} matches in a row gave seat {self.seat} no decision")

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play ``action`` for the learner, then the bots up to its next decision or the end.

        Returns:
            ``(observation, reward, terminated, False, info)``; reward is the learner's match return
            at the end (or ``illegal_reward``), else 0.
        Raises:
            motley.InvalidMoveError: for an action that is not a whole number in ``0 .. A-1``.
            motley.IllegalMoveError: for an illegal action with ``illegal="raise"``.
            RuntimeError: before ``reset()`` or after the match ended.
        """
        state = self.state
        if state is None or state.is_terminal():
            raise RuntimeError("call reset() before step(), and again after the match ends")
        a = self._action_id(action)
        if a not in state.legal_actions():
            if self.illegal == "raise":
                raise IllegalMoveError(action, state.why_illegal(a))
            info = self._info()
            info["illegal_action"] = True
            if self.final_mask == "ones":
                info["action_mask"] = np.ones(self._num_actions, dtype=np.int8)
            self.state = None  # the episode is over; step() needs a reset now
            return self._observation(state), self.illegal_reward, True, False, info
        state.apply_action(a)
        self._play_bots()
        if state.is_terminal():
            return self._observation(), float(state.returns()[self.seat]), True, False, self._info()
        return self._observation(), 0.0, False, False, self._info()

    def _action_id(self, action: Any) -> int:
        """``action`` as an action id.

        Raises:
            motley.InvalidMoveError: for a value that is not a whole number in ``0 .. A-1``.
        """
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise InvalidMoveError(action, "an action must be a whole number")
        if not 0 <= action < self._num_actions:
            raise InvalidMoveError(action, f"action ids are 0..{self._num_actions - 1}")
        return int(action)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Boolean mask of the learner's legal actions (all False when the match is over or not started)."""
        mask = np.zeros(self._num_actions, dtype=np.bool_)
        if self.state is not None and not self.state.is_terminal() and self.state.current_player() == self.seat:
            mask[self.state.legal_actions()] = True
        return mask

    def render(self) -> str | None:
        """The learner's observation as JSON text (``render_mode="ansi"``), else None."""
        if self.render_mode != "ansi" or self.state is None:
            return None
        import json

        return json.dumps(self.state.observation(self.seat))

    # ---- helpers ------------------------------------------------------------------------------
    def _play_bots(self) -> None:
        """The bots play (:func:`motley.core.play.play`) until the learner's seat, which has no bot, is to move
        or the match ends; they are asked even for forced moves and draw from the episode's bot generator."""
        assert self.state is not None
        play(self.state, self._bots, self._bot_rng, skip_forced=False)

    def _observation(self, state: State | None = None) -> Obs:
        """The learner's ``state.observation_tensor(seat)``, a new array (from the game's own batch observer
        where it has one: :mod:`motley.envs.tensors`)."""
        state = state or self.state
        assert state is not None
        if self._observer is None:
            return np.array(state.observation_tensor(self.seat), dtype=np.float32)
        tensor = np.empty(self.observation_space.shape or (), dtype=np.float32)
        self._observer.write((state,), (self.seat,), tensor[None])
        return tensor

    def _info(self) -> dict[str, Any]:
        state = self.state
        assert state is not None
        legal = (np.array(state.legal_actions(), dtype=np.int64)
                 if not state.is_terminal() and state.current_player() == self.seat else _NO_ACTIONS)
        if self.final_mask == "ones" and state.is_terminal():
            mask = np.ones(self._num_actions, dtype=np.int8)
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
            mask[legal] = 1
        legal.setflags(write=False)
        features = self._features.take(legal, axis=0)
        features.setflags(write=False)
        info: dict[str, Any] = {"action_mask": mask, "seat": self.seat, "num_legal": len(legal),
                                "legal": LegalActions(legal, features)}
        if state.is_terminal():
            info["returns"] = np.array(state.returns(), dtype=np.float64)
            info["scores"] = np.array(state.scores(), dtype=np.int64)
        if self.privileged:
            info["match_seed"] = self._match_seed
        return info


def env_id(name: str) -> str:
    """Gymnasium id of a motley game: ``"fool"`` -> ``"motley/fool-v0"``."""
    return f"motley/{name}-v0"


def register(names: Sequence[str] | None = None) -> list[str]:
    """Register :class:`SingleSeatEnv` with Gymnasium for motley games (idempotent).

    ``gymnasium.make("motley/fool-v0", players=5, opponents="heuristic")`` then builds the environment;
    keyword arguments go to :class:`SingleSeatEnv` (game options included).

    Args:
        names: motley game names; every registered motley game when None.
    Returns:
        The Gymnasium ids now registered.
    """
    from motley.core import registered_games

    ids = []
    for name in registered_games() if names is None else names:
        ident = env_id(name)
        if ident not in gym.registry:
            gym.register(id=ident, entry_point="motley.envs.gymnasium:SingleSeatEnv", kwargs={"game": name},
                         disable_env_checker=True)
        ids.append(ident)
    return ids


register()  # the ids of every game registered now, on import (gymnasium.make("motley.envs.gymnasium:motley/<game>-v0"))
