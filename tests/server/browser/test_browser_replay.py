"""The replay viewer in a real browser (Playwright with Debian's Chromium): play and pause, the keyboard,
jumping to a round, names, each seat's view after the match, a shareable link, and the one-file viewer
written by ``motley replay --html`` opened from disk."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from motley.cli.main import app
from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, finished_by_bots, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser, Page, ViewportSize, expect

#: Search iterations per decision of the server's analyses here: a quick analysis (the page does not depend on it).
ANALYSIS_SIMULATIONS = 20
#: The sizes the replay is read at: a desktop window and a phone held upright.
SIZES: dict[str, tuple[int, int]] = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "replay.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        running.app.state.service.analyses.simulations = ANALYSIS_SIMULATIONS
        yield running



def finished_table(server: ServerThread, game: str, players: int) -> str:
    """A bots-only table played to its end; its id."""
    seats = [{"kind": "bot", "bot": "random"}] * players
    spec = {"game": game, "players": players, "bot_delay": 0, "seats": seats}
    if game == "fool":
        spec["options"] = {"rounds": 2}
    return finished_by_bots(server.base, spec)


def names(server: ServerThread, table_id: str) -> list[str]:
    """The seats' names, as the table's record gives them."""
    given: list[str] = httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10).json()["names"]
    assert len(set(given)) == len(given)
    return given


def open_replay(browser: Browser, url: str) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(20_000)
    page.goto(url)
    page.wait_for_selector("#board svg")
    return page


def where(page: Page) -> str:
    return page.inner_text("#where")


def test_replay_plays_pauses_steps_by_key_jumps_and_shows_names(server: ServerThread, browser: Browser,
                                                                shots: Path) -> None:
    table_id = finished_table(server, "fool", 4)
    page = open_replay(browser, f"{server.base}/replay/{table_id}")
    seated = names(server, table_id)
    expect(page.locator("#scores th")).to_have_text(seated)
    expect(page.locator("#where")).to_contain_text("move 0 of")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#where")).to_contain_text("move 1 of")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#where")).to_contain_text("move 0 of")
    page.select_option("#speed", "80")
    page.keyboard.press(" ")
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    page.wait_for_function("() => /move ([5-9]|\\d\\d+) of/.test(document.querySelector('#where').textContent)")
    page.keyboard.press(" ")
    expect(page.get_by_role("button", name="Play")).to_be_visible()
    paused = where(page)
    page.wait_for_timeout(300)
    assert where(page) == paused  # paused means no more steps
    page.select_option("#jump", label=page.locator("#jump option").nth(1).inner_text())
    expect(page.locator("#where")).to_contain_text("round 2")
    expect(page.locator("#log")).to_contain_text(seated[0])
    expect(page.locator("#sheet tr")).to_have_count(3)  # names, then one line per round played
    page.screenshot(path=str(shots / "replay.png"), full_page=True)
    page.context.close()


def test_each_seat_s_view_and_a_shared_link(server: ServerThread, browser: Browser) -> None:
    table_id = finished_table(server, "fool", 4)
    page = open_replay(browser, f"{server.base}/replay/{table_id}?step=3")
    expect(page.locator("#where")).to_contain_text("move 3 of")
    public = page.inner_html("#board")
    page.get_by_role("combobox", name="View").select_option(label=f"{names(server, table_id)[1]}'s view (hand shown)")
    page.wait_for_function("(old) => document.querySelector('#board').innerHTML !== old", arg=public)
    assert "view=1" in page.url and "step=3" in page.url
    shared = open_replay(browser, page.url)  # the link opens the same step in the same view
    expect(shared.locator("#where")).to_contain_text("move 3 of")
    assert shared.inner_html("#board") == page.inner_html("#board")
    assert httpx.get(f"{server.base}/api/tables/{table_id}/replay/3?view=9", timeout=10).status_code == 400
    shared.context.close()
    page.context.close()


def test_the_fools_errand_replay_steps_through_every_card(server: ServerThread, browser: Browser) -> None:
    table_id = finished_table(server, "fools_errand", 2)
    page = open_replay(browser, f"{server.base}/replay/{table_id}")
    page.keyboard.press("Home")
    events = page.locator("#events li")
    count = events.count()
    assert count > 0  # cards played before the first decision
    page.keyboard.press("ArrowRight")
    expect(page.locator("#events li.current")).to_have_count(1)
    expect(page.locator("#where")).to_contain_text(f"event 1 of {count}")
    page.context.close()


def test_the_replay_file_works_from_disk(server: ServerThread, browser: Browser, tmp_path: Path) -> None:
    table_id = finished_table(server, "fools_errand", 2)
    record = tmp_path / "match.json"
    record.write_text(json.dumps(httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10).json()))
    out = tmp_path / "replay.html"
    assert CliRunner().invoke(app, ["replay", str(record), "--html", str(out)]).exit_code == 0
    page = open_replay(browser, out.as_uri())
    expect(page.locator("#scores th")).to_have_text(names(server, table_id))
    page.keyboard.press("End")
    expect(page.locator("#where")).to_contain_text("finished")
    page.get_by_role("combobox", name="View").select_option("1")
    expect(page.locator("#board svg")).to_be_visible()
    page.context.close()


def test_the_replay_viewer_fits_a_phone(server: ServerThread, browser: Browser) -> None:
    table_id = finished_table(server, "foolery", 3)
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{server.base}/replay/{table_id}")
    page.wait_for_selector("#board svg")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scrolling"
    page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_replay_and_its_analysis_read_on_a_phone(server: ServerThread, browser: Browser, size: str,
                                                      shots: Path) -> None:
    """At a phone's 390x844 (and a desktop's size): Analyse within the first screen, the score tables within the
    page's width (no sideways scrolling), the log in words, each point of the analysis's graph and each button a
    target of at least 24 px, and the seat's figure (accuracy, win chance lost a decision) in words."""
    seats = [{"kind": "bot", "bot": "random"}] * 5  # five columns of names such as "Bot 1 (random)" to fit
    table_id = finished_by_bots(server.base, {"game": "fool", "players": 5, "options": {"rounds": 2},
                                              "bot_delay": 0, "seats": seats})
    width, height = SIZES[size]
    viewport: ViewportSize = {"width": width, "height": height}
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{server.base}/replay/{table_id}?view=2&step=12")
    page.wait_for_selector("#board svg")
    analyse = page.get_by_role("region", name="Analysis").get_by_role("button", name="Analyse")
    expect(analyse).to_be_visible()
    box = analyse.bounding_box()
    assert box is not None and box["y"] + box["height"] <= height, f"Analyse below the first screen: {box}"
    assert page.evaluate("() => window.scrollY") == 0
    expect(page.locator("#log")).to_contain_text(re.compile(r"\d+\. Bot \d \(random\) (had to play|played) the "))
    wide = page.evaluate("""() => [...document.querySelectorAll('table.scores')].filter((t) => t.scrollWidth >
        t.clientWidth + 1 || t.getBoundingClientRect().right > window.innerWidth + 1).map((t) => t.id)""")
    assert wide == [], f"score tables wider than the page: {wide}"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    analyse.click()
    graph = page.get_by_role("img", name=re.compile("estimated chance of winning the deal"))
    expect(graph).to_be_visible(timeout=120_000)
    expect(page.locator("#analysis-summary")).to_contain_text(re.compile(r"accuracy \d+%.* lost a decision"))
    targets = "#analysis-graph g[role=button] rect, #analysis-panel button, .replay-controls button"
    small = page.evaluate("""(targets) => [...document.querySelectorAll(targets)].map((e) => [
        e.getAttribute('aria-label') || e.parentElement.getAttribute('aria-label') || e.textContent,
        e.getBoundingClientRect()])
        .filter(([, r]) => r.width < 24 || r.height < 24).map(([n, r]) => `${n}: ${r.width}x${r.height}`)""", targets)
    assert small == [], f"targets under 24 px: {small}"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # the graph scrolls in its own box
    page.screenshot(path=str(shots / f"replay-analysis-{size}.png"), full_page=True)
    page.context.close()
