"""Does the table fit the screen? The table page in Debian's Chromium, one person (Ann) and random bots, one deal,
sampled at each of Ann's decisions (and Ann plays a random legal move):

- ``centre``: samples where a card of the trick covers the centre text (the round, the lead);
- ``labels``: samples where a card covers a trick's name label (the point at the label's middle is a card's);
- ``trick``: samples where a play of the trick is outside the viewport or under the docked hand;
- ``tap``: the narrowest visible width of a hand card (px; the part not covered by the next card);
- ``upper``: the smallest part of an upper-row card that a tap reaches (two-row hands: the share of points on the
  card where the card itself is hit).

Usage: ``PYTHONPATH=src .venv/bin/python benchmarks/table_fit.py`` (starts its own server on a temporary store).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright

from motley.server.web.testing import TABLE_FIT, ServerThread

CASES = [("fool", 6, 360, 640), ("fool", 8, 360, 640), ("fool", 8, 844, 390), ("foolery", 3, 360, 640),
         ("foolery", 3, 390, 844), ("foolery", 7, 844, 390), ("fool", 5, 1280, 800)]
DECISION = ("() => document.querySelector('#match-over') ? 'over' : "
            "(window.motleyTable && window.motleyTable.decision())")



def sample(page: Page, rng: random.Random, limit: int = 60) -> list[dict[str, Any]]:
    """Ann's decisions of one deal: the measures at each, then a random legal move."""
    found = []
    for _ in range(limit):
        d = page.wait_for_function(DECISION, timeout=60_000).json_value()
        if d == "over":
            break
        page.wait_for_timeout(250)  # the cards in flight land
        found.append(page.evaluate(TABLE_FIT))
        v = d["version"]
        move = d["legal"][rng.randrange(len(d["legal"]))]
        sent = json.dumps({"type": "move", "version": v, "action": move["action"]})
        page.evaluate(f"window.motleyTable.raw({json.dumps(sent)})")
        page.wait_for_function(f"() => window.motleyTable.state().version !== {v}", timeout=60_000)
    return found


def run_case(base: str, browser: Any, game: str, players: int, width: int, height: int) -> dict[str, Any]:
    options = {"rounds": 1} if game == "fool" else {"hands": 1}
    spec = {"game": game, "players": players, "options": options, "bot_delay": 0.05, "summary_wait": 0,
            "seats": [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "bot": "random"}] * (players - 1)}
    made = httpx.post(base + "/api/tables", json=spec, headers={"Origin": base}).json()
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.add_init_script("localStorage.setItem('motley-table-settings', JSON.stringify({trickPause: 0}))")
    page.goto(base + made["seats"][0]["link"])
    found = sample(page, random.Random(players * 1000 + width))
    page.context.close()
    taps = [f["tap"] for f in found if f["tap"] is not None]
    return {"case": f"{game} {players}p {width}x{height}", "samples": len(found),
            "centre": sum(f["centre"] for f in found), "labels": sum(f["labels"] for f in found),
            "trick": sum(f["trick"] for f in found), "tap": min(taps) if taps else None,
            "upper": min(f["upper"] for f in found) if found else None}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, \
            ServerThread(f"sqlite:///{Path(tmp) / 'fit.db'}", bot_delay=0.05, summary_wait=0.0, pace=0.0) as server, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        rows = [run_case(server.base, browser, *case) for case in CASES]
        browser.close()
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'case':28} {'samples':>7} {'centre':>6} {'labels':>6} {'trick':>6} {'tap px':>6} {'upper':>6}")
    for r in rows:
        print(f"{r['case']:28} {r['samples']:7} {r['centre']:6} {r['labels']:6} {r['trick']:6} {r['tap']!s:>6} "
              f"{r['upper']!s:>6}")


if __name__ == "__main__":
    main()
