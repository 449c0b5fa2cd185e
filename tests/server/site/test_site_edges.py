"""The edges of a site of two real processes over one PostgreSQL: what a process that does not drive a table
answers for it (the same refusals as its owner), and the bound on what a relayed socket may hold for a client that
does not read (the same as the owner's)."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from motley.server.play.bodies import table_request
from motley.server.play.limits import ABORT, CLOSE_POLICY, TOO_SLOW, Limits
from motley.server.play.messages import PongMessage
from motley.server.play.service import Service
from motley.server.site import relay
from motley.server.web import lookup, sockets
from motley.server.web.refusals import NotFinished
from motley.server.web.testing import ServerProcess, ServerThread
from tests.server.site.test_server_site import member, with_pair

PEOPLE = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human"}] * 2}
BOTS = {"game": "foolery", "players": 7, "options": {"hands": 50}, "seats": [{"kind": "bot", "bot": "random"}] * 7}
#: ``tcpi_state`` of an open TCP connection (Linux's ``TCP_ESTABLISHED``).
TCP_ESTABLISHED = 1


def test_a_live_tables_record_replay_and_analysis_are_refused_409_alike_by_its_owner_and_the_other(
        postgres: Any) -> None:
    """A table of two people made on A (nobody moves: it stays live, driven by A): its record, its replay index, a
    replay step, an analysis's state and an analysis asked of A and of B are each refused 409 ``not_finished``,
    with the same words on both processes (B does not drive the table; it answered 503 ``elsewhere`` before)."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0).start()
    b = ServerProcess(url, lease_ttl=6.0).start()
    try:
        table_id = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).json()["id"]
        asked = [("GET", f"/api/tables/{table_id}/record"), ("GET", f"/api/tables/{table_id}/replay"),
                 ("GET", f"/api/tables/{table_id}/replay/0"), ("GET", f"/api/tables/{table_id}/analysis?seat=0"),
                 ("POST", f"/api/tables/{table_id}/analysis?seat=0")]
        for method, path in asked:
            answers = [httpx.request(method, f"{server.base}{path}", timeout=10) for server in (a, b)]
            assert [answer.status_code for answer in answers] == [409, 409], (path, [x.text for x in answers])
            bodies = [answer.json() for answer in answers]
            assert bodies[0] == bodies[1], path
            assert bodies[0]["error"]["code"] == "not_finished" and bodies[0]["error"]["message"]
        assert not any(t["id"] == table_id and t["seats"] for t in httpx.get(f"{b.base}/api/tables",
                                                                              timeout=10).json())  # A drives it
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


def never_reading(port: int, path: str) -> socket.socket:
    """A client socket whose WebSocket handshake for ``path`` at ``127.0.0.1:port`` was answered 101 and that then
    reads nothing (a small receive buffer, so what the server sends piles up on the server's side soon)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)  # one byte at a time: nothing after the header is taken
    assert answer.startswith(b"HTTP/1.1 101"), answer[:80]
    return sock


def held_by_server(sock: socket.socket, server_port: int) -> bool:
    """Does the server at ``server_port`` still hold its end of the client's connection ``sock`` open (Linux's
    ``/proc/net/tcp``: a line from that port to the client's, ``ESTABLISHED``)? A dropped connection's end is gone
    at once; the client may not hear of it (it reads nothing, so a reset is not taken). The file is read three
    times, since a line may be missed by a read while other connections open and close."""
    client_port = sock.getsockname()[1]
    for _ in range(3):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16)
            if (local, remote) == (server_port, client_port) and int(fields[3], 16) == TCP_ESTABLISHED:
                return True
    return False


def test_viewers_that_never_read_are_dropped_past_the_queue_bound_at_the_owner_and_at_a_relay(
        postgres: Any) -> None:
    """A Foolery table of seven random bots made on A, both processes bounding a viewer's queue at 8 messages:
    three spectators asking for pictures (``svg=1``, large messages) through B (relayed to A) and one on A never
    read. Each is dropped by the server within 30 s (its end of the connection closed, the buffers held for it
    freed), not kept open for as long as the client stays; before, the relayed ones were piped without a bound
    and kept open (B held megabytes of kernel send buffer for each), and the direct one was kept waiting for a
    close it never took."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0, queue_messages=8).start()
    b = ServerProcess(url, lease_ttl=6.0, queue_messages=8).start()
    clients: list[socket.socket] = []
    try:
        made = httpx.post(f"{a.base}/api/tables", timeout=10, json=BOTS)
        assert made.status_code == 200, made.text
        table_id = made.json()["id"]
        ports = [b.port, b.port, b.port, a.port]
        clients = [never_reading(port, f"/ws/{table_id}?svg=1") for port in ports]
        assert all(held_by_server(sock, port) for sock, port in zip(clients, ports, strict=True))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(map(held_by_server, clients, ports)):
            time.sleep(0.25)
        assert list(map(held_by_server, clients, ports)) == [False] * 4, "a viewer that never reads was kept"
    finally:
        for sock in clients:
            sock.close()
        a.stop()
        b.stop()
    postgres.drop_database(url)


class StuckClient:
    """A client's socket as the relay sees it (the few methods :func:`relay.relay` uses) whose client reads
    nothing: a frame sent to it never goes out, it sends nothing, and its close is recorded (and never goes out
    when ``takes_close`` is False, as for a client whose buffers are full)."""

    def __init__(self, takes_close: bool = True) -> None:
        self.client = None
        self.takes_close = takes_close
        self.closed: list[tuple[int, str]] = []
        self.aborted = 0
        self.scope = {"extensions": {ABORT: {"abort": self.abort}}}

    def abort(self) -> None:
        self.aborted += 1

    async def send_text(self, text: str) -> None:
        await asyncio.Event().wait()

    async def send_bytes(self, data: bytes) -> None:
        await asyncio.Event().wait()

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed.append((code, reason))
        if not self.takes_close:
            await asyncio.Event().wait()


def test_a_relay_closes_a_client_that_does_not_read_with_the_owners_code_and_words(tmp_path: Path) -> None:
    """The relay's own bound: a table of bots on a server (the owner), its socket relayed to a client that reads
    nothing, at most 4 frames waiting: the relay closes the client with the owner's close for a slow reader (1008,
    the same words), once, and does not wait for the client to take what it was sent. A close the client does not
    take is followed by dropping the connection (the server's abort)."""
    with ServerThread(f"sqlite:///{tmp_path / 'owner.db'}") as owner:
        table_id = httpx.post(f"{owner.base}/api/tables", json=BOTS, timeout=10).json()["id"]
        stuck = StuckClient()
        served = asyncio.run(asyncio.wait_for(
            relay.relay(stuck, ("owner", f"127.0.0.1:{owner.port}"), f"/ws/{table_id}", "",  # type: ignore[arg-type]
                        queue_messages=4), 30))
    assert served and stuck.closed == [(CLOSE_POLICY, TOO_SLOW)] and stuck.aborted == 0
    at_owner = sockets.SocketConnection(StuckClient(), None, False, Limits(queue_messages=1))  # type: ignore[arg-type]
    pong: PongMessage = {"type": "pong", "version": 0}
    for _ in range(3):
        at_owner.send(pong)
    assert at_owner.closing == stuck.closed[0]  # the owner's close of a viewer that does not read

    deaf = StuckClient(takes_close=False)
    asyncio.run(relay.close(deaf, CLOSE_POLICY, TOO_SLOW, timeout=0.2))  # type: ignore[arg-type]
    assert deaf.closed == [(CLOSE_POLICY, TOO_SLOW)] and deaf.aborted == 1


def test_a_live_tables_record_is_refused_by_the_other_process_without_loading_its_log(store_url: str) -> None:
    """Two processes of a site over one store, A with its address recorded (as ``motley serve --site`` records
    it): a table of two people made on A. B refuses what only a finished table answers (409) from the lease alone,
    without reading the table's log from the store (counted); A gives its own live table (which its routes
    refuse, 409, as the table is not over)."""
    async def body(a: Service, b: Service) -> None:
        site = member(a)
        site.leases.register(site.site.owner, "127.0.0.1:9")
        live = await a.create(table_request(PEOPLE), seed=3)
        loads: list[str] = []
        load = b.store.storage.load

        def counted(table_id: str) -> Any:
            loads.append(table_id)
            return load(table_id)

        b.store.storage.load = counted  # type: ignore[method-assign]
        with pytest.raises(NotFinished):
            await lookup.ended_table(b, live.id)
        assert loads == []
        assert await lookup.ended_table(a, live.id) is live and not live.table.state.is_terminal()

    with_pair(store_url, body)
