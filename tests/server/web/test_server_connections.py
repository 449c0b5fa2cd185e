"""What one client may hold open, and whose pages the server answers: the request-header deadline and the bound
on connections per address (slowloris), the ``Host`` check and the ``Origin`` check against the configured
origins (DNS rebinding). Each test runs a real Uvicorn server on loopback."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from motley.cli.main import app as cli_app
from motley.core import MotleyError
from motley.server.web.app import create_app
from motley.server.web.testing import OPEN_LIMITS, ServerThread, free_port, wait_until_up

HUMANS = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}
#: Half a request header: the request line and one header, never the blank line that ends it.
HALF_HEADER = b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"
#: Another loopback address, so the connections of an "attacker" are not counted against the test's own.
OTHER = "127.0.0.2"


def half_open(port: int, source: str = OTHER, payload: bytes = HALF_HEADER) -> socket.socket:
    """A connection from ``source`` that sends ``payload`` (by default half a header) and nothing more."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    if payload:
        sock.sendall(payload)
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """Everything the server sent before it closed ``sock``, or None if it is still open after ``seconds``."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return received


def lobby_answers(base: str) -> bool:
    """Does ``GET /api/tables`` answer 200 within 5 s (from 127.0.0.1)?"""
    try:
        return httpx.get(f"{base}/api/tables", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


# ---- the header deadline and connections per address ----------------------------------------------------
def test_a_connection_that_never_finishes_its_header_is_closed_within_the_header_timeout(tmp_path: Path) -> None:
    """Half a header, or nothing, is closed after the header timeout (1 s here); a WebSocket open meanwhile, and a
    request whose answer takes longer than that, are not (their headers were complete)."""
    from websockets.sync.client import connect

    limits = dataclasses.replace(OPEN_LIMITS, header_timeout=1)
    running = ServerThread(f"sqlite:///{tmp_path / 'slow.db'}", limits=limits)

    @running.app.get("/test/slow")
    async def slow_answer() -> dict[str, bool]:
        await asyncio.sleep(2.0)
        return {"slow": True}

    with running as server:
        table = httpx.post(f"{server.base}/api/tables", json=HUMANS, timeout=10).json()
        ws = connect(f"{server.ws_base}/ws/{table['id']}", open_timeout=10).__enter__()
        ws.recv(timeout=10)
        started = time.monotonic()
        slow = [half_open(server.port) for _ in range(40)] + [half_open(server.port, payload=b"") for _ in range(10)]
        assert lobby_answers(server.base)  # while they are open
        for sock in slow:
            assert closed_within(sock, 5.0) == b"", "a connection with an unfinished header was kept open"
            sock.close()
        assert time.monotonic() - started < 6.0
        # a kept-alive connection whose next request never finishes its header is closed as well
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as kept:
            kept.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert kept.recv(4096).startswith(b"HTTP/1.1 200")
            kept.sendall(HALF_HEADER)
            assert closed_within(kept, 5.0) is not None
        ws.ping().wait(timeout=5)  # the socket is still open, several header timeouts later
        ws.close()
        assert httpx.get(f"{server.base}/test/slow", timeout=10).json() == {"slow": True}


def test_one_address_holds_at_most_its_connections_and_the_lobby_still_answers(tmp_path: Path) -> None:
    limits = dataclasses.replace(OPEN_LIMITS, connections_per_address=20, header_timeout=60)
    with ServerThread(f"sqlite:///{tmp_path / 'many.db'}", limits=limits) as server:
        held = [half_open(server.port) for _ in range(20)]
        for sock in held:
            assert closed_within(sock, 0.05) is None  # all 20 are open
        refused = half_open(server.port)
        answer = closed_within(refused, 5.0)
        assert answer is not None and answer.startswith(b"HTTP/1.1 503"), answer
        assert lobby_answers(server.base)  # another address is not held up
        held.pop().close()
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=(OTHER, 0)) as again:
            again.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert (closed_within(again, 5.0) or b"").startswith(b"HTTP/1.1 200")
        for sock in held:
            sock.close()


def test_websockets_count_against_their_address_until_they_close(tmp_path: Path) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    limits = dataclasses.replace(OPEN_LIMITS, connections_per_address=3)
    with ServerThread(f"sqlite:///{tmp_path / 'ws.db'}", limits=limits) as server:
        table = httpx.post(f"{server.base}/api/tables", json=HUMANS, headers={"connection": "close"}).json()
        url = f"{server.ws_base}/ws/{table['id']}"
        for _ in range(2):  # the second time round, the first three have been released
            with contextlib.ExitStack() as sockets:
                for _ in range(3):
                    sockets.enter_context(connect(url, open_timeout=10))
                with pytest.raises(InvalidStatus) as refused, connect(url, open_timeout=10):
                    pass
                assert refused.value.response.status_code == 503
            time.sleep(0.3)


@contextlib.contextmanager
def serve_with_few_files(db: str, files: int, *options: str) -> Iterator[str]:
    """``motley serve`` as a child process that may open ``files`` files (``RLIMIT_NOFILE``), with ``options``;
    yields its base URL."""
    port = free_port()
    code = "import sys; from motley.cli.main import app; sys.argv[0] = 'motley'; app()"
    proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", str(port), "--db", db, *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base)
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (files, files))
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_slowloris_from_one_address_does_not_starve_the_lobby(tmp_path: Path) -> None:
    """The attack of the report, scaled down: a server that may open 200 files, 400 connections with half a
    header from one address; the lobby answers every request meanwhile."""
    with serve_with_few_files(f"sqlite:///{tmp_path / 'loris.db'}", 200, "--header-timeout", "60") as base:
        slow = [half_open(int(base.rsplit(":", 1)[1])) for _ in range(400)]
        try:
            assert sum(lobby_answers(base) for _ in range(10)) == 10
        finally:
            for sock in slow:
                sock.close()


def test_serve_has_the_connection_options_and_refuses_bad_values(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--help"], terminal_width=200)
    for option in ("--header-timeout", "--keep-alive", "--connections-per-address", "--allow-host"):
        assert option in result.output
    db = f"sqlite:///{tmp_path}/never.db"
    for args in (["--header-timeout", "0"], ["--connections-per-address", "-1"], ["--allow-host", "evil:80"]):
        result = CliRunner().invoke(cli_app, ["serve", "--db", db, *args])
        assert result.exit_code == 2, (args, result.output)
    assert not (tmp_path / "never.db").exists()


# ---- Host and Origin -----------------------------------------------------------------------------------------
def handshake(port: int, path: str, host: str, origin: str) -> bytes:
    """The status line of a WebSocket handshake to ``path`` naming ``host`` and ``origin``."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        return sock.recv(4096).split(b"\r\n", 1)[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("origins") / "origins.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0, allow_origins=["https://cards.example.org"]) as running:
        yield running


def test_a_rebound_host_and_its_own_origin_are_refused(server: ServerThread) -> None:
    """DNS rebinding: a page of evil.example whose name now points at the server sends ``Host`` and ``Origin``
    of evil.example; the POST, the socket and a GET are refused and nothing is made."""
    forged = f"evil.example:{server.port}"
    tables = len(server.app.state.service.tables)
    post = httpx.post(f"{server.base}/api/tables", json=HUMANS, timeout=10,
                      headers={"host": forged, "origin": f"http://{forged}"})
    assert post.status_code in (400, 403)
    assert len(server.app.state.service.tables) == tables
    assert httpx.get(f"{server.base}/api/tables", headers={"host": forged}, timeout=10).status_code == 400
    table_id = httpx.post(f"{server.base}/api/tables", json=HUMANS, timeout=10).json()["id"]
    status = handshake(server.port, f"/ws/{table_id}", forged, f"http://{forged}")
    assert status.split()[1] == b"403", status
    assert handshake(server.port, f"/ws/{table_id}", f"127.0.0.1:{server.port}",
                     server.base).split()[1] == b"101"
    # the configured origin, and its host, are served
    assert handshake(server.port, f"/ws/{table_id}", "cards.example.org",
                     "https://cards.example.org").split()[1] == b"101"
    created = httpx.post(f"{server.base}/api/tables", json=HUMANS, timeout=10,
                         headers={"host": "cards.example.org", "origin": "https://cards.example.org"})
    assert created.status_code == 200


def test_the_origin_is_checked_against_the_configured_origins_not_the_host(tmp_path: Path) -> None:
    """With every ``Host`` let through, an ``Origin`` that merely repeats the ``Host`` is still refused; the
    configured origins and the server's own local ones are served."""
    with ServerThread(f"sqlite:///{tmp_path / 'any.db'}", allow_hosts=["*"],
                      allow_origins=["https://cards.example.org"]) as server:
        def create(host: str, origin: str) -> int:
            return httpx.post(f"{server.base}/api/tables", json=HUMANS, timeout=10,
                              headers={"host": host, "origin": origin}).status_code

        forged = f"evil.example:{server.port}"
        assert create(forged, f"http://{forged}") == 403
        assert create("cards.example.org", "https://cards.example.org") == 200
        for name in ("127.0.0.1", "localhost"):
            assert create(f"{name}:{server.port}", f"http://{name}:{server.port}") == 200
        assert create(f"127.0.0.1:{server.port}", "http://127.0.0.1:1") == 403  # another port: another origin


def test_bad_hosts_are_refused_before_the_app_is_made(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/never.db"
    for host in ("evil.example:80", "http://evil.example", "*evil.example", ""):
        with pytest.raises(MotleyError, match="allowed host"):
            create_app(db, allow_hosts=[host])
    assert not (tmp_path / "never.db").exists()
    app = create_app(db, host="::1", port=8000, allow_hosts=["Cards.Example.org", "*.example.net", "::1"])
    app.state.service.store.close()
