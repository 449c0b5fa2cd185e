"""The lobby's friends' screen in words, in a real browser (Playwright with Debian's Chromium): option labels
and choice words from the option declarations, grouped and folded under "Table options", rule ids only in
each option's details, Fool!'s deck table edited as a table, the table list in words, and "your tables" found
again after a reload. The first page and "Play with bots": tests/server/browser/test_browser_frontdoor.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from motley.core.registry import game_class
from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser, Page, expect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "lobby.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running



def friends(browser: Browser, server: ServerThread, game: str) -> Page:
    """The friends' screen of ``game``, its table options opened."""
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_default_timeout(20_000)
    page.goto(server.base + "/")
    page.get_by_role("article", name=game_class(game).title).get_by_role("button", name="Play with friends").click()
    page.wait_for_selector("#table-options .option-row", state="attached")
    page.locator("#table-options > summary").click()
    return page


def test_options_speak_in_words_and_rule_ids_wait_in_the_details(server: ServerThread, browser: Browser) -> None:
    page = friends(browser, server, "fool")
    two = next(o for o in game_class("fool").options if o.name == "two_fools_from_players")
    select = page.get_by_role("combobox", name=two.label)
    expect(select).to_be_visible()
    words = select.locator("option").all_inner_texts()
    assert words == [two.choice_labels[7] + " (rules default)", two.choice_labels[8]]
    options = page.inner_text("#table-options")
    assert "two_fools_from_players" not in options and "two fools from players" not in options
    assert "FL-D2" not in options, "rule ids are folded inside each option's details"
    row = page.locator("[data-option=two_fools_from_players]")
    row.get_by_text("Details").click()
    expect(row.locator(".option-details")).to_contain_text("Rule FL-D2, FL-R4")
    match = page.get_by_role("group", name="Match length")
    expect(match.locator("[data-option=end_total]")).to_have_count(1)
    expect(page.get_by_role("group", name="Variants").locator("[data-option=end_total]")).to_have_count(0)
    page.context.close()


def test_a_seat_may_be_the_strongest_bot_and_the_table_is_made_with_it(server: ServerThread,
                                                                       browser: Browser) -> None:
    page = friends(browser, server, "fool")
    seat = page.get_by_role("combobox", name="Seat 2", exact=True)
    assert seat.locator("option").all_inner_texts() == ["Friend", "Open seat", "Bot", "Random bot", "Searching bot",
                                                        "Strongest bot"]
    seat.select_option("best")
    page.get_by_role("combobox", name="Number of players").select_option("4")
    with page.expect_response(lambda r: r.url.endswith("/api/tables") and r.request.method == "POST") as made:
        page.get_by_role("button", name="Create table").click()
    table = made.value.json()
    listed = next(t for t in httpx.get(f"{server.base}/api/tables").json() if t["id"] == table["id"])
    assert [s["bot"] for s in listed["seats"]][:2] == [None, "best"]
    page.context.close()


def test_the_deck_table_is_edited_as_a_table_and_sent(server: ServerThread, browser: Browser) -> None:
    page = friends(browser, server, "fool")
    deck = next(o for o in game_class("fool").options if o.name == "deck_table")
    table = page.get_by_role("table", name=deck.label)
    expect(table).to_be_visible()
    row = page.locator("[data-option=deck_table]")
    row.get_by_text("Details").click()
    expect(row.locator(".assumed")).to_contain_text("assumption")
    cell = page.get_by_role("spinbutton", name=f"{deck.label}: 4 G")
    expect(cell).to_have_value(str(deck.default["4"]["G"]))
    page.get_by_role("combobox", name="Number of players").select_option("4")
    cell.fill("16")  # 16+13+11+8 + 3 = 51 cards: not 48, so the server names the problem
    expect(page.locator("#differs")).to_contain_text(f"{deck.label}: changed")
    page.click("#create-button")
    expect(page.locator("#error")).to_contain_text("deck_table")
    cell.fill(str(deck.default["4"]["G"]))
    expect(page.locator("#differs")).to_contain_text("The rules' defaults")
    page.click("#create-button")
    expect(page.locator("#play-now")).to_be_visible()
    page.context.close()


def test_your_tables_are_found_again_after_a_reload_and_the_list_speaks(server: ServerThread,
                                                                         browser: Browser) -> None:
    page = friends(browser, server, "fools_errand")
    page.get_by_role("textbox", name="Your name (seat 1)").fill("Zoe")
    page.click("#create-button")
    expect(page.locator("#play-now")).to_be_visible()
    link = page.locator("#play-now").get_attribute("href")
    assert link is not None
    table_id = link.split("/table/")[1].split("?")[0]
    page.goto(server.base + "/")
    mine = page.locator(f"#mine li[data-table='{table_id}']")
    expect(mine).to_contain_text("waiting for 2 people")
    expect(mine.get_by_role("link", name="Zoe (seat 1)")).to_have_attribute("href", link)
    page.get_by_text("All tables: watch one").click()
    line = page.locator(f"#tables tr[data-table='{table_id}']")
    expect(line).to_contain_text("Zoe")
    expect(line.locator(".state")).to_have_text("waiting for 2 people")
    others = browser.new_context().new_page()  # another browser keeps no links of this one
    others.goto(server.base + "/")
    others.wait_for_selector("#tables tr", state="attached")
    expect(others.locator(f"#mine li[data-table='{table_id}']")).to_have_count(0)
    others.context.close()
    page.context.close()


def test_the_api_page_lists_the_routes_and_the_table_request_fields(server: ServerThread, browser: Browser,
                                                                    shots: Path) -> None:
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(server.base + "/docs")
    create = page.get_by_role("region", name="POST /api/tables", exact=True)
    create.wait_for()
    text = create.inner_text()
    assert all(field in text for field in ("game", "seats", "move_time", "wait_for_people", "open", "strength"))
    assert page.get_by_role("region", name="POST /api/tables/{table_id}/rematch").inner_text().count("token") >= 1
    page.screenshot(path=str(shots / "api.png"), full_page=True)
    assert not blocked
    page.context.close()


@pytest.mark.parametrize("game", ["fools_errand", "fool", "foolery"])
def test_the_lobby_fits_a_phone(server: ServerThread, browser: Browser, game: str) -> None:
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(server.base + f"/#friends/{game}")
    page.get_by_role("button", name="Create table").wait_for()
    page.locator("#table-options > summary").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scrolling"
    page.context.close()
