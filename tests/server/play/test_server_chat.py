"""A table's chat: seats say things and everyone at the table reads them; spectators write only where the table's
``spectator_chat`` setting lets them; text is cleaned of control and format characters and capped; each connection
is held to a rate; the lines are kept with the table in the store, so a new server over the same store (a restart,
a reload) sends them again on connecting; a line the store refuses is sent to nobody."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from motley.server.play import protocol
from motley.server.play.bodies import table_request
from motley.server.play.chat import CHAT_BURST, CHAT_KEPT, CHAT_RATE
from motley.server.play.live import LiveTable
from motley.server.play.service import Service
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from tests.support import FakeClock, Viewer

PEOPLE = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


def request(**settings: Any) -> dict[str, Any]:
    return {"game": "fool", "players": 4, "seats": PEOPLE + [{"kind": "bot", "bot": "heuristic"}] * 2, **settings}


def say(text: Any) -> str:
    return json.dumps({"type": "chat", "text": text})


def chats(viewer: Viewer) -> list[dict[str, Any]]:
    return [m for m in viewer.messages if m["type"] == "chat"]


def errors(viewer: Viewer) -> list[str]:
    return [m["code"] for m in viewer.messages if m["type"] == "error"]


def run(url: str, body: Callable[[Service], Coroutine[Any, Any, None]], clock: FakeClock | None = None) -> None:
    async def main() -> None:
        service = Service(Storage(url), Settings(bot_delay=0.0), idle_close=None, clock=clock or FakeClock())
        try:
            await body(service)
        finally:
            await service.close()

    asyncio.run(main())


def seated(live: LiveTable) -> tuple[Viewer, Viewer, Viewer]:
    """Ann's and Bob's pages and a spectator's, attached."""
    ann, bob, watcher = Viewer(0), Viewer(1), Viewer(None)
    for viewer in (ann, bob, watcher):
        live.attach(viewer)
    return ann, bob, watcher


def test_a_seat_speaks_to_everyone_and_the_lines_outlive_the_server(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'chat.db'}"
    made: list[str] = []

    async def first(service: Service) -> None:
        live = await service.create(table_request(request()), seed=3)
        made.append(live.id)
        ann, bob, watcher = seated(live)
        await live.submit(ann, say("hello <b>all</b>"))
        await live.submit(bob, say("hi Ann"))
        for viewer in (ann, bob, watcher):
            assert [(m["seat"], m["name"], m["text"]) for m in chats(viewer)] == [
                (0, "Ann", "hello <b>all</b>"), (1, "Bob", "hi Ann")], "text as said, for the page to show as text"
            assert [m["number"] for m in chats(viewer)] == [1, 2]
        assert not errors(ann) and not errors(bob)

    async def again(service: Service) -> None:
        live = await service.get(made[0])
        assert live is not None
        log = await live.chat.log_message()
        assert [(line["number"], line["name"], line["text"]) for line in log["lines"]] == [
            (1, "Ann", "hello <b>all</b>"), (2, "Bob", "hi Ann")]
        ann = Viewer(0)
        live.attach(ann)
        await live.submit(ann, say("back again"))
        assert chats(ann)[-1]["number"] == 3, "numbering goes on from the stored lines"

    run(url, first)
    run(url, again)


@pytest.mark.parametrize("allowed", [False, True])
def test_spectators_write_only_where_the_table_lets_them(tmp_path: Path, allowed: bool) -> None:
    async def body(service: Service) -> None:
        live = await service.create(table_request(request(spectator_chat=allowed)), seed=4)
        ann, _bob, watcher = seated(live)
        await live.submit(watcher, say("nice play"))
        if allowed:
            assert [(m["seat"], m["name"]) for m in chats(ann)] == [(None, "Spectator")]
        else:
            assert errors(watcher) == ["chat_off"] and chats(ann) == [] and chats(watcher) == []

    run(f"sqlite:///{tmp_path / 'spectators.db'}", body)


def test_text_is_cleaned_and_bad_text_refused_with_nothing_said(tmp_path: Path) -> None:
    async def body(service: Service) -> None:
        live = await service.create(table_request(request()), seed=5)
        ann, bob, _watcher = seated(live)
        await live.submit(ann, say("  gg\n\u202ewell\u200b played\x07  "))
        assert chats(bob)[-1]["text"] == "gg well played", "line breaks, bidi overrides and controls are spaces"
        await live.submit(ann, say("\U0001F468\u200d\U0001F469"))  # an emoji joined by a zero-width joiner stays whole
        assert chats(bob)[-1]["text"] == "\U0001F468\u200d\U0001F469"
        for bad in ("", "   \n\t", None, 42, ["hi"], "x" * (protocol.MAX_CHAT + 1)):
            await live.submit(ann, say(bad))
        assert errors(ann) == ["malformed"] * 5 + ["too_large"]
        assert len(chats(bob)) == 2, "nothing refused was said"

    run(f"sqlite:///{tmp_path / 'clean.db'}", body)


def test_each_connection_is_held_to_its_rate(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)

    async def body(service: Service) -> None:
        live = await service.create(table_request(request()), seed=6)
        ann, bob, _watcher = seated(live)
        for i in range(CHAT_BURST + 1):
            await live.submit(ann, say(f"line {i}"))
        assert errors(ann) == ["chat_limited"] and len(chats(bob)) == CHAT_BURST
        await live.submit(bob, say("my turn to speak"))
        assert len(chats(bob)) == CHAT_BURST + 1, "another seat has its own rate"
        clock.advance(1.0 / CHAT_RATE)
        await live.submit(ann, say("after a pause"))
        assert chats(bob)[-1]["text"] == "after a pause"

    run(f"sqlite:///{tmp_path / 'rate.db'}", body, clock)


def test_a_line_the_store_refuses_is_sent_to_nobody(tmp_path: Path) -> None:
    class Refusing(Storage):
        def add_chat_line(self, table_id: str, line: dict[str, Any]) -> None:
            raise OSError("disk full")

    async def main() -> None:
        service = Service(Refusing(f"sqlite:///{tmp_path / 'refused.db'}"), Settings(bot_delay=0.0), idle_close=None)
        try:
            live = await service.create(table_request(request()), seed=7)
            ann, bob, _watcher = seated(live)
            await live.submit(ann, say("can you hear me"))
            assert errors(ann) == ["not_stored"] and chats(ann) == [] and chats(bob) == []
            assert (await live.chat.log_message())["lines"] == []
        finally:
            await service.close()

    asyncio.run(main())


def test_a_table_keeps_its_last_lines_in_memory(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)

    async def body(service: Service) -> None:
        live = await service.create(table_request(request()), seed=8)
        ann = Viewer(0)
        live.attach(ann)
        for i in range(CHAT_KEPT + 3):
            clock.advance(1.0 / CHAT_RATE)
            await live.submit(ann, say(f"line {i}"))
        lines = (await live.chat.log_message())["lines"]
        assert [line["number"] for line in lines] == list(range(4, CHAT_KEPT + 4))

    run(f"sqlite:///{tmp_path / 'kept.db'}", body, clock)


class Counting(Storage):
    """A store that counts its reads of chat lines."""

    reads = 0

    def chat_lines(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        type(self).reads += 1
        return super().chat_lines(table_id, limit)


def test_a_new_table_reads_no_chat_and_a_stored_one_reads_it_once_for_many_connections(tmp_path: Path) -> None:
    """A table just made has no lines: its connections are sent an empty log without a read of the store (a
    table's first connections come all at once, and each read waits its turn in the store's one thread); a table
    loaded from the store reads its lines once, however many connections ask for them meanwhile."""
    url = f"sqlite:///{tmp_path / 'reads.db'}"
    made: list[str] = []

    async def first(service: Service) -> None:
        live = await service.create(table_request(request()), seed=9)
        made.append(live.id)
        logs = await asyncio.gather(*(live.chat.log_message() for _ in range(4)))
        assert [log["lines"] for log in logs] == [[]] * 4 and Counting.reads == 0
        ann = Viewer(0)
        live.attach(ann)
        await live.submit(ann, say("kept"))
        assert Counting.reads == 0

    async def again(service: Service) -> None:
        live = await service.get(made[0])
        assert live is not None
        logs = await asyncio.gather(*(live.chat.log_message() for _ in range(4)))
        assert [[line["text"] for line in log["lines"]] for log in logs] == [["kept"]] * 4
        assert Counting.reads == 1

    for body in (first, again):
        async def main(body: Callable[[Service], Coroutine[Any, Any, None]] = body) -> None:
            service = Service(Counting(url), Settings(bot_delay=0.0), idle_close=None, clock=FakeClock())
            try:
                await body(service)
            finally:
                await service.close()

        asyncio.run(main())
