"""How long a whole match of The Fool's Errand takes at the table, as a person sees it: Ann (the page's defaults:
it draws by itself after its pause; a Joker decision pressed at once) against the heuristic bot, at the server's
default pace, timed in headless Chromium from the page's first table to the "Match over" dialog.

Usage: ``.venv/bin/python benchmarks/errand_match_length.py http://127.0.0.1:PORT [MATCHES]`` against a running
``motley serve``. Needs Playwright and Debian's Chromium (/usr/bin/chromium).
"""

from __future__ import annotations

import random
import sys
import time

import httpx
from playwright.sync_api import Page, ViewportSize, sync_playwright

SIZES: dict[str, ViewportSize] = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
#: What the page is at: "over", "step" (a move being shown), or the person's decision (JSON), or null.
WHERE = ("() => document.querySelector('#match-over') ? 'over' : (window.motleyTable.state().observation.shown "
         "? 'step' : (window.motleyTable.decision() || null))")


def one_match(page: Page, rng: random.Random) -> tuple[float, int, int]:
    """Play the match through the page: seconds from the first table to the end, clicks, events shown."""
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    start, clicks = time.monotonic(), 0
    while True:
        where = page.wait_for_function(WHERE, polling=50).json_value()
        if where == "over":
            break
        if where == "step" or where["later"]:  # a move being shown, or a draw the page makes by itself
            page.wait_for_timeout(100)
            continue
        label = {"play joker": "Play Joker", "keep joker": "Keep Joker"}[rng.choice(where["legal"])["move"]]
        page.get_by_role("button", name=label, exact=True).click()
        clicks += 1
        page.wait_for_function(f"() => window.motleyTable.state().version !== {where['version']}")
    took = time.monotonic() - start
    return took, clicks, len(page.evaluate("window.motleyTable.state()")["observation"]["log"])


def main() -> None:
    base = sys.argv[1]
    matches = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    spec = {"game": "fools_errand", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "heuristic"}]}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        for k in range(matches):
            for size, viewport in SIZES.items():
                table = httpx.post(f"{base}/api/tables", json=spec, timeout=10).json()
                page = browser.new_context(viewport=viewport).new_page()
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))  # noqa: B023 (read before the next page)
                page.set_default_timeout(180_000)
                page.goto(base + table["seats"][0]["link"])
                took, clicks, events = one_match(page, random.Random(k))
                print(f"{size} match {k + 1}: {took:.1f} s, {clicks} clicks, {events} events shown, page errors: "
                      f"{len(errors)}", flush=True)
                page.close()
        browser.close()


if __name__ == "__main__":
    main()
