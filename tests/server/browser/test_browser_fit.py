"""The table fits small and sideways screens (Playwright with Debian's Chromium), measured by
:data:`motley.server.web.testing.TABLE_FIT` at a person's decisions: at 6 and 8 players on a 360x640 phone no trick
card covers the centre text or a name label; held sideways (844x390) the trick to answer is on the screen beside the
docked hand; hand cards keep a visible part of at least 32 px and an upper-row card at least half of its face."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from motley.server.web.testing import TABLE_FIT, ServerThread
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():  # Playwright comes with the dev extra, used only where Chromium is
    from playwright.sync_api import Browser

DECISION = ("() => document.querySelector('#match-over') ? 'over' : "
            "(window.motleyTable && window.motleyTable.decision())")

#: No card is in flight: every animation of the page (the cards' flights, table.js) has finished.
SETTLED = "() => document.getAnimations().every(a => a.playState !== 'running')"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "fit.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.05, summary_wait=0.0, pace=0.0) as running:
        yield running


def measures(server: ServerThread, browser: Browser, game: str, players: int, width: int, height: int,
             decisions: int) -> list[dict[str, Any]]:
    """TABLE_FIT at Ann's first ``decisions`` decisions (Ann and random bots; Ann plays at random)."""
    options = {"rounds": 1} if game == "fool" else {"hands": 1}
    spec = {"game": game, "players": players, "options": options,
            "seats": [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "bot": "random"}] * (players - 1)}
    made = httpx.post(f"{server.base}/api/tables", json=spec, headers={"Origin": server.base}).json()
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(30_000)
    page.add_init_script("localStorage.setItem('motley-table-settings', JSON.stringify({trickPause: 0}))")
    page.goto(server.base + made["seats"][0]["link"])
    rng, found = random.Random(players), []
    for _ in range(decisions):
        d = page.wait_for_function(DECISION).json_value()
        if d == "over":
            break
        page.wait_for_timeout(100)  # the cards in flight land, however long a loaded machine takes to draw them
        page.wait_for_function(SETTLED)
        found.append(page.evaluate(TABLE_FIT))
        move = d["legal"][rng.randrange(len(d["legal"]))]
        sent = json.dumps({"type": "move", "version": d["version"], "action": move["action"]})
        page.evaluate(f"window.motleyTable.raw({json.dumps(sent)})")
        page.wait_for_function(f"() => window.motleyTable.state().version !== {d['version']}")
    page.context.close()
    assert found, "no decision was measured"
    return found


@pytest.mark.parametrize(("game", "players", "width", "height"),
                         [("fool", 6, 360, 640), ("fool", 8, 360, 640), ("fool", 8, 844, 390),
                          ("foolery", 3, 360, 640), ("foolery", 7, 844, 390)])
def test_the_table_fits_the_screen(server: ServerThread, browser: Browser, game: str, players: int, width: int,
                                   height: int) -> None:
    for seen in measures(server, browser, game, players, width, height, decisions=4):
        assert not seen["centre"], f"a trick card covers the centre text: {seen}"
        assert not seen["labels"], f"a card covers a trick's name label: {seen}"
        assert not seen["trick"], f"the trick is off the screen or under the hand: {seen}"
        assert seen["tap"] is None or seen["tap"] >= 32, f"a hand card is tappable over {seen['tap']} px only"
        assert seen["upper"] >= 0.5, f"an upper-row card is {seen['upper']:.0%} tappable"
