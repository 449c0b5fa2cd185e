"""The SVG drawings of a table's ``state`` messages, for the viewers that asked for them (``svg=1``): the table as
the viewer sees it and a small drawing per legal move. Each seat's are made once per version and shared by all of
that seat's connections (:class:`Drawings`); :func:`with_drawing` draws one message alone."""

from __future__ import annotations

from typing import Any

from motley.drawing import move_svg, render
from motley.server.play.messages import ServerMessage, StateMessage

#: A seat's drawings of one version: the observation they were made of, the table's SVG, each legal move's.
Drawn = tuple[Any, str, list[str | None]]


def drawn(message: StateMessage) -> Drawn:
    """The drawings of a ``state`` message: ``(its observation, the table's SVG, each legal move's SVG or None)``."""
    game = str(message["game"])
    observation = message["observation"]
    return observation, render(observation), [move_svg(game, move["move"]) for move in message["legal"]]


def dressed(message: StateMessage, drawings: Drawn) -> StateMessage:
    """``message`` (a ``state`` message) with its ``drawings``: ``svg`` and each legal move's ``svg``; a copy."""
    _, svg, moves = drawings
    out = message.copy()
    out["svg"] = svg
    out["legal"] = [{**move, "svg": small} for move, small in zip(message["legal"], moves, strict=True)]
    return out


def with_drawing(message: ServerMessage) -> ServerMessage:
    """``message`` with its SVG drawings, for a viewer that asked for them: a ``state`` message gets ``svg``
    (the drawing of its observation) and each legal move its ``svg`` (small cards, or None); other messages
    are returned as they are. ``message`` itself is never changed (it may be shared by several viewers)."""
    if message["type"] != "state":
        return message
    return dressed(message, drawn(message))


class Drawings:
    """The drawings of one table's ``state`` messages, made once per seat (the spectators: seat None) and version
    and shared by every connection of that seat that asked for them.

    A message's drawings are those kept for its seat when they were made of the same observation: the table builds
    each seat's observation once per version (:class:`~motley.server.play.table.Views`), and the drawings are a
    function of the observation and the legal moves, fixed with it. Another observation (a new version) is drawn,
    and replaces the seat's. So a table keeps one set per seat; :attr:`made` counts the sets drawn.
    """

    def __init__(self) -> None:
        self.kept: dict[int | None, Drawn] = {}
        self.made = 0

    def __call__(self, message: ServerMessage) -> ServerMessage:
        """``message`` with its drawings (as :func:`with_drawing`), made once per seat and observation."""
        if message["type"] != "state":
            return message
        seat = message.get("seat")
        kept = self.kept.get(seat)
        if kept is None or kept[0] is not message["observation"] or len(kept[2]) != len(message["legal"]):
            kept = self.kept[seat] = drawn(message)
            self.made += 1
        return dressed(message, kept)
