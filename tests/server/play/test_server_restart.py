"""A server killed mid-game (SIGKILL) and restarted resumes every table exactly (issue item 1), on SQLite and on
PostgreSQL; and a PostgreSQL restart under live tables loses and doubles no move."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from motley.server.web.testing import ServerProcess
from tests.postgres import PostgresServer, execute
from tests.support import children, seat_tokens


def state_of(ws_base: str, table_id: str, token: str | None) -> dict[str, Any]:
    url = f"{ws_base}/ws/{table_id}" + (f"?token={token}" if token else "")
    with connect(url, open_timeout=10) as ws:
        while True:
            message: dict[str, Any] = json.loads(ws.recv(timeout=10))
            if message["type"] == "state":
                return message


def play_moves(ws_base: str, table_id: str, tokens: list[str], count: int) -> int:
    """Make ``count`` moves (first legal move of the seat to move) through the seats' sockets."""
    sockets = [connect(f"{ws_base}/ws/{table_id}?token={t}", open_timeout=10).__enter__() for t in tokens]
    last: list[dict[str, Any]] = []
    for ws in sockets:
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "state":
                last.append(message)
                break
    made = 0
    while made < count and not last[0]["terminal"]:
        mover = last[0]["current_player"]
        legal = last[mover]["legal"]
        sockets[mover].send(json.dumps({"type": "move", "version": last[mover]["version"],
                                        "action": legal[made % len(legal)]["action"]}))
        made += 1
        for seat, ws in enumerate(sockets):
            while True:
                message = json.loads(ws.recv(timeout=10))
                if message["type"] == "state" and message["version"] == last[seat]["version"] + 1:
                    last[seat] = message
                    break
    for ws in sockets:
        ws.close()
    return made


def test_killed_server_resumes_unfinished_tables(store_url: str) -> None:
    db = store_url
    server = ServerProcess(db).start()
    try:
        games = [("fools_errand", 2), ("fool", 4), ("foolery", 3)]
        tables = []
        import motley

        for game, players in games:
            if game not in motley.registered_games():
                continue
            spec = {"game": game, "players": players, "seats": [{"kind": "human"}] * players}
            created = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
            tokens = seat_tokens(created)
            made = play_moves(server.ws_base, created["id"], tokens, 3)  # fewer if the match is already over
            before = [state_of(server.ws_base, created["id"], t) for t in tokens]
            before.append(state_of(server.ws_base, created["id"], None))
            tables.append((created["id"], tokens, before, made))
        server.kill()  # no clean shutdown
        server = ServerProcess(db, port=server.port).start()
        for table_id, tokens, before, made in tables:
            after = [state_of(server.ws_base, table_id, t) for t in tokens]
            after.append(state_of(server.ws_base, table_id, None))
            for old, new in zip(before, after, strict=True):
                assert new["version"] == old["version"] == made
                assert new["observation"] == old["observation"]
                assert new["legal"] == old["legal"]
                assert new["log"] == old["log"]
                assert new["terminal"] == old["terminal"]
            more = play_moves(server.ws_base, table_id, tokens, 2)  # and play goes on, if the match has moves left
            assert more == 2 or after[-1]["terminal"] or state_of(server.ws_base, table_id, None)["terminal"]
            assert state_of(server.ws_base, table_id, None)["version"] == made + more
    finally:
        server.stop()


def test_finished_table_replays_after_a_restart(store_url: str) -> None:
    db = store_url
    server = ServerProcess(db).start()
    try:
        spec = {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "human"}]}
        created = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
        tokens = seat_tokens(created)
        play_moves(server.ws_base, created["id"], tokens, 10_000)
        final = state_of(server.ws_base, created["id"], None)
        assert final["terminal"]
        server.stop()
        server = ServerProcess(db, port=server.port).start()
        record = httpx.get(f"{server.base}/api/tables/{created['id']}/record", timeout=10)
        assert record.status_code == 200
        assert json.loads(record.text)["result"]["scores"] == final["scores"]
        listed = {t["id"]: t for t in httpx.get(f"{server.base}/api/tables", timeout=10).json()}
        assert listed[created["id"]]["finished"] is True
        step = httpx.get(f"{server.base}/api/tables/{created['id']}/replay/{final['version']}", timeout=10).json()
        assert step["scores"] == final["scores"]
    finally:
        server.stop()


def stored_moves(path: str, table_id: str) -> list[tuple[int, int, str]]:
    """A table's stored moves ``(number, seat, move)``, read straight from the store at URL ``path``."""
    rows = execute(path, ("SELECT number, seat, move FROM motley_moves WHERE table_id = :id ORDER BY id",
                          {"id": table_id}))[0]
    return [(int(n), int(s), str(m)) for n, s, m in rows]


def test_a_server_killed_while_a_bot_searches_resumes_the_search_and_stores_no_move_twice(store_url: str) -> None:
    path = store_url
    server = ServerProcess(path).start()
    try:
        spec = {"game": "fool", "players": 4, "bot_delay": 0,
                "seats": [{"kind": "bot", "bot": "ismcts", "strength": 2000}] * 4}
        table_id = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()["id"]
        while len(stored_moves(path, table_id)) < 2:  # searches under way: each move is a long one
            time.sleep(0.05)
        workers = children(server.pid())
        assert workers, "the searches run in worker processes"
        server.kill()
        before = stored_moves(path, table_id)
        for _ in range(100):  # the workers of a killed server stop too (within a few seconds)
            if not any(Path(f"/proc/{pid}").exists() for pid in workers):
                break
            time.sleep(0.1)
        assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
        server = ServerProcess(path, port=server.port).start()
        deadline = time.monotonic() + 120
        while len(stored_moves(path, table_id)) < len(before) + 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        after = stored_moves(path, table_id)
        assert after[:len(before)] == before and len(after) >= len(before) + 2, "play went on after the restart"
        assert [number for number, _, _ in after] == list(range(1, len(after) + 1))  # none twice, none missing
        watched = state_of(server.ws_base, table_id, None)
        assert watched["version"] >= len(after) and not watched["terminal"]
    finally:
        server.stop()


def test_a_server_killed_during_a_move_timer_plays_the_timed_out_move_once_after_the_restart(store_url: str) -> None:
    path = store_url
    server = ServerProcess(path).start()
    try:
        spec = {"game": "fool", "players": 4, "move_time": 2, "seats": [{"kind": "human"}] * 4}
        table_id = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()["id"]
        time.sleep(0.5)  # the first seat's timer runs; nobody moves
        server.kill()
        assert stored_moves(path, table_id) == []
        server = ServerProcess(path, port=server.port).start()
        deadline = time.monotonic() + 60
        while not stored_moves(path, table_id) and time.monotonic() < deadline:
            time.sleep(0.1)
        watched = state_of(server.ws_base, table_id, None)
        moves = stored_moves(path, table_id)
        assert moves and [n for n, _, _ in moves] == list(range(1, len(moves) + 1))
        assert watched["log"][0]["actor"] == "timer" and watched["log"][0]["seat"] == moves[0][1]
    finally:
        server.stop()


class Mover:
    """The people of one table, one socket a seat: :meth:`move` plays the seat to move's first legal move and
    says whether the server acknowledged it (the table's next state) or refused it as ``not_stored``."""

    def __init__(self, ws_base: str, table_id: str, tokens: list[str]) -> None:
        links = [f"{ws_base}/ws/{table_id}?token={t}" for t in tokens]
        self.sockets: list[ClientConnection] = [connect(link, open_timeout=10).__enter__() for link in links]
        self.last = [self._latest(ws, None) for ws in self.sockets]
        #: The acknowledged moves ``(number, seat, move string)``, as the movers were told.
        self.acknowledged: list[tuple[int, int, str]] = []

    @staticmethod
    def _latest(ws: ClientConnection, first: dict[str, Any] | None, quiet: float = 0.2) -> dict[str, Any]:
        """The newest state a socket was sent once it has been quiet for ``quiet`` seconds (the forced moves
        that follow a move are played meanwhile)."""
        last = first
        while True:
            try:
                message: dict[str, Any] = json.loads(ws.recv(timeout=quiet if last else 20))
            except TimeoutError:
                assert last is not None
                return last
            if message["type"] == "state" and (last is None or message["version"] >= last["version"]):
                last = message

    def move(self) -> str:
        """One move of the seat to move: ``"ok"`` once acknowledged, ``"not_stored"`` if the store refused it,
        ``"stale"`` if the table had moved on meanwhile (a forced move played after a pause), then in step
        again."""
        newest = max(state["version"] for state in self.last)
        movers = [q for q, state in enumerate(self.last) if state["version"] == newest and state["legal"]]
        if not movers:  # a socket has not yet heard of the last change, or a forced move is under way
            self.last = [self._latest(sock, last, 1.0) for sock, last in zip(self.sockets, self.last, strict=True)]
            return "stale"
        seat = movers[0]
        version, choice = newest, self.last[seat]["legal"][0]
        ws = self.sockets[seat]
        ws.send(json.dumps({"type": "move", "version": version, "action": choice["action"]}))
        while True:
            answer: dict[str, Any] = json.loads(ws.recv(timeout=20))
            if answer["type"] == "error":
                assert answer["code"] in ("not_stored", "stale", "not_your_turn"), answer
                if answer["code"] != "not_stored":
                    self.last = [self._latest(sock, last) for sock, last in zip(self.sockets, self.last, strict=True)]
                    return "stale"
                return "not_stored"
            if answer["type"] == "state" and answer["version"] > version:
                break
        made = next(e for e in answer["log"] if e["n"] == version + 1)
        self.acknowledged.append((version + 1, seat, made["move"]))
        self.last = [self._latest(sock, answer if other == seat else None) for other, sock in enumerate(self.sockets)]
        return "ok"

    def close(self) -> None:
        for ws in self.sockets:
            ws.close()


def test_a_postgresql_restart_under_live_tables_refuses_moves_then_play_goes_on_with_no_move_lost_or_doubled(
        postgres: PostgresServer) -> None:
    url = postgres.create_database()
    server = ServerProcess(url, extra=["0.05"]).start()  # bots move every 50 ms
    try:
        people = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}
        created = httpx.post(f"{server.base}/api/tables", json=people, timeout=10).json()
        robots = {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4}
        bot_table = httpx.post(f"{server.base}/api/tables", json=robots, timeout=10).json()["id"]
        mover = Mover(server.ws_base, created["id"], seat_tokens(created))
        while len(mover.acknowledged) < 5:
            assert mover.move() != "not_stored"
        bots_before = len(stored_moves(url, bot_table))
        postgres.stop("fast")
        try:
            down = [outcome for outcome in (mover.move() for _ in range(6)) if outcome != "stale"][:3]
            time.sleep(1.5)  # the bots try meanwhile, and are refused
        finally:
            postgres.start()
        assert down == ["not_stored"] * 3, "a move the store did not take is refused as not_stored"
        deadline = time.monotonic() + 30
        while len(mover.acknowledged) < 10 and time.monotonic() < deadline:  # the people play on
            if mover.move() == "not_stored":
                time.sleep(0.2)
        while len(stored_moves(url, bot_table)) < bots_before + 5 and time.monotonic() < deadline:
            time.sleep(0.1)  # and so do the bots
        mover.close()
        assert len(mover.acknowledged) >= 10
        stored = stored_moves(url, created["id"])
        assert set(mover.acknowledged) <= set(stored), "every acknowledged move is stored"
        assert [n for n, _, _ in stored] == list(range(1, len(stored) + 1))  # none twice, none missing
        assert state_of(server.ws_base, created["id"], None)["version"] == len(stored)
        bot_moves = stored_moves(url, bot_table)
        assert len(bot_moves) >= bots_before + 5, "the bots played on after the restart"
        assert [n for n, _, _ in bot_moves] == list(range(1, len(bot_moves) + 1))  # none twice, none missing
        watched = state_of(server.ws_base, bot_table, None)
        assert watched["version"] >= len(bot_moves)
    finally:
        server.stop()
        postgres.drop_database(url)
