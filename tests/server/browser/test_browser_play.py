"""The web page in a real browser (issue item 6): Playwright driving Debian's Chromium.

A person plays a whole match of each game against bots through the page, two browser contexts play each
other at one table, a reload restores the game, wrong input gets an error and changes nothing, and a
spectator's page holds no hidden card. Screenshots of each table go to docs/screenshots/.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response

from motley.server.play.table import Table
from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, needs_chromium

PLAYERS = {"fools_errand": 2, "fool": 4, "foolery": 3}

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser, Locator, Page, Position, ViewportSize

#: Where a test presses a card of the hand: its top-left corner, which the fanned hand never covers (the next card
#: covers a card's right part; a lifted, selected card of the row below covers the bottom of the card above it).
VISIBLE: Position = {"x": 10, "y": 10}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "browser.db"
    # whole matches here play straight through: the deals do not wait for Continue (the wait itself is tested
    # in test_browser_table.py), the page's summary dialog opens and play goes on behind it; no pace: The Fool's
    # Errand's draws are shown at once (tests/server/browser/test_browser_errand_pace.py shows them one at a time)
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0, summary_wait=0.0, pace=0.0) as running:
        yield running




PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1400, "height": 1000}


def new_page(browser: Browser, viewport: ViewportSize | None = None) -> Page:
    """A page of a fresh browser context; its table settings draw after 0.5 s and hold a finished trick 0.5 s."""
    page = browser.new_context(viewport=viewport or DESKTOP).new_page()
    page.add_init_script("localStorage.setItem('motley-table-settings', "
                         "JSON.stringify({drawDelay: 0.5, trickPause: 0.5}))")
    page.set_default_timeout(20_000)
    return page


def friends_screen(page: Page, server: ServerThread, game: str, players: int) -> None:
    """Open the lobby's "Play with friends" screen of ``game`` with ``players`` seats."""
    page.goto(f"{server.base}/#friends/{game}")
    page.get_by_role("button", name="Create table").wait_for()
    count = page.get_by_role("combobox", name="Number of players")
    if count.is_visible():
        count.select_option(str(players))


def decision(page: Page) -> dict[str, Any] | None:
    """Wait until the player has a real decision to make (the page's legal moves, and for the exchange how many
    cards to give), or the match is over (None)."""
    handle = page.wait_for_function("() => document.querySelector('#match-over') ? 'over' : "
                                    "window.motleyTable && window.motleyTable.decision()")
    value = handle.json_value()
    return None if value == "over" else cast("dict[str, Any]", value)


def card_names(page: Page) -> dict[str, str]:
    """The spoken name of every card code of the page's game (the card map the page was given)."""
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    game = page.evaluate("window.motleyTable.state().game")
    info = next(g for g in httpx.get(page.url.split("/table/")[0] + "/api/games", timeout=10).json()
                if g["name"] == game)
    return {code: str(card["name"]) for code, card in info["cards"].items()}


def hand(page: Page) -> Locator:
    """The cards of the person's hand (the buttons of the "Your hand" region's card group)."""
    return page.get_by_role("region", name="Your hand").get_by_role("group", name="Your cards")


def make(page: Page, move: dict[str, Any], give: int, names: dict[str, str], chosen: list[str] | None = None) -> int:
    """Make ``move`` through the page as a person does (select its cards in the hand, press Play / Give, or press
    the move's button); returns the number of clicks."""
    version = page.evaluate("window.motleyTable.state().version")
    cards = chosen if chosen is not None else move["cards"]
    clicks = 0
    if not cards:
        label = {"pass": "Pass", "draw": "Draw", "play joker": "Play Joker", "keep joker": "Keep Joker"}[move["move"]]
        page.get_by_role("button", name=label, exact=True).click()
        clicks = 1
    else:
        for code in cards:
            if page.evaluate(f"window.motleyTable.state().version !== {version}"):
                break  # one click played it
            selected = page.evaluate("window.motleyTable.selection()")
            if selected.count(code) >= cards.count(code):
                continue  # the page selected it with the rest of the only play that fits
            hand(page).get_by_role("button", name=names[code], exact=True, pressed=False).first.click(position=VISIBLE)
            clicks += 1
        sent = page.evaluate(f"window.motleyTable.state().version !== {version} || !window.motleyTable.decision()")
        if not sent:
            page.get_by_role("button", name="Give" if give else "Play", exact=True).click()
            clicks += 1
    page.wait_for_function(f"() => window.motleyTable.state().version !== {version} || "
                           "document.querySelector('#error').textContent !== ''")
    return clicks


def random_move(page: Page, pending: dict[str, Any], rng: random.Random, names: dict[str, str]) -> int:
    """Make a random legal move of ``pending`` (a :func:`decision`) through the page; returns the clicks."""
    legal = pending["legal"]
    chosen = rng.sample(sorted({c for m in legal for c in m["cards"]}), pending["give"]) if pending["give"] else None
    return make(page, legal[rng.randrange(len(legal))], pending["give"], names, chosen)


def play_through(page: Page, rng: random.Random, shot: Path | None = None, shot_at: int = 4,
                 limit: int = 3000) -> tuple[int, int, int]:
    """Make random legal moves through the page until the match is over (each decision the page leaves to the
    person; the page makes forced moves and paced draws itself): ``(clicks, decisions, most buttons on screen)``."""
    names = card_names(page)
    clicks = decisions = most = 0
    while (pending := decision(page)) is not None:
        most = max(most, page.get_by_role("button").count())
        if shot is not None and decisions == shot_at:
            page.screenshot(path=str(shot), full_page=True)
        legal = pending["legal"]
        assert len(legal) > 1, "only real decisions are left to the person"
        if pending["later"] and rng.random() < 0.8:  # let the page make its paced move (a draw) by itself
            before = page.evaluate("window.motleyTable.state().version")
            page.wait_for_function(f"() => window.motleyTable.state().version !== {before}")
            continue
        clicks += random_move(page, pending, rng, names)
        decisions += 1
        assert clicks < limit, "match did not end"
    return clicks, decisions, most


def points_words(points: int) -> str:
    """A score as the page says it: "1 point", "-3 points"."""
    return f"{points} point" + ("" if points == 1 else "s")


def version(page: Page) -> int:
    return int(page.get_attribute("#status", "data-version") or -1)


def create(server: ServerThread, game: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    spec = {"game": game, "bot_delay": 0, "seats": seats, **extra}
    if game != "fools_errand":
        spec["players"] = len(seats)
    return cast("dict[str, Any]", httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json())


def against_bots(server: ServerThread, game: str, bot: str = "random", **extra: Any) -> dict[str, Any]:
    bots = [{"kind": "bot", "bot": bot}] * (PLAYERS[game] - 1)
    return create(server, game, [{"kind": "human", "name": "Ann"}, *bots], **extra)


def seat_page(server: ServerThread, browser: Browser, game: str, deciding: bool = False,
              viewport: ViewportSize | None = None) -> tuple[dict[str, Any], Page, dict[str, str]]:
    """A new table of ``game``, Ann (seat 0) against random bots: the table, Ann's page on it (``viewport``:
    desktop size by default), and the spoken name of every card code. With ``deciding``, tables are made until
    Ann has a decision to make: the server draws the seed, and a deal of The Fool's Errand may be played out by
    the bots and forced moves alone."""
    for _ in range(20):
        table = against_bots(server, game)
        page = new_page(browser, viewport)
        page.goto(server.base + table["seats"][0]["link"])
        if not deciding or decision(page) is not None:
            return table, page, card_names(page)
        page.close()
    raise AssertionError(f"no {game} table gave Ann a decision")


@pytest.mark.parametrize("game", ["fools_errand", "fool", "foolery"])
def test_a_person_plays_a_whole_match_against_bots(server: ServerThread, browser: Browser, shots: Path,
                                                   game: str) -> None:
    page = new_page(browser)
    friends_screen(page, server, game, PLAYERS[game])
    for seat in range(2, PLAYERS[game] + 1):
        page.get_by_role("combobox", name=f"Seat {seat}", exact=True).select_option("heuristic")
    page.locator("#table-options > summary").click()
    page.fill("#bot_delay", "0")
    page.click("#create-button")
    page.click("#play-now")
    page.get_by_role("region", name="Your hand").wait_for()
    clicks, decisions, most = play_through(page, random.Random(1), shot=shots / f"{game}.png",
                                shot_at=0 if game == "fools_errand" else 4)
    ranking = page.get_by_role("dialog", name="Match over")
    scores = server.app.state.service.tables[page.url.split("/table/")[1].split("?")[0]].table.state.scores()
    names = [s["name"] for s in page.evaluate("window.motleyTable.state().seats")]
    text = ranking.inner_text()
    for name, points in zip(names, scores, strict=True):
        assert f"{name}" in text and points_words(points) in text, f"{name} with {points} points in the ranking"
    assert any(re.fullmatch(r"Bot( \d)? \((heuristic|random|ismcts)\)", n) for n in names), "bots are named by kind"
    page.screenshot(path=str(shots / f"{game}-end.png"), full_page=True)
    table_id = page.url.split("/table/")[1].split("?")[0]
    moves = sum(1 for m in server.app.state.service.tables[table_id].table.record.moves if m[0] == 0)
    print(f"{game}: {moves} moves of the person's seat, {decisions} decided by the person with {clicks} clicks, "
          f"at most {most} buttons on screen")
    # the rematch: a new table with the same people, bots and options, and the page goes to its seat there
    ranking.get_by_role("button", name="Rematch").click()
    page.get_by_role("dialog", name="Rematch").get_by_role("button", name="Offer the rematch").click()
    page.wait_for_url(re.compile(r"/table/(?!" + table_id + r")\w+\?token="))
    page.get_by_role("region", name="Your hand").wait_for()
    page.wait_for_function("() => window.motleyTable.state() && window.motleyTable.state().version >= 0")
    assert [s["name"] for s in page.evaluate("window.motleyTable.state().seats")] == names
    page.context.close()


@pytest.mark.parametrize("game", ["fool", "foolery", "fools_errand"])
def test_the_table_fits_a_phone(server: ServerThread, browser: Browser, shots: Path, game: str) -> None:
    _, page, _ = seat_page(server, browser, game, deciding=True, viewport=PHONE)
    page.get_by_role("region", name="Your hand").wait_for()
    assert decision(page) is not None
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "no sideways scrolling"
    assert page.locator("meta[name=viewport]").count() == 1
    for button in page.get_by_role("button").all():
        if button.is_visible():
            box = button.bounding_box()
            assert box is not None and box["height"] >= 40, f"tap target {button.inner_text()!r} is {box}"
    page.screenshot(path=str(shots / f"{game}-phone.png"), full_page=True)
    page.context.close()


def test_the_hand_is_the_controls(server: ServerThread, browser: Browser) -> None:
    """Foolery at a person's lead: the cards are buttons with spoken names; cards that are no part of any legal
    move are disabled; a selection that is no legal move says why and cannot be sent; Space selects, P plays."""
    table, page, names = seat_page(server, browser, "foolery")
    rng = random.Random(4)
    while True:  # a decision where two usable cards make no legal play together
        pending = decision(page)
        assert pending is not None
        usable = sorted({c for m in pending["legal"] for c in m["cards"]})
        pairs = [(a, b) for a in usable for b in usable
                 if a < b and not any({a, b} <= set(m["cards"]) for m in pending["legal"])]
        if pairs and any(m["cards"] == [pairs[0][0]] for m in pending["legal"]):
            break
        random_move(page, pending, rng, names)
    state = page.evaluate("window.motleyTable.state()")
    cards = hand(page).get_by_role("button")
    assert page.get_by_role("region", name="Your hand").get_by_role("button", name="Play", exact=True).count() == 1
    assert cards.count() == len(state["observation"]["hand"])
    spoken = sorted(cards.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))"))
    assert spoken == sorted(names[c] for c in state["observation"]["hand"])
    for code in state["observation"]["hand"]:
        button = hand(page).get_by_role("button", name=names[code], exact=True).first
        assert button.get_attribute("aria-disabled") == ("false" if code in usable else "true")
    # two cards that no legal play holds together: the page says so and Play stays disabled
    first, second = pairs[0]
    hand(page).get_by_role("button", name=names[first], exact=True).click()
    hand(page).get_by_role("button", name=names[second], exact=True).click()
    assert hand(page).get_by_role("button", name=names[first], exact=True).get_attribute("aria-pressed") == "true"
    live: Table = server.app.state.service.tables[table["id"]].table
    reason = live.why(0, f"{first} {second}")
    assert reason, "the engine says why"
    words = re.sub(r"\s*\((?:[A-Z]{1,3}-[A-Z]?\d+[a-z]?(?:,\s*)?)+\)", "", reason.split("': ", 1)[-1])
    page.wait_for_function("([sel, text]) => document.querySelector(sel).textContent.includes(text)",
                           arg=[".hand-area .why", words[1:]])
    why = page.get_by_role("region", name="Your hand").get_by_role("status").filter(has_text=words[1:])
    assert not re.search(r"[A-Z]{2}-R\d", why.inner_text()), "the rule id is not in the words"
    if re.search(r"[A-Z]{2}-R\d", reason):
        assert (why.get_attribute("title") or "").startswith("Rule "), "the rule id is in the details"
    assert page.get_by_role("button", name="Play", exact=True).is_disabled()
    # keyboard: Space unselects the second card, P plays the first alone
    hand(page).get_by_role("button", name=names[second], exact=True).focus()
    page.keyboard.press("Space")
    assert hand(page).get_by_role("button", name=names[second], exact=True).get_attribute("aria-pressed") == "false"
    before = version(page)
    page.keyboard.press("p")
    page.wait_for_function(f"() => window.motleyTable.state().version > {before}")
    assert live.record.moves[before][:2] == (0, first)
    page.context.close()


def test_draws_are_made_for_the_person(server: ServerThread, browser: Browser) -> None:
    """The Fool's Errand: with the Joker set aside, the page draws by itself after a pause (logged as automatic)
    unless the person plays the Joker; only the Joker decisions take a click."""
    for _ in range(10):  # a match where the person's Joker is set aside before the end (most are)
        table = against_bots(server, "fools_errand")
        page = new_page(browser)
        live: Table = server.app.state.service.tables[table["id"]].table
        page.goto(server.base + table["seats"][0]["link"])
        if (before := joker_set_aside(page, live)) is not None:
            break
        page.context.close()
    else:
        raise AssertionError("no match set the Joker aside")
    assert page.get_by_role("button", name="Play Joker", exact=True).is_visible()
    page.wait_for_function(f"() => window.motleyTable.state().version > {before}")  # no click: the page draws
    assert live.record.moves[before] == (0, "draw", "seat")
    page.get_by_text("Log").click()
    assert "Ann drew (automatic)" in page.locator("#log").inner_text()
    page.context.close()


def test_the_last_trick_stays_readable(server: ServerThread, browser: Browser) -> None:
    """Fool!: after a trick, the Last trick region shows its cards, who won it and who became the Fool."""
    table, page, names = seat_page(server, browser, "fool")
    live: Table = server.app.state.service.tables[table["id"]].table
    rng = random.Random(5)
    while not live.state.observation(0)["tricks"]:
        pending = decision(page)
        assert pending is not None
        make(page, pending["legal"][rng.randrange(len(pending["legal"]))], 0, names)
    page.get_by_role("button", name="Last trick").click()
    region = page.get_by_role("region", name="Last trick")
    trick = live.state.observation(0)["tricks"][-1]
    drawn = region.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert drawn == [p["card"] for p in trick["plays"]]
    text = region.inner_text()
    seats = page.evaluate("window.motleyTable.state().seats")
    assert f"{seats[trick['winner']]['name']}" in text and "wins the trick" in text
    assert "becomes the Fool" in text or "become Fools" in text
    page.context.close()


def test_two_people_play_each_other_at_one_table(server: ServerThread, browser: Browser) -> None:
    table = create(server, "fools_errand", [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}])
    pages = [new_page(browser) for _ in range(2)]
    for page, seat in zip(pages, table["seats"], strict=True):
        page.goto(server.base + seat["link"])
        page.get_by_role("region", name="Your hand").wait_for()
    assert "Bob" in pages[0].locator("#board").inner_text() and "Ann" in pages[1].locator("#board").inner_text()
    names = card_names(pages[0])
    rng = random.Random(2)
    live: Table = server.app.state.service.tables[table["id"]].table
    moves = 0
    while not live.state.is_terminal():
        mover = live.state.current_player()
        if mover < 0:
            break
        pending = pages[mover].evaluate("window.motleyTable.decision()")
        if pending is None:
            pages[mover].wait_for_timeout(50)
            continue
        assert pages[1 - mover].evaluate("window.motleyTable.decision()") is None, "the other seat has no decision"
        make(pages[mover], pending["legal"][rng.randrange(len(pending["legal"]))], 0, names)
        moves += 1
    for page in pages:
        page.wait_for_selector("#match-over")
    texts = [page.get_by_role("dialog", name="Match over").locator(".ranking").inner_text().replace(" (you)", "")
             for page in pages]
    assert all("Ann" in t and "Bob" in t for t in texts)
    assert texts[0] == texts[1], "both see the same ranking"
    for page in pages:
        page.context.close()


def test_reload_restores_the_game_and_wrong_input_changes_nothing(server: ServerThread, browser: Browser) -> None:
    table, page, names = seat_page(server, browser, "fool")
    rng = random.Random(3)
    for _ in range(3):
        pending = decision(page)
        assert pending is not None
        make(page, pending["legal"][0], 0, names)
    assert decision(page) is not None
    page.wait_for_function("() => !document.querySelector('.held')")  # a finished trick is shown only for a moment
    before_version = version(page)
    before_cards = page.eval_on_selector_all("#board [data-card]", "els => els.map(e => e.dataset.card)")
    before_hand = hand(page).get_by_role("button").evaluate_all("els => els.map(e => e.dataset.card)")
    page.reload()
    pending = decision(page)
    assert pending is not None
    page.wait_for_function("() => !document.querySelector('.held')")
    assert version(page) == before_version
    assert page.eval_on_selector_all("#board [data-card]", "els => els.map(e => e.dataset.card)") == before_cards
    assert hand(page).get_by_role("button").evaluate_all("els => els.map(e => e.dataset.card)") == before_hand
    # wrong input on purpose, straight into the page's socket: a stale move and garbage
    page.evaluate(f"window.motleyTable.raw(JSON.stringify({{type: 'move', version: {before_version - 1}, action: 0}}))")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('too late')")
    page.evaluate("window.motleyTable.raw('this is not json')")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('JSON')")
    live: Table = server.app.state.service.tables[table["id"]].table
    assert live.version == before_version
    # and the page still plays
    pending = decision(page)
    assert pending is not None
    make(page, pending["legal"][rng.randrange(len(pending["legal"]))], 0, names)
    assert live.version > before_version
    page.context.close()


def test_a_spectator_sees_no_hidden_card(server: ServerThread, browser: Browser, shots: Path) -> None:
    for game in ("foolery", "fool", "fools_errand"):
        players = PLAYERS[game]
        for _ in range(8):  # the server draws the seed: in The Fool's Errand seat 0 may get no decision at all
            table = against_bots(server, game, wait_for_people=False)
            live: Table = server.app.state.service.tables[table["id"]].table
            page = new_page(browser)
            page.goto(server.base + table["spectate"])
            page.wait_for_selector("#board")
            # the bots play until the (absent) person's turn: then the table waits, and the page is stable
            page.wait_for_function(
                f"() => Number(document.querySelector('#status').dataset.version) === {live.version}")
            assert live.state.current_player() == 0 or live.state.is_terminal()
            if not live.state.is_terminal():
                break  # a match over has no hidden card left to check
            page.context.close()
        assert not live.state.is_terminal(), f"{game}: every table ended before seat 0's first decision"
        drawn = set(page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
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
    friends_screen(page, server, "fool", 4)
    before = len(httpx.get(f"{server.base}/api/tables", timeout=10).json())
    page.locator("#table-options > summary").click()
    page.fill(".grid-cell[data-row='4'][data-col='G']", "0")  # no such deck: the server answers with the reason
    page.click("#create-button")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('deck_table')")
    assert page.query_selector("#play-now") is None
    assert len(httpx.get(f"{server.base}/api/tables", timeout=10).json()) == before
    page.context.close()


def test_an_open_seat_is_joined_from_the_lobby(server: ServerThread, browser: Browser) -> None:
    creator = new_page(browser)
    friends_screen(creator, server, "fools_errand", 2)
    creator.get_by_role("combobox", name="Seat 2", exact=True).select_option("open")
    creator.get_by_role("button", name="Create table").click()
    invite = creator.get_by_role("textbox", name="Invite link for Seat 2 (Player 2)").input_value()
    table_id = invite.split("/table/")[1].split("?")[0]
    joiner = new_page(browser)
    joiner.goto(server.base + "/")
    line = joiner.locator(f'#open [data-table="{table_id}"]')
    line.get_by_role("button", name="Join (1 open seat)").click()
    line.get_by_role("textbox", name="Your name at The Fool's Errand").fill("Dee")  # a Join asks the name first
    line.get_by_role("button", name="Take the seat").click()
    joiner.get_by_role("region", name="Your hand").wait_for()
    token = joiner.url.split("token=")[1]
    table: Table = server.app.state.service.tables[table_id].table
    assert table.seat_of_token(token) == 1 and token != invite.split("token=")[1], "a fresh link to seat 1"
    assert table.seats[1].claimed and table.seats[1].ever_connected, "the page plays seat 1"
    assert table.seats[1].name == "Dee", "under the name the joiner gave"
    joiner.goto(server.base + "/")
    joiner.wait_for_selector(f'#tables [data-table="{table_id}"]', state="attached")
    assert joiner.locator(f'#tables [data-table="{table_id}"] button').count() == 0, "no Join: the seat is taken"
    assert joiner.locator(f'#open [data-table="{table_id}"]').count() == 0
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
    page.wait_for_selector(".game-card img", state="attached")
    page.goto(server.base + people["seats"][0]["link"])
    page.get_by_role("region", name="Your hand").wait_for()
    for _ in range(1000):  # the bots' table plays to its end at once
        if httpx.get(f"{server.base}/api/tables/{bots['id']}/record", timeout=10).status_code == 200:
            break
        time.sleep(0.02)
    page.goto(f"{server.base}/replay/{bots['id']}")
    page.wait_for_selector("#board svg")
    assert not blocked
    page.context.close()


def test_bots_wait_for_every_person_or_start(server: ServerThread, browser: Browser) -> None:
    """Two people and a bot that moves first: the bot waits while Bob has not opened his link, and Ann's page
    says so; Ann's Start lets the bot move."""
    seats = [{"kind": "bot", "bot": "random"}, {"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"},
             {"kind": "bot", "bot": "random"}]
    table, first = bot_first(server, seats)
    live: Table = server.app.state.service.tables[table["id"]].table
    page = new_page(browser)
    page.goto(server.base + table["seats"][1]["link"])
    waiting = page.get_by_role("region", name="Waiting for players")
    waiting.wait_for()
    assert "Bob" in waiting.inner_text()
    page.wait_for_timeout(300)  # longer than the bots' delay (0 s): a bot to move has not moved
    assert live.version == 0 and live.state.current_player() == first
    waiting.get_by_role("button", name="Start").click()
    waiting.wait_for(state="detached")
    page.wait_for_function("() => window.motleyTable.state().version > 0")
    page.context.close()


def bot_first(server: ServerThread, seats: list[dict[str, Any]]) -> tuple[dict[str, Any], int]:
    """A new Fool! table with ``seats`` whose first move is a bot's (tables are made until one is), and that seat."""
    for _ in range(40):
        table = create(server, "fool", seats)
        first = server.app.state.service.tables[table["id"]].table.state.current_player()
        if seats[first]["kind"] == "bot":
            return table, first
    raise AssertionError("no table with a bot to move first")


CONTRAST = """() => {
  const lum = (rgb) => { const c = rgb.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => v / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
  const bg = (el) => { for (let e = el; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor;
    if (!/rgba\\(.*, 0\\)$/.test(c) && c !== "transparent") return c; } return "rgb(255, 255, 255)"; };
  const low = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("[aria-disabled=true], :disabled") || !el.offsetParent) continue;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const a = lum(getComputedStyle(el).color), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const what = `${el.tagName}.${el.className}: ${el.textContent.trim().slice(0, 30)}`;
    if (ratio < 4.5) low.push(`${what} ${ratio.toFixed(2)}`);
  }
  return low;
}"""


@pytest.mark.parametrize("game", ["fool", "foolery", "fools_errand"])
def test_text_contrast_help_and_the_tab_title(server: ServerThread, browser: Browser, game: str) -> None:
    """Every visible text (disabled controls aside) has a contrast of at least 4.5:1 with its background (WCAG AA);
    the tab title says when it is the person's turn; the help panel has the game's sentence and players and match
    length (the first page's words), the rules and the table's options."""
    _, page, names = seat_page(server, browser, game, deciding=True)
    rng = random.Random(8)
    while game == "fool" and not page.evaluate("window.motleyTable.state().observation.tricks.length"):
        pending = decision(page)  # play on until the Last trick panel has a trick to show
        assert pending is not None
        random_move(page, pending, rng, names)
    assert decision(page) is not None
    title, deciding = page.evaluate("[document.title, window.motleyTable.decision() !== null]")
    assert deciding and title.startswith("\u25cf Your turn")
    for panel in ("Last trick", "Score sheet", "Settings", "Help"):
        button = page.get_by_role("button", name=panel, exact=True)
        if button.count():
            button.click()
            assert page.evaluate(CONTRAST) == [], f"low contrast with {panel} open"
    help_text = page.get_by_role("region", name=re.compile("How to play")).inner_text()
    game_info = next(g for g in httpx.get(f"{server.base}/api/games", timeout=10).json() if g["name"] == game)
    assert all(o["label"] in help_text and o["explanation"] in help_text for o in game_info["options"]), \
        "every option is named and explained in words"
    flat = " ".join(help_text.split())
    # Foolery's titles and exchange are said for the table's player count (3: no Prince, no Merchant; FY-R11)
    titled = [p for p in game_info["how_to_play"] if game == "foolery" and re.search("Prince|Merchant", p)]
    assert game_info["how_to_play"] and all(" ".join(p.split()) in flat for p in game_info["how_to_play"]
                                            if p not in titled), "the rules in short, from the game's spec"
    assert not titled or ("no Prince and no Merchant" in flat and "Merchant gives" not in flat), flat
    assert game_info["summary"] in flat and game_info["at_a_glance"].lower() in flat.lower(), \
        "the first page's words for the game"
    page.context.close()


def test_one_click_selects_the_only_play_that_fits(server: ServerThread, browser: Browser) -> None:
    """Foolery: a card that is part of exactly one legal play (and no play alone) selects the whole play."""
    _, page, names = seat_page(server, browser, "foolery")
    rng = random.Random(6)
    for _ in range(400):
        pending = decision(page)
        assert pending is not None, "the match ended before a card with a single play came up"
        legal = pending["legal"]
        only = [(c, plays[0]) for c in {c for m in legal for c in m["cards"]}
                if len(plays := [m for m in legal if c in m["cards"]]) == 1 and len(plays[0]["cards"]) > 1]
        if only and not pending["give"]:
            code, move = only[0]
            hand(page).get_by_role("button", name=names[code], exact=True).click()
            assert sorted(page.evaluate("window.motleyTable.selection()")) == sorted(move["cards"])
            return
        random_move(page, pending, rng, names)
    raise AssertionError("no card with a single play came up")


def joker_set_aside(page: Page, live: Table) -> int | None:
    """Keep each Joker the person draws until the page offers to draw by itself (the table's version then), or
    the match ends (None)."""
    while (pending := decision(page)) is not None:
        if pending["later"] == "draw":
            return int(pending["version"])
        before = live.version
        page.get_by_role("button", name="Keep Joker", exact=True).click()
        page.wait_for_function(f"() => window.motleyTable.state().version > {before}")
    return None


def test_the_table_runs_under_a_strict_content_security_policy(tmp_path: Path, browser: Browser) -> None:
    """The table page needs no inline script, inline style, eval or other origin: served with a policy that
    allows scripts, styles and sockets from the page's own origin only, it draws and plays, and the browser
    reports no violation."""
    policy = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
              "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'")
    strict = ServerThread(f"sqlite:///{tmp_path / 'csp.db'}", bot_delay=0.0)

    @strict.app.middleware("http")
    async def with_policy(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = policy
        return response

    with strict:
        table = against_bots(strict, "fool")
        page = new_page(browser)
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(strict.base + table["seats"][0]["link"])
        names = card_names_of(strict, "fool")
        # (Playwright's wait_for_function evaluates strings in the page, which this policy forbids: poll instead)
        pending = poll(page, "window.motleyTable && window.motleyTable.decision()")
        hand(page).get_by_role("button", name=names[pending["legal"][0]["cards"][0]], exact=True).first.click()
        poll(page, f"window.motleyTable.state().version > {pending['version']}")
        assert violations == []
        page.context.close()


def poll(page: Page, expression: str, seconds: float = 20.0) -> Any:
    """The first truthy value of ``expression`` in the page, asked every 0.1 s (fails after ``seconds``)."""
    for _ in range(int(seconds * 10)):
        value = page.evaluate(expression)
        if value:
            return value
        page.wait_for_timeout(100)
    raise AssertionError(f"{expression} stayed false")


def card_names_of(server: ServerThread, game: str) -> dict[str, str]:
    """The spoken name of every card code of ``game`` (the card map of ``/api/games``)."""
    info = next(g for g in httpx.get(f"{server.base}/api/games", timeout=10).json() if g["name"] == game)
    return {code: card["name"] for code, card in info["cards"].items()}
