"""Errors raised by the engine.

Every error a user can cause is a subclass of :class:`MotleyError` (itself a ``ValueError``), and its
message names the problem. Raising one never changes a state (docs/design.md, Principles 6).
"""

from __future__ import annotations


class MotleyError(ValueError):
    """Base class of every user-facing motley error."""


class IllegalMoveError(MotleyError):
    """A move that is unknown, malformed, or not legal in the current state.

    Attributes:
        move: the move as given (an action id or a move string).
        reason: why it is refused, in plain words.
    """

    def __init__(self, move: object, reason: str) -> None:
        self.move = move
        self.reason = reason
        super().__init__(f"illegal move {move!r}: {reason}")


class OptionError(MotleyError):
    """An unknown game, an unknown option name, or an option value out of range."""


class DealError(MotleyError):
    """A malformed explicit deal: wrong card count, unknown code, duplicate card, wrong shape."""


class RecordError(MotleyError):
    """A game record or serialized state that is malformed or does not replay."""
