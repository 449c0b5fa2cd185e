"""OpenSpiel adapter: every motley game as a Python ``pyspiel`` game.

::

    import pyspiel
    from motley.envs import openspiel
    openspiel.register()                                    # once per process
    game = pyspiel.load_game("motley_foolery(players=5)")
    state = game.new_initial_state()                        # a chance node: the seed of the match
    state.apply_action(1234)                                # = motley new_initial_state(seed=1234)

Model. motley games have no explicit chance nodes (every shuffle comes from the seed inside the state),
so the OpenSpiel game starts with **one chance node** that picks the match seed uniformly among
``num_seeds`` outcomes (a game parameter, default ``NUM_SEEDS`` = 4,096; raise it, e.g.
``num_seeds=65536``, for more distinct deals at the cost of a slower chance node); after it the states are
motley's, move for move: the seed outcome ``s`` is the match ``game.new_initial_state(seed=s)``. The game is
``SEQUENTIAL``, ``EXPLICIT_STOCHASTIC``, ``IMPERFECT_INFORMATION``, ``GENERAL_SUM`` (Fool!'s returns do not
sum to 0) with a ``TERMINAL`` reward model: returns are ``state.returns()``, in [-1, 1].

Game parameters: every option of the motley game (``int``/``bool``/``str`` as such, JSON options as their
JSON text with ``% , ( ) =`` percent-escaped, see :func:`encode_json`), with motley's defaults; ``players``
is the player count; ``num_seeds`` is the adapter's own parameter (above).

Information. The games declare an **observation only**, no information state: ``observation_string`` is
the JSON text of ``state.observation(player)`` (sorted keys) and ``observation_tensor`` is
``state.observation_tensor(player)`` (``"{}"`` and zeros at the chance node). A motley observation holds
the current deal as the seat saw it (its hand, the tricks or plays of this deal, exchanges, scores) but
not every earlier deal, so it is not a perfect-recall information state, and the game type says so
(``provides_information_state_string`` and ``..._tensor`` are False; asking for a perfect-recall observer
raises ValueError). OpenSpiel's Python ``ISMCTSBot`` keys its tree by the observation with
``use_observation_string=True``. The match's deals are not chance nodes of their own: each is shuffled by
the engine from the match seed (one chance node, below), because a later deal depends on the match so far
(who deals, who exchanges what) and an explicit deal of Foolery's 78 cards would be 78 chance nodes per
hand, each exposing the whole deck order.

Search. ``resample_from_infostate(player, sampler)`` returns a state at the same point of the match whose
hidden cards are drawn by ``game.sample_state(observation, rng)``, so OpenSpiel's Python ``ISMCTSBot``
(``open_spiel.python.algorithms.ismcts``) plays these games. The resampled state has an empty OpenSpiel
``history()`` (it is a determinization, not a replay); its motley history is the public one. The C++
``pyspiel.ISMCTSBot`` cannot be used: it calls the C++ ``ResampleFromInfostate``, which pyspiel does not
forward to Python games (it crashes the process).

Serialization (``pyspiel.serialize_game_and_state``) and ``clone`` go through motley's own
``State.serialize`` / ``State.clone``.
"""

from __future__ import annotations

from motley.core.extras import require

require("pyspiel", extra="rl", feature="the OpenSpiel adapter (motley.envs.openspiel)")

import functools
import json
import random
import urllib.parse
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module

from motley.core import Game, State, load_game, registered_games
from motley.core.registry import game_class

__all__ = [
    "NUM_SEEDS", "PREFIX", "UNBOUNDED_GAME_LENGTH", "MotleySpielGame", "MotleySpielState", "decode_json", "encode_json",
    "max_game_length",
    "register", "short_name", "spiel_game_string",
]

#: Default of the ``num_seeds`` parameter: the initial chance node draws the match seed from ``range(num_seeds)``.
NUM_SEEDS = 2**12
#: Short names are ``PREFIX + motley name``.
PREFIX = "motley_"
#: Declared length of a match whose rules set no finite bound (``Game.max_decisions()`` is None: The Fool's
#: Errand, where a Joker may come back on top of its deck any number of times; Foolery played to a target
#: with ``president`` scoring and no ``hands`` cap). Random play of The Fool's Errand takes about 10 decisions.
UNBOUNDED_GAME_LENGTH = 100_000

_REGISTERED: dict[str, pyspiel.GameType] = {}


def max_game_length(game: Game) -> int:
    """OpenSpiel's ``max_game_length`` of ``game``: the bound its rules give (``Game.max_decisions()``), or
    :data:`UNBOUNDED_GAME_LENGTH` where they give none. The initial chance node is not a decision."""
    bound = game.max_decisions()
    return UNBOUNDED_GAME_LENGTH if bound is None else bound


def short_name(motley_name: str) -> str:
    """OpenSpiel short name of a motley game: ``"fool"`` -> ``"motley_fool"``."""
    return PREFIX + motley_name


def spiel_game_string(game: Game, num_seeds: int | None = None) -> str:
    """The ``pyspiel.load_game`` string of a motley game with its options (call :func:`register` first).

    ``spiel_game_string(motley.load_game("fool", players=4, rounds=1))`` -> ``"motley_fool(players=4,rounds=1)"``;
    only options that differ from their defaults are listed (plus ``players`` and ``num_seeds`` if given).
    """
    cls = game_class(game.name)
    items = []
    for option in cls.options:
        value = game.params[option.name]
        if value == option.default and option.name != "players":
            continue
        if option.kind == "json":
            items.append(f"{option.name}={encode_json(value)}")
        elif isinstance(value, bool):
            items.append(f"{option.name}={'true' if value else 'false'}")
        else:
            items.append(f"{option.name}={value}")
    if num_seeds is not None:
        items.append(f"num_seeds={num_seeds}")
    return f"{short_name(game.name)}({','.join(items)})" if items else short_name(game.name)


def _parameter_spec(name: str) -> dict[str, Any]:
    """pyspiel parameter specification (name -> default) of a motley game's options."""
    cls = game_class(name)
    spec: dict[str, Any] = {}
    for option in cls.options:
        default = option.default
        if option.kind == "json":
            spec[option.name] = encode_json(default)
        elif (option.kind == "bool" and isinstance(default, bool)) or (
                option.kind == "int" and isinstance(default, int)) or isinstance(default, str):
            spec[option.name] = default
    if "players" not in spec:
        spec["players"] = cls.min_players
    spec["num_seeds"] = NUM_SEEDS
    return spec


def encode_json(value: Any) -> str:
    """A JSON option value as an OpenSpiel parameter string.

    OpenSpiel's game-string parser splits on ``,`` and treats ``(``, ``)`` and ``=`` specially, so those
    (and ``%``) are percent-escaped: ``{"a":1,"b":2}`` -> ``{"a":1%2C"b":2}``. :func:`decode_json` inverts it.
    """
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def decode_json(value: Any) -> Any:
    """The JSON text of an OpenSpiel parameter made by :func:`encode_json` (non-strings pass through)."""
    return urllib.parse.unquote(value) if isinstance(value, str) else value


_ESCAPES = {ch: f"%{ord(ch):02X}" for ch in "%,()="}


def _motley_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """motley options from OpenSpiel parameters (JSON options decoded)."""
    kinds = {option.name: option.kind for option in game_class(name).options}
    return {key: decode_json(value) if kinds.get(key) == "json" else value for key, value in params.items()
            if key != "num_seeds"}


@functools.lru_cache(maxsize=8)
def _uniform_outcomes(n: int) -> tuple[tuple[int, float], ...]:
    return tuple((seed, 1.0 / n) for seed in range(n))


def _game_type(name: str) -> pyspiel.GameType:
    cls = game_class(name)
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"motley {cls.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=False,  # not perfect recall: see the module docstring
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_spec(name),
    )


def register(names: list[str] | None = None) -> list[str]:
    """Register motley games with ``pyspiel.register_game`` (idempotent).

    Args:
        names: motley game names; every registered motley game when None.
    Returns:
        The OpenSpiel short names now registered (``["motley_fools_errand", ...]``).
    Raises:
        motley.OptionError: for an unknown motley game name.
    """
    for name in registered_games() if names is None else names:
        if name in _REGISTERED:
            continue
        game_type = _game_type(name)
        pyspiel.register_game(game_type, _creator(name))
        _REGISTERED[name] = game_type
    return [short_name(n) for n in _REGISTERED]


def _creator(name: str) -> type[MotleySpielGame]:
    """A MotleySpielGame subclass bound to ``name``: OpenSpiel calls it with the game parameters.

    A class rather than a closure: the C++ registry keeps the creator until after the interpreter has
    finalized, and a class (held in a reference cycle through its ``__mro__``) is never freed then,
    where a closure would be, without the GIL, aborting the process at exit.
    """

    def __init__(self: MotleySpielGame, params: dict[str, Any] | None = None) -> None:
        MotleySpielGame.__init__(self, name, params or {})

    return type(f"MotleySpielGame_{name}", (MotleySpielGame,), {"__init__": __init__})


class _Holder:
    """The motley State inside an OpenSpiel state (None at the chance node).

    OpenSpiel clones a Python state by deep-copying its attributes and serializes it by pickling them;
    this holder makes both go through motley's ``clone`` and ``serialize``.
    """

    __slots__ = ("game", "state")

    def __init__(self, game: Game, state: State | None) -> None:
        self.game = game
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Holder:
        return _Holder(self.game, None if self.state is None else self.state.clone())

    def __reduce__(self) -> tuple[Any, tuple[str, str, str | None]]:
        return (_restore_holder, (self.game.name, json.dumps(self.game.params),
                                  None if self.state is None else self.state.serialize()))


def _restore_holder(name: str, params: str, text: str | None) -> _Holder:
    game = load_game(name, **json.loads(params))
    return _Holder(game, None if text is None else game.deserialize_state(text))


class MotleySpielGame(pyspiel.Game):  # type: ignore[misc]
    """A motley game as a ``pyspiel.Game`` (see the module docstring).

    Args:
        name: the motley game name.
        params: OpenSpiel game parameters (motley options; JSON options as text).
    Raises:
        motley.OptionError: for a bad option value.
    """

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        spec = _parameter_spec(name)
        full = {**spec, **params}
        num_seeds = int(full["num_seeds"])
        if num_seeds < 1:
            raise ValueError(f"num_seeds must be at least 1; got {num_seeds}")
        game = load_game(name, **_motley_params(name, full))
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_distinct_actions(),
            max_chance_outcomes=num_seeds,
            num_players=game.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=max_game_length(game),
        )
        super().__init__(_REGISTERED[name] if name in _REGISTERED else _game_type(name), info, full)
        self.motley_game: Game = game
        self.num_seeds = num_seeds

    def new_initial_state(self, *args: Any) -> MotleySpielState:
        """The chance node that picks the match seed."""
        return MotleySpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """The observer of observations (the seat's motley observation).

        Raises:
            ValueError: for observation parameters, or a perfect-recall observer (an information state),
                which these games do not provide.
        """
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and getattr(iig_obs_type, "perfect_recall", False):
            raise ValueError("motley games provide no perfect-recall information state, only the observation "
                             "(the current deal as the seat saw it)")
        return _Observer(self.motley_game)


class MotleySpielState(pyspiel.State):  # type: ignore[misc]
    """A position of a motley match as a ``pyspiel.State``: the seed chance node, then motley's state."""

    def __init__(self, game: MotleySpielGame) -> None:
        super().__init__(game)
        self._m = _Holder(game.motley_game, None)
        self._num_seeds = game.num_seeds

    @property
    def motley_state(self) -> State | None:
        """The motley State (None at the chance node). Do not modify it."""
        return self._m.state

    def current_player(self) -> int:
        """``pyspiel.PlayerId.CHANCE`` before the seed, then the seat to move, or ``TERMINAL``."""
        state = self._m.state
        if state is None:
            return int(pyspiel.PlayerId.CHANCE)
        if state.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        state = self._m.state
        assert state is not None and player == state.current_player()
        return state.legal_actions()

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """The ``num_seeds`` seeds, each with probability ``1 / num_seeds``."""
        return _uniform_outcomes(self._num_seeds)

    def _apply_action(self, action: int) -> None:
        holder = self._m
        if holder.state is None:
            if not 0 <= action < self._num_seeds:
                raise ValueError(f"seed outcome must be 0..{self._num_seeds - 1}; got {action}")
            holder.state = holder.game.new_initial_state(seed=int(action))
        else:
            holder.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        state = self._m.state
        if state is None or player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        return state.action_to_string(int(action))

    def is_terminal(self) -> bool:
        """True when the match is over."""
        return self._m.state is not None and self._m.state.is_terminal()

    def returns(self) -> list[float]:
        """``state.returns()`` (0 for every seat until the end)."""
        state = self._m.state
        if state is None:
            return [0.0] * self._m.game.num_players
        return [float(r) for r in state.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> MotleySpielState:
        """A state with the same observation for ``player_id``, hidden cards drawn by ``sample_state`` (which
        keeps every constraint the seat knows of: voids, exchanges).

        Randomness comes from numpy's global generator (as OpenSpiel's Python bots seed it);
        ``probability_sampler`` is accepted for API compatibility and not used.

        Raises:
            ValueError: at the chance node (nothing to resample from).
        """
        holder = self._m
        if holder.state is None:
            raise ValueError("no information state at the chance node")
        rng = random.Random(int(np.random.randint(0, 2**31 - 1)))
        sampled = holder.game.sample_state(holder.state.observation(player_id), rng)
        new = MotleySpielState(self.get_game())
        new._m = _Holder(holder.game, sampled)
        return new

    def __str__(self) -> str:
        state = self._m.state
        return "chance: match seed not drawn" if state is None else state.serialize()


class _Observer:
    """PyObserver: ``tensor`` is the seat's observation tensor, strings the JSON observation."""

    def __init__(self, game: Game) -> None:
        self.tensor: npt.NDArray[np.float32] = np.zeros(game.observation_tensor_shape(), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MotleySpielState, player: int) -> None:
        motley_state = state.motley_state
        if motley_state is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[...] = motley_state.observation_tensor(player)

    def string_from(self, state: MotleySpielState, player: int) -> str:
        motley_state = state.motley_state
        if motley_state is None:
            return "{}"
        return json.dumps(motley_state.observation(player), sort_keys=True, separators=(",", ":"))
