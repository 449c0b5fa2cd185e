"""Replays of finished tables: the steps a viewer walks through, the marks to jump to, and a viewer in one file.

A step is the table after ``step`` moves as one viewer sees it: the public view (``view`` None), or, once
the match is over and nothing is secret any more, a seat's own view with its hand (``view`` = seat).
Chance events inside a move (The Fool's Errand plays its cards inside the engine after each decision) are
listed in the step's ``events``: the entries the view's ``log`` gained with the move, so a viewer can show
them one by one. The rules are not touched.

:class:`Built` keeps the server's answers about finished tables (indexes, steps, records as JSON) built off the
event loop, each built once. :func:`standalone_html` writes the replay viewer (the server's ``replay.html``,
``dom.js`` and ``replay.js``) as one HTML file with every step embedded (``motley replay RECORD --html FILE``).
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import html
import json
import re
import threading
import urllib.parse
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from importlib import resources
from typing import Any

from motley.core import MotleyError, State, jsonsafe, records
from motley.core.errors import RecordError
from motley.core.play import replay
from motley.drawing import render
from motley.server.play import privacy
from motley.server.play.flights import Flights
from motley.server.play.limits import BUILT_BYTES
from motley.server.play.messages import ReplayIndex, ReplayMark, ReplayStep, SheetLine
from motley.server.play.table import Table
from motley.server.store.records import TableRecord
from motley.server.store.refusals import Refusal

STATIC = resources.files("motley.server").joinpath("static")
#: Log entries in a replay step.
REPLAY_LOG = 30
#: Moves between the states a finished table's replay keeps (:func:`state_at`): a step replays at most this many.
CHECKPOINT_EVERY = 256
#: The kept states of each table (:func:`state_at`), gone with the table.
_CHECKPOINTS: weakref.WeakKeyDictionary[Table, list[State]] = weakref.WeakKeyDictionary()
_CHECKPOINTS_LOCK = threading.Lock()


class ViewRefused(Refusal, MotleyError):
    """A replay view that does not exist (a seat out of range), or a seat's view of a match still played (HTTP
    400)."""

    status = 400
    code = "no_such_view"
    words = "the view asked for is not a seat of the table"


def stage_of(state: State, moves: int) -> str:
    """Where a match is, in words: ``"round 3"`` (Fool!), ``"hand 2 of 8"`` (Foolery), else ``"move N"``
    (``moves``: moves made so far); ``"finished"`` once it is over."""
    if state.is_terminal():
        return "finished"
    view = privacy.spectator_view(state)
    if isinstance(view, dict) and isinstance(view.get("round_number"), int):
        return f"round {view['round_number']}"
    if isinstance(view, dict) and isinstance(view.get("hand_number"), int):
        total = view.get("hands_total")
        return f"hand {view['hand_number']}" + (f" of {total}" if isinstance(total, int) and total else "")
    return f"move {moves}"


def _round_of(state: State) -> str:
    """The round or hand a state is in (the part of :func:`stage_of` a jump list groups by); "" if none."""
    stage = stage_of(state, 0)
    return "" if stage.startswith(("move", "finished")) else stage.split(" of ")[0]


def check_view(table: Table, view: int | None) -> None:
    """Raises :class:`ViewRefused` unless ``view`` is None (public) or a seat of the finished ``table``."""
    if view is None:
        return
    if not 0 <= view < len(table.seats):
        raise ViewRefused(f"view must be a seat 0..{len(table.seats) - 1} or none (the public view); got {view}")
    if not table.state.is_terminal():
        raise ViewRefused("a seat's view is shown once the match is over")


def observe(state: State, view: int | None) -> Any:
    """The observation a replay shows: the public view, or seat ``view``'s own."""
    return privacy.spectator_view(state) if view is None else state.observation(view)


def _events(before: Any, after: Any) -> list[Any]:
    """The log entries ``after`` (an observation) gained over ``before``: the events inside one move."""
    old = before.get("log") if isinstance(before, dict) else None
    new = after.get("log") if isinstance(after, dict) else None
    if not isinstance(new, list):
        return []
    start = len(old) if isinstance(old, list) and len(old) <= len(new) else 0
    return new[start:]


def _checkpoints(table: Table) -> list[State]:
    """The states of the finished ``table`` after 0, :data:`CHECKPOINT_EVERY`, 2 x that, ... moves, made by one
    replay of its moves the first time they are asked for (kept while the table is).

    Raises:
        RecordError: if the stored moves no longer replay.
    """
    with _CHECKPOINTS_LOCK:  # one replay per table, whichever worker thread asks first
        kept = _CHECKPOINTS.get(table)
        if kept is None:
            states = [table.state_at(0)]
            count = 0

            def moved(state: State, _seat: int, _action: int) -> None:
                nonlocal count
                count += 1
                if count % CHECKPOINT_EVERY == 0:
                    states.append(state.clone())

            _replay(table, moved)
            kept = _CHECKPOINTS[table] = states
        return kept


def state_at(table: Table, number: int) -> State:
    """The state of the finished ``table`` after its first ``number`` moves (clamped), as
    :meth:`Table.state_at` makes it, from the nearest kept state before it (:func:`_checkpoints`): at most
    :data:`CHECKPOINT_EVERY` moves replayed.

    Raises:
        RecordError: if the stored moves no longer replay.
    """
    number = max(0, min(number, len(table.record.moves)))
    base = number // CHECKPOINT_EVERY
    state = _checkpoints(table)[base].clone()
    for _seat, move, _actor in table.record.moves[base * CHECKPOINT_EVERY:number]:
        state.apply_action(state.string_to_action(move))
    return state


def step(table: Table, number: int, view: int | None = None) -> ReplayStep:
    """The finished ``table`` after ``number`` moves (clamped) as ``view`` sees it: ``{"step", "moves",
    "svg", "scores", "log", "title", "names", "view", "events", "stage"}``; ``events``: the log entries the
    move ``number`` added (cards played by chance inside it; at step 0 those played before the first
    decision), ``log``: the newest moves up to it.

    Raises:
        ViewRefused: for a view that is not a seat, or a seat's view while the match is played.
        RecordError: if the stored moves no longer replay.
    """
    check_view(table, view)
    number = max(0, min(number, len(table.record.moves)))
    before = observe(state_at(table, number - 1), view) if number else None
    return _frame(table, state_at(table, number), number, view, before)


def _frame(table: Table, state: State, number: int, view: int | None, before: Any) -> ReplayStep:
    """One step (see :func:`step`) of ``state``, the table after ``number`` moves; ``before``: the view's
    observation one move earlier (None at the start, whose events are those before the first decision)."""
    shown = observe(state, view)
    names = [s.name for s in table.seats]
    drawn = render({**shown, "names": names}) if isinstance(shown, dict) else render(shown)  # names on the board
    return {"step": number, "moves": len(table.record.moves), "svg": drawn, "scores": state.scores(),
            "log": table.visible_log(view, upto=number, last=REPLAY_LOG), "title": table.game.title,
            "names": names, "view": view,
            "events": _events(before, shown), "stage": stage_of(state, number)}


def every_step(table: Table, view: int | None) -> list[ReplayStep]:
    """Every step of the finished ``table`` (0..moves) as ``view`` sees it, in one pass over the moves.

    Raises:
        ViewRefused: as :func:`step`. RecordError: if the stored moves no longer replay.
    """
    check_view(table, view)
    start = table.state_at(0)
    frames = [_frame(table, start, 0, view, None)]
    previous = [observe(start, view)]

    def moved(state: State, _seat: int, _action: int) -> None:
        frames.append(_frame(table, state, len(frames), view, previous[0]))
        previous[0] = observe(state, view)

    _replay(table, moved)
    return frames


def _replay(table: Table, on_move: Any) -> State:
    """The table's moves replayed from the start, ``on_move(state, seat, action)`` after each."""
    return replay(table.game, table.record.seed, None, [(s, m) for s, m, _ in table.record.moves], on_move=on_move)


def index(table: Table) -> ReplayIndex:
    """What a replay viewer needs before its first step: ``{"title", "moves", "names", "finished", "marks",
    "sheet"}``. ``marks``: ``[{"step", "stage"}]`` where each round or hand begins (steps to jump to);
    ``sheet``: the score sheet, ``[{"stage", "step", "scores"}]`` with the totals at the end of each round
    or hand (and at the end of the match).

    Raises:
        RecordError: if the stored moves no longer replay.
    """
    marks: list[ReplayMark] = []
    sheet: list[SheetLine] = []
    current = ""

    def note(state: State, number: int) -> None:
        nonlocal current
        now = _round_of(state)
        if now and now != current:
            if current:
                sheet.append({"stage": current, "step": number, "scores": state.scores()})
            marks.append({"step": number, "stage": now})
            current = now

    start = table.state_at(0)
    note(start, 0)
    count = 0

    def moved(state: State, _seat: int, _action: int) -> None:
        nonlocal count
        count += 1
        note(state, count)

    final = _replay(table, moved)
    if final.is_terminal():
        sheet.append({"stage": current or "match", "step": count, "scores": final.scores()})
    return {"title": table.game.title, "moves": len(table.record.moves), "names": [s.name for s in table.seats],
            "finished": table.state.is_terminal(), "marks": marks, "sheet": sheet}


def table_of_record(text: str) -> Table:
    """A finished table rebuilt from a game record's JSON ``text`` (``motley play --save``, or the record of a
    web table), for :func:`standalone_html`. The seats are named by the record's ``names`` (a list of strings,
    as a web table's record has) or ``seat N``.

    Raises:
        RecordError: for a record that does not replay (:func:`motley.core.records.load`), or one with a
            fixed deal (a replay starts from the seed only).
    """
    data = records.read(text)
    if data.deal is not None:
        raise RecordError("a record with a fixed 'deal' cannot be written as a replay file (it replays from "
                          "its seed only)")
    movers: list[int] = []
    records.load(text, on_move=lambda _state, seat, _action: movers.append(seat))
    raw = jsonsafe.loads(text, "record")
    given = raw.get("names") if isinstance(raw, dict) else None
    players = data.game.num_players
    names = ([str(n) for n in given] if isinstance(given, list) and len(given) == players
             else [f"seat {i}" for i in range(players)])
    record = TableRecord(id="record", game=data.game.name, params=dict(data.game.params), seed=int(data.seed),
                         seats=[{"kind": "human", "bot": "random", "name": n} for n in names], settings={},
                         created=0.0, finished=True,
                         moves=[(seat, move, "seat") for seat, (_, move) in zip(movers, data.moves, strict=True)])
    return Table(record)


def standalone_html(table: Table) -> str:
    """One HTML file replaying the finished ``table``: the server's replay page and its script, with the
    index and every step of every view (public and each seat) embedded as gzip-compressed JSON in base64
    (the script unpacks it with the browser's ``DecompressionStream``). Opened from disk it needs no server.

    Raises:
        ViewRefused: if the match is not over. RecordError: if its moves no longer replay.
    """
    if not table.state.is_terminal():
        raise ViewRefused("only a finished match is written as a replay file")
    views: list[int | None] = [None, *range(len(table.seats))]
    data = {"index": index(table),
            "steps": {"public" if v is None else str(v): every_step(table, v) for v in views}}
    page = STATIC.joinpath("replay.html").read_text(encoding="utf-8")
    script = STATIC.joinpath("replay.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
    dom = STATIC.joinpath("dom.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
    style = STATIC.joinpath("style.css").read_text(encoding="utf-8")
    packed = base64.b64encode(gzip.compress(json.dumps(data, separators=(",", ":")).encode(), mtime=0)).decode()
    page = page.replace('<link rel="stylesheet" href="/static/style.css">', f"<style>{style}</style>")
    icon = "data:image/svg+xml," + urllib.parse.quote(STATIC.joinpath("favicon.svg").read_text(encoding="utf-8"))
    page = page.replace('href="/static/favicon.svg"', f'href="{html.escape(icon)}"')
    page = page.replace("<title>motley - replay</title>", f"<title>{html.escape(table.game.title)} - replay</title>")
    return page.replace('<script type="module" src="/static/replay.js"></script>',
                        f'<script type="application/octet-stream" id="replay-data" data-encoding="gzip+base64">'
                        f'{packed}</script>\n<script type="module">{inline_module(dom, script)}</script>')


def inline_module(dom: str, script: str) -> str:
    """The replay page's module ``script`` with the module ``dom`` it imports (dom.js) written before it, as one
    module that imports nothing (a file opened from disk fetches nothing): dom.js without its ``export`` words,
    the script without its import of it."""
    shared = re.sub(r"^export ", "", dom, flags=re.MULTILINE)
    own = re.sub(r'^import \{[^}]*\} from "/static/dom\.js";\n', "", script, flags=re.MULTILINE)
    return f"{shared}\n{own}"


class Built:
    """Answers about finished tables (which never change), built in a worker thread and kept: each key is built
    once (requests that ask for it while it is being built wait for that build) and its answer, JSON bytes, is
    kept in a least-recently-used cache of at most ``size`` bytes (an answer larger than that is not kept).

    A build that raises is not kept: every request waiting for it gets the exception.
    """

    def __init__(self, size: int = BUILT_BYTES) -> None:
        self.size = size
        self.used = 0
        self.kept: OrderedDict[Hashable, bytes] = OrderedDict()
        self.flights: Flights[Hashable, bytes] = Flights()

    def get(self, key: Hashable) -> bytes | None:
        """The kept answer of ``key`` (now the most recently used), or None."""
        body = self.kept.get(key)
        if body is not None:
            self.kept.move_to_end(key)
        return body

    async def wait(self, key: Hashable) -> bytes | None:
        """The answer of ``key`` if it is kept or being built (waited for); None if neither.

        Raises:
            whatever its build raises.
        """
        flight = self.flights.running(key)
        if flight is None:
            return self.get(key)
        return await asyncio.shield(flight)

    async def build(self, key: Hashable, make: Callable[[], bytes]) -> bytes:
        """The answer of ``key``: kept, being built (waited for), or built now by ``make`` in a worker thread.

        Raises:
            whatever ``make`` raises.
        """
        body = self.get(key)
        if body is not None:
            return body
        return await self.flights.join(key, lambda: asyncio.to_thread(make), lambda body: self._keep(key, body))

    def _keep(self, key: Hashable, body: bytes) -> None:
        """Keep the answer ``body`` of ``key`` (dropping the least recently used beyond the size)."""
        if len(body) > self.size or key in self.kept:
            return
        self.kept[key] = body
        self.used += len(body)
        while self.used > self.size:
            _, dropped = self.kept.popitem(last=False)
            self.used -= len(dropped)
