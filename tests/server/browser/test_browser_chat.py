"""The table's chat in a real browser (Playwright with Debian's Chromium): two people and a spectator at one table,
at desktop and phone size. A line said by one seat reaches the other and the spectator as text (markup stays
text); a quick reaction is one press; a reload shows the lines again; muting hides a writer's lines in this browser
only; a spectator writes only where the table lets spectators write; the unread count is on the Chat button."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser, Page, ViewportSize, expect

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "chat.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running


def make_table(server: ServerThread, **settings: Any) -> tuple[str, list[str]]:
    """A Fool! table of Ann, Bob and two bots; its id and Ann's and Bob's links."""
    body = {"game": "fool", "players": 4, "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"},
                                                     {"kind": "bot"}, {"kind": "bot"}], **settings}
    made = httpx.post(f"{server.base}/api/tables", json=body, headers={"Origin": server.base}).json()
    return made["id"], [server.base + made["seats"][seat]["link"] for seat in (0, 1)]


def open_chat(browser: Browser, url: str, viewport: ViewportSize) -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(20_000)
    page.goto(url)
    page.get_by_role("button", name="Chat").click()
    expect(page.get_by_role("log", name="Messages")).to_be_visible()
    return page


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_people_and_a_spectator_chat(server: ServerThread, browser: Browser, viewport: ViewportSize,
                                         shots: Path) -> None:
    table, (ann_link, bob_link) = make_table(server)
    ann = open_chat(browser, ann_link, viewport)
    bob = open_chat(browser, bob_link, viewport)
    watcher = open_chat(browser, f"{server.base}/table/{table}", viewport)
    expect(watcher.get_by_text("At this table only the players write in the chat.")).to_be_visible()
    expect(watcher.get_by_role("textbox", name="Message")).to_have_count(0)

    ann.get_by_role("textbox", name="Message").fill("hello <b>Bob</b>")
    ann.get_by_role("button", name="Send").click()
    for page in (bob, watcher):
        expect(page.get_by_role("log", name="Messages")).to_contain_text("Ann: hello <b>Bob</b>")
        assert page.locator("#chat b", has_text="Bob").count() == 0, "markup in a message stays text"
    expect(ann.get_by_role("log", name="Messages")).to_contain_text("You: hello <b>Bob</b>")
    expect(ann.get_by_role("textbox", name="Message")).to_have_value("")

    bob.get_by_role("group", name="Quick reactions").get_by_role("button", name="Good luck").click()
    expect(ann.get_by_role("log", name="Messages")).to_contain_text("Bob: Good luck")
    ann.screenshot(path=str(shots / f"chat-{'phone' if viewport is PHONE else 'desktop'}.png"))

    bob.get_by_role("button", name="Mute Ann").click()
    expect(bob.get_by_role("log", name="Messages")).not_to_contain_text("hello")
    expect(bob.get_by_text("1 message from muted people hidden.")).to_be_visible()
    expect(watcher.get_by_role("log", name="Messages")).to_contain_text("hello")  # muting is the reader's own

    watcher.get_by_role("button", name="Chat").click()  # the panel shut: lines said now are counted
    ann.get_by_role("textbox", name="Message").fill("anyone watching?")
    ann.get_by_role("textbox", name="Message").press("Enter")
    expect(watcher.get_by_role("button", name="Chat (1 new)")).to_be_visible()

    bob.reload()
    bob.get_by_role("button", name="Chat").click()
    log = bob.get_by_role("log", name="Messages")
    expect(log).to_contain_text("You: Good luck")
    expect(log).not_to_contain_text("anyone watching")  # Ann stays muted after a reload
    bob.get_by_role("button", name="Hear Ann").click()
    expect(log).to_contain_text("Ann: anyone watching?")
    for page in (ann, bob, watcher):
        page.context.close()


def test_a_spectator_writes_where_the_table_lets_spectators_write(server: ServerThread, browser: Browser) -> None:
    table, (ann_link, _bob_link) = make_table(server, spectator_chat=True)
    ann = open_chat(browser, ann_link, DESKTOP)
    watcher = open_chat(browser, f"{server.base}/table/{table}", DESKTOP)
    watcher.get_by_role("textbox", name="Message").fill("nice table")
    watcher.get_by_role("button", name="Send").click()
    expect(ann.get_by_role("log", name="Messages")).to_contain_text("Spectator: nice table")
    for page in (ann, watcher):
        page.context.close()


def test_the_friends_form_lets_spectators_write(server: ServerThread, browser: Browser) -> None:
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{server.base}/#friends/fool")
    page.get_by_role("button", name="Create table").wait_for()
    page.locator("#table-options > summary").click()
    box = page.get_by_role("checkbox", name="Spectators may write in the table's chat")
    expect(box).not_to_be_checked()
    box.check()
    expect(page.locator("#differs")).to_contain_text("spectators chat")
    with page.expect_request(lambda r: r.url.endswith("/api/tables") and r.method == "POST") as sent:
        page.get_by_role("button", name="Create table").click()
    body = sent.value.post_data_json
    assert body is not None and body["spectator_chat"] is True
    page.context.close()
