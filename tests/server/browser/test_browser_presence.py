"""People who come, go and lose the network, in a real browser (Playwright with Debian's Chromium), at Fool! with
short timers. A person who leaves is shown to the others in words with the countdown to their stand-in, the
stand-in is named while it plays, and the person told on their return what was played for them (screenshots of the
leaver at phone and desktop size). A move tapped while the browser is offline is kept, shown as such, and sent
once when the network is back (the time from the network's return to the move's acknowledgement is printed). After
two move timers in a row the stand-in plays for the person until they press "I'm back"; a countdown only on a
person's own turn."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        Page,
        Position,
        ViewportSize,
        WebSocket,
        WebSocketRoute,
        expect,
    )

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
#: The card a test taps: its top-left corner, which the fanned hand never covers.
CORNER: Position = {"x": 10, "y": 10}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "presence.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0, summary_wait=0.0, pace=0.0) as running:
        yield running


def make_table(server: ServerThread, people: int, **settings: Any) -> tuple[str, list[str]]:
    """A Fool! table of Ann (and Ben) and random bots; its id and the people's links."""
    names = ["Ann", "Ben"][:people]
    seats = [{"kind": "human", "name": n} for n in names] + [{"kind": "bot", "bot": "random"}] * (4 - people)
    body = {"game": "fool", "players": 4, "seats": seats, "bot_delay": 0.0, **settings}
    made = httpx.post(f"{server.base}/api/tables", json=body, timeout=10).json()
    return made["id"], [server.base + made["seats"][seat]["link"] for seat in range(people)]


def open_page(browser: Browser, url: str, viewport: ViewportSize = DESKTOP) -> Page:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.add_init_script("localStorage.setItem('motley-table-settings', JSON.stringify({trickPause: 0.3}))")
    page.set_default_timeout(20_000)
    page.goto(url)
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    return page


def state(page: Page) -> dict[str, Any]:
    return dict(page.evaluate("window.motleyTable.state()"))


def my_turn(page: Page) -> dict[str, Any]:
    """Wait until the page's person has a real decision to make; the page's decision (its version, legal moves)."""
    return dict(page.wait_for_function("() => window.motleyTable.decision()").json_value())


def tap(page: Page, move: dict[str, Any]) -> None:
    """Make ``move`` (one card) as a person does: press the card, then Play (unless the press played it)."""
    name = page.evaluate(f"document.querySelector('[data-card=\"{move['cards'][0]}\"]').getAttribute('aria-label')")
    cards = page.get_by_role("region", name="Your hand").get_by_role("group", name="Your cards")
    cards.get_by_role("button", name=name, exact=True).first.click(position=CORNER)
    play = page.get_by_role("button", name="Play", exact=True)
    if play.is_visible() and play.is_enabled():
        play.click()


def play_one(page: Page) -> None:
    """Ann plays her first legal one-card move and waits for the table to take it."""
    pending = my_turn(page)
    move = next(m for m in pending["legal"] if len(m["cards"]) == 1)
    tap(page, move)
    page.wait_for_function(f"() => window.motleyTable.state().version > {pending['version']}")


def played_by(page: Page, seat: int, actor: str) -> bool:
    return bool(page.evaluate(f"window.motleyTable.state().log.some(e => e.seat === {seat} && e.actor === '{actor}')"))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_leaver_is_shown_in_words_and_told_on_return_what_was_played(server: ServerThread, browser: Browser,
                                                                        viewport: ViewportSize, shots: Path) -> None:
    _, (ann_link, ben_link) = make_table(server, 2, grace=3)
    ann = open_page(browser, ann_link, viewport)
    ben = open_page(browser, ben_link, viewport)
    expect(ann.locator("[data-seat='1'] .seat-conn")).to_have_text("online")
    ben.context.close()  # Ben leaves
    lost = re.compile(r"Ben lost the connection: the heuristic bot plays for them in [123] s")
    expect(ann.get_by_text(lost).first).to_be_visible()
    expect(ann.locator("[data-seat='1'] .seat-conn")).to_have_text(re.compile(r"(offline: )?bot in [123]s"))
    expect(ann.locator("[data-seat='1'] .seat-conn")).to_be_visible()
    assert ann.evaluate("(() => { const e = document.querySelector(\"[data-seat='1'] .seat-conn\"); "
                        "return e.scrollWidth <= e.clientWidth; })()"), "the seat's words fit the seat"
    size = "phone" if viewport is PHONE else "desktop"
    ann.screenshot(path=str(shots / f"presence-leaver-{size}.png"))
    expect(ann.get_by_text("Ben is away: the heuristic bot plays for them.")).to_be_visible(timeout=8_000)
    expect(ann.locator("[data-seat='1'] .seat-conn")).to_have_text(re.compile(r"(away: )?bot plays"))
    deadline = time.monotonic() + 60
    while not played_by(ann, 1, "away"):  # Ann plays on until the stand-in has played for Ben
        assert time.monotonic() < deadline, "the stand-in never played for Ben"
        if ann.evaluate("!!window.motleyTable.decision()"):
            play_one(ann)
        else:
            ann.wait_for_timeout(200)
    ben = open_page(browser, ben_link, viewport)  # Ben comes back
    note = ben.locator("#played-for-you")
    expect(note).to_contain_text(re.compile(r"While you were away, the heuristic bot played \d+ moves? for you: "))
    expect(note).to_be_visible()
    ben.screenshot(path=str(shots / f"presence-returned-{size}.png"))
    expect(ann.get_by_text(lost)).to_have_count(0)
    expect(ann.locator("#presence")).to_have_count(0)
    ben.get_by_role("button", name="OK").click()
    expect(note).to_have_count(0)
    ann.context.close()
    ben.context.close()


def test_a_move_tapped_offline_is_kept_and_sent_once_when_back(server: ServerThread, browser: Browser) -> None:
    _, (link,) = make_table(server, 1)
    ann = open_page(browser, link)
    frames: list[dict[str, Any]] = []

    def watch(ws: WebSocket) -> None:
        ws.on("framesent", lambda payload: frames.append(json.loads(payload)))

    ann.on("websocket", watch)
    ann.reload()  # from now on every frame the page sends is seen
    pending = my_turn(ann)
    context: BrowserContext = ann.context
    context.set_offline(True)
    expect(ann.locator("#conn")).to_have_text("Connection lost, reconnecting...")
    expect(ann.get_by_role("status").filter(has_text="Connection lost, reconnecting...").first).to_be_visible()
    move = next(m for m in pending["legal"] if len(m["cards"]) == 1)
    tap(ann, move)
    expect(ann.get_by_text("Your move is kept and will be sent when the connection is back.")).to_be_visible()
    ann.wait_for_timeout(1000)
    assert state(ann)["version"] == pending["version"]
    assert not [f for f in frames if f.get("type") == "move"], "nothing is sent while offline"
    back = time.monotonic()
    context.set_offline(False)
    ann.wait_for_function(f"() => window.motleyTable.state().log.some(e => e.n === {pending['version'] + 1})",
                          timeout=15_000)
    took = time.monotonic() - back
    entry = next(e for e in state(ann)["log"] if e["n"] == pending["version"] + 1)
    assert entry["seat"] == 0 and entry["actor"] == "seat" and entry["move"] == move["move"]
    moves = [f for f in frames if f.get("type") == "move"]
    assert moves == [{"type": "move", "version": pending["version"], "action": move["action"]}], "sent once"
    expect(ann.locator("#conn")).to_have_text("connected")
    expect(ann.locator("#error")).to_have_text("")
    print(f"network back -> move acknowledged: {took:.2f} s")
    context.close()


def test_a_socket_gone_silent_is_noticed_and_its_move_sent_again_once(server: ServerThread,
                                                                      browser: Browser) -> None:
    _, (link,) = make_table(server, 1)
    sockets: list[WebSocketRoute] = []
    silent = {"on": False}  # the first socket drops everything both ways (a network that died without a word)

    def route(ws: WebSocketRoute) -> None:
        first = not sockets
        sockets.append(ws)
        to_server = ws.connect_to_server()
        ws.on_message(lambda m: None if first and silent["on"] else to_server.send(m))
        to_server.on_message(lambda m: None if first and silent["on"] else ws.send(m))

    context = browser.new_context(viewport=DESKTOP)
    ann = context.new_page()
    ann.set_default_timeout(20_000)
    ann.route_web_socket(re.compile(r"/ws/"), route)
    ann.goto(link)
    pending = my_turn(ann)
    silent["on"] = True
    move = next(m for m in pending["legal"] if len(m["cards"]) == 1)
    tap(ann, move)  # sent on the silent socket: lost
    expect(ann.locator("#conn")).to_have_text("Connection lost, reconnecting...", timeout=12_000)  # a ping unanswered
    ann.wait_for_function(f"() => window.motleyTable.state().log.some(e => e.n === {pending['version'] + 1})",
                          timeout=15_000)
    assert len(sockets) == 2, "one new socket"
    entry = next(e for e in state(ann)["log"] if e["n"] == pending["version"] + 1)
    assert entry["seat"] == 0 and entry["actor"] == "seat" and entry["move"] == move["move"]
    expect(ann.locator("#conn")).to_have_text("connected")
    expect(ann.locator("#error")).to_have_text("")
    context.close()


def test_after_two_expiries_the_stand_in_plays_until_the_person_is_back(server: ServerThread,
                                                                        browser: Browser) -> None:
    _, (link,) = make_table(server, 1, move_time=2, bot_delay=1)  # the stand-in plays for Ann 1 s into her turn
    ann = open_page(browser, link)
    expect(ann.locator("#status")).to_contain_text(re.compile(r"\d+s left"))  # Ann's own turn: a countdown
    expect(ann.locator("#played-for-you")).to_contain_text(
        re.compile(r"Your time ran out: the heuristic bot played \d+ moves? for you: "), timeout=10_000)
    idle = ann.get_by_text("Your time ran out: the heuristic bot plays for you until you are back.")
    expect(idle).to_be_visible(timeout=10_000)
    ann.wait_for_function("() => window.motleyTable.state().log.some(e => e.seat === 0 && e.actor === 'idle')",
                          timeout=10_000)
    assert not re.search(r"\d+s left", ann.locator("#status").inner_text())  # nobody's countdown now
    ann.get_by_role("button", name="I'm back").click()
    expect(idle).to_have_count(0)
    expect(ann.locator("#status")).to_contain_text(re.compile(r"Your turn - \d+s left"), timeout=10_000)
    ann.context.close()


@pytest.mark.parametrize(("typed", "sent"), [("3", 3), ("", None)])
def test_the_friends_form_sets_the_timers_before_a_stand_in(server: ServerThread, browser: Browser, typed: str,
                                                            sent: int | None) -> None:
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{server.base}/#friends/fool")
    page.get_by_role("button", name="Create table").wait_for()
    page.locator("#table-options > summary").click()
    field = page.get_by_role("spinbutton", name="Timers run out in a row before a bot plays for the person")
    expect(field).to_have_value("2")  # the server's default
    field.fill(typed)
    with page.expect_request(lambda r: r.url.endswith("/api/tables") and r.method == "POST") as made:
        page.get_by_role("button", name="Create table").click()
    body = made.value.post_data_json
    assert body is not None and body["expiries_to_stand_in"] == sent
    page.context.close()
