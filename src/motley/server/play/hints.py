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
    """The hints of one table, kept on its seats (``Seat.hints``: how many each seat had; ``Seat.hinted_at``: the
    version it last had one at), so their stored form carries them; a table stored before seats kept them takes the
    counts of its result (``used``)."""

    def __init__(self, seats: Sequence[Seat], used: list[int] | None = None) -> None:
        self.seats = seats
        if not any(seat.hints for seat in seats) and used is not None and len(used) == len(seats):
            for seat, count in zip(seats, used, strict=True):
                seat.hints = count

    @property
    def used(self) -> list[int]:
        """How many hints each seat had."""
        return [seat.hints for seat in self.seats]

    def take(self, on: bool, state: State, version: int, seat: int | None) -> int | None:
        """Count a hint for ``seat`` at ``version`` if it may have one now; returns the version of the seat's hint
        before (None: none), for :meth:`undo`.

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
        counted = self.seats[seat]
        if counted.hinted_at == version:
            raise protocol.ProtocolError("hint_used", "You have had the hint for this decision already.")
        before, counted.hinted_at = counted.hinted_at, version
        counted.hints += 1
        return before

    def undo(self, seat: int, before: int | None) -> None:
        """Take back the hint just counted for ``seat`` (its count could not be stored); ``before``: what
        :meth:`take` returned."""
        counted = self.seats[seat]
        counted.hints -= 1
        counted.hinted_at = before


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
