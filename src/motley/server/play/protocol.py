"""The WebSocket protocol: what a client may send, checked before anything touches a table.

Client -> server (one JSON object per text message, at most :data:`MAX_MESSAGE` characters)::

    {"type": "move", "version": 12, "action": 1}        # an action id from the "legal" list
    {"type": "move", "version": 12, "move": "play joker"}   # or the move string
    {"type": "ping"}                                    # answered by {"type": "pong", ...}
    {"type": "start"}                                   # a seat starts the match: bots stop waiting for people
    {"type": "why", "move": "AH 4C"}                    # is this move legal now, and if not why? (nothing moves)
    {"type": "continue"}                                # a seat has read the summary of the deal that ended
    {"type": "claim"}                                   # play the seat from this connection (tab) from now on
    {"type": "hint"}                                    # the strongest bot's choice for my decision (a table
                                                        # with hints; see motley.server.play.hints)
    {"type": "chat", "text": "well played"}             # say something at the table (motley.server.play.chat)
    {"type": "back"}                                    # I am back: my stand-in stops playing for me (after my
                                                        # move timer ran out, SeatInfo.idle)

``version`` is the table's state version (moves applied) the move was made at; a move made at an older
version is stale and refused. An optional ``"seat"`` must be the connection's own seat.

The messages both ways are typed in :mod:`.messages`.

Server -> client: ``{"type": "state", "version", ...}`` after every change (see ``table.Table.message``),
``{"type": "why", "version", "move", "reason", "words", "rules"}`` answering a ``why`` (``reason`` None: the move
is legal now; else ``words``: the reason in words, without rule ids, and ``rules``: the rule ids it named, see
:func:`reason_words`), ``{"type": "error", "version", "code", "message"}`` for a refused message (nothing
changes; an ``illegal`` one has ``words`` and ``rules`` too), ``{"type": "pong", "version"}``, ``{"type": "hint",
"version", "seat", "action", "move", "cards", "words", "why"}`` answering a ``hint`` (:mod:`.hints`), and
the table's
own news: ``seats``, ``rematch`` and ``rematch_declined`` (see :mod:`motley.server.play.live`), and its chat:
``{"type": "chat", "number", "seat", "name", "text", "at"}`` to every viewer when someone says something, and
``{"type": "chat_log", "lines"}`` once on connecting where the chat has lines (:mod:`motley.server.play.chat`).
Error codes:
``too_large``, ``malformed``, ``spectator``, ``wrong_seat``, ``closed`` (the table was cancelled before its
end, the message says why), ``elsewhere`` (the seat is played from another
connection: a ``claim`` makes this one its live page), ``over``, ``not_your_turn``, ``stale``, ``illegal``,
``hints_off`` and ``hint_used`` (a ``hint`` at a table without hints, or a second one for the same decision),
``chat_off`` (a spectator's ``chat`` at a table that lets only its seats write), ``chat_limited`` (more chat than
:data:`motley.server.play.chat.CHAT_RATE` allows: wait),
``not_stored`` (the store refused the move, so it
was not played; sending it again may work) and ``rate_limited`` (the socket sent more messages than its
rate, ``Limits.messages_per_second`` with bursts of ``Limits.message_burst``: the message was not handled;
wait and send it again; a client that keeps on is closed with code 1008). On connecting, ``no_table``,
``bad_token``, ``unavailable`` (the store does not answer), ``table_full`` (the table has
``Limits.sockets_per_table`` sockets; close code 1013, try again later) or ``not_stored`` (a person's first
connection to their seat could not be stored, so the seat is not shown; close code 1013, try again) come before
the server closes the socket. A client that does not read its messages is closed with code 1008 once
``Limits.queue_messages`` wait for it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import orjson

from motley.core import jsonsafe
from motley.server.play.messages import ErrorMessage

MAX_MESSAGE = 4096
MAX_MOVE_TEXT = 200
#: The longest chat message, in characters.
MAX_CHAT = 200
#: The Unicode categories a chat message may not hold (control, format, surrogate, private use, unassigned, line
#: and paragraph separators); the zero-width joiner that composes emoji (:data:`ZWJ`) stays.
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
ZWJ = "\u200d"
#: A rule id as the rules files write them: ``FY-R3``, ``FL-D12``, ``FE-T10``.
RULE_ID = re.compile(r"\b[A-Z]{2}-[A-Z]\d+\b")
#: The messages without fields but their type.
BARE = ("ping", "start", "continue", "claim", "hint", "back")
#: Deepest nesting and longest number (in digits) a client message may hold.
MAX_DEPTH = 8
MAX_DIGITS = 30


class ProtocolError(Exception):
    """A refused client message: ``code`` (see the module docstring) and a plain-words ``message``; ``reason``:
    for an ``illegal`` move, the engine's reason alone (read out by :func:`reason_words`)."""

    def __init__(self, code: str, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


def encode(message: Any) -> str:
    """``message`` (a server message: dicts, lists, strings, numbers, None) as the compact JSON text sent on a
    socket. orjson writes it (a state message of four seats: about 6 µs, against 70 µs for :func:`json.dumps`,
    which was a third of a saturated server's CPU; ``benchmarks/server_load.py``); a value orjson does not take
    (an integer past 64 bits) goes through :func:`json.dumps`, so what is sent never depends on the encoder.
    Non-ASCII characters are UTF-8, not ``\\u`` escapes: the same JSON value."""
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def reason_words(reason: str | None) -> tuple[str | None, list[str]]:
    """A refusal's reason as a player reads it, and the rule ids it names: ``"the Fool cannot be led (FY-R9)"``
    -> ``("The Fool cannot be led.", ["FY-R9"])``; ``(None, [])`` for no reason."""
    if reason is None:
        return None, []
    rules = list(dict.fromkeys(RULE_ID.findall(reason)))
    text = re.sub(r"\s*\([^()]*" + RULE_ID.pattern + r"[^()]*\)", "", reason)  # "(FY-R3)", "(see FL-R6, FL-R7)"
    text = RULE_ID.sub("", text)
    text = re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip().rstrip(".;:, ")
    if not text:
        return None, rules
    return text[0].upper() + text[1:] + ".", rules


@dataclass(frozen=True)
class ClientMessage:
    """A checked client message: ``kind`` is ``"move"``, ``"why"`` (with ``move``), ``"chat"`` (with ``text``,
    cleaned: :func:`chat_text`), or one of :data:`BARE`."""

    kind: str
    version: int | None = None
    action: int | None = None
    move: str | None = None
    seat: int | None = None
    text: str | None = None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse(text: Any) -> ClientMessage:
    """Check a raw client message.

    Raises:
        ProtocolError: ``too_large`` over :data:`MAX_MESSAGE` characters, ``malformed`` for anything that is
            not one of the message shapes above (including JSON nested deeper than :data:`MAX_DEPTH`, a number
            of more than :data:`MAX_DIGITS` digits, or a non-finite one); never anything else, for any input.
    """
    if not isinstance(text, str):
        raise ProtocolError("malformed", "messages must be JSON text")
    if len(text) > MAX_MESSAGE:
        raise ProtocolError("too_large", f"message of {len(text)} characters; the limit is {MAX_MESSAGE}")
    try:
        data = jsonsafe.loads(text, "message", max_bytes=MAX_MESSAGE, max_depth=MAX_DEPTH, max_digits=MAX_DIGITS)
    except jsonsafe.JSONInputError as exc:
        raise ProtocolError("malformed", str(exc)) from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "message must be a JSON object")
    kind = data.get("type")
    if kind in BARE:
        return ClientMessage(kind)
    if kind == "why":
        text = data.get("move")
        if not isinstance(text, str) or len(text) > MAX_MOVE_TEXT:
            raise ProtocolError("malformed", f"'move' must be a string of at most {MAX_MOVE_TEXT} characters")
        return ClientMessage("why", move=text)
    if kind == "chat":
        return ClientMessage("chat", text=chat_text(data.get("text")))
    if kind != "move":
        raise ProtocolError("malformed", f"unknown message type {kind!r}; the types are 'move', 'why', 'chat', "
                                         + ", ".join(f"'{b}'" for b in BARE[:-1]) + f" and '{BARE[-1]}'")
    version = data.get("version")
    if not _whole(version):
        raise ProtocolError("malformed", "a move needs 'version': the state version it was made at (a whole number)")
    seat = data.get("seat")
    if seat is not None and not _whole(seat):
        raise ProtocolError("malformed", "'seat' must be a whole number")
    action, move = data.get("action"), data.get("move")
    if (action is None) == (move is None):
        raise ProtocolError("malformed", "a move needs exactly one of 'action' (an id) or 'move' (a move string)")
    if action is not None and not _whole(action):
        raise ProtocolError("malformed", "'action' must be a whole number")
    if move is not None and (not isinstance(move, str) or len(move) > MAX_MOVE_TEXT):
        raise ProtocolError("malformed", f"'move' must be a string of at most {MAX_MOVE_TEXT} characters")
    return ClientMessage("move", version=version, action=action, move=move, seat=seat)


def chat_text(text: Any) -> str:
    """A chat message's text as it is kept and shown: control and format characters (line breaks, bidirectional
    overrides, zero-width joiners) become spaces, runs of spaces one, and the ends are trimmed.

    Raises:
        ProtocolError: ``malformed`` for a ``text`` that is not a string or is empty once cleaned; ``too_large``
            for one longer than :data:`MAX_CHAT` characters once cleaned.
    """
    if not isinstance(text, str):
        raise ProtocolError("malformed", "a chat message needs 'text': a string")
    cleaned = " ".join("".join(" " if c != ZWJ and unicodedata.category(c) in HIDDEN else c for c in text).split())
    if not cleaned:
        raise ProtocolError("malformed", "a chat message needs some text")
    if len(cleaned) > MAX_CHAT:
        raise ProtocolError("too_large", f"a chat message of {len(cleaned)} characters; the limit is {MAX_CHAT}")
    return cleaned


def error(version: int, code: str, message: str, reason: str | None = None) -> ErrorMessage:
    """The error message sent back for a refused client message; an ``illegal`` one also has the reason in
    words and its rule ids (``words``, ``rules``: :func:`reason_words` of ``reason``, the engine's reason)."""
    sent: ErrorMessage = {"type": "error", "version": version, "code": code, "message": message}
    if code == "illegal":
        sent["words"], sent["rules"] = reason_words(reason if reason is not None else message)
    return sent
