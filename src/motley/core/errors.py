"""Errors raised by the engine.

Every error a user can cause is a subclass of :class:`MotleyError` (itself a ``ValueError``), and its
message names the problem. Raising one never changes a state (docs/design.md, Principles 6).
"""

from __future__ import annotations


class MotleyError(ValueError):
    """Base class of every user-facing motley error."""


class MoveError(MotleyError):
    """A move refused: one that cannot be read (:class:`InvalidMoveError`) or one the rules forbid now
    (:class:`IllegalMoveError`). Catch this where a move could be either (a person's typing, a bot's answer).

    Attributes:
        move: the move as given (an action id or a move string).
        reason: why it is refused, in plain words (with the rule id where a rule forbids it).
    """

    #: The first words of the message, naming the kind of refusal.
    refusal = "bad move"

    def __init__(self, move: object, reason: str) -> None:
        self.move = move
        self.reason = reason
        super().__init__(f"{self.refusal} {move!r}: {reason}")


class InvalidMoveError(MoveError):
    """A move that cannot be read: an unknown card code or word, malformed text, a value that is not a move
    string or a whole number, an action id outside the game's action space. It names no move of the game,
    in any state (as python-chess's ``InvalidMoveError`` for text that does not parse)."""

    refusal = "invalid move"


class IllegalMoveError(MoveError):
    """A well-formed move that the rules forbid in the current state (not this seat's turn, the game over, a
    card that does not follow, a play that does not beat the table), with the rule's id in the reason."""

    refusal = "illegal move"


class GameOverError(IllegalMoveError):
    """A move made once the match is over (reason: ``"the game is over"``)."""


class NotYourTurnError(IllegalMoveError):
    """A move made by a seat that is not to move now (reason: :meth:`motley.core.State.why_not_turn`, the game's
    words, with its rule id where a rule keeps the seat out, such as FL-R10)."""


class OptionError(MotleyError):
    """An unknown game, an unknown option name, or an option value out of range."""


class DealError(MotleyError):
    """A malformed explicit deal: wrong card count, unknown code, duplicate card, wrong shape."""


class RecordError(MotleyError):
    """A game record or serialized state that is malformed or does not replay."""
