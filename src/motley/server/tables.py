"""Tables at run time: the state, the seats, the connections, the bots and the timers.

The server is the only authority. A :class:`Table` holds the one :class:`motley.State` of a match; every
change goes through :meth:`Table.apply`, which checks the move, writes it to the event log (storage),
bumps the state version and sends each connected viewer its own message (built from that viewer's
observation only). A driver task per table (:meth:`Table.run`) plays the bot seats, and plays for a human
seat whose move timer ran out or who has been disconnected longer than the grace time; the person takes
over again simply by moving (or reconnecting).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from motley.bots import Bot, make_bot
from motley.core import IllegalMoveError, MotleyError, State, load_game
from motley.core.registry import game_class, game_spec
from motley.drawing import move_svg, render
from motley.server import privacy, protocol
from motley.server.storage import Storage, TableRecord

log = logging.getLogger("motley.server")

#: Bot kinds fast enough to run in the event loop; any other kind runs in a worker thread.
FAST_BOTS = ("random", "heuristic")
LOG_SHOWN = 25


class Connection(Protocol):
    """A viewer of a table: a seat (``seat`` 0..N-1) or a spectator (``seat`` None)."""

    seat: int | None
    svg: bool

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message`` (a JSON-able dict) for the viewer; never blocks."""


@dataclass
class Settings:
    """Per-table settings. Times in seconds; ``move_time`` None = no move timer."""

    move_time: float | None = None
    grace: float = 30.0
    bot_delay: float = 0.6

    def as_dict(self) -> dict[str, Any]:
        """JSON form, as stored."""
        return {"move_time": self.move_time, "grace": self.grace, "bot_delay": self.bot_delay}


@dataclass
class Seat:
    """One seat: ``kind`` ``"human"`` or ``"bot"``, the bot spec (for a human seat: the stand-in bot)."""

    kind: str
    bot: str
    name: str
    token: str | None = None
    claimed: bool = False
    connections: list[Connection] = field(default_factory=list)
    ever_connected: bool = False
    away_since: float | None = None

    def stored(self) -> dict[str, Any]:
        """JSON form, as stored (the token included: storage is the server's own)."""
        return {"kind": self.kind, "bot": self.bot, "name": self.name, "token": self.token, "claimed": self.claimed}


@dataclass
class LogEntry:
    """A move in the table log, and which viewers may read it (one flag per seat, then the spectators)."""

    number: int
    seat: int
    move: str
    actor: str
    visible: list[bool]


class Table:
    """A running (or finished) table, rebuilt from its event log.

    Raises (constructor):
        MotleyError: when the stored log does not replay.
    """

    def __init__(self, record: TableRecord, storage: Storage | None, clock: Callable[[], float] = time.monotonic):
        self.id = record.id
        self.record = record
        self.storage = storage
        self.clock = clock
        self.game = load_game(record.game, **record.params)
        self.settings = Settings(**record.settings)
        self.seats = [Seat(kind=s["kind"], bot=s["bot"], name=s["name"], token=s.get("token"),
                           claimed=bool(s.get("claimed"))) for s in record.seats]
        self.state: State = self.game.new_initial_state(seed=record.seed)
        self.log: list[LogEntry] = []
        self.spectators: list[Connection] = []
        self.bots: dict[int, Bot] = {}
        self.rng = random.Random(record.seed)
        self._pending: tuple[int, str, str] = (0, "", "")
        for seat, move, actor in record.moves:
            if seat != self.state.current_player():
                raise MotleyError(f"table {self.id}: stored move {move!r} is for seat {seat}, not the seat to move")
            action = self.state.string_to_action(move)
            self._record_log(seat, action, actor)
            self.state.apply_action(action)
            self._finish_log_entry()
        self.version = len(record.moves)
        self.turn_started = clock()
        self.changed = asyncio.Event()
        self.closed = False

    # ---- viewers ----------------------------------------------------------------------------
    def seat_of_token(self, token: str) -> int | None:
        """The seat a token belongs to (constant-time comparison), or None."""
        for i, seat in enumerate(self.seats):
            if seat.token is not None and secrets.compare_digest(seat.token, token):
                return i
        return None

    def attach(self, conn: Connection) -> None:
        """Add a viewer and send it the table as it is now."""
        if conn.seat is None:
            self.spectators.append(conn)
        else:
            seat = self.seats[conn.seat]
            seat.connections.append(conn)
            seat.ever_connected = True
            seat.away_since = None
        first = self.message(conn.seat, conn.svg)
        first.update(params=self.game.params, settings=self.settings.as_dict())  # once per connection
        conn.send(first)
        self._wake()
        self._send_seats_update(exclude=conn)

    def detach(self, conn: Connection) -> None:
        """Remove a viewer; a seat left without connections starts its grace time."""
        if conn.seat is None:
            with contextlib.suppress(ValueError):
                self.spectators.remove(conn)
        else:
            seat = self.seats[conn.seat]
            with contextlib.suppress(ValueError):
                seat.connections.remove(conn)
            if not seat.connections:
                seat.away_since = self.clock()
        self._wake()
        self._send_seats_update()

    def _send_seats_update(self, exclude: Connection | None = None) -> None:
        info = {"type": "seats", "version": self.version, "seats": self.seat_info()}
        for conn in self.viewers():
            if conn is not exclude:
                conn.send(info)

    def viewers(self) -> list[Connection]:
        """Every connection: the seats' and the spectators'."""
        return [c for seat in self.seats for c in seat.connections] + list(self.spectators)

    def is_away(self, seat: int) -> bool:
        """Is a human seat disconnected for longer than the grace time (so its bot plays)?"""
        s = self.seats[seat]
        return (s.kind == "human" and s.ever_connected and not s.connections and s.away_since is not None
                and self.clock() - s.away_since >= self.settings.grace)

    def seat_info(self) -> list[dict[str, Any]]:
        """Public facts about every seat (never a token)."""
        return [{"seat": i, "name": s.name, "kind": s.kind, "bot": s.bot if s.kind == "bot" else None,
                 "connected": bool(s.connections), "away": self.is_away(i)} for i, s in enumerate(self.seats)]

    # ---- messages ---------------------------------------------------------------------------
    def _shared(self) -> dict[str, Any]:
        """The part of a ``state`` message that is the same for every viewer."""
        state = self.state
        terminal = state.is_terminal()
        deadline = None
        if self.settings.move_time and not terminal:
            deadline = max(0.0, self.turn_started + self.settings.move_time - self.clock())
        return {"type": "state", "table": self.id, "version": self.version, "game": self.game.name,
                "title": self.game.title, "current_player": state.current_player(),
                "terminal": terminal, "scores": state.scores(), "returns": state.returns() if terminal else None,
                "seats": self.seat_info(), "deadline": deadline}

    def _log_for(self, column: int) -> list[dict[str, Any]]:
        return [{"n": e.number, "seat": e.seat, "actor": e.actor, "move": e.move if e.visible[column] else None}
                for e in self.log[-LOG_SHOWN:]]

    def message(self, seat: int | None, svg: bool = False, spectator_obs: dict[str, Any] | None = None,
                shared: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``state`` message for a seat (its observation and, on its turn, its legal moves) or a spectator.

        Nothing in it comes from outside the viewer's own observation (or the spectator view), the public
        seat facts, and log entries the viewer may read (``LogEntry.visible``).
        """
        state = self.state
        if seat is None:
            obs = spectator_obs if spectator_obs is not None else privacy.spectator_view(state)
        else:
            obs = state.observation(seat)
        message = dict(shared if shared is not None else self._shared())
        legal: list[dict[str, Any]] = []
        if seat is not None and seat == message["current_player"] and not message["terminal"]:
            for action in state.legal_actions():
                text = state.action_to_string(action)
                legal.append({"action": action, "move": text, "svg": move_svg(self.game.name, text) if svg else None})
        column = len(self.seats) if seat is None else seat
        message.update(seat=seat, observation=obs, legal=legal, log=self._log_for(column))
        if svg:
            message["svg"] = render(obs)
        return message

    def broadcast(self) -> None:
        """Send every viewer its own message for the current version."""
        shared = self._shared()
        spectator_obs = privacy.spectator_view(self.state) if self.spectators else None
        for i, seat in enumerate(self.seats):
            for conn in seat.connections:
                conn.send(self.message(i, conn.svg, shared=shared))
        for conn in self.spectators:
            conn.send(self.message(None, conn.svg, spectator_obs, shared=shared))

    # ---- moves ------------------------------------------------------------------------------
    def _record_log(self, seat: int, action: int, actor: str) -> None:
        self._pending = (seat, self.state.action_to_string(action), actor)

    def _finish_log_entry(self) -> None:
        """After a move: store its log entry with its visibility per viewer (privacy.move_is_visible)."""
        seat, move, actor = self._pending
        name = self.game.name
        n = len(self.seats)
        if game_spec(name).public_move(move):
            visible = [True] * (n + 1)
        else:
            views = [self.state.observation(q) for q in range(n)] + [privacy.spectator_view(self.state)]
            visible = [q == seat or privacy.move_is_visible(name, move, privacy.visible_tokens(view))
                       for q, view in enumerate(views)]
        self.log.append(LogEntry(len(self.log) + 1, seat, move, actor, visible))

    def apply(self, seat: int, action: int, actor: str) -> None:
        """Play ``action`` for ``seat`` (the seat to move), store it, and tell every viewer.

        Raises:
            IllegalMoveError: if it is not ``seat``'s turn or the move is not legal; nothing changes.
        """
        state = self.state
        if state.is_terminal():
            raise IllegalMoveError(action, "the game is over")
        if seat != state.current_player():
            raise IllegalMoveError(action, f"it is seat {state.current_player()}'s turn")
        if action not in state.legal_actions():
            raise IllegalMoveError(action, state.why_illegal(action))
        self._record_log(seat, action, actor)
        move = self._pending[1]
        if self.storage is not None:
            self.storage.add_move(self.id, self.version + 1, seat, move, actor)
        state.apply_action(action)
        self.record.moves.append((seat, move, actor))
        self._finish_log_entry()
        self.version += 1
        self.turn_started = self.clock()
        if state.is_terminal() and self.storage is not None:
            self.storage.finish(self.id, {"scores": state.scores(), "returns": state.returns()})
            self.record.finished = True
        self.broadcast()
        self._wake()

    def submit(self, conn: Connection, text: Any) -> None:
        """Handle one raw client message from ``conn``: a move is applied, anything wrong answered with an error."""
        try:
            msg = protocol.parse(text)
            if msg.kind == "ping":
                conn.send({"type": "pong", "version": self.version})
                return
            if conn.seat is None:
                raise protocol.ProtocolError("spectator", "spectators cannot move")
            if msg.seat is not None and msg.seat != conn.seat:
                raise protocol.ProtocolError("wrong_seat", f"this connection plays seat {conn.seat} only")
            if self.state.is_terminal():
                raise protocol.ProtocolError("over", "the game is over")
            if self.state.current_player() != conn.seat:
                raise protocol.ProtocolError("not_your_turn", f"it is seat {self.state.current_player()}'s turn")
            if msg.version != self.version:
                raise protocol.ProtocolError("stale", f"move made at version {msg.version}; the table is at "
                                                      f"version {self.version}")
            try:
                action = self.state.string_to_action(msg.move) if msg.move is not None else int(msg.action or 0)
                self.apply(conn.seat, action, "seat")
            except IllegalMoveError as exc:
                raise protocol.ProtocolError("illegal", str(exc)) from None
        except protocol.ProtocolError as exc:
            conn.send(protocol.error(self.version, exc.code, exc.message))

    # ---- the driver: bots, timers, disconnected seats -----------------------------------------
    def _wake(self) -> None:
        self.changed.set()

    def next_auto(self) -> tuple[float, str] | None:
        """When (clock time) and why a bot should move next: ``"bot"``, ``"timer"`` or ``"away"``; None if never."""
        state = self.state
        if state.is_terminal() or self.closed:
            return None
        p = state.current_player()
        seat = self.seats[p]
        start = self.turn_started
        if seat.kind == "bot":
            return start + self.settings.bot_delay, "bot"
        options: list[tuple[float, str]] = []
        if self.settings.move_time:
            options.append((start + self.settings.move_time, "timer"))
        if seat.ever_connected and not seat.connections and seat.away_since is not None:
            options.append((max(seat.away_since + self.settings.grace, start + self.settings.bot_delay), "away"))
        return min(options) if options else None

    def bot_for(self, seat: int) -> Bot:
        """The bot that plays ``seat`` (its own, or a human seat's stand-in), made once."""
        if seat not in self.bots:
            self.bots[seat] = make_bot(self.seats[seat].bot, self.game)
        return self.bots[seat]

    async def auto_move(self, reason: str) -> None:
        """Let the seat's bot choose and play the move of the seat to move."""
        p = self.state.current_player()
        version = self.version
        bot = self.bot_for(p)
        obs = self.state.observation(p)
        legal = self.state.legal_actions()
        rng = random.Random(f"{self.record.seed}-{version}")
        kind = self.seats[p].bot.split("(")[0].strip().lower()
        if kind in FAST_BOTS:
            action = bot.act(obs, legal, rng)
        else:
            action = await asyncio.to_thread(bot.act, obs, legal, rng)
        if self.version == version and not self.closed:  # nobody moved while the bot thought
            self.apply(p, action, "bot" if reason == "bot" else reason)

    async def run(self) -> None:
        """The driver loop: sleep until the next automatic move is due (or something changes), then play it."""
        while not self.closed and not self.state.is_terminal():
            due = self.next_auto()
            self.changed.clear()
            timeout = None if due is None else max(0.0, due[0] - self.clock())
            if timeout is None or timeout > 0:
                try:
                    await asyncio.wait_for(self.changed.wait(), timeout)
                    continue
                except TimeoutError:
                    pass
            due = self.next_auto()
            if due is not None and due[0] <= self.clock() + 1e-3:
                try:
                    await self.auto_move(due[1])
                except (MotleyError, ValueError, RuntimeError, OSError) as exc:  # a broken bot never stalls a table
                    log.warning("table %s: bot of seat %s failed (%s); playing a random move", self.id,
                                self.state.current_player(), exc)
                    legal = self.state.legal_actions()
                    self.apply(self.state.current_player(), legal[self.rng.randrange(len(legal))], due[1])


# ---- creating tables -------------------------------------------------------------------------------
def bot_spec(kind: Any, strength: Any, game_name: str) -> str:
    """A safe bot spec from lobby input: ``random``, ``heuristic`` or ``ismcts`` with a strength.

    Raises:
        MotleyError: for any other kind (programs, i.e. external bots, never come from the web).
    """
    if kind == "random":
        return "random"
    if kind == "heuristic":
        return "heuristic"
    if kind == "ismcts":
        sims = 300 if strength is None else strength
        if isinstance(sims, bool) or not isinstance(sims, int) or not 10 <= sims <= 20000:
            raise MotleyError("ISMCTS strength (simulations per move) must be 10..20000")
        return f"ismcts(simulations={sims})"
    raise MotleyError(f"unknown bot {kind!r}; the bots are random, heuristic and ismcts")


def stand_in(game_name: str) -> str:
    """The bot that plays a human seat's moves on a timeout or a long disconnect."""
    try:
        make_bot("heuristic", load_game(game_name))
        return "heuristic"
    except MotleyError:
        return "random"


def new_record(spec: dict[str, Any], defaults: Settings) -> TableRecord:
    """Check a table request from the lobby and make its record (tokens drawn here).

    ``spec``: ``{"game", "players", "options": {...}, "seats": [{"kind": "human"|"bot", "bot", "strength",
    "name"}], "move_time", "grace", "bot_delay", "seed"}``; missing fields take defaults.

    Raises:
        MotleyError: naming the bad field (unknown game or option, bad value, bad seat list or bot).
    """
    if not isinstance(spec, dict):
        raise MotleyError("a table request is a JSON object")
    name = spec.get("game")
    if not isinstance(name, str):
        raise MotleyError("'game' must be a game name")
    cls = game_class(name)
    options = spec.get("options") or {}
    if not isinstance(options, dict):
        raise MotleyError("'options' must be an object")
    params = dict(options)
    players = spec.get("players")
    if players is not None:
        params["players"] = players
    game = load_game(name, **params)
    n = game.num_players
    seats_in = spec.get("seats")
    if seats_in is None:
        seats_in = [{"kind": "human"}] + [{"kind": "bot", "bot": "heuristic"}] * (n - 1)
    if not isinstance(seats_in, list) or len(seats_in) != n:
        raise MotleyError(f"'seats' must list the {n} seats of {cls.title}")
    seats = []
    substitute = stand_in(name)
    for i, s in enumerate(seats_in):
        if not isinstance(s, dict) or s.get("kind") not in ("human", "bot"):
            raise MotleyError(f"seat {i} must be {{'kind': 'human'}} or {{'kind': 'bot', 'bot': ...}}")
        label = s.get("name")
        if s["kind"] == "human":
            label = label if isinstance(label, str) and label.strip() else f"Player {i + 1}"
            seats.append({"kind": "human", "bot": substitute, "name": label[:30],
                          "token": secrets.token_urlsafe(18), "claimed": False})
        else:
            spec_text = bot_spec(s.get("bot", "heuristic"), s.get("strength"), name)
            make_bot(spec_text, game)  # raises for a game without a heuristic bot
            seats.append({"kind": "bot", "bot": spec_text, "name": f"{spec_text.split('(')[0]} bot {i + 1}",
                          "token": None, "claimed": True})
    settings = Settings(defaults.move_time, defaults.grace, defaults.bot_delay)
    for key, low, high in (("move_time", 1.0, 3600.0), ("grace", 0.0, 3600.0), ("bot_delay", 0.0, 10.0)):
        value = spec.get(key, getattr(settings, key))
        if value is None and key == "move_time":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise MotleyError(f"'{key}' must be a number of seconds in {low:g}..{high:g}")
        setattr(settings, key, float(value))
    seed = spec.get("seed")
    if seed is None:
        seed = random.SystemRandom().randrange(2**62)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
        raise MotleyError("'seed' must be a whole number in 0..2**62-1")
    return TableRecord(id=secrets.token_hex(6), game=name, params=game.params, seed=seed, seats=seats,
                       settings=settings.as_dict(), created=time.time())
