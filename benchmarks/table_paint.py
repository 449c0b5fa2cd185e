"""How fast the table page shows the table: time from navigation to the first contentful paint and to the
table drawn (the page's ``motley-table-drawn`` performance mark, set when the first state message is on
screen), in Debian's Chromium (headless), as medians over ``--loads`` fresh page loads per game.

The peer timed in the same run is the lobby page's first contentful paint (a plain page with one script),
so the figures read as ratios that hold from machine to machine: ``table drawn / lobby paint``.

    .venv/bin/python benchmarks/table_paint.py
    .venv/bin/python benchmarks/table_paint.py --loads 11 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

import httpx

from motley.server.web.testing import ServerThread

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
GAMES = {"fool": 4, "foolery": 3, "fools_errand": 2}
FCP = "performance.getEntriesByName('first-contentful-paint')"
DRAWN = "performance.getEntriesByName('motley-table-drawn')"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=7, help="page loads per game (median reported)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, ServerThread(f"sqlite:///{Path(tmp) / 'paint.db'}",
                                                            bot_delay=0.0) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)

        def load(url: str, drawn: bool) -> tuple[float, float]:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.goto(url)
            page.wait_for_function(f"{FCP}.length > 0" + (f" && {DRAWN}.length > 0" if drawn else ""))
            times = page.evaluate(f"[{FCP}[0].startTime, {DRAWN}.length ? {DRAWN}[0].startTime : 0]")
            context.close()
            return float(times[0]), float(times[1])

        lobby = statistics.median(load(server.base + "/", False)[0] for _ in range(args.loads))
        out: dict[str, Any] = {"lobby_paint_ms": round(lobby, 1), "games": {}}
        for game, players in GAMES.items():
            spec: dict[str, Any] = {"game": game, "bot_delay": 0, "seats": [{"kind": "human"}] + [
                {"kind": "bot", "bot": "random"}] * (players - 1)}
            if game != "fools_errand":
                spec["players"] = players
            link = httpx.post(server.base + "/api/tables", json=spec, timeout=10).json()["seats"][0]["link"]
            runs = [load(server.base + link, True) for _ in range(args.loads)]
            paint, drawn = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
            out["games"][game] = {"paint_ms": round(paint, 1), "drawn_ms": round(drawn, 1),
                                  "drawn_over_lobby_paint": round(drawn / lobby, 2)}
        browser.close()
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"lobby first contentful paint: {out['lobby_paint_ms']:.0f} ms (the peer)")
    for game, row in out["games"].items():
        print(f"{game:13s} first paint {row['paint_ms']:5.0f} ms  table drawn {row['drawn_ms']:5.0f} ms  "
              f"({row['drawn_over_lobby_paint']:.2f} x the lobby's paint)")


if __name__ == "__main__":
    main()
