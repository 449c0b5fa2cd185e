"""A table as data and rules only: the match, its seats, its move log, and what each viewer may see.

A :class:`Table` holds the one :class:`motley.State` of a match, its game and the game's spec (looked up once), its
seats (data only), the move log with each entry's visibility per viewer, and the version counter (moves applied). It
checks a seat's move (:meth:`Table.check`, :meth:`Table.prepare`: the table's version, then the state's one check,
:meth:`motley.State.read_move`, which also turns a move string into its action once), applies it (:meth:`Table.apply`,
which returns the events that happened) and builds each viewer's ``state`` message from that viewer's observation
only (:meth:`Table.message`). It does no I/O: no storage, no clock, no sockets, no drawing, no asyncio; the live
table (:mod:`motley.server.play.live`) stores a move before it asks the table to apply it, and the socket
(:mod:`motley.server.web.drawings`) adds the SVG drawings.

A table is rebuilt from its stored :class:`TableRecord` by :func:`motley.core.play.replay`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from motley.core import GameOverError, GameSpec, MotleyError, MoveError, NotYourTurnError, Observation, State
from motley.core.play import replay
from motley.core.registry import game_spec, load_recorded_game
from motley.server.play import privacy, protocol
from motley.server.play.messages import (
    LegalMove,
    LogLine,
    SeatInfo,
    SharedState,
    StateMessage,
    WhyMessage,
)
from motley.server.play.web_bots import kind_of
from motley.server.store.records import STORED_BEFORE, Seat, SeatRefused, Settings, TableRecord, new_token

#: Log entries sent in a ``state`` message (the newest).
LOG_SHOWN = 25


def commitment(table_id: str, seed: int) -> str:
    """The commitment to a table's seed published when the match starts: the SHA-256 (hex) of
    ``"{table_id}:{seed}"``. The seed itself is revealed only in the record of the finished table."""
    return hashlib.sha256(f"{table_id}:{seed}".encode()).hexdigest()


def refusal(refused: MoveError) -> protocol.ProtocolError:
    """The ``error`` a refused move is answered with: ``over`` (GameOverError) and ``not_your_turn``
    (NotYourTurnError) with the state's reason as the message, ``illegal`` for any other (the whole refusal as the
    message, its reason for ``words`` and ``rules``)."""
    if isinstance(refused, GameOverError):
        return protocol.ProtocolError("over", refused.reason)
    if isinstance(refused, NotYourTurnError):
        return protocol.ProtocolError("not_your_turn", refused.reason)
    return protocol.ProtocolError("illegal", str(refused), refused.reason)


def said(refused: MoveError) -> str:
    """A refusal as a ``why`` answer says it: the reason alone for a finished match or another seat's turn, the
    whole refusal ("illegal move 'X': ...") for the others."""
    return refused.reason if isinstance(refused, (GameOverError, NotYourTurnError)) else str(refused)


@dataclass
class LogEntry:
    """A move in the table log (``number`` from 1), and which viewers may read it: one flag per seat, then
    the spectators' flag; ``forced``: it was the only legal move of its seat then."""

    number: int
    seat: int
    move: str
    actor: str
    visible: list[bool]
    forced: bool = False


@dataclass(frozen=True)
class Move:
    """A checked move, not applied yet: ``seat`` plays ``action`` at table version ``version``; ``text``: its move
    string (what is stored and logged) and ``cards``: the card codes in it (``GameSpec.move_cards``), both derived
    once from the action; ``actor`` is ``"seat"`` (the person), ``"bot"``, ``"forced"``, or the person's stand-in:
    ``"timer"`` (their move timer ran out), ``"away"`` (disconnected past the grace time) or ``"idle"`` (after
    ``Settings.expiries_to_stand_in`` expiries in a row)."""

    version: int
    seat: int
    action: int
    text: str
    cards: tuple[str, ...]
    actor: str

    @property
    def number(self) -> int:
        """The move's number in the log (from 1): the version it makes."""
        return self.version + 1


@dataclass(frozen=True)
class Moved:
    """Event: a move was applied; the table is now at ``version``."""

    entry: LogEntry
    version: int


@dataclass(frozen=True)
class Finished:
    """Event: the match is over; ``result`` is ``{"scores": [int], "returns": [float]}``."""

    result: dict[str, Any]


Event = Moved | Finished


class Views:
    """The observations of one state of the game of ``spec``, each built at most once: seats by number, the
    spectator as ``None`` (made from seat 0's observation, so it costs no observation of its own)."""

    def __init__(self, state: State, spec: GameSpec) -> None:
        self.state = state
        self.spec = spec
        self._built: dict[int | None, Observation] = {}

    def __call__(self, viewer: int | None) -> Observation:
        """The observation of ``viewer`` (a seat, or ``None`` for the spectator view)."""
        if viewer not in self._built:
            if viewer is None:
                self._built[None] = privacy.public_view(self.spec, self(0))
            else:
                self._built[viewer] = self.state.observation(viewer)
        return self._built[viewer]


class Table:
    """A table rebuilt from its stored record. It holds its game (``game``) and the game's spec (``spec``), looked
    up once here: no move looks the game up by name.

    Raises (constructor):
        MotleyError: when the game or its options are unknown; RecordError (a MotleyError) naming the
            first stored move that does not replay.
    """

    def __init__(self, record: TableRecord) -> None:
        self.id = record.id
        self.record = record
        self.game = load_recorded_game(record.game, record.params)
        self.spec = game_spec(record.game)
        self.settings = Settings(**{**STORED_BEFORE, **record.settings})
        self.seats = [Seat.from_stored(s) for s in record.seats]
        self.log: list[LogEntry] = []
        #: Was the next stored move to replay the only legal one (:meth:`_replayed`)?
        self._forced_next = bool(record.moves) and len(
            self.game.new_initial_state(seed=record.seed).legal_actions()) == 1
        self.state: State = replay(self.game, record.seed, None, [(seat, move) for seat, move, _ in record.moves],
                                   on_move=self._replayed)
        self.version = len(record.moves)
        self._views = Views(self.state, self.spec)
        self.commitment = commitment(record.id, record.seed)
        self._end_reason: tuple[int, str | None] | None = None

    def _replayed(self, state: State, seat: int, _action: int) -> None:
        """Log the stored move just replayed (the next one of ``record.moves``), and note whether the one after
        it is forced."""
        _, move, actor = self.record.moves[len(self.log)]
        self._log_move(Views(state, self.spec), seat, move, tuple(self.spec.move_cards(move)), actor, self._forced_next)
        self._forced_next = not state.is_terminal() and len(state.legal_actions()) == 1

    # ---- seats ------------------------------------------------------------------------------
    def seat_of_token(self, token: str) -> int | None:
        """The seat a token belongs to (constant-time comparison of the UTF-8 bytes, so any text, non-ASCII
        included, is compared and a wrong one is simply no seat), or None."""
        given = token.encode("utf-8", "surrogatepass")
        for i, seat in enumerate(self.seats):
            if seat.token is not None and secrets.compare_digest(seat.token.encode("utf-8", "surrogatepass"), given):
                return i
        return None

    def open_seats(self) -> list[int]:
        """The seats the lobby may hand out now (open, unclaimed, never connected); none once the match is over."""
        if self.state.is_terminal():
            return []
        return [i for i, seat in enumerate(self.seats) if seat.refusal() is None]

    def claim(self, seat: int | None = None, name: str | None = None) -> int:
        """Claim ``seat`` (None: the first open seat) for whoever asked in the lobby: the seat gets a fresh token
        (the invite link's stops working) and is no longer open, and ``name`` (if not blank; at most 30
        characters, as a new table's seat) as its name; returns the seat. The caller stores the seats.

        Raises:
            SeatRefused: saying why (``"the match is over"``, the seat is by invitation, already claimed, a bot's,
                not a seat of the table; or no seat is open); nothing changes.
        """
        if self.state.is_terminal():
            raise SeatRefused("the match is over")
        if seat is None:
            free = self.open_seats()
            if not free:
                people = [s for s in self.seats if s.kind == "human"]
                raise SeatRefused("every open seat is already claimed" if any(s.open for s in people)
                                  else "every person seat is by invitation (only its invite link works)")
            seat = free[0]
        if not 0 <= seat < len(self.seats):
            raise SeatRefused(f"the table has seats 0..{len(self.seats) - 1}, not seat {seat}")
        reason = self.seats[seat].refusal()
        if reason is not None:
            raise SeatRefused(f"seat {seat}: {reason}")
        self.seats[seat].claimed = True
        self.seats[seat].token = new_token()
        if name is not None and name.strip():
            self.seats[seat].name = name.strip()[:30]
        return seat

    def seat_info(self, connected: Sequence[bool] | None = None, away: Sequence[bool] | None = None,
                  grace_left: Sequence[float | None] | None = None, idle: Sequence[bool] | None = None
                  ) -> list[SeatInfo]:
        """Public facts about every seat (never a token); per seat (default: no, None): ``connected``, ``away``,
        ``grace_left`` (seconds before a disconnected person's stand-in takes over) and ``idle`` (their stand-in
        plays after expiries in a row); ``stand_in``: the kind of a person seat's stand-in bot."""
        return [{"seat": i, "name": s.name, "kind": s.kind, "bot": s.bot if s.kind == "bot" else None,
                 "connected": bool(connected and connected[i]), "away": bool(away and away[i]),
                 "stand_in": kind_of(s.bot) if s.kind == "human" else None,
                 "grace_left": grace_left[i] if grace_left else None, "idle": bool(idle and idle[i])}
                for i, s in enumerate(self.seats)]

    # ---- messages ---------------------------------------------------------------------------
    def shared(self, seats: list[SeatInfo], deadline: float | None) -> SharedState:
        """The part of a ``state`` message that is the same for every viewer.

        ``seats``: :meth:`seat_info`; ``deadline``: seconds left to the seat to move, or None.
        """
        state = self.state
        terminal = state.is_terminal()
        return {"type": "state", "table": self.id, "version": self.version, "game": self.game.name,
                "title": self.game.title, "current_player": state.current_player(),
                "terminal": terminal, "scores": state.scores(), "returns": state.returns() if terminal else None,
                "seats": seats, "deadline": None if terminal else deadline, "end_reason": self.end_reason()}

    def end_reason(self) -> str | None:
        """Why the match ended, in words with seats as ``{seat N}`` (``GameSpec.end_reason``); None while it goes
        on or when the game gives no reason. Worked out once per version."""
        if self._end_reason is None or self._end_reason[0] != self.version:
            reason = self.spec.end_reason
            text = reason(self.state) if reason is not None and self.state.is_terminal() else None
            self._end_reason = (self.version, text)
        return self._end_reason[1]

    def message(self, viewer: int | None, shared: SharedState | None = None) -> StateMessage:
        """The ``state`` message for a seat (its observation and, on its turn, its legal moves) or a spectator
        (``viewer`` None: the public view).

        Nothing in it comes from outside the viewer's own observation (or the spectator view), the public
        seat facts, and log entries the viewer may read (``LogEntry.visible``). ``shared``: from
        :meth:`shared` (default: no seat connected, no deadline). Each legal move is
        ``{"action", "move", "cards", "svg": None}`` (``cards``: ``GameSpec.move_cards``); the socket
        (:mod:`motley.server.web.drawings`) fills in ``svg`` for viewers who draw.
        """
        base = shared if shared is not None else self.shared(self.seat_info(), None)
        legal: list[LegalMove] = []
        if viewer is not None and viewer == base["current_player"] and not base["terminal"]:
            state = self.state
            texts = [(a, state.action_to_string(a)) for a in state.legal_actions()]
            legal = [{"action": a, "move": text, "cards": self.spec.move_cards(text), "svg": None}
                     for a, text in texts]
        # a SharedState holds no "live" nor "svg" (mypy cannot know that no subtype of it does)
        return StateMessage(**base, seat=viewer, observation=self._views(viewer),  # type: ignore[typeddict-item]
                            legal=legal, log=self.visible_log(viewer))

    def visible_log(self, viewer: int | None, upto: int | None = None, last: int = LOG_SHOWN) -> list[LogLine]:
        """The newest ``last`` log entries among the first ``upto`` (default all), as ``viewer`` (a seat, or
        None for a spectator) reads them: ``{"n", "seat", "actor", "move", "forced"}``, ``move`` None when hidden,
        ``forced``: the move was the only legal one of its seat."""
        column = len(self.seats) if viewer is None else viewer
        entries = self.log if upto is None else self.log[:max(0, upto)]
        return [{"n": e.number, "seat": e.seat, "actor": e.actor, "move": e.move if e.visible[column] else None,
                 "forced": e.forced} for e in entries[-last:]]

    # ---- moves ------------------------------------------------------------------------------
    def check(self, seat: int, msg: protocol.ClientMessage, actor: str = "seat") -> Move:
        """A client's move for ``seat``, checked against the table as it is now: its version here, the rest by
        the state's one check (:meth:`prepare`).

        Raises:
            protocol.ProtocolError: ``stale`` (``msg.version`` is not the table's version), then ``over``,
                ``not_your_turn`` or ``illegal`` (:func:`refusal`); nothing changes.
        """
        if msg.version != self.version:
            raise protocol.ProtocolError("stale", f"move made at version {msg.version}; the table is at "
                                                  f"version {self.version}")
        try:
            return self.prepare(seat, msg.move if msg.move is not None else msg.action or 0, actor)
        except MoveError as exc:
            raise refusal(exc) from None

    def why(self, seat: int, text: str) -> str | None:
        """Why ``seat`` may not make the move ``text`` now, in the engine's words (:meth:`motley.State.check`:
        the reason alone for a finished match or another seat's turn, else the whole refusal), or None when it
        is legal; nothing changes."""
        refused = self.state.check(seat, text)
        return None if refused is None else said(refused)

    def why_answer(self, seat: int, text: str) -> WhyMessage:
        """The ``why`` message answering ``seat``'s question about the move ``text``: ``reason`` (:meth:`why`),
        and that reason in words and its rule ids (``words``, ``rules``: :func:`protocol.reason_words` of the
        refusal's reason, without the "invalid move 'X':" before it)."""
        refused = self.state.check(seat, text)
        words, rules = protocol.reason_words(None if refused is None else refused.reason)
        return {"type": "why", "version": self.version, "move": text,
                "reason": None if refused is None else said(refused), "words": words, "rules": rules}

    def prepare(self, seat: int, move: int | str, actor: str) -> Move:
        """``move`` (an action id, or a move string) for ``seat`` at the current version, checked by the state's
        one check and converted once (:meth:`motley.State.read_move`): its action, then its move string and card
        codes from that action. Not applied.

        Raises:
            MoveError: the state's refusal: GameOverError, NotYourTurnError, InvalidMoveError or
                IllegalMoveError (with the rule id); nothing changes.
        """
        action = self.state.read_move(seat, move)
        text = self.state.action_to_string(action)
        return Move(self.version, seat, action, text, tuple(self.spec.move_cards(text)), actor)

    def apply(self, move: Move) -> list[Event]:
        """Apply a move from :meth:`prepare` / :meth:`check`; returns ``[Moved]``, plus ``Finished`` when it
        ends the match.

        Raises:
            MotleyError: if the table moved on since the move was checked (``move.version`` is old); nothing
                changes.
        """
        if move.version != self.version:
            raise MotleyError(f"move {move.text!r} was checked at version {move.version}; the table is at "
                              f"version {self.version}")
        forced = len(self.state.legal_actions()) == 1  # the list :meth:`prepare` built, cached by the state
        self.state.apply_action(move.action)
        self.version += 1
        self.record.moves.append((move.seat, move.text, move.actor))
        self._views = Views(self.state, self.spec)
        entry = self._log_move(self._views, move.seat, move.text, move.cards, move.actor, forced)
        events: list[Event] = [Moved(entry, self.version)]
        if self.state.is_terminal():
            self.record.finished = True
            events.append(Finished({"scores": self.state.scores(), "returns": self.state.returns()}))
        return events

    def _log_move(self, views: Views, seat: int, move: str, cards: tuple[str, ...], actor: str,
                  forced: bool) -> LogEntry:
        """Add the log entry of a move just applied (``views``: of the state after it; ``cards``: the card codes in
        ``move``; ``forced``: it was the only legal move)."""
        entry = LogEntry(len(self.log) + 1, seat, move, actor, self._visibility(views, seat, move, cards), forced)
        self.log.append(entry)
        return entry

    def _visibility(self, views: Views, seat: int, move: str, cards: tuple[str, ...]) -> list[bool]:
        """Who may read ``move`` (just made by ``seat``) in the log: a flag per seat, then the spectators'.

        A public move (``GameSpec.public_move``) or one naming no card is read by everyone, with no
        observation built. Any other move is read by its mover, and by a viewer whose observation after the
        move shows every card in it (:func:`privacy.move_is_visible`): the mover's observation is never
        built, the spectator view is made from seat 0's, and ``views`` keeps each one for the messages
        that follow the move, so at most one observation per seat is built, never ``seats + 1``.
        """
        n, spec = len(self.seats), self.spec
        if not cards or spec.public_move(move):
            return [True] * (n + 1)
        return [q == seat or privacy.move_is_visible(spec, move, cards, privacy.visible_tokens(views(q)))
                for q in range(n)] + [privacy.move_is_visible(spec, move, cards, privacy.visible_tokens(views(None)))]

    # ---- replays ----------------------------------------------------------------------------
    def state_at(self, step: int) -> State:
        """The state after the first ``step`` moves of the log (clamped to 0..moves), by
        :func:`motley.core.play.replay`.

        Raises:
            RecordError: if the stored moves no longer replay.
        """
        step = max(0, min(step, len(self.record.moves)))
        return replay(self.game, self.record.seed, None, [(s, m) for s, m, _ in self.record.moves[:step]])
