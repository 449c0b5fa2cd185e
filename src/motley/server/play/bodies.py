"""The shapes of the HTTP request bodies, as pydantic models: checked before anything is made, and published
in the server's OpenAPI schema (``/openapi.json``, read at ``/docs``), with the shapes of the error answers
(:class:`RefusalBody`).

A body is first read as guarded JSON (:mod:`motley.core.jsonsafe`: size, depth, number length), then
validated here, once; what a field means beyond its shape (a known game, its options, a bot the game has) is
checked by :func:`motley.server.play.requests.new_record`, which names the field it refuses.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, ValidationError, model_validator

from motley.core import MotleyError
from motley.server.play.web_bots import BotKind

M = TypeVar("M", bound=BaseModel)

#: A number of seconds (a whole number or not; never a string or a boolean).
Seconds = Annotated[StrictFloat, Field(ge=0)]


class SeatRequest(BaseModel):
    """One seat of a new table: a person (open: anyone in the lobby may claim it; else only its invite link
    plays it) or a bot (bot: random, heuristic, ismcts or best, the game's strongest; strength: ISMCTS simulations
    per move)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "bot"]
    name: Annotated[str, Field(max_length=200)] | None = None
    open: StrictBool = False
    bot: BotKind | None = None  # the kinds the web offers: motley.server.play.web_bots
    strength: StrictInt | None = None


class TableRequest(BaseModel):
    """A new table: the game, its options and player count, a seat for each player (default: one person,
    heuristic bots), and its timers. The seed is never the creator's: the server draws it."""

    model_config = ConfigDict(extra="forbid")

    game: str
    players: StrictInt | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    seats: list[SeatRequest] | None = None
    move_time: Seconds | None = Field(None, description="seconds per move; null: no move timer")
    grace: Seconds | None = Field(None, description="seconds a disconnected person keeps the seat")
    bot_delay: Seconds | None = Field(None, description="seconds a bot waits before it moves")
    wait_for_people: StrictBool | None = Field(None, description="bots wait until every person has connected")
    pace: Seconds | None = Field(None, description="seconds before a forced move (the only legal one) is played")
    summary_wait: Seconds | None = Field(None, description="seconds the end of a deal waits for the people to "
                                                           "continue; 0: no wait; null: without limit")
    hints: StrictBool | None = Field(None, description="a friendly table: each person may ask for the strongest "
                                                       "bot's choice, once per decision (default false)")
    spectator_chat: StrictBool | None = Field(None, description="spectators may write in the table's chat too "
                                                                "(the seats always may; default false)")
    expiries_to_stand_in: StrictInt | None = Field(None, description="after this many move timers in a row ran out "
                                                   "on a person (1..20), their stand-in plays for them until they "
                                                   "move or are back; null: never")

    @model_validator(mode="before")
    @classmethod
    def _no_seed(cls, data: Any) -> Any:
        if isinstance(data, dict) and "seed" in data:
            raise ValueError("'seed' cannot be set: the server draws every table's seed, and reveals it in the "
                             "record when the match ends")
        return data


class RematchSeat(BaseModel):
    """A seat of a rematch, in the new seat order: who sits there. ``from``: the old table's seat (a person
    seat must keep a person of the old table; a bot seat may name an old bot seat to keep that bot as it was,
    or null); ``bot`` and ``strength`` for a bot seat (as in a table request); ``name`` for a person seat
    (default: the person's name at the old table)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: StrictInt | None = Field(None, alias="from")
    kind: Literal["human", "bot"]
    bot: BotKind | None = None
    strength: StrictInt | None = None
    name: Annotated[str, Field(max_length=200)] | None = None


class RematchRequest(BaseModel):
    """A rematch of a finished table, asked by a person at it: token is their seat link's token; seats
    (optional, one per seat of the table, in the new order): who sits where, and the bots."""

    model_config = ConfigDict(extra="forbid")

    token: Annotated[str, Field(max_length=200)]
    seats: Annotated[list[RematchSeat], Field(max_length=16)] | None = None


class DeclineRequest(BaseModel):
    """A person declines the seat a rematch offered them: token is that seat link's token."""

    model_config = ConfigDict(extra="forbid")

    token: Annotated[str, Field(max_length=200)]


class CancelRequest(BaseModel):
    """Cancel an unfinished table, asked by the browser that made it (``key``: its browser key, as sent when it made
    the table) or by a person at it (``token``: their seat link's token)."""

    model_config = ConfigDict(extra="forbid")

    key: Annotated[str, Field(max_length=200)] | None = None
    token: Annotated[str, Field(max_length=200)] | None = None


class RefusalError(BaseModel):
    """What was refused: ``code``, a short name a program may branch on (``no_table``, ``seat_refused``,
    ``too_fast``, ...: :mod:`motley.server.store.refusals`), and ``message``, what was refused and why, in words (the
    field of the request it names, a limit)."""

    code: str
    message: str


class RefusalBody(BaseModel):
    """The body of every error answer of the API (HTTP 4xx and 5xx but the plain-text ones of the Host and Origin
    checks and the connection limit): ``{"error": {"code", "message"}}``."""

    error: RefusalError


def validated(model: type[M], data: Any) -> M:
    """``data`` (parsed JSON) validated as ``model``: the model itself, which knows which fields were given
    (``model_fields_set``).

    Raises:
        MotleyError: naming the first field that is wrong and why (``'open' of seats[1]: Input should be a
            valid boolean``), or saying the body is not a JSON object.
    """
    if not isinstance(data, dict):
        raise MotleyError(f"the request must be a JSON object ({model.__name__}: see /docs)")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise MotleyError(f"{where(first['loc'])}: {message}" if first["loc"] else message) from None


def table_request(data: Any) -> TableRequest:
    """``data`` (a dict, as parsed JSON) as a checked :class:`TableRequest` (:func:`validated`): how Python code
    (tests, tools) asks for a table the way the lobby does.

    Raises:
        MotleyError: naming the first field that is wrong and why.
    """
    return validated(TableRequest, data)


def checked(model: type[BaseModel], data: Any) -> dict[str, Any]:
    """``data`` (parsed JSON) validated as ``model`` (:func:`validated`), as a dict of the fields it gave
    (nested ones too).

    Raises:
        MotleyError: naming the first field that is wrong and why, or saying the body is not a JSON object.
    """
    return validated(model, data).model_dump(exclude_unset=True)


def where(loc: tuple[int | str, ...]) -> str:
    """A field's place in words: ``('seats', 1, 'open')`` -> ``'open' of seats[1]``."""
    names = [str(part) for part in loc if not isinstance(part, int)]
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc[:-1]).lstrip(".")
    return f"'{names[-1]}'" + (f" of {path}" if path else "") if names else f"item {loc[-1]}"


def schema(model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI request body of ``model`` (JSON), its nested models written in place."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(defs[node["$ref"].rsplit("/", 1)[1]])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    return {"required": True, "content": {"application/json": {"schema": inline(raw)}}}
