"""What one client may cost the server: a bounded outgoing queue, a message rate, tables per address, sockets
per table, batched seats updates, no cross-site requests, JSON-only POSTs and the security headers."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from typer.testing import CliRunner
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from motley.cli.main import app as cli_app
from motley.core import MotleyError
from motley.server.play.bodies import table_request
from motley.server.play.limits import Limits, TableQuota, TokenBucket
from motley.server.play.live import LiveTable
from motley.server.play.messages import ServerMessage
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.store.writer import Store
from motley.server.web.app import create_app
from motley.server.web.sockets import SocketConnection
from motley.server.web.testing import OPEN_LIMITS, ServerThread

Message = dict[str, Any]
HUMANS = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}
BOTS = {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4}
STATIC = Path(__file__).resolve().parents[3] / "src" / "motley" / "server" / "static"


@pytest.fixture
def serve(store_url: str) -> Iterator[Callable[..., ServerThread]]:
    """Start a server on the test's store with the given ``create_app`` settings (stopped after the test)."""
    running: list[ServerThread] = []

    def start(**settings: Any) -> ServerThread:
        server = ServerThread(store_url, bot_delay=0.0, **settings)
        running.append(server.__enter__())
        return server

    yield start
    for server in running:
        server.__exit__(None, None, None)


def create(server: ServerThread, spec: Message, **headers: str) -> httpx.Response:
    return httpx.post(f"{server.base}/api/tables", json=spec, timeout=10, headers=headers)


def socket(server: ServerThread, table_id: str, query: str = "", **kwargs: Any) -> ClientConnection:
    url = f"{server.ws_base}/ws/{table_id}" + (f"?{query}" if query else "")
    ws: ClientConnection = connect(url, max_size=None, open_timeout=10, **kwargs).__enter__()
    return ws


def receive(ws: ClientConnection) -> Message:
    """The next message that is not a ``seats`` update (those come whenever someone connects or leaves)."""
    while True:
        message: Message = json.loads(ws.recv(timeout=10))
        if message["type"] != "seats":
            return message


def close_code(ws: ClientConnection) -> int | None:
    """Read until the server closes the socket; the close code it sent."""
    with pytest.raises(ConnectionClosed):
        while True:
            ws.recv(timeout=20)
    return ws.close_code


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


# ---- the pieces ---------------------------------------------------------------------------------------
def test_limits_refuse_a_value_that_is_not_a_positive_number() -> None:
    for bad in ({"queue_messages": 0}, {"messages_per_second": -1.0}, {"tables_per_address": 2.5},
                {"sockets_per_table": True}, {"request_bytes": "big"}):
        with pytest.raises(MotleyError, match=next(iter(bad))):
            Limits(**bad)
    assert Limits(messages_per_second=0.5).messages_per_second == 0.5


def test_a_token_bucket_allows_its_burst_then_its_rate() -> None:
    now = [100.0]
    bucket = TokenBucket(rate=2.0, burst=3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one token flowed in
    assert [bucket.take(), bucket.take()] == [True, False]
    now[0] += 100.0  # never more than the burst
    assert sum(bucket.take() for _ in range(10)) == 3


def test_a_table_quota_counts_open_tables_and_requests_under_way() -> None:
    quota = TableQuota(2)
    open_tables = {"a", "b"}
    assert quota.admit("1.2.3.4", open_tables.__contains__)
    assert quota.admit("1.2.3.4", open_tables.__contains__)
    assert not quota.admit("1.2.3.4", open_tables.__contains__)  # two under way
    assert quota.admit("5.6.7.8", open_tables.__contains__)  # another address
    quota.settle("1.2.3.4", "a")
    quota.settle("1.2.3.4", None)  # that request made no table: its slot is free again
    assert quota.admit("1.2.3.4", open_tables.__contains__)
    quota.settle("1.2.3.4", "b")
    assert not quota.admit("1.2.3.4", open_tables.__contains__)
    open_tables.discard("a")  # a finished table frees its slot
    assert quota.admit("1.2.3.4", open_tables.__contains__)


# ---- a slow reader -----------------------------------------------------------------------------------
class StuckSocket:
    """A WebSocket whose client never reads: the first send never returns."""

    def __init__(self) -> None:
        self.sent = 0

    async def send_text(self, text: str) -> None:
        self.sent += 1
        await asyncio.Event().wait()


def test_a_viewer_that_never_reads_has_a_bounded_queue_and_is_closed() -> None:
    async def scenario() -> tuple[int, SocketConnection, StuckSocket]:
        stuck = StuckSocket()
        conn = SocketConnection(stuck, None, False, Limits(queue_messages=8))  # type: ignore[arg-type]
        conn.start()
        longest = 0
        for n in range(1000):
            conn.send(cast(ServerMessage, {"type": "state", "version": n, "padding": "x" * 1000}))
            longest = max(longest, conn.queue.qsize())
            if n == 0:
                await asyncio.sleep(0)  # the writer takes the first message and waits on the client forever
        await asyncio.sleep(0)
        assert conn.task is not None
        assert conn.task.cancelled() or conn.task.done()
        return longest, conn, stuck

    longest, conn, stuck = asyncio.run(scenario())
    assert longest <= 8
    assert conn.closing is not None and conn.closing[0] == 1008
    assert stuck.sent == 1


def test_a_client_that_never_reads_is_disconnected_by_a_real_server(serve: Callable[..., ServerThread]) -> None:
    server = serve(limits=Limits(queue_messages=16))
    table_id = create(server, HUMANS).json()["id"]
    live: LiveTable = server.app.state.service.tables[table_id]
    ws = socket(server, table_id)
    wait_for(lambda: len(live.viewers()) == 1, "the spectator is attached")
    conn = live.viewers()[0]
    assert isinstance(conn, SocketConnection) and conn.task is not None
    longest: list[int] = []

    def flood() -> None:  # 128 MB of messages to a client that reads none of them
        for n in range(2000):
            conn.send(cast(ServerMessage, {"type": "state", "version": n, "padding": "x" * 65536}))
            longest.append(conn.queue.qsize())

    conn.task.get_loop().call_soon_threadsafe(flood)
    wait_for(lambda: conn not in live.viewers(), "the slow viewer is detached")
    assert len(longest) == 2000 and max(longest) <= 16
    assert conn.closing is not None
    assert close_code(ws) == 1008


# ---- the message rate --------------------------------------------------------------------------------
def test_flooding_is_refused_as_rate_limited_then_closed(serve: Callable[..., ServerThread]) -> None:
    server = serve(limits=Limits(messages_per_second=0.001, message_burst=3, flood_strikes=4))
    created = create(server, HUMANS).json()
    table: Table = server.app.state.service.tables[created["id"]].table
    mover = table.state.current_player()
    ws = socket(server, created["id"], created["seats"][mover]["link"].partition("?")[2])
    first = receive(ws)
    for _ in range(3):
        ws.send(json.dumps({"type": "ping"}))
        assert receive(ws)["type"] == "pong"
    version = table.version
    ws.send(json.dumps({"type": "move", "version": first["version"], "action": first["legal"][0]["action"]}))
    refused = receive(ws)
    assert (refused["type"], refused["code"]) == ("error", "rate_limited")
    assert table.version == version  # the move over the rate was not played
    for _ in range(3):
        ws.send(json.dumps({"type": "ping"}))
        assert receive(ws)["code"] == "rate_limited"
    assert close_code(ws) == 1008


# ---- tables per address, sockets per table -----------------------------------------------------------
def test_an_address_may_have_only_so_many_unfinished_tables(serve: Callable[..., ServerThread]) -> None:
    server = serve(limits=Limits(tables_per_address=2))
    finished = create(server, BOTS)  # bots only: it plays to its end at once
    assert finished.status_code == 200
    tables = server.app.state.service.tables
    wait_for(lambda: tables[finished.json()["id"]].table.state.is_terminal(), "the bots' table ends")
    assert [create(server, HUMANS).status_code for _ in range(2)] == [200, 200]
    before = len(tables)
    over = create(server, HUMANS)
    assert over.status_code == 429
    assert "unfinished tables" in over.json()["error"]["message"]
    assert len(tables) == before


def test_a_table_takes_only_so_many_sockets(serve: Callable[..., ServerThread]) -> None:
    server = serve(limits=Limits(sockets_per_table=3))
    table_id = create(server, HUMANS).json()["id"]
    viewers = [socket(server, table_id) for _ in range(3)]
    assert all(receive(ws)["type"] == "state" for ws in viewers)
    extra = socket(server, table_id)
    refused = receive(extra)
    assert (refused["type"], refused["code"]) == ("error", "table_full")
    assert close_code(extra) == 1013
    viewers.pop().close()
    live: LiveTable = server.app.state.service.tables[table_id]
    wait_for(lambda: len(live.viewers()) == 2, "a viewer leaves")
    again = socket(server, table_id)
    assert receive(again)["type"] == "state"


# ---- seats updates -----------------------------------------------------------------------------------
class Viewer:
    """A connection that keeps every message."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages: list[Message] = []

    def send(self, message: ServerMessage) -> None:
        self.messages.append(cast(Message, message))

    def stop(self, code: int, reason: str, flush: bool) -> None:
        pass


def test_k_viewers_connecting_cost_o_of_k_seats_messages_not_k_squared() -> None:
    async def scenario(k: int) -> list[Viewer]:
        record = new_record(table_request(HUMANS), Settings(None, 30.0, 0.0), seed=3)
        store = Store(Storage("sqlite://"))
        live = LiveTable(Table(record), store)
        viewers = [Viewer(i if i < 4 else None) for i in range(k)]
        for viewer in viewers:  # connects arriving together, as the sockets of a crowd do
            live.attach(viewer)
        await asyncio.sleep(0)
        for viewer in viewers[4:]:  # and the spectators leave again
            live.detach(viewer)
        await asyncio.sleep(2 * live.seats_interval + 0.05)  # the update that follows the interval
        store.close()
        return viewers

    k = 60
    viewers = asyncio.run(scenario(k))
    seats = [m for v in viewers for m in v.messages if m["type"] == "seats"]
    assert len(seats) <= 2 * k
    final = next(m for m in reversed(viewers[0].messages) if m["type"] == "seats")
    assert all(s["connected"] for s in final["seats"])  # the update shows every seat as it is now


# ---- origins, content types, headers -----------------------------------------------------------------
def test_a_foreign_origin_is_refused_on_post_and_websocket(serve: Callable[..., ServerThread]) -> None:
    server = serve(limits=OPEN_LIMITS, allow_origins=["https://cards.example.org"])
    own = server.base
    assert create(server, HUMANS, origin="https://evil.example").status_code == 403
    for origin in (own, "https://cards.example.org", None):
        headers = {} if origin is None else {"origin": origin}
        assert create(server, HUMANS, **headers).status_code == 200, origin
    table_id = create(server, HUMANS).json()["id"]
    with pytest.raises(InvalidStatus) as refused:
        socket(server, table_id, origin="https://evil.example")
    assert refused.value.response.status_code == 403
    for origin in (own, "https://cards.example.org", None):
        ws = socket(server, table_id, origin=origin)
        assert receive(ws)["type"] == "state", origin
        ws.close()
    joined = httpx.post(f"{server.base}/api/tables/{table_id}/join", headers={"origin": "http://evil.example"})
    assert joined.status_code == 403


def test_a_post_that_is_not_json_is_415_and_creates_nothing(serve: Callable[..., ServerThread]) -> None:
    server = serve()
    tables = server.app.state.service.tables
    for kind in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {} if kind is None else {"content-type": kind}
        response = httpx.post(f"{server.base}/api/tables", content=json.dumps(HUMANS), headers=headers)
        assert response.status_code == 415, kind
    assert not tables
    typed = httpx.post(f"{server.base}/api/tables", content=json.dumps(HUMANS),
                       headers={"content-type": "application/json; charset=utf-8"})
    assert typed.status_code == 200


def test_every_page_has_the_security_headers(serve: Callable[..., ServerThread]) -> None:
    server = serve()
    for path in ("/", "/table/abc", "/replay/abc", "/static/lobby.js", "/api/games", "/api/tables/none/record"):
        headers = httpx.get(server.base + path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "style-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-content-type-options"] == "nosniff"


def test_the_pages_have_no_inline_script_or_style_the_policy_would_block() -> None:
    for page in STATIC.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>" not in html and "style=" not in html and "<style" not in html, page.name


def test_serve_has_options_for_the_limits_and_origins() -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--help"], terminal_width=200)
    assert result.exit_code == 0
    for option in ("--allow-origin", "--forwarded-allow-ips", "--tables-per-address", "--sockets-per-table",
                   "--messages-per-second", "--queue-messages"):
        assert option in result.output


def test_serve_refuses_a_bad_limit_or_origin_before_it_starts(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/never.db"
    for args in (["--allow-origin", "cards.example.org"], ["--allow-origin", "https://cards.example.org/play"],
                 ["--queue-messages", "0"], ["--messages-per-second", "-1"], ["--searches", "0"]):
        result = CliRunner().invoke(cli_app, ["serve", "--db", db, *args])
        assert result.exit_code == 2, (args, result.output)
    assert not (tmp_path / "never.db").exists()
    with pytest.raises(MotleyError, match="scheme://host"):
        create_app(db, allow_origins=["ftp://cards.example.org"])
    app = create_app(db, allow_origins=["HTTPS://Cards.Example.org:443/", "http://[::1]:8000"])
    app.state.service.store.close()
