"""Two ``motley serve --site`` processes on one PostgreSQL, the owner of a table paused (SIGSTOP) past its lease while
a request waits for it, the other one taking the table over meanwhile, then the owner resumed (SIGCONT): the
owner's writes carry its lease (a fencing token) and the store refuses them, so a seat is given once (a join
queued at the paused owner and one at the taker) and no client sees a version go back (a move queued at the paused
owner is neither stored nor shown). :func:`join_race` and :func:`paused_move` are also the rounds of
``benchmarks/site_fencing.py``."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from motley.server.web.testing import ServerProcess
from tests.server.site.test_server_site import PEOPLE, lease_of, stored_moves_numbered
from tests.support import seat_tokens, stored_record

#: The processes' lease: short, so that a round waits it out in a few seconds.
TTL = 1.5
#: Seconds any one wait of a round may take before the round fails (a generous bound, never a measure).
PATIENCE = 30.0
#: Two people's seats, seat 0 open to anyone in the lobby.
OPEN_SEAT = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human", "open": True}, {"kind": "human"}]}


def wait_for(condition: Any, what: str) -> None:
    """Poll ``condition()`` until it is true (at most :data:`PATIENCE` seconds, then AssertionError naming
    ``what``)."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {PATIENCE} s"
        time.sleep(0.05)


def pause_past_lease(url: str, table_id: str, owner: ServerProcess) -> str:
    """SIGSTOP ``owner`` and wait until another process holds the table's lease (its lease ran out and the other
    one's scan claimed it); returns the new lease owner's id. The caller sends SIGCONT."""
    before = lease_of(url, table_id)
    assert before is not None
    os.kill(owner.pid(), signal.SIGSTOP)
    wait_for(lambda: lease_of(url, table_id) not in (None, before), "the takeover")
    taker = lease_of(url, table_id)
    assert taker is not None
    return taker


@dataclass
class Race:
    """One race of two joins for one seat: each join's HTTP status (``paused``: the join queued at the paused
    owner; ``taker``: the join at the process that took the table over), whether the stored seat's token is the
    one a 200 gave, and the paused owner's answer in words."""

    paused: int
    taker: int
    stored_is_given: bool
    paused_answer: str = ""

    @property
    def given(self) -> int:
        """How many joins were answered with the seat."""
        return [self.paused, self.taker].count(200)


def join_race(url: str, a: ServerProcess, b: ServerProcess) -> Race:
    """A table with one open seat made on ``a``; ``a`` paused past its lease with a join of that seat queued
    (sent while it is stopped), ``b`` takes the table over and a second join of the seat arrives there; then ``a``
    resumes and answers its queued join."""
    made = httpx.post(f"{a.base}/api/tables", json=OPEN_SEAT, timeout=10)
    assert made.status_code == 200, made.text
    table_id = made.json()["id"]
    with ThreadPoolExecutor(1) as pool:
        try:
            before = lease_of(url, table_id)
            os.kill(a.pid(), signal.SIGSTOP)
            queued = pool.submit(httpx.post, f"{a.base}/api/tables/{table_id}/join?seat=0", timeout=PATIENCE * 2)
            wait_for(lambda: lease_of(url, table_id) not in (None, before), "the takeover")
            at_taker = httpx.post(f"{b.base}/api/tables/{table_id}/join?seat=0", timeout=PATIENCE)
        finally:
            os.kill(a.pid(), signal.SIGCONT)
        at_paused = queued.result(timeout=PATIENCE * 2)
    tokens = {answer.json()["link"].split("token=")[1] for answer in (at_paused, at_taker)
              if answer.status_code == 200}
    record = stored_record(url, table_id)
    assert record is not None
    return Race(at_paused.status_code, at_taker.status_code, record.seats[0].get("token") in tokens,
                at_paused.text[:300])


@dataclass
class Pause:
    """One pause of a table's owner with a move queued: the versions one client was shown, in order (across its
    reconnection to the taker); the moves stored, as the store numbers them; the answers the mover had."""

    shown: list[int] = field(default_factory=list)
    stored: list[int] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    @property
    def went_back(self) -> bool:
        """Was the client shown a version lower than one it was shown before?"""
        return any(v < max(self.shown[:i]) for i, v in enumerate(self.shown) if i)


def paused_move(url: str, a: ServerProcess, b: ServerProcess) -> Pause:
    """A table of two people made on ``a``, both seats' sockets on ``a``; ``a`` paused past its lease, and the
    seat to move sends its move meanwhile (it waits in the socket); ``b`` takes the table over; ``a`` resumes
    and reads the move. The mover's socket is read until ``a`` closes it (1012) or falls quiet, then the seat
    connects to ``b`` and reads the table there."""
    created = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).json()
    table_id, tokens = created["id"], seat_tokens(created)
    pause = Pause()
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(f"{a.ws_base}/ws/{table_id}?token={token}", open_timeout=10))
                   for token in tokens]
        first = [_next_state(ws) for ws in sockets]
        seat = next(i for i, state in enumerate(first) if state["legal"])
        pause.shown.append(first[seat]["version"])
        try:
            pause_past_lease(url, table_id, a)
            sockets[seat].send(json.dumps({"type": "move", "version": first[seat]["version"],
                                           "action": first[seat]["legal"][0]["action"]}))
        finally:
            os.kill(a.pid(), signal.SIGCONT)
        _read_until_quiet(sockets[seat], pause)
    with connect(f"{b.ws_base}/ws/{table_id}?token={tokens[seat]}", open_timeout=10) as again:
        pause.shown.append(_next_state(again)["version"])
    pause.stored = [n for n, _, _ in stored_moves_numbered(url, table_id)]
    return pause


def _next_state(ws: ClientConnection) -> dict[str, Any]:
    """The next ``state`` message of ``ws``."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=PATIENCE))
        if message["type"] == "state":
            return message


def _read_until_quiet(ws: ClientConnection, pause: Pause, quiet: float = 3.0) -> None:
    """Note every state version and error code ``ws`` is sent until it is closed or quiet for ``quiet`` s."""
    while True:
        try:
            message = json.loads(ws.recv(timeout=quiet))
        except (TimeoutError, ConnectionClosed):
            return
        if message["type"] == "state":
            pause.shown.append(message["version"])
        elif message["type"] == "error":
            pause.answers.append(message["code"])


def test_a_join_queued_at_a_paused_owner_and_one_at_the_taker_give_the_seat_once(postgres: Any) -> None:
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=TTL).start()
    b = ServerProcess(url, lease_ttl=TTL).start()
    try:
        race = join_race(url, a, b)
        assert race.taker == 200, race
        assert race.given == 1 and race.stored_is_given, race
        assert race.paused == 409, race  # answered by the taker, through the old owner: the seat is claimed
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


def test_a_move_queued_at_a_paused_owner_is_not_stored_and_no_version_goes_back(postgres: Any) -> None:
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=TTL).start()
    b = ServerProcess(url, lease_ttl=TTL).start()
    try:
        pause = paused_move(url, a, b)
        assert not pause.went_back, pause
        assert pause.stored == [], pause  # the move was made while b held the lease: refused
        assert pause.shown == [0] * len(pause.shown), pause
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


def test_a_decline_queued_at_a_paused_owner_is_answered_by_the_taker(postgres: Any) -> None:
    """A table of two invited people made on ``a``; ``a`` paused past its lease with seat 1's decline queued; ``b``
    takes the table over; ``a`` resumes: its write of the seats, under the lease it lost, is refused, and the
    decline is forwarded to ``b`` and made there (200, not a store error): the stored seat is open and its old
    link is gone."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=TTL).start()
    b = ServerProcess(url, lease_ttl=TTL).start()
    try:
        made = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10)
        assert made.status_code == 200, made.text
        table_id, tokens = made.json()["id"], seat_tokens(made.json())
        with ThreadPoolExecutor(1) as pool:
            try:
                before = lease_of(url, table_id)
                os.kill(a.pid(), signal.SIGSTOP)
                queued = pool.submit(httpx.post, f"{a.base}/api/tables/{table_id}/decline",
                                     json={"token": tokens[1]}, timeout=PATIENCE * 2)
                wait_for(lambda: lease_of(url, table_id) not in (None, before), "the takeover")
            finally:
                os.kill(a.pid(), signal.SIGCONT)
            answer = queued.result(timeout=PATIENCE * 2)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"id": table_id, "seat": 1, "open": True}
        record = stored_record(url, table_id)
        assert record is not None and record.seats[1].get("open") is True
        assert record.seats[1].get("token") != tokens[1]
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)
