"""Hints at friendly tables: the strongest bot's choice for a person's current decision, once per decision.

A table made with ``Settings.hints`` gives each person a "Hint": a ``{"type": "hint"}`` message on their turn is
answered, to that connection only, with ``{"type": "hint", "version", "seat", "action", "move", "cards", "words",
"why"}``: the move the analysis's searcher (:func:`motley.bots.analysis.hint`: the search ``best`` plays,
learning how heuristic the table's plays are where it infers hidden cards, at :data:`HINT_SIMULATIONS`
iterations) chooses from the seat's information state only (its observation, its legal moves and the public
scores), searched in a worker process of the server's
:class:`~motley.server.play.thinking.Thinkers` (never on the event loop), with one sentence of why. A hint whose
answer comes after the turn has passed is dropped: it never arrives when it is not the person's turn.

Refusals (``error`` messages, nothing changes): ``hints_off`` (a table made without hints), ``spectator``,
``over``, ``not_your_turn`` and ``hint_used`` (one hint per decision: asked again at the same version), and
``not_stored`` (the count could not be stored: nothing is counted, no hint is given). Each seat's hints and the
version of its last one are stored with the seat (``Seat.hints``, ``Seat.hinted_at``) before the hint is searched,
so a restart, a takeover by another process or a drain forgets neither; the counts are shown to everyone in the
``state`` messages (``hints``) and stored with the result of the match too (``result["hints"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from motley.bots.analysis import DEFAULT_SIMULATIONS, decision_at, hint
from motley.core import State
from motley.server.play import protocol
from motley.server.play.messages import HintAnswer
from motley.server.store.records import Seat

#: Search iterations of a hint: the analysis's budget, so a hint is the move the analysis would choose. Measured
#: (benchmarks/hint_latency.py, one core of a busy 2-core machine): Fool! at 5 players 0.09 s median, 0.20 s at
#: most; Foolery at 5 players 0.30 s median, 0.48 s at most; well within the 2 s a person waits.
HINT_SIMULATIONS = DEFAULT_SIMULATIONS


class HintDesk:
    """The hints of one table: how many each seat used (:attr:`used`) and the version each seat last asked at
    (:attr:`asked`), from the stored seats (``Seat.hints``, ``Seat.hinted_at``); a table stored before seats kept
    them takes the counts of its result (``used``)."""

    def __init__(self, seats: Sequence[Seat], used: list[int] | None = None) -> None:
        self.used = [seat.hints for seat in seats]
        if not any(self.used) and used is not None and len(used) == len(seats):
            self.used = list(used)
        self.asked: dict[int, int] = {i: seat.hinted_at for i, seat in enumerate(seats) if seat.hinted_at is not None}

    def undo(self, seat: int, asked: int | None) -> None:
        """Take back the hint just counted for ``seat`` (its count could not be stored); ``asked``: the version
        it had last asked at before."""
        self.used[seat] -= 1
        if asked is None:
            self.asked.pop(seat, None)
        else:
            self.asked[seat] = asked

    def write(self, seats: Sequence[Seat]) -> None:
        """Copy the counts and the versions asked at into ``seats`` (their stored form carries them)."""
        for i, seat in enumerate(seats):
            seat.hints, seat.hinted_at = self.used[i], self.asked.get(i)

    def take(self, on: bool, state: State, version: int, seat: int | None) -> None:
        """Count a hint for ``seat`` at ``version`` if it may have one now.

        Raises:
            protocol.ProtocolError: ``hints_off`` (``on`` False: the table was made without hints), ``spectator``,
                ``over``, ``not_your_turn`` or ``hint_used`` (a hint of this decision was given already); nothing
                is counted then.
        """
        if not on:
            raise protocol.ProtocolError("hints_off", "This table was made without hints.")
        if seat is None:
            raise protocol.ProtocolError("spectator", "spectators have no decisions to hint at")
        if state.is_terminal():
            raise protocol.ProtocolError("over", "the game is over")
        if state.current_player() != seat:
            raise protocol.ProtocolError("not_your_turn", "A hint is for your own turn; it is not yours now.")
        if self.asked.get(seat) == version:
            raise protocol.ProtocolError("hint_used", "You have had the hint for this decision already.")
        self.asked[seat] = version
        self.used[seat] += 1


def hint_args(state: State, seat: int, seed: str) -> tuple[Any, ...]:
    """The picklable arguments of :func:`motley.bots.analysis.hint` for ``seat``, to move in ``state``: the game,
    the seat's decision (its observation, legal moves and public scores only), :data:`HINT_SIMULATIONS` and
    ``seed``."""
    legal = state.legal_actions()
    return state.game, decision_at(state, seat, legal[0]), HINT_SIMULATIONS, seed


def forced_hint(state: State, seat: int) -> HintAnswer:
    """The hint of a decision with one legal move: that move, without a search."""
    action = state.legal_actions()[0]
    move = state.action_to_string(action)
    return {"action": action, "move": move, "words": move, "why": "It is your only legal move."}


__all__ = ["HINT_SIMULATIONS", "HintDesk", "forced_hint", "hint", "hint_args"]
