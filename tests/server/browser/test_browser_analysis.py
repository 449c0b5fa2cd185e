"""The analysis in the replay viewer and the hints at a friendly table, in a real browser (Playwright with Debian's
Chromium), at desktop and phone size: Analyse shows the progress, then the graph of the seat's estimated win chance
(a point per decision, each a button that jumps the replay there), the summary and the decisions; a Hint on the
person's turn rings the strongest bot's choice in their hand with one sentence of why, once per decision."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, finished_by_bots, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, ViewportSize, expect

SIZES: dict[str, Any] = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
#: Search iterations per decision of the server's analyses here: a quick analysis (the page does not depend on it).
SIMULATIONS = 30


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "analysis.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0, pace=0.0) as running:
        running.app.state.service.analyses.simulations = SIMULATIONS
        yield running


@pytest.fixture(scope="module")
def finished(server: ServerThread) -> str:
    """A bots-only match of one deal of Fool! at 4 players, played to its end; its id."""
    spec = {"game": "fool", "players": 4, "options": {"rounds": 1}, "bot_delay": 0, "summary_wait": 0,
            "seats": [{"kind": "bot", "bot": "random", "name": n} for n in ("Ann", "Bob", "Cy", "Di")]}
    return finished_by_bots(server.base, spec)


def new_page(browser: Browser, size: str) -> Page:
    viewport: ViewportSize = SIZES[size]
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(30_000)
    return page


@pytest.mark.parametrize("size", list(SIZES))
def test_the_replay_analyses_a_seat_draws_its_graph_and_jumps_from_it(server: ServerThread, browser: Browser,
                                                                      finished: str, size: str, shots: Path) -> None:
    errors: list[str] = []
    page = new_page(browser, size)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server.base}/replay/{finished}?view=1")
    page.wait_for_selector("#board svg")
    panel = page.get_by_role("region", name="Analysis")
    expect(panel.get_by_label("Seat")).to_have_value("1")  # the viewer's own seat by default
    analyse = panel.get_by_role("button", name="Analyse")
    if size == "desktop":  # the first visit computes it; the second finds it stored
        expect(panel.get_by_role("status")).to_contain_text("Not analysed yet")
        analyse.click()
    graph = panel.get_by_role("img", name=re.compile("estimated chance of winning the deal"))
    expect(graph).to_be_visible(timeout=120_000)
    expect(analyse).to_be_disabled()
    expect(panel.locator("#analysis-summary")).to_contain_text("decisions reviewed")
    points = graph.get_by_role("button", name=re.compile(r"^Move \d+: .* to win the deal"))
    count = points.count()
    assert count > 3 and panel.locator("#analysis-decisions > li").count() == count
    graph.scroll_into_view_if_needed()
    covered = page.evaluate("""() => [...document.querySelectorAll('#analysis-graph g[role=button]')].filter((g) => {
        const box = g.querySelector('circle').getBoundingClientRect();
        const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
        return !hit || hit.closest('g[role=button]') !== g; }).map((g) => g.getAttribute('aria-label'))""")
    assert covered == [], f"points whose dot another point's target covers: {covered}"
    point = points.nth(count // 2)
    target = int(point.get_attribute("data-step") or -1)
    point.click()
    expect(page.locator("#where")).to_contain_text(f"move {target} of")
    expect(panel.locator(f"#analysis-decisions > li[data-step='{target}']")).to_have_class(re.compile("current"))
    page.locator("#analysis-panel").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / ("analysis.png" if size == "desktop" else "analysis-phone.png")), full_page=True)
    assert errors == []


@pytest.mark.parametrize("size", list(SIZES))
def test_a_hint_rings_the_bots_choice_in_the_hand_once_per_decision(server: ServerThread, browser: Browser,
                                                                      size: str, shots: Path) -> None:
    seats = [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "bot": "random"}] * 3
    spec = {"game": "fool", "players": 4, "options": {"rounds": 1}, "bot_delay": 0, "pace": 0, "hints": True,
            "seats": seats}
    made = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10).json()
    page = new_page(browser, size)
    page.add_init_script("localStorage.setItem('motley-table-settings', "
                         "JSON.stringify({autoMoves: false, trickPause: 0, motion: false}))")
    page.goto(server.base + made["seats"][0]["link"])
    page.wait_for_function("() => { const t = window.motleyTable, d = t && t.decision(); "
                           "return d && d.legal.length > 1 && d.legal.every((m) => m.cards.length > 0); }")
    hand = page.get_by_role("region", name="Your hand")
    expect(hand.get_by_text("Hints on")).to_be_visible()
    hint = hand.get_by_role("button", name=re.compile("^Hint"))
    hint.click()
    # the search runs in a worker process of the server: "Thinking..." until it answers, however loaded the machine
    expect(hand.get_by_role("status").filter(has_text="Hint:")).to_contain_text("sampled deals", timeout=60_000)
    ringed = hand.get_by_role("button", name=re.compile(r"\(the hint\)$"))
    expect(ringed.first).to_be_visible()
    expect(hand.get_by_role("button", name="Hint given for this decision")).to_be_disabled()
    page.screenshot(path=str(shots / ("hint.png" if size == "desktop" else "hint-phone.png")))
