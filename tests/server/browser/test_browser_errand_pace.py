"""The Fool's Errand at the table's pace, in a real browser (Playwright driving Debian's Chromium): the draws of
a move appear one at a time, the decision's controls only once they are all shown, and the page reaches the end
of the match without a page error; a reload shows the table as it is, at once."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise
from typing import Any, cast

import httpx
import pytest

from motley.server.web.testing import ServerThread
from tests.server.browser.test_browser_play import decision, make, new_page
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page

#: Every animation frame, the number of cards on the line of play (a scoop's cards on their way out not counted),
#: kept each time it changes, and whether the decision's controls were on screen meanwhile.
WATCH = """
window.__inPlay = []; window.__controlsDuringSteps = 0;
const look = () => {
  const cards = document.querySelectorAll('.errand-play .card:not(.scooped)').length;
  const seen = window.__inPlay;
  if (document.querySelector('.errand-play') && (!seen.length || seen[seen.length - 1] !== cards)) seen.push(cards);
  const state = window.motleyTable && window.motleyTable.state();
  if (state && state.observation && state.observation.shown && document.querySelector('button[data-move]'))
    window.__controlsDuringSteps += 1;
  requestAnimationFrame(look);
};
requestAnimationFrame(look);
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "pace.db"
    with ServerThread(f"sqlite:///{db}", summary_wait=0.0) as running:
        yield running


def errand_table(server: ServerThread, pace: float) -> dict[str, Any]:
    """A table of The Fool's Errand: Ann (seat 0) against the heuristic bot, at ``pace``."""
    spec = {"game": "fools_errand", "pace": pace, "bot_delay": 0.3,
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "heuristic"}]}
    answer = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10)
    assert answer.status_code == 200, answer.text
    return cast("dict[str, Any]", answer.json())


def play_to_the_end(page: Page, rng: random.Random) -> int:
    """Answer each decision through the page (or let it draw by itself) until the match is over; the decisions."""
    decisions = 0
    while (pending := decision(page)) is not None:
        on_line = page.locator(".errand-play .card").count()
        shown = page.evaluate("window.motleyTable.state().observation.in_play.length")
        assert on_line == shown, "a decision waits until every card of the move is on the line"
        if pending["later"] and rng.random() < 0.5:
            before = page.evaluate("window.motleyTable.state().version")
            page.wait_for_function(f"() => window.motleyTable.state().version !== {before}")
            continue
        legal = pending["legal"]
        make(page, legal[rng.randrange(len(legal))], 0, {})
        decisions += 1
    return decisions


def test_the_draws_of_a_move_appear_one_at_a_time_and_the_page_reaches_the_end(server: ServerThread,
                                                                                browser: Browser) -> None:
    table = errand_table(server, pace=0.2)
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(WATCH)
    page.set_default_timeout(60_000)
    page.goto(server.base + table["seats"][0]["link"])
    play_to_the_end(page, random.Random(4))
    page.get_by_role("dialog", name="Match over").wait_for()
    seen: list[int] = page.evaluate("window.__inPlay")
    rises = [b - a for a, b in pairwise(seen) if b > a]
    assert errors == []
    assert page.evaluate("window.__controlsDuringSteps") == 0, "no decision's controls while a move is shown"
    assert len(rises) >= 20, f"the cards came one by one, many times: {seen}"
    assert set(rises) == {1}, f"the cards on the line rise one at a time: {seen}"
    final = page.evaluate("window.motleyTable.state()")
    assert final["terminal"] and "shown" not in final["observation"]


def test_a_reload_shows_the_table_as_it_is_at_once(server: ServerThread, browser: Browser) -> None:
    table = errand_table(server, pace=0.2)
    page = new_page(browser)
    page.goto(server.base + table["seats"][0]["link"])
    pending = decision(page)
    assert pending is not None or page.get_by_role("dialog", name="Match over").is_visible()
    page.add_init_script(WATCH)
    page.reload()
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    page.wait_for_timeout(300)
    assert page.evaluate("'shown' in window.motleyTable.state().observation") is False
    on_line = page.locator(".errand-play .card").count()
    assert on_line == page.evaluate("window.motleyTable.state().observation.in_play.length")
    assert len(page.evaluate("window.__inPlay")) == 1, "the table as it is, with no replay of the past"
