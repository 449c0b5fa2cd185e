"""A table request, checked in shape by :class:`~motley.server.play.bodies.TableRequest`, made into a table record:
what the shape cannot say (a known game, options this server serves, one seat per player, a bot the game
has, timers in range) is checked here, naming the field; tokens and the seed are drawn here.
"""

from __future__ import annotations

import random
import secrets
import time
from typing import Any

from motley.bots import make_bot
from motley.core import Game, MotleyError, load_game
from motley.core.options import check_served
from motley.core.registry import game_class
from motley.server.play.bodies import RematchSeat, SeatRequest, TableRequest, table_request
from motley.server.play.table import Table
from motley.server.play.web_bots import OFFERED, bot_spec, kind_of, stand_in
from motley.server.store.records import Seat, Settings, TableRecord, new_token

#: The settings a request may give: (name, least, most seconds).
TIMERS = (("move_time", 1.0, 3600.0), ("grace", 0.0, 3600.0), ("bot_delay", 0.0, 10.0), ("pace", 0.0, 10.0),
          ("summary_wait", 0.0, 3600.0))
#: The settings that may be null: no move timer; a summary that waits without limit; a seat never handed to its
#: stand-in for expiries.
NULLABLE = ("move_time", "summary_wait", "expiries_to_stand_in")
#: The most move timers in a row a table may let run out before the stand-in plays (``expiries_to_stand_in``).
MAX_EXPIRIES = 20


def new_record(request: TableRequest, defaults: Settings, seed: int | None = None, owner: str | None = None
               ) -> TableRecord:
    """The record of a new table from a lobby request (tokens and the seed drawn here); fields the request
    did not give take ``defaults``. A request never chooses the seed (whoever knew it could predict every
    hand; :class:`TableRequest` refuses a ``seed`` field): ``seed`` (the argument, for tests and tools in
    Python only) fixes it; None draws it with :class:`random.SystemRandom`. ``owner``: the digest of the browser
    key that owns the table (:attr:`TableRecord.owner`; None: none).

    Raises:
        MotleyError: naming the bad field (unknown game or option, a value this server does not serve, a
            seat list that is not one per player, a bad seat or bot, a timer out of range).
    """
    cls = game_class(request.game)
    params = dict(request.options)
    if request.players is not None:
        params["players"] = request.players
    game = load_game(request.game, **params)
    check_served(game.options, game.params)
    seats = _seats(request.seats, game, cls.title)
    settings = _settings(request, defaults)
    return TableRecord(id=secrets.token_hex(6), game=request.game, params=game.params, seed=_seed(seed),
                       seats=seats, settings=settings.as_dict(), created=time.time(), owner=owner)


def rematch_plan(table: Table, seats: list[RematchSeat] | None) -> list[dict[str, Any]]:
    """The seats of a rematch of ``table`` as asked (:class:`RematchSeat`, in the new order; None: everyone where
    they sat), checked and in one form, so two asks can be compared: ``{"from", "kind"}`` with ``bot``,
    ``strength``, ``name`` where given.

    Raises:
        MotleyError: naming the seat: a list that is not one entry per seat, a person seat whose ``from`` is not
            a person of the old table (or one already seated), a ``from`` that is no seat, a bot field on a
            person seat, a name on a bot seat.
    """
    old = table.seats
    if seats is None:
        return [{"from": i, "kind": s.kind} for i, s in enumerate(old)]
    if len(seats) != len(old):
        raise MotleyError(f"'seats' must list the {len(old)} seats of the table, in the rematch's order")
    people = [i for i, s in enumerate(old) if s.kind == "human"]
    seated: set[int] = set()
    plan = []
    for i, seat in enumerate(seats):
        given = seat.model_dump(by_alias=True, exclude_unset=True)
        if seat.from_ is not None and not 0 <= seat.from_ < len(old):
            raise MotleyError(f"'from' of seats[{i}]: the table has seats 0..{len(old) - 1}, not {seat.from_}")
        if seat.kind == "human":
            if seat.from_ not in people or seat.from_ in seated:
                raise MotleyError(f"seats[{i}]: a person seat keeps a person of the table: 'from' must be one of "
                                  f"the person seats {', '.join(map(str, people))}, each once")
            if "bot" in given or "strength" in given:
                raise MotleyError(f"seats[{i}]: a person seat has no 'bot' or 'strength'")
            seated.add(seat.from_)
        elif "name" in given:
            raise MotleyError(f"seats[{i}]: a bot seat is named by its bot; it takes no 'name'")
        plan.append({"from": seat.from_, **{k: v for k, v in given.items() if k != "from"}})
    return plan


def rematch_record(table: Table, defaults: Settings, plan: list[dict[str, Any]] | None = None,
                   seed: int | None = None) -> TableRecord:
    """A new table record for the rematch of ``table``: the same game and options, settings (the bots wait for
    the people again, even if Start was pressed at the old table), and the seats of ``plan``
    (:func:`rematch_plan`; None: everyone where they sat): each person with their name (or the one given) and
    open flag, each bot seat the bot asked for or, with none asked, the old seat's bot (``from``) as it was;
    fresh tokens and id, and ``seed`` (None: drawn, as :func:`new_record` does). Bots are named by their kind
    and new seat (:func:`bot_names`).

    Raises:
        MotleyError: naming the bad field (a bot the game does not have, a strength out of range), or if the
            old table's options or settings are no longer accepted (a server whose limits changed).
    """
    plan = rematch_plan(table, None) if plan is None else plan
    old = table.seats
    seats = [_rematch_seat(entry, old) for entry in plan]
    request = table_request({
        "game": table.game.name, "options": dict(table.game.params), "seats": seats,
        **{k: v for k, v in table.settings.as_dict().items() if v is not None or k in NULLABLE},
        "wait_for_people": defaults.wait_for_people})
    record = new_record(request, defaults, seed)
    for stored, entry in zip(record.seats, plan, strict=True):
        if entry["kind"] == "bot" and "bot" not in entry and entry["from"] is not None \
                and old[entry["from"]].kind == "bot":
            stored["bot"] = old[entry["from"]].bot
    record.seats = bot_names(record.seats)
    return record


def _rematch_seat(entry: dict[str, Any], old: list[Seat]) -> dict[str, Any]:
    """The table request's seat for one seat of a rematch plan (a kept bot is set after, from the old seat)."""
    if entry["kind"] == "human":
        person = old[entry["from"]]
        name = entry.get("name")
        return {"kind": "human", "name": name if name and name.strip() else person.name, "open": person.open}
    return {"kind": "bot", **{k: entry[k] for k in ("bot", "strength") if k in entry}}


def _seats(requested: list[SeatRequest] | None, game: Game, title: str) -> list[dict[str, Any]]:
    """The stored seat list from the request's ``seats`` (default: one person, heuristic bots); tokens are
    drawn here for the person seats.

    Raises:
        MotleyError: for a list that is not one entry per seat, or a bad seat or bot.
    """
    n = game.num_players
    if requested is None:
        requested = [SeatRequest(kind="human")] + [SeatRequest(kind="bot", bot="heuristic")] * (n - 1)
    if len(requested) != n:
        raise MotleyError(f"'seats' must list the {n} seats of {title}")
    substitute = stand_in(game.name)
    return bot_names([_seat(i, seat, game, substitute) for i, seat in enumerate(requested)])


def _seat(i: int, seat: SeatRequest, game: Game, substitute: str) -> dict[str, Any]:
    """Seat ``i`` (stored form). A person seat is named (default "Player i+1", at most 30 characters), gets a
    token and ``substitute`` as its stand-in; ``open`` (true only for a person seat) lets anyone in the lobby
    claim it (:meth:`Table.claim`), else only its invite link plays it. A bot seat's bot defaults to the
    heuristic.

    Raises:
        MotleyError: for ``open`` on a bot seat, a ``bot`` given as null, an ISMCTS strength out of range, or a
            bot the game does not have.
    """
    if seat.open and seat.kind != "human":
        raise MotleyError(f"seat {i}: 'open' must be true or false, and true only for a person seat")
    if seat.kind == "human":
        label = seat.name if seat.name and seat.name.strip() else f"Player {i + 1}"
        return Seat(kind="human", bot=substitute, name=label[:30], token=new_token(), open=seat.open).stored()
    kind = seat.bot if "bot" in seat.model_fields_set else "heuristic"
    if kind is None:
        raise MotleyError(f"unknown bot None; the bots are {', '.join(OFFERED[:-1])} and {OFFERED[-1]}")
    spec = bot_spec(kind, seat.strength)
    make_bot(spec, game)  # raises for a game without a heuristic bot
    return Seat(kind="bot", bot=spec, name="", claimed=True).stored()


def bot_names(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``seats`` (stored form) with each bot seat named by its kind, "Bot (heuristic)"; when several bots share
    a kind they are told apart by number, "Bot 2 (heuristic)", "Bot 3 (heuristic)" (the seat's number from 1)."""
    kinds = [kind_of(s["bot"]) for s in seats if s["kind"] == "bot"]
    for i, seat in enumerate(seats):
        if seat["kind"] == "bot":
            kind = kind_of(seat["bot"])
            seat["name"] = f"Bot ({kind})" if kinds.count(kind) == 1 else f"Bot {i + 1} ({kind})"
    return seats


def _settings(request: TableRequest, defaults: Settings) -> Settings:
    """The table's settings: the request's ``move_time`` (null: no timer), ``grace``, ``bot_delay``, ``pace``,
    ``summary_wait`` (null: without limit), ``wait_for_people``, ``hints``, ``spectator_chat`` and
    ``expiries_to_stand_in`` (null: never) where it gave them, else ``defaults``.

    Raises:
        MotleyError: for a timer given as null (but those of :data:`NULLABLE`) or outside its range
            (:data:`TIMERS`), ``wait_for_people``, ``hints`` or ``spectator_chat`` given as null, or
            ``expiries_to_stand_in`` outside 1..:data:`MAX_EXPIRIES`.
    """
    given = request.model_fields_set
    settings = Settings(defaults.move_time, defaults.grace, defaults.bot_delay, defaults.wait_for_people,
                        defaults.pace, defaults.summary_wait, defaults.hints, defaults.spectator_chat,
                        defaults.expiries_to_stand_in)
    if "expiries_to_stand_in" in given:
        expiries = request.expiries_to_stand_in
        if expiries is not None and not 1 <= expiries <= MAX_EXPIRIES:
            raise MotleyError(f"'expiries_to_stand_in' must be a whole number in 1..{MAX_EXPIRIES}, or null (never)")
        settings.expiries_to_stand_in = expiries
    for key in ("wait_for_people", "hints", "spectator_chat"):
        if key in given:
            value = getattr(request, key)
            if value is None:
                raise MotleyError(f"'{key}' must be true or false")
            setattr(settings, key, value)
    for key, low, high in TIMERS:
        value = getattr(request, key) if key in given else getattr(settings, key)
        if value is None and key in NULLABLE:
            setattr(settings, key, None)
            continue
        if value is None or not low <= value <= high:
            raise MotleyError(f"'{key}' must be a number of seconds in {low:g}..{high:g}")
        setattr(settings, key, float(value))
    return settings


def _seed(seed: int | None) -> int:
    """The seed given (by Python code, never by a web request), or a random one when ``seed`` is None.

    Raises:
        MotleyError: for anything but a whole number in 0..2**62-1.
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**62)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
        raise MotleyError("'seed' must be a whole number in 0..2**62-1")
    return seed
