"""The one play loop and the one replay: every surface (simulator, command line, RL environments, server)
plays and replays matches through these functions.

A *player* is anything with ``act(observation, legal_actions, rng) -> action`` (every :class:`motley.bots.Bot`).
:func:`choose` asks a player for the move of the seat to move, :func:`play` plays a match on with a player
per seat, and :func:`replay` rebuilds a match from its seed (or deal) and its move strings, naming the move
that does not replay.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from motley.core.errors import MotleyError, RecordError
from motley.core.game import Game, Observation, State


class Player(Protocol):
    """A player program: it sees the seat's observation and the legal actions, never the state."""

    name: str

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int: ...


#: ``on_move(state, seat, action)`` is called after each move :func:`play` makes.
MoveHook = Callable[[State, int, int], None]


def choose(state: State, player: Player, rng: random.Random, skip_forced: bool = True) -> int:
    """The action ``player`` picks for the seat to move of ``state`` (not applied).

    A forced move (one legal action) is returned without asking when ``skip_forced``; a player whose class
    says ``reads_observation = False`` (uniformly random play) gets an empty observation, which saves
    building one.

    Raises:
        MotleyError: if the match is over, or the player returns an action that is not legal.
    """
    if state.is_terminal():
        raise MotleyError("the game is over: no seat is to move")
    seat = state.current_player()
    legal = state.legal_actions()
    if skip_forced and len(legal) == 1:
        return legal[0]
    observation = state.observation(seat) if getattr(player, "reads_observation", True) else {}
    action = player.act(observation, legal, rng)
    if action not in legal:
        raise MotleyError(f"bot {getattr(player, 'name', player)!r} chose action {action!r}, not legal: {legal}")
    return int(action)


def play(state: State, players: Sequence[Player] | Mapping[int, Player], rng: random.Random,
         skip_forced: bool = True, on_move: MoveHook | None = None) -> State:
    """Play ``state`` on in place, ``players[seat]`` choosing for each seat, until the match ends or a seat
    without a player (a person, in a mapping) is to move. Returns ``state``.

    ``rng`` is the players' only source of randomness (one generator for the whole match), so a seed fixes
    every choice. ``on_move(state, seat, action)`` runs after each move.

    Raises:
        MotleyError: if a player returns an action that is not legal (the state stays at that move).
    """
    seats = players if isinstance(players, Mapping) else dict(enumerate(players))
    while not state.is_terminal():
        seat = state.current_player()
        player = seats.get(seat)
        if player is None:
            break
        action = choose(state, player, rng, skip_forced)
        state.apply_action(action)
        if on_move is not None:
            on_move(state, seat, action)
    return state


def play_match(game: Game, players: Sequence[Player], seed: int, rng: random.Random | None = None) -> State:
    """Play a whole match from ``game.new_initial_state(seed=seed)``, ``players[seat]`` for each seat.

    The players draw from ``rng`` (default ``random.Random(seed ^ 0x5EED)``), so the seed fixes the deals and
    every choice.

    Raises:
        MotleyError: if a player returns an action that is not legal.
    """
    state = game.new_initial_state(seed=seed)
    return play(state, players, random.Random(seed ^ 0x5EED) if rng is None else rng)


def replay(game: Game, seed: int, deal: Mapping[str, Any] | None, moves: Iterable[tuple[int | None, str]],
           on_move: MoveHook | None = None) -> State:
    """The state after ``moves`` from ``game.new_initial_state(seed=seed, deal=deal)``.

    ``moves`` are ``(seat, move string)`` pairs in order; a ``seat`` of ``None`` is not checked.
    ``on_move(state, seat, action)`` runs after each move.

    Raises:
        RecordError: if the match cannot start (a seed that is not a whole number >= 0, a bad deal), or a
            move does not replay: naming its number (from 1), the move, and the reason (a seat that is not to
            move, an illegal or unknown move).
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise RecordError(f"a replay needs the seed of the match, a non-negative whole number; got {seed!r}")
    try:
        state = game.new_initial_state(seed=seed, deal=deal)
    except MotleyError as exc:
        raise RecordError(f"record does not start a game: {exc}") from None
    for number, (seat, move) in enumerate(moves, start=1):
        if not isinstance(move, str):
            raise RecordError(f"move {number} must be a move string; got {move!r}")
        mover = state.current_player()
        if seat is not None and seat != mover:
            raise RecordError(f"move {number} ({move!r}) is recorded for seat {seat}, but seat {mover} is to move")
        try:
            action = state.string_to_action(move)
        except MotleyError as exc:
            raise RecordError(f"move {number} ({move!r}) does not replay: {exc}") from None
        state.apply_action(action)
        if on_move is not None:
            on_move(state, mover, action)
    return state
