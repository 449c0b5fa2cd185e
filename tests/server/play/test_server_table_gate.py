"""Making tables within bounds: a rematch made once per table and stored, whatever restarts and however many ask
at once; rematch tables counted in the asker's quota of unfinished tables; a rate of table creation per client
address (a token bucket: 429 with ``Retry-After`` beyond its burst), whose idle buckets are forgotten."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from motley.cli.main import app as cli_app
from motley.server.play.bodies import table_request
from motley.server.play.limits import Limits, TableGate, TablesRefused
from motley.server.play.live import LiveTable
from motley.server.play.service import Service
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.web.testing import ServerThread
from tests.postgres import execute
from tests.support import store_random_match

#: Two people and two bots, one deal: a short match.
FOUR = {"game": "fool", "players": 4, "options": {"rounds": 1}, "summary_wait": 0,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "heuristic"},
                  {"kind": "human", "name": "Bob"}, {"kind": "bot", "bot": "random"}]}
HUMANS = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stored_finished(storage: Storage, seed: int) -> tuple[str, list[str]]:
    """A finished match of :data:`FOUR` stored in ``storage`` (as a server stores it: header, moves, result);
    returns its id and the tokens of its person seats (Ann's, Bob's)."""
    table = store_random_match(storage, FOUR, seed)
    return table.id, [s.token or "" for s in table.seats if s.kind == "human"]


def table_count(url: str) -> int:
    return int(execute(url, ("SELECT count(*) FROM motley_tables", {}))[0][0][0])


def in_services(url: str, count: int, test: Callable[[list[Service]], Coroutine[Any, Any, None]]) -> None:
    """Run ``test`` with ``count`` services over the store at ``url`` (as that many servers, or one server
    restarted), closed after."""
    async def body() -> None:
        services = [Service(Storage(url), Settings(bot_delay=0.0)) for _ in range(count)]
        try:
            await test(services)
        finally:
            for service in services:
                await service.close()

    asyncio.run(body())


async def finished(service: Service, table_id: str) -> LiveTable:
    live = await service.get(table_id)
    assert live is not None and live.table.state.is_terminal()
    return live


# ---- a rematch once per table, stored ------------------------------------------------------------------------
def test_a_rematch_asked_for_after_restarts_is_the_one_made_before(store_url: str) -> None:
    path = store_url
    storage = Storage(path)
    old, (ann, bob) = stored_finished(storage, seed=5)
    storage.close()
    made: list[str] = []

    async def first(services: list[Service]) -> None:
        new = await services[0].rematch(await finished(services[0], old), ann)
        made.append(new.id)
        await services[0].decline(new, new.table.seats[2].token or "")  # Bob declines his seat

    in_services(path, 1, first)
    for token in (ann, bob, ann, bob):  # each time a new server over the same store: the old table is not in memory

        async def again(services: list[Service], token: str = token) -> None:
            live = await finished(services[0], old)
            new = await services[0].rematch(live, token)
            assert new.id == made[0]
            offer = live.rematch
            assert offer is not None and (offer.offered_by, offer.declined) == (0, [2]), "the stored offer"
            assert live.rematch_message(0)["link"] == f"/table/{new.id}?token={new.table.seats[0].token}"

        in_services(path, 1, again)
    assert table_count(path) == 2, "the old table and one rematch"


def test_a_finished_table_loaded_after_a_restart_shows_its_stored_rematch(store_url: str) -> None:
    path = store_url
    storage = Storage(path)
    old, (ann, _bob) = stored_finished(storage, seed=7)
    storage.close()
    made: list[str] = []

    async def first(services: list[Service]) -> None:
        made.append((await services[0].rematch(await finished(services[0], old), ann)).id)

    async def after(services: list[Service]) -> None:
        live = await finished(services[0], old)  # nobody asks again: opening the old table shows the offer
        assert live.rematch is not None and live.rematch.table.id == made[0]
        assert live.rematch_message(2)["link"].startswith(f"/table/{made[0]}?token=")

    in_services(path, 1, first)
    in_services(path, 1, after)


def test_rematch_requests_at_once_make_one_table(store_url: str) -> None:
    path = store_url
    storage = Storage(path)
    old, (ann, bob) = stored_finished(storage, seed=6)
    storage.close()

    async def test(services: list[Service]) -> None:
        one, two = services  # two servers over one store, each asked twice at once (each a copy of the table)
        copies = [await finished(s, old) for s in (one, one, two, two)]
        asks = [s.rematch(live, token) for s, live, token in zip((one, one, two, two), copies, (ann, bob, bob, ann),
                                                                  strict=True)]
        made = await asyncio.gather(*asks)
        assert len({new.id for new in made}) == 1

    in_services(path, 2, test)
    assert table_count(path) == 2, "the old table and one rematch"


def test_an_older_store_gets_the_rematch_column(store_url: str) -> None:
    path = store_url
    storage = Storage(path)
    old, (ann, _) = stored_finished(storage, seed=7)
    storage.close()
    # as a database made before the column existed, and before migrations
    execute(path, ("ALTER TABLE motley_tables DROP COLUMN rematch", {}), ("DROP TABLE alembic_version", {}))

    async def test(services: list[Service]) -> None:
        new = await services[0].rematch(await finished(services[0], old), ann)
        assert await services[0].rematch(await finished(services[0], old), ann) is new

    in_services(path, 1, test)


# ---- rematches in the quota, and the rate of table creation ----------------------------------------------------
@pytest.fixture
def stored_server(tmp_path: Path) -> Iterator[Callable[..., tuple[ServerThread, list[tuple[str, str]]]]]:
    """A server with ``limits`` over a store holding ``finished`` finished matches (their ids and Ann's tokens)."""
    running: list[ServerThread] = []

    def start(limits: Limits, finished: int = 0) -> tuple[ServerThread, list[tuple[str, str]]]:
        db = f"sqlite:///{tmp_path}/gate-{len(running)}.db"
        storage = Storage(db)
        matches = [stored_finished(storage, seed) for seed in range(finished)]
        storage.close()
        server = ServerThread(db, bot_delay=0.0, limits=limits)
        running.append(server.__enter__())
        return server, [(table_id, tokens[0]) for table_id, tokens in matches]

    yield start
    for server in running:
        server.__exit__(None, None, None)


def create(server: ServerThread) -> httpx.Response:
    return httpx.post(f"{server.base}/api/tables", json=HUMANS, timeout=10)


def rematch(server: ServerThread, table_id: str, token: str) -> httpx.Response:
    return httpx.post(f"{server.base}/api/tables/{table_id}/rematch", json={"token": token}, timeout=10)


def test_rematch_tables_count_in_the_askers_quota_of_unfinished_tables(
        stored_server: Callable[..., tuple[ServerThread, list[tuple[str, str]]]]) -> None:
    server, matches = stored_server(Limits(tables_per_address=2), finished=3)
    first = rematch(server, *matches[0])
    assert first.status_code == 200, first.text
    assert create(server).status_code == 200
    tables = server.app.state.service.tables
    before = set(tables)
    over = rematch(server, *matches[1])  # the address has 2 unfinished tables, one of them a rematch
    refused = create(server)
    assert (over.status_code, refused.status_code) == (429, 429)
    assert over.json()["error"]["message"] == refused.json()["error"]["message"], "the same refusal as creating a table"
    assert set(tables) == before, "no table made"
    again = rematch(server, *matches[0])  # the rematch made already is answered whatever the quota
    assert (again.status_code, again.json()["id"]) == (200, first.json()["id"])


def test_creating_tables_beyond_the_burst_is_refused_until_the_bucket_refills(
        stored_server: Callable[..., tuple[ServerThread, list[tuple[str, str]]]]) -> None:
    limits = Limits(tables_per_minute=6.0, table_burst=3)
    server, matches = stored_server(limits, finished=1)
    clock = Clock()
    server.app.state.service.gate.clock = clock
    assert [create(server).status_code for _ in range(limits.table_burst)] == [200] * limits.table_burst
    tables = set(server.app.state.service.tables)
    refused = create(server)
    refused_rematch = rematch(server, *matches[0])  # a rematch is a table made too
    per_table = 60 / limits.tables_per_minute
    for answer in (refused, refused_rematch):
        assert answer.status_code == 429
        assert float(answer.headers["Retry-After"]) == pytest.approx(per_table)
    assert "too fast" in refused.json()["error"]["message"]
    assert set(server.app.state.service.tables) == tables, "no table made"
    clock.now += per_table / 2
    assert create(server).status_code == 429
    clock.now += per_table / 2
    assert rematch(server, *matches[0]).status_code == 200, "the bucket refilled one table"
    assert create(server).status_code == 429


def test_a_refused_table_takes_nothing_and_idle_addresses_are_forgotten() -> None:
    clock = Clock()
    limits = Limits(tables_per_address=2, tables_per_minute=60.0, table_burst=2)
    gate = TableGate(limits, clock)
    unfinished: set[str] = set()
    for n in range(2):
        gate.admit("a", unfinished.__contains__)
        gate.settle("a", f"t{n}")
        unfinished.add(f"t{n}")
    with pytest.raises(TablesRefused, match="unfinished") as quota:
        gate.admit("a", unfinished.__contains__)
    assert quota.value.retry_after is None
    unfinished.clear()  # its tables ended; its bucket is still empty
    with pytest.raises(TablesRefused, match="too fast") as rate:
        gate.admit("a", unfinished.__contains__)
    assert rate.value.retry_after == pytest.approx(1.0)
    assert rate.value.retry_header() == {"Retry-After": "1"}
    for n in range(5000):  # five thousand addresses, one table each, one a millisecond
        clock.now += 0.001
        gate.admit(f"10.0.{n // 256}.{n % 256}", unfinished.__contains__)
        gate.settle(f"10.0.{n // 256}.{n % 256}", None)
    full_again = limits.table_burst * 60 / limits.tables_per_minute
    assert len(gate.buckets) <= full_again / 0.001 + 1, "only the addresses of the last refill time are kept"
    clock.now += full_again
    gate.admit("b", unfinished.__contains__)
    assert list(gate.buckets) == ["b"], "every idle address's bucket was full again, and forgotten"


def test_serve_has_options_for_the_rate_of_tables_and_refuses_a_bad_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--tables-per-minute" in result.output and "--table-burst" in result.output
    db = f"sqlite:///{tmp_path}/never.db"
    for args in (["--tables-per-minute", "0"], ["--table-burst", "0"], ["--tables-per-minute", "-1"]):
        refused = CliRunner().invoke(cli_app, ["serve", "--db", db, *args])
        assert refused.exit_code == 2 and "must be a positive" in refused.output, (args, refused.output)
    assert not (tmp_path / "never.db").exists()


# ---- where the seeds come from -------------------------------------------------------------------------------
def test_tables_and_rematches_take_their_seeds_from_the_services_source(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'seeds.db'}"
    storage = Storage(url)
    old, (ann, _bob) = stored_finished(storage, seed=5)
    storage.close()
    drawn = iter([123_456_789, 987_654_321])

    async def body() -> None:
        service = Service(Storage(url), Settings(bot_delay=0.0), seeds=lambda: next(drawn))
        try:
            made = await service.create(table_request(HUMANS))
            assert made.table.record.seed == 123_456_789
            given = await service.create(table_request(HUMANS), seed=42)  # a caller's seed wins over the source
            assert given.table.record.seed == 42
            live = await service.get(old)
            assert live is not None
            rematch = await service.rematch(live, ann)
            assert rematch.table.record.seed == 987_654_321
        finally:
            await service.close()

    asyncio.run(body())
    assert Service(Storage("sqlite://"), Settings()).seed() is None, "by default each table draws its own seed"
