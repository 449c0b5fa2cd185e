"""How fast the first page is usable: time from navigation to the first contentful paint, to the games drawn
with their Play buttons enabled (the page usable), and to every game's picture loaded, and the cumulative
layout shift while it loads (the Layout Instability API; 0 = nothing moved), in Debian's Chromium (headless),
as medians over ``--loads`` fresh page loads (a fresh browser context each: nothing cached) at desktop
(1280x800) and phone (390x844) size. The target: usable within 500 ms, no layout shift.

    .venv/bin/python benchmarks/lobby_paint.py
    .venv/bin/python benchmarks/lobby_paint.py --loads 11 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from motley.server.web.testing import ServerThread

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
#: Kept by the page from its first moment: the layout shifts, and when the Play buttons became enabled.
OBSERVE = """window.__cls = 0; new PerformanceObserver((list) => { for (const e of list.getEntries()) {
  if (!e.hadRecentInput) window.__cls += e.value; } }).observe({type: "layout-shift", buffered: true});
new MutationObserver((_, observer) => {
  if (document.querySelector(".game-card .play-bots:not([disabled])")) {
    window.__usable = performance.now(); observer.disconnect(); } })
  .observe(document, {subtree: true, childList: true, attributes: true});"""
PICTURES = "[...document.querySelectorAll('.game-card img')]"
FIGURES = f"""() => ({{fcp: performance.getEntriesByName('first-contentful-paint')[0].startTime,
  usable: window.__usable, cls: window.__cls,
  pictures: Math.max(...{PICTURES}.map((i) => performance.getEntriesByName(i.src)[0].responseEnd))}})"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=7, help="page loads per size (median reported)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, ServerThread(f"sqlite:///{Path(tmp) / 'paint.db'}") as server, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)

        def load(size: str) -> dict[str, float]:
            context = browser.new_context(viewport=SIZES[size])  # type: ignore[arg-type]
            page = context.new_page()
            page.add_init_script(OBSERVE)
            page.goto(server.base + "/")
            page.wait_for_function(f"() => window.__usable && {PICTURES}.length && "
                                   f"{PICTURES}.every((i) => i.complete && i.naturalWidth > 0) && "
                                   "performance.getEntriesByName('first-contentful-paint').length")
            page.wait_for_timeout(200)  # a shift after the last picture would still be counted
            figures: dict[str, float] = page.evaluate(FIGURES)
            context.close()
            return figures

        load("desktop")  # the server draws each game's picture once; the first load pays for it
        for size in SIZES:
            runs = [load(size) for _ in range(args.loads)]
            out[size] = {key: round(statistics.median(r[key] for r in runs), 3 if key == "cls" else 1)
                         for key in ("fcp", "usable", "pictures", "cls")}
            out[size]["cls_max"] = round(max(r["cls"] for r in runs), 3)
        browser.close()
    if args.json:
        print(json.dumps(out, indent=1))
        return
    for size, row in out.items():
        print(f"{size:8s} first contentful paint {row['fcp']:5.0f} ms  usable (Play enabled) {row['usable']:5.0f} ms  "
              f"pictures loaded {row['pictures']:5.0f} ms  layout shift {row['cls']:.3f} (max {row['cls_max']:.3f})")


if __name__ == "__main__":
    main()
