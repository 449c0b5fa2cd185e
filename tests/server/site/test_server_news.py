"""The news channel (``motley.server.site.news``): in one process (``LocalNews``) and across processes over PostgreSQL's
LISTEN/NOTIFY (``PostgresNews``; two channels opened on one database stand for two server processes), including a
PostgreSQL restart under a listener."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from motley.server.site.news import LocalNews, Message, News, NewsUnavailable, PostgresNews, Subscription, open_news
from tests.postgres import PostgresServer

#: Seconds within which a published message must have arrived.
BOUND = 2.0



def on_both(kind: str, postgres_url: str | None, test: Callable[[News, News], Awaitable[None]]) -> None:
    """Run ``test(a, b)`` with two started channels of one site: two ``PostgresNews`` on one database, or one
    ``LocalNews`` twice (one process)."""
    async def run() -> None:
        a: News
        b: News
        if kind == "local":
            a = b = LocalNews()
        else:
            assert postgres_url is not None
            a, b = PostgresNews(postgres_url, check_every=0.5), PostgresNews(postgres_url, check_every=0.5)
        await a.start()
        await b.start()
        try:
            await test(a, b)
        finally:
            await a.close()
            await b.close()
    asyncio.run(run())


@pytest.fixture(params=["local", "postgresql"])
def site(request: pytest.FixtureRequest) -> Any:
    """``(kind, url)``: the channel to test, with a fresh database for PostgreSQL."""
    if request.param == "local":
        yield "local", None
        return
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.create_database()
    yield "postgresql", url
    server.drop_database(url)


def test_a_message_published_by_one_process_reaches_every_subscriber_of_its_topic_in_order(
        site: tuple[str, str | None]) -> None:
    async def test(a: News, b: News) -> None:
        there, here, other = b.subscribe("lobby"), a.subscribe("lobby"), b.subscribe("quotas")
        sent = [{"table": f"t{n}", "event": "created"} for n in range(50)]
        started = time.monotonic()
        for payload in sent:
            await a.publish("lobby", payload)
        for subscription in (there, here):
            got = [await subscription.get(timeout=BOUND) for _ in sent]
            assert got == [Message("lobby", p) for p in sent]
        assert time.monotonic() - started < BOUND
        with pytest.raises(TimeoutError):
            await other.get(timeout=0.2)  # another topic heard nothing
    on_both(*site, test)


def test_a_closed_subscription_ends_and_hears_no_more(site: tuple[str, str | None]) -> None:
    async def test(a: News, b: News) -> None:
        async with b.subscribe("lobby") as subscription:
            await a.publish("lobby", 1)
            assert (await subscription.get(timeout=BOUND)).payload == 1
        await a.publish("lobby", 2)
        assert [m async for m in subscription] == []
    on_both(*site, test)


@pytest.mark.parametrize(("topic", "payload", "says"), [
    ("", 1, "topic"), ("x" * 65, 1, "topic"), ("lobby", float("nan"), "JSON"), ("lobby", {1, 2}, "JSON"),
    ("lobby", "x" * 8000, "at most 7999 bytes")])
def test_a_bad_message_is_refused_by_name_and_nothing_is_sent(
        site: tuple[str, str | None], topic: str, payload: Any, says: str) -> None:
    async def test(a: News, b: News) -> None:
        subscription = b.subscribe("lobby")
        with pytest.raises(ValueError, match=says):
            await a.publish(topic, payload)
        await a.publish("lobby", "after")
        assert (await subscription.get(timeout=BOUND)).payload == "after"
    on_both(*site, test)


def test_open_news_fits_the_store(postgres: PostgresServer, tmp_path: Any) -> None:
    assert isinstance(open_news(str(tmp_path / "x.db")), LocalNews)
    assert isinstance(open_news(postgres.url()), PostgresNews)


async def _next(subscription: Subscription, want: Callable[[Message], bool]) -> Message:
    while True:
        message = await subscription.get(timeout=BOUND * 5)
        if want(message):
            return message


def test_after_a_postgresql_restart_the_listener_reconnects_says_so_and_news_flows_again(
        postgres: PostgresServer) -> None:
    url = postgres.create_database()

    async def run() -> None:
        a = PostgresNews(url, check_every=0.5, retry_max=0.2)
        b = PostgresNews(url, check_every=0.5, retry_max=0.2)
        await a.start()
        await b.start()
        subscription = b.subscribe("lobby")
        await a.publish("lobby", "before")
        assert (await subscription.get(timeout=BOUND)).payload == "before"
        await asyncio.to_thread(postgres.stop, "fast")
        try:
            with pytest.raises(NewsUnavailable, match="lobby"):
                await a.publish("lobby", "while down")
        finally:
            await asyncio.to_thread(postgres.start)
        gap = await subscription.get(timeout=BOUND * 5)
        assert gap == Message("lobby", None, gap=True) and b.reconnects == 1
        await a.publish("lobby", "after")  # its sending connection was lost too: opened again
        assert (await _next(subscription, lambda m: not m.gap)).payload == "after"
        await a.close()
        await b.close()

    try:
        asyncio.run(run())
    finally:
        postgres.drop_database(url)
