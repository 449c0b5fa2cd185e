"""Spectators that never read, relayed: what the relaying process holds for them, and whether they are closed.

Two ``motley serve --site`` child processes over one PostgreSQL (a throwaway server started here,
:mod:`tests.postgres`): A drives a Foolery table of seven random bots playing ``--hands`` hands (each move a
``state`` message with its SVG to every ``svg=1`` spectator), and ``--clients`` spectators connect to B, which
relays them to A. Each client is a bare TCP socket that sends the WebSocket handshake, reads the answer's header
and then never reads again. Every second, for ``--seconds``, this prints B's resident memory (``/proc``: VmRSS) and
the bytes waiting in the kernel on B's sockets (``/proc/net/tcp``: the send queues, ``tx``, and the receive
queues, ``rx``, of every TCP socket B holds), and how many of the clients B still holds a socket for. At the end
each client reads what reached it: how many were closed with 1008 ("too slow").

    PYTHONPATH=src:. .venv/bin/python benchmarks/relay_slow_readers.py                 # 40 clients, 20 s
    PYTHONPATH=src:. .venv/bin/python benchmarks/relay_slow_readers.py --clients 10 --seconds 10 --queue 64
"""

from __future__ import annotations

import argparse
import base64
import os
import socket
import struct
import time
from pathlib import Path

import httpx
from tests.postgres import PostgresServer, binaries

from motley.server.web.testing import ServerProcess


def handshake(port: int, path: str) -> socket.socket:
    """A client socket to ``127.0.0.1:port`` whose WebSocket handshake for ``path`` was answered 101; nothing of
    what follows is read."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)  # one byte at a time: nothing after the header is taken
    if not answer.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"handshake refused: {answer[:80]!r}")
    return sock


def frames(data: bytes) -> list[tuple[int, bytes]]:
    """The whole server frames (opcode, payload) at the start of ``data`` (unmasked, as a server sends)."""
    found, at = [], 0
    while at + 2 <= len(data):
        opcode, length, at2 = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
        if length == 126:
            length, at2 = struct.unpack("!H", data[at2:at2 + 2])[0], at2 + 2
        elif length == 127:
            length, at2 = struct.unpack("!Q", data[at2:at2 + 8])[0], at2 + 8
        if at2 + length > len(data):
            break
        found.append((opcode, data[at2:at2 + length]))
        at = at2 + length
    return found


def close_of(sock: socket.socket, timeout: float = 10.0) -> tuple[int, int | None, str]:
    """Read the client's socket to its end: (messages received, the close code or None, the close words)."""
    sock.settimeout(timeout)
    data = b""
    try:
        while chunk := sock.recv(1 << 16):
            data += chunk
    except OSError:
        pass
    got = frames(data)
    closes = [payload for opcode, payload in got if opcode == 8]
    messages = sum(1 for opcode, _ in got if opcode in (1, 2))
    if not closes:
        return messages, None, ""
    payload = closes[0]
    return messages, struct.unpack("!H", payload[:2])[0], payload[2:].decode("utf-8", "replace")


def sockets_of(pid: int) -> set[int]:
    """The inodes of the sockets process ``pid`` holds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def kernel_queues(pid: int) -> tuple[int, int, int]:
    """Bytes in the kernel send and receive queues of process ``pid``'s TCP sockets, and how many it holds."""
    inodes, tx, rx, held = sockets_of(pid), 0, 0, 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[9]) in inodes:
                queued_tx, queued_rx = fields[4].split(":")
                tx, rx, held = tx + int(queued_tx, 16), rx + int(queued_rx, 16), held + 1
    return tx, rx, held


def rss(pid: int) -> int:
    """Resident memory of process ``pid`` in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--hands", type=int, default=50)
    parser.add_argument("--queue", type=int, default=64, help="--queue-messages of both processes")
    parser.add_argument("--bot-delay", type=float, default=0.0)
    args = parser.parse_args()
    found = binaries()
    if found is None:
        raise SystemExit("PostgreSQL's server binaries are not installed")
    server = PostgresServer(found)
    url = server.create_database()
    a = ServerProcess(url, extra=[str(args.bot_delay)], lease_ttl=6.0, queue_messages=args.queue).start()
    b = ServerProcess(url, extra=[str(args.bot_delay)], lease_ttl=6.0, queue_messages=args.queue).start()
    clients: list[socket.socket] = []
    try:
        spec = {"game": "foolery", "players": 7, "options": {"hands": args.hands},
                "seats": [{"kind": "bot", "bot": "random"}] * 7}
        made = httpx.post(f"{a.base}/api/tables", json=spec, timeout=10)
        made.raise_for_status()
        table_id = made.json()["id"]
        rss0 = rss(b.pid())
        clients = [handshake(b.port, f"/ws/{table_id}?svg=1") for _ in range(args.clients)]
        print(f"{args.clients} never-reading svg spectators relayed by B (queue {args.queue}); B's RSS before "
              f"them {rss0 / 1024:.1f} MB")
        print("s\tB RSS MB\tB kernel tx MB\tB kernel rx MB\tB TCP sockets")
        peak = (0, 0, 0)
        start = time.monotonic()
        while time.monotonic() - start < args.seconds:
            time.sleep(1.0)
            tx, rx, held = kernel_queues(b.pid())
            now = rss(b.pid())
            peak = (max(peak[0], now), max(peak[1], tx), max(peak[2], rx))
            print(f"{time.monotonic() - start:.0f}\t{now / 1024:.1f}\t{tx / 1e6:.2f}\t{rx / 1e6:.2f}\t{held}")
        print(f"peak: RSS {peak[0] / 1024:.1f} MB, kernel send queues {peak[1] / 1e6:.2f} MB, receive queues "
              f"{peak[2] / 1e6:.2f} MB")
        ends = [close_of(sock, 2.0) for sock in clients]
        closed = sum(1 for _, code, _ in ends if code == 1008)
        print(f"closed with 1008: {closed} of {len(ends)}; messages each got: "
              f"{sorted(m for m, _, _ in ends)[0]}..{sorted(m for m, _, _ in ends)[-1]}; "
              f"words: {sorted({w for _, c, w in ends if c is not None})}")
    finally:
        for sock in clients:
            sock.close()
        a.stop()
        b.stop()
        server.remove()


if __name__ == "__main__":
    main()
