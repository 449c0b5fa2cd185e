"""The local recipe of a multi-process site (``scripts/site``, docs/scaling.md): a throwaway PostgreSQL, ``motley
serve --workers 2`` on it and nginx in front (``deploy/nginx/motley.conf``); a table is made and a move played
through the printed address, then SIGTERM stops everything and removes the folder."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from motley.server.web.testing import free_port
from tests.postgres import binaries

ROOT = Path(__file__).resolve().parents[3]
needs_postgres = pytest.mark.skipif(binaries() is None, reason="PostgreSQL's server binaries are not installed "
                                                                "(Debian's postgresql; ./scripts/setup installs it)")


def _nginx() -> str | None:
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


@contextlib.contextmanager
def _site(*args: str) -> Any:
    """Run ``scripts/site`` with ``args``; yields (its address, its folder, the lines it printed)."""
    port = free_port()
    env = {**os.environ, "MOTLEY_PYTHON": sys.executable,
           "PATH": f"{os.environ.get('PATH', '')}:/usr/sbin:/usr/local/sbin"}
    proc = subprocess.Popen([str(ROOT / "scripts" / "site"), "--workers", "2", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        lines: list[str] = []
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        while not any("open http://" in line for line in lines):
            line = proc.stdout.readline()
            if not line or time.monotonic() > deadline:
                assert proc.stderr is not None
                raise AssertionError(f"scripts/site did not print its address: {lines} {proc.stderr.read()[-2000:]}")
            lines.append(line)
        address = re.search(r"open (http://[0-9.:]+)/", lines[-1])
        folder = re.search(r"\((/tmp/motley-site-[A-Za-z0-9]+)", "".join(lines))
        assert address and folder, lines
        assert address.group(1) == f"http://127.0.0.1:{port}"
        yield address.group(1), Path(folder.group(1)), lines
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        assert not Path(folder.group(1)).exists()
    finally:
        if proc.poll() is None:  # a failed test: the script still stops what it started
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def _play_one_move(base: str) -> None:
    """Make a table of one person and three bots through ``base``, connect the person's seat by WebSocket and
    play one move on their turn; the move is acknowledged by the state of the next version."""
    table = httpx.post(f"{base}/api/tables", json={"game": "fool", "players": 4, "bot_delay": 0, "pace": 0,
                                                   "seats": [{"kind": "human"}] + [{"kind": "bot",
                                                                                   "bot": "random"}] * 3},
                       timeout=30)
    assert table.status_code == 200, table.text
    body = table.json()
    token = body["seats"][0]["link"].split("token=")[1]
    ws_base = base.replace("http://", "ws://")
    with connect(f"{ws_base}/ws/{body['id']}?token={token}", open_timeout=30) as ws:
        sent = _move_on_turn(ws)
        while True:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] == "state" and message["version"] > sent:
                assert message["version"] == sent + 1  # the move made, stored and broadcast
                return
            assert message["type"] != "error", message


def _move_on_turn(ws: ClientConnection) -> int:
    """Wait for seat 0's turn and send its first legal move; returns the version it was made on."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(timeout=30))
        if message["type"] == "state" and message["legal"] and message["current_player"] == message["seat"]:
            ws.send(json.dumps({"type": "move", "version": message["version"],
                                "action": message["legal"][0]["action"]}))
            return int(message["version"])
    raise AssertionError("seat 0's turn did not come in 60 s")


@needs_postgres
@pytest.mark.skipif(_nginx() is None, reason="nginx is not installed (Debian's nginx; ./scripts/setup installs it)")
def test_site_through_nginx() -> None:
    """The recipe with nginx: the page and the API come through nginx (its Server header), and a move played
    over a WebSocket through nginx's upgrade to one of two processes on PostgreSQL is acknowledged."""
    with _site() as (base, folder, lines):
        assert any("nginx in front" in line for line in lines)
        page = httpx.get(f"{base}/", timeout=10)
        assert page.status_code == 200 and page.headers["server"] == "nginx"
        _play_one_move(base)
        log = folder / "nginx" / "access.log"
        deadline = time.monotonic() + 10  # a WebSocket is logged once closed
        while "GET /ws/" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "GET /ws/" in log.read_text()


@needs_postgres
def test_site_without_nginx() -> None:
    """The recipe without nginx: two processes on PostgreSQL serve the address themselves and take a move."""
    with _site("--no-nginx") as (base, _folder, lines):
        assert not any("nginx" in line for line in lines)
        assert httpx.get(f"{base}/", timeout=10).headers.get("server") != "nginx"
        _play_one_move(base)
