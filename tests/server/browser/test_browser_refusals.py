"""Every refusal where the eye is, in a real browser (Playwright with Debian's Chromium), on phones (360x640,
390x844) and a desktop (1280x800): a refused "Play with bots", "Create table" or Join is said in a toast fixed in
the view, in words with what to do next, and beside the control pressed; at the cap of unfinished tables the toast
offers the tables this browser made (listed by the server for its key), and cancelling one lets the person make a
table again; another browser (another key, the same address) neither sees nor cancels them; the winner of a Join
is asked a name and the loser is told the seat was just taken, with the open seats left. Also: an option naming a
seat counts seats from 1 in the form while the value sent stays the seat's number from 0, and the first page
shows all three games on a 390x844 phone.

Screenshots (the ``shots`` folder): refusal-cap-phone.png (360x640), refusal-cap-desktop.png,
refusal-option-phone.png (360x640), refusal-join-phone.png (390x844), first-page-390x844.png."""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import motley
from motley.core.registry import game_class
from motley.server.web.testing import OPEN_LIMITS, ServerThread
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

SIZES: dict[str, ViewportSize] = {"phone": {"width": 360, "height": 640}, "tall-phone": {"width": 390, "height": 844},
                                  "desktop": {"width": 1280, "height": 800}}
PEOPLE: dict[str, Any] = {"game": "fools_errand", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}]}
OPEN_SEAT: dict[str, Any] = {"game": "fools_errand",
                             "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "open": True}]}


@pytest.fixture()
def capped(tmp_path: Path) -> Iterator[ServerThread]:
    """A server whose client address may have two unfinished tables (the other limits open)."""
    limits = dataclasses.replace(OPEN_LIMITS, tables_per_address=2)
    with ServerThread(f"sqlite:///{tmp_path / 'capped.db'}", bot_delay=0.0, limits=limits) as running:
        yield running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "refusals.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running


def lobby(browser: Browser, server: ServerThread, size: str, key: str | None = None, path: str = "/") -> Page:
    """The first page at ``size``, its Play buttons enabled; ``key``: the browser key kept in its storage."""
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.set_default_timeout(20_000)
    if key is not None:
        page.add_init_script(f"localStorage.setItem('motley.key', {json.dumps(key)})")
    page.goto(server.base + path)
    page.locator(".game-card .play-bots:not([disabled])").first.wait_for(state="attached")
    return page


def in_view(page: Page, box: Locator) -> None:
    """``box`` is shown whole inside the viewport (not above it, not below it)."""
    expect(box).to_be_visible()
    where = box.bounding_box()
    size = page.viewport_size
    assert where is not None and size is not None
    assert where["y"] >= 0 and where["x"] >= 0, where
    assert where["y"] + where["height"] <= size["height"] and where["x"] + where["width"] <= size["width"], where


def made(server: ServerThread, key: str, request: dict[str, Any] = PEOPLE) -> str:
    answer = httpx.post(f"{server.base}/api/tables", json=request, headers={"X-Motley-Key": key}, timeout=10)
    assert answer.status_code == 200, answer.text
    table_id: str = answer.json()["id"]
    return table_id


@pytest.mark.parametrize("size", SIZES)
def test_at_the_cap_the_page_says_so_in_view_and_offers_your_tables_to_cancel(capped: ServerThread, browser: Browser,
                                                                              size: str, shots: Path) -> None:
    key = secrets.token_urlsafe(32)
    tables = [made(capped, key), made(capped, key)]
    page = lobby(browser, capped, size, key)
    mine = page.locator("#mine")
    for table_id in tables:  # listed by the server for this browser's key, though made elsewhere
        expect(mine.locator(f"li[data-table='{table_id}']")).to_contain_text("waiting for 2 people")
    card = page.get_by_role("article", name=game_class("foolery").title)
    card.scroll_into_view_if_needed()
    page.mouse.wheel(0, 400)  # scrolled down the page, as a person reading the last game
    card.get_by_role("button", name="Play with bots").click()
    toast = page.locator("#toast")
    expect(page.get_by_role("alert")).to_contain_text("already has 2 unfinished tables")
    expect(page.get_by_role("alert")).to_contain_text("Cancel one of your unfinished tables listed here, then try")
    in_view(page, toast)
    expect(card.locator(".card-status")).to_contain_text("unfinished tables")
    offered = toast.locator(".offer-tables li")
    expect(offered).to_have_count(2)
    if size != "tall-phone":
        page.screenshot(path=str(shots / f"refusal-cap-{size}.png"))
    toast.locator(f"li[data-table='{tables[0]}']").get_by_role("button", name=re.compile("^Cancel")).click()
    expect(page.get_by_role("alert")).to_contain_text("cancelled: you may make a table again")
    in_view(page, toast)
    status = httpx.get(f"{capped.base}/api/my-tables", headers={"X-Motley-Key": key}, timeout=10).json()
    assert [t["id"] for t in status] == [tables[1]]
    with page.expect_navigation(url=re.compile(r"/table/\w+\?token=")):
        card.get_by_role("button", name="Play with bots").click()
    page.context.close()


def test_another_browser_neither_sees_nor_cancels_your_tables(capped: ServerThread, browser: Browser) -> None:
    key = secrets.token_urlsafe(32)
    table_id = made(capped, key)
    other = lobby(browser, capped, "desktop")
    other.wait_for_selector("#tables tr", state="attached")
    expect(other.locator(f"#mine li[data-table='{table_id}']")).to_have_count(0)
    answer = other.evaluate(f"""async () => {{
        const r = await fetch('/api/tables/{table_id}/cancel', {{method: 'POST',
            headers: {{'Content-Type': 'application/json'}},
            body: JSON.stringify({{key: localStorage.getItem('motley.key')}})}});
        return [r.status, await r.json()]; }}""")
    assert answer[0] == 403 and answer[1]["error"]["code"] == "not_yours"
    assert set(answer[1]) == {"error"} and set(answer[1]["error"]) == {"code", "message"}
    mine = lobby(browser, capped, "desktop", key)
    expect(mine.locator(f"#mine li[data-table='{table_id}']")).to_contain_text("waiting for 2 people")
    other.context.close()
    mine.context.close()


def test_a_refused_option_is_said_in_view_beside_create_table(server: ServerThread, browser: Browser,
                                                              shots: Path) -> None:
    page = lobby(browser, server, "phone", path="/#friends/fool")
    page.get_by_role("combobox", name="Number of players").select_option("4")
    page.locator("#table-options > summary").click()
    page.locator(".grid-cell[data-row='4'][data-col='G']").fill("16")  # 51 cards, not 48: the server refuses
    create = page.get_by_role("button", name="Create table")
    create.scroll_into_view_if_needed()
    create.click()
    expect(page.get_by_role("alert")).to_contain_text("deck_table")
    expect(page.get_by_role("alert")).to_contain_text("then press Create table again")
    in_view(page, page.locator("#toast"))
    beside = page.locator("#create-status")
    expect(beside).to_contain_text("deck_table")
    in_view(page, beside)
    page.screenshot(path=str(shots / "refusal-option-phone.png"))
    page.get_by_role("button", name="Close this message").click()
    expect(page.locator("#toast")).to_be_hidden()
    page.context.close()


def test_the_winner_of_a_join_is_asked_a_name_and_the_loser_is_told_in_view(server: ServerThread, browser: Browser,
                                                                            shots: Path) -> None:
    lost, won = made(server, secrets.token_urlsafe(32), OPEN_SEAT), made(server, secrets.token_urlsafe(32), OPEN_SEAT)
    page = lobby(browser, server, "tall-phone")
    line = page.locator(f"#open li[data-table='{lost}']")
    line.scroll_into_view_if_needed()
    line.get_by_role("button", name=re.compile("^Join")).click()
    name = line.get_by_role("textbox", name=re.compile("^Your name"))
    name.fill("Dee")
    page.wait_for_timeout(5500)  # the list refreshes meanwhile: the form stays
    expect(name).to_have_value("Dee")
    assert httpx.post(f"{server.base}/api/tables/{lost}/join", timeout=10).status_code == 200  # someone else first
    line.get_by_role("button", name="Take the seat").click()
    expect(page.get_by_role("alert")).to_contain_text("That seat was just taken")
    in_view(page, page.locator("#toast"))
    toast = page.locator("#toast")
    expect(toast).to_contain_text("Open seats left")
    expect(page.locator("#open-note")).to_contain_text("just taken")
    page.screenshot(path=str(shots / "refusal-join-phone.png"))
    left = toast.locator(f"li[data-table='{won}']")
    left.get_by_role("button", name=re.compile("^Join")).click()
    left.get_by_role("textbox", name=re.compile("^Your name")).fill("Cleo")
    with page.expect_navigation(url=re.compile(rf"/table/{won}\?token=")):
        left.get_by_role("button", name="Take the seat").click()
    line = next(t for t in httpx.get(f"{server.base}/api/tables", timeout=10).json() if t["id"] == won)
    assert line["names"] == ["Ann", "Cleo"]
    page.context.close()


def test_the_first_dealer_is_chosen_by_seats_from_1_and_sent_from_0(server: ServerThread, browser: Browser) -> None:
    page = lobby(browser, server, "desktop", path="/#friends/fool")
    page.locator("#table-options > summary").click()
    dealer = page.get_by_role("combobox", name="First dealer")
    words = dealer.locator("option").all_inner_texts()
    assert words == ["random (rules default)"] + [f"Seat {n}" for n in range(1, 9)], words
    offered = "[...document.querySelector('select[name=first_dealer]').options].filter((o) => !o.disabled)" \
              ".map((o) => o.text)"
    assert page.evaluate(offered) == ["random (rules default)"] + [f"Seat {n}" for n in range(1, 6)], "5 players"
    dealer.select_option(label="Seat 5")
    page.get_by_role("combobox", name="Number of players").select_option("4")
    expect(dealer).to_have_value('"random"')  # no seat 5 at 4 players: back to the rules' default
    assert page.evaluate(offered)[-1] == "Seat 4"
    dealer.select_option(label="Seat 3")
    expect(page.locator("#differs")).to_contain_text("First dealer: Seat 3")
    with page.expect_request(lambda r: r.url.endswith("/api/tables") and r.method == "POST") as sent:
        page.get_by_role("button", name="Create table").click()
    assert json.loads(sent.value.post_data or "{}")["options"] == {"first_dealer": 2}
    page.context.close()


def test_the_first_page_shows_all_three_games_on_a_390x844_phone(server: ServerThread, browser: Browser,
                                                                 shots: Path) -> None:
    page = lobby(browser, server, "tall-phone")
    page.wait_for_function("() => [...document.images].every((i) => i.complete && i.naturalWidth > 0)")
    for game in motley.registered_games():
        card = page.get_by_role("article", name=game_class(game).title)
        in_view(page, card)
        in_view(page, card.get_by_role("button", name="Play with friends"))
    page.screenshot(path=str(shots / "first-page-390x844.png"))
    page.context.close()
