"""The front door in a real browser (Playwright with Debian's Chromium), at desktop and phone size: the first
page shows each game (its picture, sentence, players and match length) with "Play with bots" and "Play with
friends"; one tap on "Play with bots" seats you with bots and takes you to your seat, where a card of your hand
is enabled (two taps at most, for every game); the friends' screen numbers seats from 1, keeps names while the
count changes, folds the table options and shows no rule id until asked; nothing moves as the pictures load.
Screenshots of the first page and the friends' screen go to docs/screenshots/ (MOTLEY_SCREENSHOTS=1)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import motley
from motley.core.registry import game_class, game_spec
from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser, Page, ViewportSize, expect

RULE_ID = re.compile(r"\b(FL|FY|FE)-[A-Z]+\d+")
SIZES: dict[str, ViewportSize] = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
#: Layout shifts as the page loads, summed (the Layout Instability API), kept by an init script.
CLS_SCRIPT = """window.__cls = 0; new PerformanceObserver((list) => { for (const e of list.getEntries()) {
  if (!e.hadRecentInput) window.__cls += e.value; } }).observe({type: "layout-shift", buffered: true});"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "frontdoor.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running


def first_page(browser: Browser, server: ServerThread, size: str, path: str = "/") -> Page:
    """The lobby at ``size``, its Play buttons enabled; clicks are counted in ``window.__taps``."""
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.set_default_timeout(20_000)
    page.add_init_script(CLS_SCRIPT)
    page.add_init_script("window.__taps = 0; addEventListener('click', () => { window.__taps += 1; }, true);")
    page.add_init_script("localStorage.setItem('motley-table-settings', JSON.stringify({drawDelay: 0.3}))")
    page.goto(server.base + path)
    page.locator(".game-card .play-bots:not([disabled])").first.wait_for(state="attached")
    return page


def game_card(page: Page, game: str) -> Any:
    return page.get_by_role("article", name=game_class(game).title)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("game", motley.registered_games())
def test_play_with_bots_is_one_tap_to_your_cards(server: ServerThread, browser: Browser, game: str,
                                                 size: str) -> None:
    page = first_page(browser, server, size)
    card = game_card(page, game)
    expect(card).to_contain_text(game_spec(game).summary)
    with page.expect_navigation(url=re.compile(r"/table/\w+\?token=")):
        card.get_by_role("button", name="Play with bots").click()
    taps = 1  # the page was left: its counter went with it
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    seats = page.evaluate("window.motleyTable.state()")
    assert seats["seat"] == 0, "you sit at seat 1 (index 0)"
    if game == "fools_errand":
        # no hand: draws happen by themselves; the table shows your deck and the scale
        expect(page.get_by_role("region", name="Table")).to_contain_text("Scale")
    else:
        hand = page.get_by_role("region", name="Your hand").get_by_role("group", name="Your cards")
        enabled = hand.locator("button:not([disabled]):not([aria-disabled=true])").first
        enabled.wait_for()
        box = enabled.bounding_box()
        assert box is not None and box["y"] >= 0
    assert taps <= 2
    table_id = page.url.split("/table/")[1].split("?")[0]
    listed = next(t for t in httpx.get(f"{server.base}/api/tables", timeout=10).json() if t["id"] == table_id)
    assert listed["players"] == game_spec(game).players_usually
    assert [s["bot"] for s in listed["seats"]][1:] == ["heuristic"] * (listed["players"] - 1)
    page.goto(server.base + "/")
    expect(page.locator(f"#mine li[data-table='{table_id}']")).to_contain_text(game_class(game).title)
    page.context.close()


@pytest.mark.parametrize("size", SIZES)
def test_the_first_page_shows_the_games_and_no_rule_id(server: ServerThread, browser: Browser, size: str,
                                                       shots: Path) -> None:
    page = first_page(browser, server, size)
    page.wait_for_function("() => [...document.images].every((i) => i.complete && i.naturalWidth > 0)")
    for game in motley.registered_games():
        card = game_card(page, game)
        expect(card.get_by_role("img")).to_have_attribute("src", f"/api/games/{game}/picture.svg")
        expect(card).to_contain_text(game_spec(game).at_a_glance().capitalize())
        expect(card.get_by_role("button", name="Play with friends")).to_be_enabled()
    text = page.inner_text("body")
    assert not RULE_ID.search(text) and "Table options" not in text
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"], "no sideways scrolling"
    first = game_card(page, motley.registered_games()[0]).get_by_role("button", name="Play with bots").bounding_box()
    assert first is not None and first["y"] + first["height"] <= SIZES[size]["height"], "a Play button on screen"
    assert page.evaluate("window.__cls") == 0, "nothing moves as the pictures load"
    page.screenshot(path=str(shots / ("lobby.png" if size == "desktop" else "lobby-phone.png")))
    page.context.close()


def seat_names(page: Page, count: int) -> list[str]:
    return [page.get_by_role("textbox", name=f"Seat {i} name").input_value() for i in range(2, count + 1)]


@pytest.mark.parametrize("size", SIZES)
def test_the_friends_screen_keeps_names_and_folds_the_options(server: ServerThread, browser: Browser, size: str,
                                                              shots: Path) -> None:
    page = first_page(browser, server, size)
    game_card(page, "foolery").get_by_role("button", name="Play with friends").click()
    players = page.get_by_role("combobox", name="Number of players")
    expect(players).to_have_value(str(game_spec("foolery").players_usually))
    expect(page.get_by_role("textbox", name="Your name (seat 1)")).to_be_visible()
    names = ["Bob", "Cleo", "Dan", "Eve"]
    for i, name in enumerate(names, start=2):
        page.get_by_role("textbox", name=f"Seat {i} name").fill(name)
    page.get_by_role("combobox", name="Seat 3", exact=True).select_option("open")
    players.select_option("3")
    assert seat_names(page, 3) == ["Bob", "Cleo"]
    expect(page.get_by_role("combobox", name="Seat 4", exact=True)).to_have_count(0)
    players.select_option("7")
    assert seat_names(page, 5) == names, "names kept while the count changes"
    expect(page.get_by_role("combobox", name="Seat 3", exact=True)).to_have_value("open")
    expect(page.get_by_role("textbox", name="Seat 7 name")).to_have_value("")
    players.select_option("5")
    options = page.locator("#table-options")
    assert options.get_attribute("open") is None, "the table options are folded"
    expect(page.get_by_role("combobox", name="Scoring")).to_be_hidden()
    assert not RULE_ID.search(page.inner_text("body"))
    expect(page.locator("#differs")).to_have_text("The rules' defaults (open Table options to change them).")
    page.screenshot(path=str(shots / ("friends.png" if size == "desktop" else "friends-phone.png")), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.context.close()


def test_the_friends_table_sends_seats_from_1_and_only_the_changed_settings(server: ServerThread,
                                                                            browser: Browser) -> None:
    page = first_page(browser, server, "desktop", "/#friends/fool")
    # a browser with the Web Share API: the page offers Share beside Copy
    page.evaluate("window.__shared = []; Object.defineProperty(navigator, 'share', {configurable: true, "
                  "value: (data) => { window.__shared.push(data); return Promise.resolve(); }})")
    page.get_by_role("combobox", name="Number of players").select_option("4")
    page.get_by_role("textbox", name="Your name (seat 1)").fill("Ann")
    page.get_by_role("textbox", name="Seat 2 name").fill("Bob")
    page.get_by_role("combobox", name="Seat 3", exact=True).select_option("open")
    page.get_by_role("combobox", name="Seat 4", exact=True).select_option("heuristic")
    page.locator("#table-options > summary").click()
    expect(page.get_by_role("spinbutton", name="Bot delay, seconds")).to_have_value("0")  # the server's setting
    page.get_by_role("spinbutton", name="Match ends at total").fill("-50")
    expect(page.locator("#differs")).to_have_text("Changed from the defaults: Match ends at total: -50.")
    with page.expect_request(lambda r: r.url.endswith("/api/tables") and r.method == "POST") as sent:
        page.get_by_role("button", name="Create table").click()
    body = json.loads(sent.value.post_data or "{}")
    assert body["options"] == {"end_total": -50} and "bot_delay" not in body and "grace" not in body
    assert body["seats"] == [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob", "open": False},
                             {"kind": "human", "name": "", "open": True}, {"kind": "bot", "bot": "heuristic"}]
    created = page.locator("#created")
    expect(created.get_by_role("textbox", name="Invite link for Seat 2 (Bob)")).to_have_value(
        re.compile(r"/table/\w+\?token="))
    expect(created).to_contain_text("Seat 3 (Player 3), open to anyone")
    created.get_by_role("button", name="Share link for Seat 2 (Bob)").click()
    shared = page.wait_for_function("() => window.__shared.length && window.__shared[0]").json_value()
    link = created.get_by_role("textbox", name="Invite link for Seat 2 (Bob)").input_value()
    assert shared["url"] == link
    expect(created.get_by_role("button", name="Copy link for Seat 2 (Bob)")).to_be_visible()
    page.get_by_role("link", name="Go to my seat").click()
    page.wait_for_url(re.compile(r"/table/\w+\?token="))
    page.context.close()


def test_a_wrong_setting_is_named_and_nothing_is_made(server: ServerThread, browser: Browser) -> None:
    page = first_page(browser, server, "desktop", "/#friends/foolery")
    page.locator("#table-options > summary").click()
    delay = page.get_by_role("spinbutton", name="Bot delay, seconds")
    delay.fill("99")
    before = len(httpx.get(f"{server.base}/api/tables", timeout=10).json())
    page.get_by_role("button", name="Create table").click()
    assert "10" in delay.evaluate("(e) => e.validationMessage"), "the field says its bound"
    expect(page.locator("#differs")).to_contain_text("99 s bot delay")
    assert len(httpx.get(f"{server.base}/api/tables", timeout=10).json()) == before
    expect(page.locator("#play-now")).to_have_count(0)
    page.context.close()
