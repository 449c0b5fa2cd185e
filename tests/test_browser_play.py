"""The web page in a real browser (issue item 6): Playwright driving Debian's Chromium.

A person plays a whole match of each game against bots through the page, two browser contexts play each
other at one table, a reload restores the game, wrong input gets an error and changes nothing, and a
spectator's page holds no hidden card. Screenshots of each table go to docs/screenshots/.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import motley
from motley.server.table import Table
from motley.server.testing import ServerThread

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Screenshots go to docs/screenshots/ with MOTLEY_SCREENSHOTS=1 (to refresh the README's pictures), else to a
#: temporary directory, so a test run leaves the working tree clean.
DOCS_SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
PLAYERS = {"fools_errand": 2, "fool": 4, "foolery": 3}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed "
                                                              "(scripts/setup-browser installs it)")

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, sync_playwright


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "browser.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("MOTLEY_SCREENSHOTS") == "1":
        DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
        return DOCS_SHOTS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


def new_page(browser: Browser) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(20_000)
    return page


def wait_for_turn_or_end(page: Page) -> bool:
    """Wait until the page offers enabled move buttons (True) or shows the end of the match (False)."""
    page.wait_for_function("() => document.querySelector('#match-over') || "
                           "document.querySelectorAll('#moves button.move:not([disabled])').length > 0")
    return page.query_selector("#match-over") is None


def play_through(page: Page, rng: random.Random, shot: Path | None = None, shot_at: int = 4, limit: int = 3000) -> int:
    """Click random legal move buttons until the match is over; returns the number of clicks."""
    clicks = 0
    while wait_for_turn_or_end(page):
        buttons = page.query_selector_all("#moves button.move:not([disabled])")
        if not buttons:
            continue
        if shot is not None and clicks == shot_at:
            page.screenshot(path=str(shot), full_page=True)
        try:
            buttons[rng.randrange(len(buttons))].click(timeout=5000)
        except Exception:  # the buttons were redrawn under the click: look again
            continue
        clicks += 1
        assert clicks < limit, "match did not end"
    return clicks


def version(page: Page) -> int:
    return int(page.get_attribute("#status", "data-version") or -1)


@pytest.mark.parametrize("game", ["fools_errand", "fool", "foolery"])
def test_a_person_plays_a_whole_match_against_bots(server: ServerThread, browser: Browser, shots: Path,
                                                   game: str) -> None:
    if game not in motley.registered_games():
        pytest.skip(f"{game} is not registered yet")
    page = new_page(browser)
    page.goto(server.base + "/")
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", game)
    if page.is_visible("#players"):
        page.fill("#players", str(PLAYERS[game]))
        page.dispatch_event("#players", "change")
    page.fill("#bot_delay", "0")
    if game == "fools_errand":
        page.screenshot(path=str(shots / "lobby.png"), full_page=True)
    page.click("#create-button")
    page.click("#play-now")
    page.wait_for_selector("#board svg")
    first_shot = 1 if game == "fools_errand" else 4  # The Fool's Errand has few decisions
    clicks = play_through(page, random.Random(1), shot=shots / f"{game}.png", shot_at=first_shot)
    banner = page.inner_text("#match-over")
    assert "Match over" in banner
    page.screenshot(path=str(shots / f"{game}-end.png"), full_page=True)
    assert clicks >= 1 or game == "fools_errand"
    assert page.query_selector("#board svg") is not None
    page.context.close()


def test_two_people_play_each_other_at_one_table(server: ServerThread, browser: Browser) -> None:
    spec = {"game": "fools_errand", "bot_delay": 0, "seats": [{"kind": "human", "name": "Ann"},
                                                                        {"kind": "human", "name": "Bob"}]}
    table = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
    pages = [new_page(browser) for _ in range(2)]
    for page, seat in zip(pages, table["seats"], strict=True):
        page.goto(server.base + seat["link"])
        page.wait_for_selector("#board svg")
    rng = random.Random(2)
    moves = 0
    while pages[0].query_selector("#match-over") is None:
        pages[0].wait_for_function("() => document.querySelector('#match-over') || "
                                   "document.querySelector('#status').dataset.version !== undefined")
        live: Table = server.app.state.service.tables[table["id"]].table
        if live.state.is_terminal():
            pages[0].wait_for_selector("#match-over")
            break
        mover = pages[live.state.current_player()]
        mover.wait_for_function(f"() => Number(document.querySelector('#status').dataset.version) === {live.version}")
        buttons = mover.query_selector_all("#moves button.move:not([disabled])")
        assert buttons, "the seat to move has move buttons"
        other = pages[1 - live.state.current_player()]
        assert not other.query_selector_all("#moves button.move"), "the other seat has none"
        clicked_at = live.version
        buttons[rng.randrange(len(buttons))].click()
        moves += 1
        # the move is stored before it is applied: wait for its state, not for the table's version right now
        mover.wait_for_function(f"() => Number(document.querySelector('#status').dataset.version) > {clicked_at}")
    for page in pages:
        page.wait_for_selector("#match-over")
        assert "Match over" in page.inner_text("#match-over")
    scores = [page.inner_text("#match-over").split("Final points:")[1].split(".")[0] for page in pages]
    assert scores[0] == scores[1]
    assert moves >= 1
    for page in pages:
        page.context.close()


def test_reload_restores_the_game_and_wrong_input_changes_nothing(server: ServerThread, browser: Browser) -> None:
    game = "fool" if "fool" in motley.registered_games() else "fools_errand"
    players = PLAYERS[game]
    spec = {"game": game, "players": players, "bot_delay": 0,
            "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * (players - 1)}
    table = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
    page = new_page(browser)
    page.goto(server.base + table["seats"][0]["link"])
    rng = random.Random(3)
    for _ in range(3):
        assert wait_for_turn_or_end(page)
        page.query_selector_all("#moves button.move")[0].click()
    assert wait_for_turn_or_end(page)
    before_version = version(page)
    before_cards = page.eval_on_selector_all("#board [data-card]", "els => els.map(e => e.dataset.card)")
    before_moves = page.eval_on_selector_all("#moves button.move", "els => els.map(e => e.dataset.move)")
    page.reload()
    page.wait_for_selector("#board svg")
    assert wait_for_turn_or_end(page)
    assert version(page) == before_version
    assert page.eval_on_selector_all("#board [data-card]", "els => els.map(e => e.dataset.card)") == before_cards
    assert page.eval_on_selector_all("#moves button.move", "els => els.map(e => e.dataset.move)") == before_moves
    # wrong input on purpose, straight into the page's socket: a stale move and garbage
    page.evaluate(f"ws.send(JSON.stringify({{type: 'move', version: {before_version - 1}, action: 0}}))")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('version')")
    page.evaluate("ws.send('this is not json')")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('JSON')")
    live: Table = server.app.state.service.tables[table["id"]].table
    assert live.version == before_version
    # and the page still plays
    page.query_selector_all("#moves button.move")[rng.randrange(len(before_moves))].click()
    page.wait_for_function(f"() => Number(document.querySelector('#status').dataset.version) > {before_version}")
    page.context.close()


def test_a_spectator_sees_no_hidden_card(server: ServerThread, browser: Browser, shots: Path) -> None:
    for game in [g for g in ("foolery", "fool", "fools_errand") if g in motley.registered_games()]:
        players = PLAYERS[game]
        spec = {"game": game, "players": players, "bot_delay": 0,
                "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * (players - 1)}
        table = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
        live: Table = server.app.state.service.tables[table["id"]].table
        page = new_page(browser)
        page.goto(server.base + table["spectate"])
        page.wait_for_selector("#board svg")
        # the bots play until the (absent) person's turn: then the table waits, and the page is stable
        page.wait_for_function(f"() => Number(document.querySelector('#status').dataset.version) === {live.version}")
        assert live.state.current_player() == 0 or live.state.is_terminal()
        drawn = set(page.eval_on_selector_all("#board [data-card]", "els => els.map(e => e.dataset.card)"))
        text = set(re.split(r"[\s,()]+", page.inner_text("body")))
        hands = {c for q in range(players) for c in live.state.observation(q).get("hand", [])}
        if game == "fools_errand":
            from motley.games.fools_errand.cards import CODES

            hands = {CODES[c] for deck in live.state.decks for c in deck} - {"JK"}  # type: ignore[attr-defined]
        everyone = set.intersection(*(set(re.split(r'[\s",\[\]{}:]+', json.dumps(live.state.observation(q))))
                                      for q in range(players)))
        hidden = hands - everyone
        assert hidden, "some cards are hidden"
        assert not (drawn & hidden), f"{game}: spectator page draws hidden {sorted(drawn & hidden)}"
        assert not (text & hidden), f"{game}: spectator page text names hidden {sorted(text & hidden)}"
        assert "spectators do not move" in page.inner_text("#moves")
        page.screenshot(path=str(shots / f"{game}-spectator.png"), full_page=True)
        page.context.close()


def test_lobby_shows_an_error_for_a_bad_option_and_creates_nothing(server: ServerThread, browser: Browser) -> None:
    page = new_page(browser)
    page.goto(server.base + "/")
    page.wait_for_selector("#game option", state="attached")
    if "fool" not in motley.registered_games():
        pytest.skip("fool is not registered yet")
    page.select_option("#game", "fool")
    before = len(httpx.get(f"{server.base}/api/tables", timeout=10).json())
    page.fill("#players", "4")
    page.dispatch_event("#players", "change")
    page.fill(".grid-cell[data-row='4'][data-col='G']", "0")  # no such deck: the server answers with the reason
    page.click("#create-button")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('deck_table')")
    assert page.query_selector("#play-now") is None
    assert len(httpx.get(f"{server.base}/api/tables", timeout=10).json()) == before
    page.context.close()


def test_an_open_seat_is_joined_from_the_lobby(server: ServerThread, browser: Browser) -> None:
    creator = new_page(browser)
    creator.goto(server.base + "/")
    creator.wait_for_selector("#game option", state="attached")
    creator.select_option("#game", "fools_errand")
    creator.get_by_role("combobox", name="Seat 1 player").select_option("human")
    creator.get_by_role("checkbox", name="Seat 1 open to anyone in the lobby").check()
    creator.get_by_role("button", name="Create table").click()
    invite = creator.locator("#created a.invite").nth(1).get_attribute("href") or ""
    table_id = invite.split("/table/")[1].split("?")[0]
    joiner = new_page(browser)
    joiner.goto(server.base + "/")
    joiner.locator(f'#tables [data-table="{table_id}"]').get_by_role("button", name="join (1 open)").click()
    joiner.wait_for_selector("#board svg")
    token = joiner.url.split("token=")[1]
    table: Table = server.app.state.service.tables[table_id].table
    assert table.seat_of_token(token) == 1 and token != invite.split("token=")[1], "a fresh link to seat 1"
    assert table.seats[1].claimed and table.seats[1].ever_connected, "the page plays seat 1"
    joiner.goto(server.base + "/")
    joiner.wait_for_selector(f'#tables [data-table="{table_id}"]')
    assert joiner.locator(f'#tables [data-table="{table_id}"]').get_by_role("button").count() == 0
    for page in (creator, joiner):
        page.context.close()


def test_the_pages_run_under_their_content_security_policy(server: ServerThread, browser: Browser) -> None:
    bots = httpx.post(f"{server.base}/api/tables", timeout=10, json={
        "game": "fools_errand", "seats": [{"kind": "bot", "bot": "random"}] * 2}).json()
    people = httpx.post(f"{server.base}/api/tables", timeout=10, json={
        "game": "fools_errand", "seats": [{"kind": "human"}] * 2}).json()
    page = new_page(browser)
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(server.base + "/")
    page.wait_for_selector("#game option", state="attached")
    page.goto(server.base + people["seats"][0]["link"])
    page.wait_for_selector("#board svg")
    for _ in range(1000):  # the bots' table plays to its end at once
        if httpx.get(f"{server.base}/api/tables/{bots['id']}/record", timeout=10).status_code == 200:
            break
        time.sleep(0.02)
    page.goto(f"{server.base}/replay/{bots['id']}")
    page.wait_for_selector("#board svg")
    assert not blocked
    page.context.close()
