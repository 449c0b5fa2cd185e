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
ids. ``info["action_mask"]`` (int8, 1 = legal) is given with every observation, with
``info["legal_actions"]`` (int64, the legal action ids, ascending; empty when the match is over) and
``info["action_features"]`` (float32 (len(legal_actions), F), row ``i`` the features of legal action ``i``;
layouts: docs/observation_tensors.md, "Action features"), and
:meth:`SingleSeatEnv.action_masks` returns it too (the hook ``sb3_contrib.MaskablePPO`` looks for).

An episode is one match. After ``reset`` and after every ``step`` the bots play until the learning
seat is to move again or the match ends. The reward is 0 until the end, then ``state.returns()[seat]``
(in [-1, 1]). A match in which the learning seat never gets a decision (possible in games whose
moves are mostly automatic) is skipped by ``reset``, which starts the next one. ``info`` at the end
holds ``"returns"`` and ``"scores"`` of every seat.

An illegal action is refused: with ``illegal_action="lose"`` (default) the episode ends at once with
reward ``illegal_reward`` (-1.0) and ``info["illegal_action"] = True``; with ``"raise"`` a
:class:`motley.IllegalMoveError` is raised and the state is unchanged.
"""

from __future__ import annotations

from motley.core.extras import require

require("gymnasium", extra="rl", feature="the Gymnasium environment (motley.envs.gymnasium)")

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from motley.bots import Bot, make_bot
from motley.core import Game, IllegalMoveError, State
from motley.core.features import action_feature_table
from motley.core.play import play
from motley.envs import as_game
from motley.envs.tensors import game_observer

__all__ = ["SingleSeatEnv", "env_id", "register"]

Obs = npt.NDArray[np.float32]

_NO_ACTIONS: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)

#: Matches skipped in a row by ``reset`` (the seat had no decision) before giving up.
MAX_SKIPPED_MATCHES = 1000


class SingleSeatEnv(gym.Env[Obs, np.int64]):
    """One seat of a motley match as a Gymnasium environment (see the module docstring).

    Args:
        game: a :class:`motley.Game`, a game name or a game string.
        seat: the learning seat (0 .. players-1), or None for a seat drawn at random at every reset.
        opponents: a bot spec (``"random"``, ``"heuristic"``, ``"ismcts(simulations=50)"``) for every
            other seat, or a list of specs, one per other seat in seat order (skipping the learner).
        illegal_action: ``"lose"`` or ``"raise"`` (see the module docstring).
        illegal_reward: reward of an illegal action in ``"lose"`` mode.
        render_mode: None or ``"ansi"`` (``render()`` returns the learner's observation as JSON text).
        params: game options when ``game`` is a name, e.g. ``players=5``.
    Raises:
        motley.OptionError: for an unknown game or option.
        motley.MotleyError: for an unknown bot spec.
        ValueError: for a bad seat, a wrong number of opponent specs or a bad mode.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (as gymnasium declares it)

    def __init__(self, game: Game | str, seat: int | None = 0,
                 opponents: str | Sequence[str] = "random", illegal_action: str = "lose",
                 illegal_reward: float = -1.0, render_mode: str | None = None, **params: Any) -> None:
        super().__init__()
        self.game = as_game(game, **params)
        n = self.game.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} or None; got {seat!r}")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"{self.game.name} with {n} players needs {n - 1} opponent specs; got {len(specs)}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise'; got {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi'; got {render_mode!r}")
        self.opponent_specs = specs
        self.opponents: list[Bot] = [make_bot(spec, self.game) for spec in specs]
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.illegal_action = illegal_action
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
            self.state = self.game.new_initial_state(seed=int(self.np_random.integers(2**63)))
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
            motley.IllegalMoveError: for an illegal action with ``illegal_action="raise"``.
            RuntimeError: before ``reset()`` or after the match ended.
        """
        state = self.state
        if state is None or state.is_terminal():
            raise RuntimeError("call reset() before step(), and again after the match ends")
        legal = state.legal_actions()
        try:
            a = int(action)
        except (TypeError, ValueError):
            a = -1
        if a not in legal:
            if self.illegal_action == "raise":
                raise IllegalMoveError(action, state.why_illegal(a) if a >= 0 else "an action must be a whole number")
            info = self._info()
            info["illegal_action"] = True
            self.state = None  # the episode is over; step() needs a reset now
            return self._observation(state), self.illegal_reward, True, False, info
        state.apply_action(a)
        self._play_bots()
        if state.is_terminal():
            return self._observation(), float(state.returns()[self.seat]), True, False, self._info()
        return self._observation(), 0.0, False, False, self._info()

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
        mask = np.zeros(self._num_actions, dtype=np.int8)
        mask[legal] = 1
        info: dict[str, Any] = {"action_mask": mask, "seat": self.seat, "legal_actions": legal,
                                "action_features": self._features.take(legal, axis=0)}
        if state.is_terminal():
            info["returns"] = list(state.returns())
            info["scores"] = list(state.scores())
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
