"""The JSON that crosses the house, typed in one place: every WebSocket message both ways and each game's observation.

Server -> client (:data:`ServerMessage`, one JSON object per text message; :mod:`.protocol` says when each is sent):
:class:`StateMessage` after every change, :class:`SeatsMessage` when people come and go, :class:`WhyMessage`,
:class:`HintMessage`, :class:`PongMessage`, :class:`ErrorMessage`, a rematch's :class:`RematchMessage` and
:class:`RematchDeclinedMessage`, and the table's chat: :class:`ChatMessage` and, on connecting,
:class:`ChatLogMessage`. Client -> server (:data:`ClientMessageJSON`): what :func:`.protocol.parse` accepts
(it checks the raw text itself, for the exact refusals it gives; these types say what it accepts). A state
message's ``observation`` is the viewer's own (the ``TypedDict`` each game's ``observe`` module declares and
returns, ``GameSpec.observation_type``; the schema's ``GameObservation`` is any of them), or the public view (the
same without the game's private fields).

The HTTP bodies a client sends are the pydantic models of :mod:`.bodies`. ``motley schema`` (:func:`schemas`)
writes the JSON Schema of all of them into ``src/motley/server/static/schema/``, with the JSDoc typedefs the
browser's scripts are checked against by TypeScript (``tsc --noEmit``, see docs/design.md); a test keeps the
committed files current.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from motley.core import Observation


# ---- the parts of a state message ---------------------------------------------------------------------------------
class SeatInfo(TypedDict):
    """Public facts about a seat (never a token): its name, ``kind`` (``human`` or ``bot``), its bot (bot seats
    only), whether its person is connected or away (gone longer than the grace time: the stand-in plays for them);
    a person seat's ``stand_in`` (the kind of the bot that plays for them when they cannot, e.g. ``heuristic``);
    ``grace_left``: seconds before the stand-in takes over from a person who lost the connection (None: connected,
    away already, or never connected); ``idle``: the person let the move timer run out
    ``Settings.expiries_to_stand_in`` times in a row, so the stand-in plays for them until they move or say they
    are back."""

    seat: int
    name: str
    kind: str
    bot: str | None
    connected: bool
    away: bool
    stand_in: str | None
    grace_left: float | None
    idle: bool


class LegalMove(TypedDict):
    """A legal move of the viewer's: its action id, its move string, the card codes it plays
    (:func:`~motley.server.play.table.move_cards`) and its small drawing (None unless the viewer asked for SVG)."""

    action: int
    move: str
    cards: list[str]
    svg: str | None


class LogLine(TypedDict):
    """A log entry as its viewer may read it: its number, the seat, who made it (``seat``: the person, ``bot``,
    ``forced``, or the person's stand-in: ``timer``, ``away`` or ``idle``), the move (None when hidden from the
    viewer), and whether it was the seat's only legal move."""

    n: int
    seat: int
    actor: str
    move: str | None
    forced: bool


class SummaryInfo(TypedDict):
    """The summary shown at the end of a deal: its deal number (from 1), the person seats still reading it, and the
    seconds left before it ends by itself (None: no limit)."""

    deal: int
    waiting: list[int]
    until: float | None


class SharedState(TypedDict):
    """The part of a state message that is the same for every viewer (:meth:`.table.Table.shared`, with the live
    table's ``waiting_for``, ``summary`` and ``hints``)."""

    type: Literal["state"]
    table: str
    version: int
    game: str
    title: str
    current_player: int
    terminal: bool
    scores: list[int]
    returns: list[float] | None
    seats: list[SeatInfo]
    deadline: float | None
    end_reason: str | None
    waiting_for: NotRequired[list[int]]
    summary: NotRequired[SummaryInfo | None]
    hints: NotRequired[list[int] | None]


class TableSettings(TypedDict):
    """A table's settings (:class:`~motley.server.store.records.Settings`; times in seconds)."""

    move_time: float | None
    grace: float
    bot_delay: float
    wait_for_people: bool
    pace: float | None
    summary_wait: float | None
    hints: bool
    spectator_chat: bool
    expiries_to_stand_in: int | None


class StateMessage(SharedState):
    """The table as one viewer sees it, after every change: the shared part, the viewer's seat (None: a spectator),
    its observation, its legal moves (on its turn), the log it may read; ``live`` (a seat's connections only):
    whether this page is the one that plays the seat; ``svg`` (viewers that asked for SVG): the drawing of the
    observation. The first message a connection gets also has the game's ``params`` (its options as resolved),
    the table's ``settings`` and ``commitment`` (the hash of the seed), and ``opening`` when this person was the
    last one the table waited for."""

    seat: int | None
    observation: Observation  # the game's GameSpec.observation_type (see motley.server.play.schema)
    legal: list[LegalMove]
    log: list[LogLine]
    live: NotRequired[bool]
    svg: NotRequired[str]
    params: NotRequired[dict[str, Any]]
    settings: NotRequired[TableSettings]
    commitment: NotRequired[str]
    opening: NotRequired[bool]


# ---- the other messages from the server ---------------------------------------------------------------------------
class SeatsMessage(TypedDict):
    """The seats changed (someone connected, left or came back)."""

    type: Literal["seats"]
    version: int
    seats: list[SeatInfo]


class WhyMessage(TypedDict):
    """The answer to a ``why``: the engine's ``reason`` the move is refused now (None: it is legal), that reason
    in words without rule ids, and the rule ids it names."""

    type: Literal["why"]
    version: int
    move: str
    reason: str | None
    words: str | None
    rules: list[str]


class ErrorMessage(TypedDict):
    """A refused client message (nothing changed): its code (:mod:`.protocol` lists them) and the message in words;
    an ``illegal`` move also has the reason in words and the rule ids it names."""

    type: Literal["error"]
    version: int
    code: str
    message: str
    words: NotRequired[str | None]
    rules: NotRequired[list[str]]


class PongMessage(TypedDict):
    """The answer to a ``ping``."""

    type: Literal["pong"]
    version: int


class HintAnswer(TypedDict):
    """The strongest bot's choice for a decision (:func:`motley.bots.analysis.hint`): the action, its move string,
    the move in words and why; with a search (more than one legal move), its estimates for the move: the win
    chance of the deal (0..1), the expected deal points and the iterations that began with it."""

    action: int
    move: str
    words: str
    why: str
    win: NotRequired[float]
    points: NotRequired[float]
    visits: NotRequired[int]


class HintMessage(HintAnswer):
    """The answer to a ``hint``, to the asking connection only: the version and seat it is for, and the cards the
    move plays."""

    type: Literal["hint"]
    version: int
    seat: int
    cards: list[str]


class RematchSeatInfo(TypedDict):
    """A seat of a rematch's new table (never a token)."""

    name: str
    kind: str
    bot: str | None


class RematchMessage(TypedDict):
    """A rematch offered at this table, as its viewer reads it: the new table, the viewer's own link (the watch
    link for anyone without a seat there), the old seat that offered it, the viewer's new seat (None: none) and
    the new table's seats."""

    type: Literal["rematch"]
    table: str
    link: str
    offered_by: int
    you: int | None
    seats: list[RematchSeatInfo]


class RematchDeclinedMessage(TypedDict):
    """The person invited to seat ``seat`` of the rematch declined it: the seat is open now."""

    type: Literal["rematch_declined"]
    seat: int
    name: str


class ChatLine(TypedDict):
    """One message of a table's chat: its ``number`` at the table (from 1), the writer's ``seat`` (None: a
    spectator) and ``name``, the ``text`` (plain text, at most 200 characters, no control characters) and ``at``
    (seconds since the epoch)."""

    number: int
    seat: int | None
    name: str
    text: str
    at: float


class ChatMessage(ChatLine):
    """Someone at the table said something (:mod:`.chat`)."""

    type: Literal["chat"]


class ChatLogMessage(TypedDict):
    """The table's chat so far (its last lines, oldest first), sent once on connecting, after the first state, where
    anyone has said something."""

    type: Literal["chat_log"]
    lines: list[ChatLine]


#: Every message the server sends on a table's WebSocket.
ServerMessage = (StateMessage | SeatsMessage | WhyMessage | ErrorMessage | PongMessage | HintMessage | RematchMessage
                 | RematchDeclinedMessage | ChatMessage | ChatLogMessage)


# ---- the client's messages ----------------------------------------------------------------------------------------
class MoveByAction(TypedDict):
    """A move by its action id (from the state's ``legal`` list), made at table version ``version``; ``seat``, if
    given, must be the connection's own."""

    type: Literal["move"]
    version: int
    action: int
    seat: NotRequired[int]


class MoveByText(TypedDict):
    """A move by its move string (at most 200 characters), made at table version ``version``."""

    type: Literal["move"]
    version: int
    move: str
    seat: NotRequired[int]


class WhyQuestion(TypedDict):
    """Is this move legal now, and if not why? (Nothing moves.)"""

    type: Literal["why"]
    move: str


class BareMessage(TypedDict):
    """``ping`` (answered by ``pong``), ``start`` (bots stop waiting for people), ``continue`` (the summary was
    read), ``claim`` (play the seat from this page), ``hint`` (the strongest bot's choice for my decision) or
    ``back`` (I am back: my stand-in stops playing for me after my move timer ran out, ``SeatInfo.idle``)."""

    type: Literal["ping", "start", "continue", "claim", "hint", "back"]


class ChatSay(TypedDict):
    """Say ``text`` at the table's chat (a seat; a spectator where the table lets spectators write): plain text of
    at most 200 characters."""

    type: Literal["chat"]
    text: str


#: Every message a client may send on a table's WebSocket.
ClientMessageJSON = MoveByAction | MoveByText | WhyQuestion | BareMessage | ChatSay


# ---- HTTP answers the pages read ----------------------------------------------------------------------------------
class OptionInfo(TypedDict):
    """A game option for a person choosing it (:meth:`motley.core.options.Option.describe`): ``choice_labels[i]``
    are the words for ``choices[i]``; ``explanation`` is ``doc`` without its rule ids, listed in ``rules``;
    ``minimum``/``maximum``: the bounds a table on this server allows; ``seats``: the option names a seat (its
    whole-number choices are seats from 0, worded from 1; a form offers those of the table's player count)."""

    name: str
    label: str
    doc: str
    default: Any
    kind: str
    assumed: bool
    seats: bool
    minimum: Any
    maximum: Any
    choices: list[Any]
    choice_labels: list[str]
    explanation: str
    rules: list[str]


class Picture(TypedDict):
    """A game's picture for the first page: its address and size (pixels)."""

    url: str
    width: int
    height: int


class GameInfo(TypedDict):
    """A game as ``GET /api/games`` describes it: names, player counts, the bots offered (the default first) and
    the stand-in, the most ISMCTS simulations a bot may use, each card's info (``GameSpec.card_info``), the rules
    in short paragraphs, a summary, players and length in words, the usual player count, the options that set a
    match's length, its picture and its options."""

    name: str
    title: str
    min_players: int
    max_players: int
    bots: list[str]
    stand_in: str
    max_simulations: int
    cards: dict[str, dict[str, Any]]
    how_to_play: list[str]
    summary: str
    at_a_glance: str
    usual_players: int
    match_options: list[str]
    picture: Picture
    options: list[OptionInfo]


class TableLine(TypedDict):
    """A table as ``GET /api/tables`` lists it (public facts only, no token): ``free_seats`` counts the open seats
    nobody claimed, ``waiting_for`` the person seats whose person never connected; ``stage``: where the match is,
    in words; ``age``: seconds since it was made; ``created``: when (seconds since the epoch)."""

    id: str
    game: str
    title: str
    players: int
    version: int
    finished: bool
    created: float
    seats: list[SeatInfo]
    commitment: str
    free_seats: int
    names: list[str]
    waiting_for: int
    stage: str
    age: float


class ReplayMark(TypedDict):
    """Where a round or hand begins in a replay: the step to jump to and its name."""

    step: int
    stage: str


class SheetLine(TypedDict):
    """A line of a replay's score sheet: the round or hand, the step it ends at, and the totals then."""

    stage: str
    step: int
    scores: list[int]


class ReplayIndex(TypedDict):
    """What a replay viewer needs before its first step (``GET /api/tables/{id}/replay``)."""

    title: str
    moves: int
    names: list[str]
    finished: bool
    marks: list[ReplayMark]
    sheet: list[SheetLine]


class ReplayStep(TypedDict):
    """A finished table after ``step`` moves as ``view`` (a seat, None: the public view) sees it: its drawing, the
    scores, the newest log lines, the events the move added (the game's own log entries), where the match is."""

    step: int
    moves: int
    svg: str
    scores: list[int]
    log: list[LogLine]
    title: str
    names: list[str]
    view: int | None
    events: list[dict[str, Any]]
    stage: str
