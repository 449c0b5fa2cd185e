"""The table page on a phone (390x844), Fool! at 8 players (Ann and 7 random bots), one round: the hand's y at
each of Ann's turns, the cumulative layout shift over the round (Layout Instability API: the sum of ``value`` of
the ``layout-shift`` entries without ``hadRecentInput``), and the time from page load to the hand shown.

Usage: ``python benchmarks/table_layout.py http://localhost:PORT [v]`` against a running ``motley serve``
(``v``: print each shift and what moved). Needs Playwright and Debian's Chromium (/usr/bin/chromium).
"""

import json
import random
import sys
import time

import httpx
from playwright.sync_api import sync_playwright

BASE = sys.argv[1]
#: Sums the layout shifts without recent input (and keeps what moved, for ``v``).
CLS = """() => { window.__cls = 0; window.__src = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) { if (e.hadRecentInput) continue;
    window.__cls += e.value;
    window.__src.push(e.value.toFixed(3) + " " + (e.sources || []).map((x) => x.node
      ? `${x.node.className || x.node.nodeName}:${x.previousRect.y}->${x.currentRect.y}` : "?").join(" | ")); } })
  .observe({type: "layout-shift", buffered: true}); }"""
DECISION = ("() => document.querySelector('#match-over') ? 'over' : "
            "(window.motleyTable && window.motleyTable.decision())")
spec = {"game": "fool", "players": 8, "bot_delay": 0.3, "options": {"rounds": 1},
        "seats": [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "bot": "random"}] * 7}
t = httpx.post(BASE + "/api/tables", json=spec).json()
rng = random.Random(1)
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium")
    pg = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    pg.add_init_script(CLS.join(["(", ")()"]))
    start = time.perf_counter()
    pg.goto(BASE + t["seats"][0]["link"])
    region = pg.get_by_role("region", name="Your hand")
    hand = region.get_by_role("group", name="Your cards").get_by_role("button").first
    hand.wait_for()
    shown = time.perf_counter() - start
    ys, firstcard = [], []
    while True:
        d = pg.wait_for_function(DECISION).json_value()
        if d == "over":
            break
        box = pg.get_by_role("region", name="Your hand").bounding_box()
        assert box is not None, "the hand is not on the page"
        ys.append(round(box["y"]))
        codes = sorted({c for m in d["legal"] for c in m["cards"]})
        b1 = pg.locator(f'.hand-card[data-card="{codes[0]}"]').first.bounding_box()
        assert b1 is not None, f"no card {codes[0]} in the hand"
        firstcard.append(round(b1["y"]))
        v = d["version"]
        move = d["legal"][rng.randrange(len(d["legal"]))]
        pg.evaluate(f"window.motleyTable.raw(JSON.stringify({{type: 'move', version: {v}, "
                    f"action: {move['action']}}}))")
        pg.wait_for_function(f"() => window.motleyTable.state().version !== {v}")
    cls = pg.evaluate("window.__cls")
    if len(sys.argv) > 2:
        print("\n".join(pg.evaluate("window.__src")[:40]))
    print(json.dumps({"hand_shown_s": round(shown, 2), "turns": len(ys), "hand_region_y": ys,
                      "first_playable_card_y": firstcard, "cls": round(cls, 3)}))
    browser.close()
