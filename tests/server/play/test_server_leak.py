"""The leak property (issue item 5): over whole games, no message sent to a seat or a spectator holds a card
hidden from it.

Every message the table sends (states with SVG drawings and move buttons, errors, seat updates, pongs) is
checked the moment it is sent, against the true state at that moment (log entries when they are new).
Hidden from seat ``p``: every card code in another seat's hand or in a deck that ``p``'s own observation
does not show (a code with a copy in plain sight, like a played W1, is not hidden). Hidden from a
spectator: every code in a hand or deck that not all seats see. Hands are read through the core API
(``observation(q)["hand"]``); The Fool's Errand's decks, which no observation holds, are read from the
state (their Jokers' places are public).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
from functools import cache
from typing import Any, cast

import pytest

import motley
from motley.core import State
from motley.core.registry import game_spec
from motley.drawing import card_codes
from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.messages import ServerMessage
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.play.table import Table
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.web.drawings import with_drawing

GAMES: list[tuple[str, int, int]] = [("fools_errand", 2, 6), ("fool", 4, 2), ("fool", 6, 1), ("foolery", 3, 2),
                                     ("foolery", 4, 1)]


TOKEN = re.compile(r'[^\s"<>=\\,:\[\]{}()]+')


def words(value: Any) -> set[str]:
    """Every word a viewer can read in a message: the JSON text cut at white space, quotes, markup and
    punctuation, so string values, SVG text and SVG card ids (``data-card="7S"``) all become words."""
    return set(TOKEN.findall(json.dumps(value, ensure_ascii=False)))


@cache
def notation_words(game: motley.Game) -> frozenset[str]:
    """Words of the game's help on its notation (the reply to an unknown move): the same in every state of
    the game, so they reveal nothing (e.g. "the codes at 5 players are G2..G20, ... and W1")."""
    state = game.new_initial_state(seed=0)
    try:
        state.string_to_action("banana")
    except motley.InvalidMoveError as exc:
        return frozenset(words(str(exc)))
    return frozenset()


def played_face_up(game: str, move: str) -> bool:
    """Moves whose cards every player sees as they are made: plays to the trick (Fool!) or the pile
    (Foolery); the exchange (``give ...``, FY-R13) is private. The Fool's Errand's moves name no card."""
    return game in ("fool", "foolery") and not move.lower().startswith("give")


def hidden_places(state: State) -> list[list[str]]:
    """Per seat, the codes in its hand; then the codes in decks (The Fool's Errand)."""
    n = state.game.num_players
    places = [list(state.observation(q).get("hand", [])) for q in range(n)]
    decks = getattr(state, "decks", None)
    if state.game.name == "fools_errand" and decks is not None:
        from motley.games.fools_errand.cards import CODES

        # the Jokers' places are public (observation "jokers"), so the code JK hides nothing; other deck cards do
        places.append([CODES[c] for deck in decks for c in deck if CODES[c] != "JK"])
    else:
        places.append([])
    return places


def hidden_from(state: State, viewer: int | None) -> set[str]:
    """The card codes ``viewer`` (a seat, or None for a spectator) must never read (see the module docstring)."""
    n = state.game.num_players
    places = hidden_places(state)
    codes = card_codes(state.game.name)
    if viewer is None:
        hidden = {c for place in places for c in place}
        everyone = set.intersection(*(words(state.observation(q)) for q in range(n)))
        return {c for c in hidden if c in codes and c not in everyone}
    hidden = {c for q, place in enumerate(places) if q != viewer for c in place}
    own = words(state.observation(viewer))
    return {c for c in hidden if c in codes and c not in own}


_CACHE: dict[tuple[int, int, int | None], set[str]] = {}


def cached_hidden(table: Table, viewer: int | None) -> set[str]:
    """:func:`hidden_from` for the table's current version (the state only changes with the version)."""
    key = (id(table), table.version, viewer)
    if key not in _CACHE:
        if len(_CACHE) > 10_000:
            _CACHE.clear()
        _CACHE[key] = hidden_from(table.state, viewer)
    return _CACHE[key]


class CheckingConnection:
    """A viewer that checks every message against the true state when it is sent."""

    def __init__(self, table: Table, seat: int | None, svg: bool) -> None:
        self.table = table
        self.seat = seat
        self.svg = svg
        self.count = 0
        self.last: dict[str, Any] | None = None
        self.log_checked = 0
        self.before: set[str] | None = None  # hidden_from just before the move being made
        self.sent: list[dict[str, Any]] = []  # every message, as sent

    def stop(self, code: int, reason: str, flush: bool) -> None:
        pass

    def send(self, sent: ServerMessage) -> None:
        # drawn as the WebSocket transport draws it for a viewer that asked for SVG; read as the JSON object it is
        message = cast("dict[str, Any]", with_drawing(sent) if self.svg else sent)
        json.dumps(message)  # every message is JSON
        self.sent.append(message)
        # The move log is history: each entry is checked when it is new (right after its move); a card
        # played in an earlier round may legally be in someone's hand again after the next deal.
        # A new entry may name a card hidden both before and after its move only if the move is a card
        # played face up (a play that ends a deal is followed at once by the next deal).
        body = {k: v for k, v in message.items() if k != "log"}
        fresh = [e for e in message.get("log", []) if e["n"] > self.log_checked]
        seen = words(body)
        if message["type"] == "error":
            seen -= notation_words(self.table.game)
        hidden = cached_hidden(self.table, self.seat)
        leaked = seen & hidden
        before = self.before if self.before is not None else hidden
        for entry in fresh:
            if entry["move"] is not None and not played_face_up(self.table.game.name, entry["move"]):
                leaked |= words(entry["move"]) & hidden & before
        self.log_checked = max([self.log_checked, *(e["n"] for e in fresh)])
        assert not leaked, f"{self.seat=} read hidden {sorted(leaked)} in a {message['type']} message"
        self.count += 1
        if message["type"] == "state":
            self.last = message


def table_spec(game: str, players: int) -> dict[str, Any]:
    return {"game": game, "players": players, "seats": [{"kind": "human"}] * players}


def new_table(game: str, players: int, seed: int) -> Table:
    return Table(new_record(table_request(table_spec(game, players)), Settings(bot_delay=0.0), seed))


async def play_games(game: str, players: int, games: int) -> None:
    """Play ``games`` whole matches through the service (every move stored in an in-memory store)."""
    service = Service(Storage("sqlite://"), Settings(bot_delay=0.0), seeds=itertools.count(5000).__next__)
    try:
        for seed in range(games):
            rng = random.Random(seed)
            live = await service.create(table_request(table_spec(game, players)), seed=1000 + seed)
            table = live.table
            seats = [CheckingConnection(table, q, svg=(q == 0)) for q in range(players)]
            watcher = CheckingConnection(table, None, svg=True)
            for conn in [*seats, watcher]:
                live.attach(conn)
            moves = 0
            while not table.state.is_terminal():
                mover = table.state.current_player()
                conn = seats[mover]
                assert conn.last is not None and conn.last["version"] == table.version
                legal = conn.last["legal"]
                if rng.random() < 0.05:  # bad input from anyone: errors must not leak either
                    other = seats[rng.randrange(players)]
                    await live.submit(other, json.dumps({"type": "move", "version": table.version, "move": "banana"}))
                    await live.submit(other, json.dumps({"type": "move", "version": table.version, "action": 10**6}))
                    await live.submit(watcher, json.dumps({"type": "move", "version": table.version, "action": 0}))
                choice = legal[rng.randrange(len(legal))]
                for viewer in [*seats, watcher]:
                    viewer.before = cached_hidden(table, viewer.seat)
                await live.submit(conn, json.dumps({"type": "move", "version": table.version,
                                                    "action": choice["action"]}))
                moves += 1
                if rng.random() < 0.02:  # a reconnect mid-game
                    live.detach(seats[0])
                    live.attach(seats[0])
            assert moves == table.version
            assert watcher.last is not None and watcher.last["terminal"]
            assert all(c.count > 0 for c in seats)
            await offer_rematch(service, live, seats, watcher)
    finally:
        await service.close()


async def offer_rematch(service: Service, live: LiveTable, seats: list[CheckingConnection],
                        watcher: CheckingConnection) -> None:
    """Offer the finished table's rematch and decline one of its seats: each viewer's messages (checked for
    hidden cards as they are sent) hold no seat token but the viewer's own new one, and the summary and
    the end reason no card."""
    table = live.table
    new = await service.rematch(live, table.seats[0].token or "")
    driver = service.tasks.pop(new.id, None)  # none when the new deal ends the match at once (a rare deal)
    if driver is not None:
        driver.cancel()
    declined = not new.table.state.is_terminal()  # a deal may end the match at once (FE: about 1 in 900)
    if declined:
        await service.decline(new, new.table.seats[-1].token or "")
    tokens = {s.token for s in [*table.seats, *new.table.seats]} - {None}
    for viewer in [*seats, watcher]:
        own = new.table.seats[viewer.seat].token if viewer.seat is not None else None
        for message in viewer.sent:
            text = json.dumps(message)
            assert not {t for t in tokens if t and t in text} - {own, table.seats[viewer.seat].token
                                                                if viewer.seat is not None else None}, message
            if message["type"] == "state":
                assert message["summary"] is None or set(message["summary"]) == {"deal", "waiting", "until"}
                assert not words(message.get("end_reason") or "") & game_spec(table.game.name).card_codes
        assert any(m["type"] == "rematch" for m in viewer.sent)
        assert any(m["type"] == "rematch_declined" for m in viewer.sent) == declined


@pytest.mark.parametrize(("game", "players", "games"), GAMES)
def test_no_message_holds_a_hidden_card(game: str, players: int, games: int) -> None:
    if game not in motley.registered_games():
        pytest.skip(f"{game} is not registered yet")
    asyncio.run(play_games(game, players, games))


def test_spectator_view_drops_private_fields() -> None:
    for name in motley.registered_games():
        game = motley.load_game(name)
        state = game.new_initial_state(seed=3)
        table = new_table(name, game.num_players, 3)
        view = table.message(None)["observation"]
        assert view["seat"] is None
        if name != "fools_errand":
            assert "hand" not in view
        assert state.observation(0)["game"] == view["game"]
