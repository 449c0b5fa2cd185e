"""The lobby in words, in a real browser (Playwright with Debian's Chromium): option labels and choice
words from the option declarations, the first game as the default, Fool!'s deck table edited as a table,
the table list in words, and "your tables" found again after a reload."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from motley.core.registry import game_class
from motley.server.testing import ServerThread
from motley.server.transport import games_info
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser, Page, expect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "lobby.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running



def lobby(browser: Browser, server: ServerThread) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(20_000)
    page.goto(server.base + "/")
    page.wait_for_selector("#options .option-row")
    return page


def test_the_first_game_is_the_default_and_options_speak_in_words(server: ServerThread, browser: Browser) -> None:
    page = lobby(browser, server)
    first = games_info()[0]
    expect(page.locator("#game")).to_have_value(first["name"])
    page.select_option("#game", "fool")
    two = next(o for o in game_class("fool").options if o.name == "two_fools_from_players")
    select = page.get_by_role("combobox", name=two.label)
    expect(select).to_be_visible()
    words = select.locator("option").all_inner_texts()
    assert words == [two.choice_labels[7] + " (rules default)", two.choice_labels[8]]
    options = page.inner_text("#options")
    assert "two_fools_from_players" not in options and "two fools from players" not in options
    assert "rule FL-D2, FL-R4" in options  # the rule ids in their small note, not in the label
    page.context.close()


def test_a_seat_may_be_the_strongest_bot_and_the_table_is_made_with_it(server: ServerThread,
                                                                       browser: Browser) -> None:
    page = lobby(browser, server)
    seat = page.get_by_role("combobox", name="Seat 1 player")
    assert seat.locator("option").all_inner_texts() == ["person", "heuristic bot", "random bot", "ISMCTS bot",
                                                        "strongest bot"]
    seat.select_option("best")
    with page.expect_response(lambda r: r.url.endswith("/api/tables") and r.request.method == "POST") as made:
        page.get_by_role("button", name="Create table").click()
    table = made.value.json()
    listed = next(t for t in httpx.get(f"{server.base}/api/tables").json() if t["id"] == table["id"])
    assert [s["bot"] for s in listed["seats"]] == [None, "best"]
    page.context.close()


def test_the_deck_table_is_edited_as_a_table_and_sent(server: ServerThread, browser: Browser) -> None:
    page = lobby(browser, server)
    page.select_option("#game", "fool")
    deck = next(o for o in game_class("fool").options if o.name == "deck_table")
    table = page.get_by_role("table", name=deck.label)
    expect(table).to_be_visible()
    row = page.locator("[data-option=deck_table]")
    expect(row.locator(".assumed")).to_contain_text("assumption")
    cell = page.get_by_role("spinbutton", name=f"{deck.label}: 4 G")
    expect(cell).to_have_value(str(deck.default["4"]["G"]))
    page.fill("#players", "4")
    page.dispatch_event("#players", "change")
    cell.fill("16")  # 16+13+11+8 + 3 = 51 cards: not 48, so the server names the problem
    page.click("#create-button")
    expect(page.locator("#error")).to_contain_text("deck_table")
    cell.fill(str(deck.default["4"]["G"]))
    page.get_by_role("spinbutton", name=f"{deck.label}: 4 W1").fill(str(deck.default["4"]["W1"]))
    page.click("#create-button")
    expect(page.locator("#play-now")).to_be_visible()
    page.context.close()


def test_your_tables_are_found_again_after_a_reload_and_the_list_speaks(server: ServerThread,
                                                                         browser: Browser) -> None:
    page = lobby(browser, server)
    page.select_option("#game", "fools_errand")
    page.locator(".seat-name").first.fill("Zoe")
    page.click("#create-button")
    expect(page.locator("#play-now")).to_be_visible()
    link = page.locator("#play-now").get_attribute("href")
    assert link is not None
    table_id = link.split("/table/")[1].split("?")[0]
    page.reload()
    mine = page.locator(f"#mine li[data-table='{table_id}']")
    expect(mine).to_contain_text("waiting for 1 person")
    expect(mine.get_by_role("link", name="Zoe (seat 0)")).to_have_attribute("href", link)
    line = page.locator(f"#tables tr[data-table='{table_id}']")
    expect(line).to_contain_text("Zoe")
    expect(line.locator(".state")).to_have_text("waiting for 1 person")
    others = browser.new_context().new_page()  # another browser keeps no links of this one
    others.goto(server.base + "/")
    others.wait_for_selector("#tables tr")
    expect(others.locator(f"#mine li[data-table='{table_id}']")).to_have_count(0)
    others.context.close()
    assert httpx.get(f"{server.base}/api/tables", timeout=10).status_code == 200
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
    page.goto(server.base + "/")
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", game)
    page.get_by_role("button", name="Create table").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scrolling"
    page.context.close()
