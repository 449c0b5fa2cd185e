"""The Game / State base classes: the core API of docs/design.md, shared by every game.

A :class:`Game` is a rule set with its options fixed; a :class:`State` is one position of a match in
that game. Games subclass both and implement the abstract methods; everything the adapters (command
line, server, bots, simulator, RL environments) use is defined here, so no adapter needs a game's
internals.
"""

from __future__ import annotations

import _random
import abc
import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from motley.core import jsonsafe
from motley.core.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    MotleyError,
    MoveError,
    NotYourTurnError,
    RecordError,
)
from motley.core.options import Option, format_game_string, resolve

#: ``current_player()`` of a finished match (the value OpenSpiel uses too).
TERMINAL = -4

#: The reason of every move refused once the match is over (:class:`~motley.core.errors.GameOverError`).
GAME_OVER = "the game is over"

#: An information state: a JSON-able mapping (str keys; lists, numbers, strings, bools, None), read only; each game
#: declares its keys as a ``TypedDict`` in its ``observe`` module (``FoolObservation``...), which is one.
Observation = Mapping[str, Any]


class Game(abc.ABC):
    """A game with its options fixed.

    Subclasses set ``name``, ``title``, ``options``, ``min_players``/``max_players`` and implement the
    abstract methods. ``params`` holds every option (validated, defaults filled in) and is what records
    store. A game with a fixed number of seats declares ``min_players == max_players`` and needs no
    ``players`` option.

    Raises (constructor):
        OptionError: for an unknown option or a bad value.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    options: ClassVar[tuple[Option, ...]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    rules_file: ClassVar[str]

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = resolve(self.name, self.options, params)
        players = self.params.get("players", self.min_players)
        self.num_players: int = int(players)

    def __str__(self) -> str:
        return format_game_string(self.name, self.options, self.params)

    def __repr__(self) -> str:
        return f"motley.load_game({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.name == other.name and self.params == other.params

    def __hash__(self) -> int:
        return hash(str(self))

    def new_initial_state(self, seed: int | None = None, deal: Mapping[str, Any] | None = None) -> State:
        """The first position of a match.

        Args:
            seed: seeds every shuffle of the match; a fresh random seed is drawn (and recorded) when
                omitted, so every state can be reproduced from its record.
            deal: an explicit first deal (shape per game: docs/design.md, The core API); later deals come from the seed.
        Raises:
            DealError: for a malformed deal.
            MotleyError: for a seed that is not a non-negative whole number.
        """
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise MotleyError(f"seed must be a non-negative whole number; got {seed!r}")
        return self._new_state(seed, deal)

    @abc.abstractmethod
    def _new_state(self, seed: int, deal: Mapping[str, Any] | None) -> State: ...

    @abc.abstractmethod
    def sample_state(self, observation: Observation, rng: random.Random) -> State:
        """A full state consistent with ``observation`` (a determinization).

        The hidden cards are dealt at random among the hidden places, respecting everything the
        observation reveals; ``sample_state(o, rng).observation(o["seat"]) == o``.

        Raises:
            MotleyError: for an observation of another game or a malformed one.
        """

    def determinizer(self, observation: Observation) -> Callable[[random.Random], State]:
        """A sampler of worlds consistent with ``observation``: ``determinizer(o)(rng)`` is distributed as
        ``sample_state(o, rng)``.

        Search calls it thousands of times for one observation, so games may override it to parse the
        observation once; the default calls :meth:`sample_state` each time.
        """
        return lambda rng: self.sample_state(observation, rng)

    @abc.abstractmethod
    def observation_tensor_shape(self) -> tuple[int, ...]:
        """Shape of :meth:`State.observation_tensor` (float32)."""

    def max_decisions(self) -> int | None:
        """An upper bound on the decisions (applied actions) of one match under this game's options, derived
        from the rules (each game's override says how), or ``None`` where the rules set no finite bound."""
        return None

    @abc.abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the action space: every action id is in ``range(num_distinct_actions())``."""

    @abc.abstractmethod
    def _state_from_dict(self, data: Mapping[str, Any]) -> State: ...

    def deserialize_state(self, text: str) -> State:
        """Inverse of :meth:`State.serialize`.

        Raises:
            RecordError: for text that is not a serialized state of this game.
        """
        data = load_json_object(text, "serialized state")
        if data.get("game") != self.name:
            raise RecordError(f"serialized state is not a {self.name} state")
        if data.get("params") != self.params:
            raise RecordError(f"serialized state has params {data.get('params')!r}, game has {self.params!r}")
        try:
            return self._state_from_dict(data["state"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise RecordError(f"serialized {self.name} state is broken: {exc!r}") from None


class State(abc.ABC):
    """One position of a match. Mutable: :meth:`apply_action` advances it in place.

    Attributes:
        game: the :class:`Game` this state belongs to.
        origin: ``{"seed": int, "deal": dict | None}`` for a state made by ``new_initial_state`` and
            the moves after it; ``None`` for a determinization (``sample_state``), which has no record.
        rng: the generator of the state's own later shuffles (games that opt in to search support read it
            through :meth:`motley.core.search.SearchState.own_rng`).

    What search needs beyond this contract (shared generators, unchecked application, fast playouts,
    stopping at the end of a deal) is the opt-in :class:`motley.core.search.SearchState`.
    """

    __slots__ = ("_history", "game", "origin", "rng")

    def __init__(self, game: Game, origin: dict[str, Any] | None, rng: random.Random | None = None) -> None:
        self.game = game
        self.origin = origin
        self._history: list[int] = []
        self.rng = random.Random(0) if rng is None else rng

    def _set_history(self, actions: Sequence[int]) -> None:
        """Restore the actions applied so far (for ``_state_from_dict`` and observation-built states)."""
        self._history = [int(a) for a in actions]

    def _extend_history(self, actions: Sequence[int]) -> None:
        """Record ``actions`` as applied, in order (for a game's own fast loops that apply several at once)."""
        self._history.extend(actions)

    def _copy_history_to(self, new: State) -> None:
        """Give ``new`` (a clone made with ``__new__``) this state's game, origin and a copy of its history."""
        new.game, new.origin, new._history = self.game, self.origin, list(self._history)

    # ---- the move interface -------------------------------------------------------------------
    @abc.abstractmethod
    def current_player(self) -> int:
        """The seat to move, ``0 .. num_players-1``, or :data:`TERMINAL`."""

    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """Sorted action ids legal for the player to move (empty when terminal)."""

    @abc.abstractmethod
    def action_to_string(self, action: int) -> str:
        """The move string of ``action`` in this state (notation of rules/README.md)."""

    @abc.abstractmethod
    def _parse_move(self, text: str) -> int:
        """The action a move string names, legal or not.

        Raises:
            InvalidMoveError: if it names none (an unknown word or card code, malformed text), saying why.
            IllegalMoveError: for well-formed text that names no action because the rules forbid what it names
                (with the rule id).
        """

    @abc.abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action (already checked)."""

    def why_illegal(self, action: int) -> str:
        """Plain words on why ``action`` is not legal now (games refine this)."""
        if self.is_terminal():
            return GAME_OVER
        legal = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        return f"not a legal move now; legal moves: {legal}"

    # ---- the one check of a move ----------------------------------------------------------------
    def check(self, seat: int, move: int | str) -> MoveError | None:
        """Why ``seat`` may not make ``move`` (an action id, or a move string) now, or None when it may; nothing
        changes. The one check of a move: :meth:`read_move`, :meth:`play` and :meth:`string_to_action` make it,
        :meth:`apply_action` its part for the seat to move, and the server answers a seat's move with it.

        Returns:
            None, or the refusal (not raised), in this order: :class:`GameOverError` ("the game is over"),
            :class:`NotYourTurnError` (:meth:`why_not_turn`, the game's words and rule id),
            :class:`InvalidMoveError` (a move that names no action: unknown text, not a whole number, an id
            outside the action space), :class:`IllegalMoveError` (the rules forbid it now: the move string's
            parse error with its rule id, or :meth:`why_illegal`).
        """
        read = self._read(seat, move)
        return read if isinstance(read, MoveError) else None

    def read_move(self, seat: int, move: int | str) -> int:
        """The action ``seat`` makes with ``move`` (an action id, or a move string, case-insensitive), checked
        (:meth:`check`): a move string converted to its action once, on the way in. Nothing changes.

        Raises:
            MoveError: the refusal :meth:`check` gives (GameOverError, NotYourTurnError, InvalidMoveError,
                IllegalMoveError).
        """
        read = self._read(seat, move)
        if isinstance(read, MoveError):
            raise read
        return read

    def _read(self, seat: int, move: object) -> int | MoveError:
        """The action of ``move`` for ``seat`` if it may make it now, else the refusal (:meth:`check`)."""
        if self.is_terminal():
            return GameOverError(move, GAME_OVER)
        if seat != self.current_player():
            return NotYourTurnError(move, self.why_not_turn(seat))
        if not isinstance(move, str):
            return self._legal_action(move)
        try:
            action = self._parse_move(move)
        except MoveError as exc:
            return exc
        return self._legal_action(action, move)

    def _legal_action(self, action: object, shown: object = None) -> int | MoveError:
        """``action`` as an int if it is legal for the seat to move, else the refusal: InvalidMoveError for a value
        that is not a whole number or an id outside the action space, GameOverError once the match is over,
        IllegalMoveError with :meth:`why_illegal`'s reason for the others. ``shown``: the move as the refusal
        names it (default ``action``)."""
        shown = action if shown is None else shown
        if type(action) is not int:
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                return InvalidMoveError(shown, "an action must be a whole number")
            action = int(action)
        if self._is_legal(action):
            return action
        if not 0 <= action < self.game.num_distinct_actions():
            return InvalidMoveError(shown, self.why_illegal(action))
        if self.is_terminal():
            return GameOverError(shown, GAME_OVER)
        return IllegalMoveError(shown, self.why_illegal(action))

    def string_to_action(self, text: str) -> int:
        """The legal action a move string names (case-insensitive), for the seat to move (:meth:`read_move`).

        Raises:
            InvalidMoveError: for a value that is not a string, or a malformed or unknown move string.
            IllegalMoveError: for a move the rules do not allow now (GameOverError once the match is over), with
                the reason.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(text, "a move must be a string")
        return self.read_move(self.current_player(), text)

    def apply_action(self, action: int) -> None:
        """Play ``action`` for the player to move, checked as :meth:`check` checks it for that seat.

        Raises:
            InvalidMoveError: for a value that is not a whole number, or an id outside the action space.
            IllegalMoveError: if it is not legal now (GameOverError once the match is over). Either way the state
                is unchanged.
        """
        if type(action) is not int or not self._is_legal(action):
            read = self._legal_action(action)
            if isinstance(read, MoveError):
                raise read
            action = read
        self._apply(action)
        self._history.append(action)

    def play(self, seat: int, action: int | str) -> None:
        """Play ``action`` (an action id, or a move string) for ``seat``, checked first (:meth:`check`: the
        match goes on, it is that seat's turn, the move is legal), for surfaces where a seat acts for itself
        (a person at the terminal).

        Raises:
            MoveError: the refusal of :meth:`check` (GameOverError, NotYourTurnError with the game's reason,
                InvalidMoveError, IllegalMoveError); the state is then unchanged.
        """
        action = self.read_move(seat, action)
        self._apply(action)
        self._history.append(action)

    def why_not_turn(self, seat: int) -> str:
        """Plain words on why ``seat`` may not move now (games add their rule, such as sitting out a trick)."""
        return f"it is seat {self.current_player()}'s turn, not seat {seat}'s"

    def _is_legal(self, action: int) -> bool:
        """Is ``action`` legal now? (Games with a cached legal list answer without copying it.)"""
        return action in self.legal_actions()

    def legal_mask_bytes(self) -> bytes:
        """The legal actions as a mask: ``game.num_distinct_actions()`` bytes, 1 at each id of
        :meth:`legal_actions`, 0 elsewhere (all 0 when the match is over): an ``int8`` action mask's bytes, for the
        RL environments (``np.frombuffer``). A game's compiled core may give it without copying the list."""
        mask = bytearray(self.game.num_distinct_actions())
        for action in self.legal_actions():
            mask[action] = 1
        return bytes(mask)

    def deal_number(self) -> int:
        """Index of the current deal (round, hand) of the match, from 0; games of one deal return 0."""
        return 0

    def history(self) -> list[int]:
        """Every action applied since the initial state, in order."""
        return list(self._history)

    # ---- results ------------------------------------------------------------------------------
    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """True when the match is over."""

    @abc.abstractmethod
    def returns(self) -> list[float]:
        """Per-seat match outcome in [-1, 1] (0 for every seat until the end)."""

    @abc.abstractmethod
    def scores(self) -> list[int]:
        """Per-seat game points (running totals in a match)."""

    # ---- information ---------------------------------------------------------------------------
    @abc.abstractmethod
    def observation(self, seat: int) -> Observation:
        """The information state of ``seat``: JSON-able, nothing hidden from that seat."""

    @abc.abstractmethod
    def observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        """The information state of ``seat`` as a float32 vector of ``game.observation_tensor_shape()``."""

    def observation_bytes(self, seat: int) -> bytes:
        """:meth:`observation_tensor` of ``seat`` as its bytes (float32, native byte order):
        ``np.frombuffer(state.observation_bytes(seat), np.float32)`` is the tensor, read-only (for the RL
        environments, which hand out read-only tensors; a game's compiled core may write them without an array).

        Raises:
            MotleyError: for a seat that is not a seat of the game.
        """
        return self.observation_tensor(seat).tobytes()

    def check_seat(self, seat: int) -> None:
        """Raise MotleyError unless ``seat`` is a seat of this game."""
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.game.num_players:
            raise MotleyError(f"seat must be 0..{self.game.num_players - 1}; got {seat!r}")

    # ---- copies and persistence ---------------------------------------------------------------
    @abc.abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    @abc.abstractmethod
    def _to_dict(self) -> dict[str, Any]:
        """Every field of the state as JSON-able data (inverse: ``Game._state_from_dict``)."""

    def serialize(self) -> str:
        """The whole state as JSON text; ``game.deserialize_state`` restores it exactly."""
        return json.dumps(
            {"game": self.game.name, "params": self.game.params, "state": self._to_dict()},
            separators=(",", ":"),
        )

    def __str__(self) -> str:
        return json.dumps(self.observation(self.current_player()) if not self.is_terminal() else self.scores())

    def _repr_svg_(self) -> str | None:
        """SVG of the state for Jupyter, drawn by ``motley.drawing`` (``None`` if it is not loaded)."""
        from motley.core import display

        return display.svg_renderer(self) if display.svg_renderer is not None else None


def seeded_rng(seed: int) -> random.Random:
    """A generator in the state ``random.Random(seed)`` starts in, for a whole number ``seed`` (as fast to use).

    Seeds it as ``random.Random.seed`` does an int (by its C base class, ``gauss_next`` cleared), without the
    Python steps of the constructor and of ``seed``: about a quarter less time, for code that makes one per game.
    """
    rng = random.Random.__new__(random.Random)
    _random.Random.seed(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined]  # set by random.Random.seed, not in its stubs
    return rng


def copy_rng(rng: random.Random) -> random.Random:
    """An independent generator in the same state as ``rng`` (without seeding a new one from the OS)."""
    new = random.Random.__new__(random.Random)
    new.setstate(rng.getstate())
    return new


def rng_to_json(rng: random.Random) -> list[Any]:
    """The state of ``rng`` as JSON-able data (inverse: :func:`rng_from_json`)."""
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def rng_from_json(data: Sequence[Any]) -> random.Random:
    """A generator in the state :func:`rng_to_json` wrote.

    Raises:
        ValueError, TypeError: for data that is not such a state.
    """
    version, internal, gauss = data
    rng = random.Random.__new__(random.Random)
    rng.setstate((version, tuple(internal), gauss))
    return rng


def sorted_unique(values: Sequence[int]) -> list[int]:
    """Sorted list of the distinct values (helper for legal-action lists)."""
    return sorted(set(values))


def load_json_object(text: str, what: str) -> dict[str, Any]:
    """Parse ``text`` as a JSON object, within the limits of :func:`motley.core.jsonsafe.loads` (size, nesting
    depth, digits per number, finite numbers only).

    Raises:
        RecordError: naming ``what`` when it is not valid JSON, over a limit, or not an object.
    """
    try:
        data = jsonsafe.loads(text, what)
    except jsonsafe.JSONInputError as exc:
        raise RecordError(str(exc)) from None
    if not isinstance(data, dict):
        raise RecordError(f"{what} must be a JSON object")
    return data
