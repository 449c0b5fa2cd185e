"""The table's protocol in the browser, as people use it: the deal summary that waits for Continue (and goes on
by itself after its time), one live page per seat (Play here), the rematch as an offer (Accept, Decline, a
spectator sees it), the log's and the refusals' words, and the server's ``--bot-delay`` as the lobby's default.

The moves that only bring a table to the moment under test (the rest of a deal) are sent through the page's
own socket by a small loop in the page (:func:`autoplay`): quick, and the moment itself is used through the
page's buttons as a person does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import httpx
import pytest

from motley.server.play.live import LiveTable
from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, create_table, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, ViewportSize, expect

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}

#: The loop a page runs to play random legal moves through its own socket until a dialog (the deal's summary,
#: the match's end) is open: once per state version, never while the page has no decision, and never a forced
#: move (the server plays those itself, at the table's pace, here 0).
AUTOPLAY = """() => {
  let sent = -1;
  clearInterval(window.motleyAuto);
  window.motleyAuto = setInterval(() => {
    const t = window.motleyTable, d = t && t.decision();
    if (!d || d.version === sent || d.legal.length < 2 || document.querySelector('[role=dialog]')) return;
    sent = d.version;
    const m = d.legal[Math.floor(Math.random() * d.legal.length)];
    t.raw(JSON.stringify({type: 'move', version: d.version, action: m.action}));
  }, 20);
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "table.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.25, pace=0.0) as running:
        yield running


def open_page(browser: Browser, server: ServerThread, link: str, errors: list[str] | None = None,
              viewport: ViewportSize = DESKTOP) -> Page:
    """A fresh browser context on ``link`` (forced moves left to the server, no pause after a trick, no motion);
    page errors go to ``errors``."""
    page = browser.new_context(viewport=viewport).new_page()
    page.add_init_script("localStorage.setItem('motley-table-settings', "
                         "JSON.stringify({autoMoves: false, trickPause: 0, motion: false}))")
    page.set_default_timeout(30_000)
    if errors is not None:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.base + link)
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    return page


def autoplay(page: Page) -> None:
    """Start the page's loop of random legal moves (:data:`AUTOPLAY`)."""
    page.evaluate(AUTOPLAY)


def live_table(server: ServerThread, table_id: str) -> LiveTable:
    return cast("LiveTable", server.app.state.service.tables[table_id])


@pytest.mark.parametrize(("game", "option"), [("fool", {"rounds": 2}), ("foolery", {"hands": 2})])
def test_the_deal_summary_waits_for_continue(server: ServerThread, browser: Browser, shots: Path, game: str,
                                             option: dict[str, int]) -> None:
    """One person and bots, two deals: at the end of the first the summary dialog opens and nothing moves until
    the person presses Continue; then the dialog closes and the next deal is played (Foolery on a phone)."""
    table = create_table(server, game, ["Ann"], 4 if game == "foolery" else 3, options=option)
    errors: list[str] = []
    page = open_page(browser, server, table["seats"][0]["link"], errors, PHONE if game == "foolery" else DESKTOP)
    autoplay(page)
    summary = page.get_by_role("dialog", name="End of the deal")
    summary.wait_for()
    live = live_table(server, table["id"])
    held = live.table.version
    assert not live.table.state.is_terminal() and live.summary_waiting(), "the table waits for Ann"
    expect(page.locator("#status")).to_have_text(re.compile("Waiting for you to continue"))
    summary.get_by_role("button", name="Continue").wait_for()
    if game == "foolery":
        page.screenshot(path=str(shots / "summary-phone.png"))
    page.wait_for_timeout(600)  # time the bots (no delay, no pace) would have moved in
    assert live.table.version == held, "no bot moves while the summary waits"
    summary.get_by_role("button", name="Continue").click()
    expect(summary).to_be_hidden()
    page.wait_for_function(f"() => window.motleyTable.state().version > {held}")
    page.get_by_role("dialog", name="Match over").wait_for()
    assert live.table.state.is_terminal() and not errors, errors
    page.context.close()


def test_two_people_see_who_the_summary_still_waits_for(server: ServerThread, browser: Browser) -> None:
    table = create_table(server, "fool", ["Ann", "Bob"], 2, options={"rounds": 2})
    pages = [open_page(browser, server, s["link"]) for s in table["seats"][:2]]
    for page in pages:
        autoplay(page)
    for page in pages:
        page.get_by_role("dialog", name="End of the deal").wait_for()
    live = live_table(server, table["id"])
    held = live.table.version
    pages[0].get_by_role("dialog", name="End of the deal").get_by_role("button", name="Continue").click()
    expect(pages[0].locator("#status")).to_have_text(re.compile("Waiting for Bob to continue"))
    expect(pages[1].locator("#status")).to_have_text(re.compile("Waiting for you to continue"))
    assert live.table.version == held, "the table waits for Bob"
    pages[1].get_by_role("dialog", name="End of the deal").get_by_role("button", name="Continue").click()
    pages[0].wait_for_function(f"() => window.motleyTable.state().version > {held}")
    for page in pages:
        page.context.close()


def test_the_summary_goes_on_by_itself_after_its_time(server: ServerThread, browser: Browser) -> None:
    table = create_table(server, "foolery", ["Ann"], 2, options={"hands": 2}, summary_wait=2)
    page = open_page(browser, server, table["seats"][0]["link"])
    autoplay(page)
    summary = page.get_by_role("dialog", name="End of the deal")
    summary.wait_for()
    expect(summary).to_contain_text(re.compile(r"The next deal starts by itself in \d seconds?"))
    held = live_table(server, table["id"]).table.version
    expect(summary).to_be_hidden(timeout=10_000)  # nobody pressed Continue
    page.wait_for_function(f"() => window.motleyTable.state().version > {held}")
    page.context.close()


def test_one_seat_has_one_live_page(server: ServerThread, browser: Browser) -> None:
    """The same seat link in two tabs: the newer plays, the older says so and offers Play here; its cards do
    nothing; Play here swaps the two."""
    table = create_table(server, "fool", ["Ann"], 3)
    link = table["seats"][0]["link"]
    older = open_page(browser, server, link)
    older.wait_for_function("() => window.motleyTable.decision() !== null")
    newer = older.context.new_page()
    newer.goto(server.base + link)
    newer.wait_for_function("() => window.motleyTable.decision() !== null")
    expect(older.locator("#status")).to_have_text("This seat is open in another tab.")
    play_here = older.get_by_role("button", name="Play here")
    expect(play_here).to_be_visible()
    expect(newer.get_by_role("button", name="Play here")).to_have_count(0)
    live = live_table(server, table["id"])
    before = live.table.version
    cards = older.get_by_role("region", name="Your hand").get_by_role("group", name="Your cards").get_by_role("button")
    for card in cards.all():
        assert card.get_attribute("aria-disabled") == "true"
    cards.first.click(force=True)  # a person may press it: it says why nothing happens
    expect(older.get_by_role("region", name="Your hand")).to_contain_text("press Play here")
    assert older.evaluate("window.motleyTable.decision()") is None and live.table.version == before
    # a move sent anyway from the older tab is refused by the server
    older.evaluate("window.motleyTable.raw(JSON.stringify({type: 'move', version: window.motleyTable.state().version,"
                   " action: window.motleyTable.state().legal[0].action}))")
    expect(older.locator("#error")).to_contain_text("another tab")
    assert live.table.version == before
    play_here.click()
    expect(older.get_by_role("button", name="Play here")).to_have_count(0)
    expect(newer.get_by_role("button", name="Play here")).to_be_visible()
    expect(newer.locator("#status")).to_have_text("This seat is open in another tab.")
    older.wait_for_function("() => window.motleyTable.decision() !== null")
    older.context.close()


def test_the_rematch_is_an_offer(server: ServerThread, browser: Browser, shots: Path) -> None:
    """Three people and a bot finish a one-round match of Fool!; Ann changes the bot and the order and offers a
    rematch: her page goes to her new seat, nobody else's moves; Bob and the spectator see the offer, Bob
    accepts and lands on his new seat, Cleo declines and her seat opens, which Bob and the spectator see."""
    table = create_table(server, "fool", ["Ann", "Bob", "Cleo"], 1, options={"rounds": 1})
    errors: list[str] = []
    people = [open_page(browser, server, s["link"], errors, PHONE if q == 1 else DESKTOP)
              for q, s in enumerate(table["seats"][:3])]
    watcher = open_page(browser, server, table["spectate"], errors)
    for page in people:
        autoplay(page)
    for page in [*people, watcher]:
        page.get_by_role("dialog", name="Match over").wait_for()
    ann, bob, cleo = people
    ann.get_by_role("dialog", name="Match over").get_by_role("button", name="Rematch").click()
    editor = ann.get_by_role("dialog", name="Rematch")
    editor.get_by_role("combobox", name="Seat 4 bot kind").select_option("heuristic")
    editor.get_by_role("button", name="Move seat 4 up").click()  # the bot before Cleo
    editor.get_by_role("button", name="Offer the rematch").click()
    ann.wait_for_url(re.compile(r"/table/(?!" + table["id"] + r")\w+\?token="))
    ann.get_by_role("region", name="Your hand").wait_for()
    seats = ann.evaluate("window.motleyTable.state().seats")
    assert [s["name"] for s in seats][:2] == ["Ann", "Bob"] and seats[2]["kind"] == "bot" and seats[3]["name"] == "Cleo"
    assert "heuristic" in seats[2]["name"].lower() or seats[2].get("bot") == "heuristic"
    for page in (bob, cleo, watcher):
        offer = page.get_by_role("group", name="Rematch offer")
        expect(offer).to_contain_text("Ann offers a rematch.")
        assert table["id"] in page.url, "nobody's page moves until they accept"
        expect(page.get_by_role("dialog", name="Match over").locator(".ranking")).to_contain_text("Bob")
    bob.screenshot(path=str(shots / "rematch-phone.png"))
    expect(watcher.get_by_role("group", name="Rematch offer").get_by_role("button")).to_have_text(
        ["Watch the rematch"])
    cleo.get_by_role("group", name="Rematch offer").get_by_role("button", name="Decline").click()
    for page in (bob, watcher):
        expect(page.get_by_role("dialog", name="Match over")).to_contain_text("Cleo declined the rematch.")
    expect(ann.locator("#board")).to_contain_text("Cleo declined")
    bob.get_by_role("group", name="Rematch offer").get_by_role("button", name="Accept").click()
    bob.wait_for_url(ann.url.split("?")[0] + "?token=*")
    bob.get_by_role("region", name="Your hand").wait_for()
    assert bob.evaluate("window.motleyTable.state().seat") == 1
    new_id = ann.url.split("/table/")[1].split("?")[0]
    listed = [t for t in httpx.get(f"{server.base}/api/tables", timeout=10).json() if t["id"] == new_id]
    assert listed and listed[0]["free_seats"] == 1, "Cleo's seat is open for anyone"
    assert not errors, errors
    for page in [*people, watcher]:
        page.context.close()


def test_the_log_says_had_to_pass(server: ServerThread, browser: Browser) -> None:
    """A forced pass in Foolery reads "had to pass" in the log, a chosen one "passed"; no rule id, no code."""
    table = create_table(server, "foolery", ["Ann"], 2, options={"hands": 1})
    page = open_page(browser, server, table["seats"][0]["link"])
    autoplay(page)
    page.get_by_role("dialog", name="Match over").wait_for()
    page.get_by_role("dialog", name="Match over").get_by_role("button", name="Score sheet").click()
    log = page.locator("details.log-panel")
    log.locator("summary").click()
    entries = log.get_by_role("listitem").all_inner_texts()
    log_sent = page.evaluate("window.motleyTable.state().log")
    forced = [e for e in log_sent if e["forced"] and e["move"] == "pass"]
    chosen = [e for e in log_sent if not e["forced"] and e["move"] == "pass"]
    assert forced, "a forced pass is in the log"
    names = [s["name"] for s in page.evaluate("window.motleyTable.state().seats")]
    had_to = [e for e in entries if re.fullmatch(r".+ had to pass", e)]
    assert len(had_to) == len(forced) and {f"{names[e['seat']]} had to pass" for e in forced} <= set(had_to)
    assert len([e for e in entries if re.fullmatch(r".+ passed", e)]) == len(chosen)
    assert not any(re.search(r"\b[A-Z]{2}-[A-Z]?\d", e) for e in entries), "no rule id in the log"
    page.context.close()


def test_the_servers_bot_delay_is_the_lobbys_default(server: ServerThread, browser: Browser) -> None:
    page = browser.new_context().new_page()
    page.goto(f"{server.base}/#friends/fool")
    page.get_by_role("button", name="Create table").wait_for()
    page.locator("#table-options > summary").click()
    expect(page.get_by_role("spinbutton", name=re.compile("[Bb]ot delay"))).to_have_value("0.25")
    page.context.close()


@pytest.mark.parametrize("broken", ["missing", "syntax"])
def test_a_game_view_that_does_not_load_is_reported(server: ServerThread, browser: Browser, broken: str) -> None:
    """A game's view (games/<game>.js) that cannot be loaded (the file is missing, or it does not parse) is said on
    the page and as a console error, and the table is still drawn plainly and playable; with the view served, none
    of that shows (so the check can fail)."""
    table = create_table(server, "fool", ["Ann"], 3)
    healthy = open_page(browser, server, table["seats"][0]["link"])
    expect(healthy.locator("#view-error")).to_have_count(0)
    healthy.context.close()
    page = browser.new_context(viewport=DESKTOP).new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    if broken == "missing":
        page.route("**/static/games/fool.js", lambda route: route.fulfill(status=404, body="not found"))
    else:
        page.route("**/static/games/fool.js", lambda route: route.fulfill(
            status=200, content_type="text/javascript", body="export default {oneClick: true,,};"))
    page.goto(server.base + table["seats"][0]["link"])
    said = page.locator("#view-error")
    expect(said).to_be_visible()
    expect(said).to_contain_text("could not be loaded (games/fool.js")
    assert any("game view did not load" in text for text in console), console
    expect(page.locator(".seat").first).to_be_visible()  # the table itself is drawn
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    page.context.close()
