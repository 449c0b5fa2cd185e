"""Contrast of every text on the table and the first page, in a real browser: at least 4.5:1 (WCAG AA) for each
element with text of its own, at desktop and phone size, on a person's turn and between turns.

The colour of a text is blended over the first opaque background behind it (a background colour, or the first
colour of a gradient such as the felt's), with the opacities of its ancestors.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import httpx
import pytest

from motley.server.web.testing import ServerThread
from tests.server.browser.test_browser_play import new_page
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, ViewportSize

#: Each element with text of its own that is on screen: its contrast ratio against what is behind it, listed when
#: below 4.5.
CONTRAST = r"""() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const blend = (top, under) => ({r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
                                  b: top.b * top.a + under.b * (1 - top.a), a: 1});
  const behind = (el) => {  // the colour behind el's text, and the opacity of el and its ancestors
    const layers = [];
    let opacity = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const cs = getComputedStyle(e);
      opacity *= parseFloat(cs.opacity);
      const colour = parse(cs.backgroundColor);
      if (colour && colour.a > 0) layers.push(colour);
      const first = cs.backgroundImage !== "none" && cs.backgroundImage.match(/rgba?\([^)]+\)/);
      if (first) layers.push({...parse(first[0]), a: 1});
      if (colour && colour.a >= 1 || first) break;
    }
    let out = {r: 255, g: 255, b: 255, a: 1};
    for (const layer of layers.reverse()) out = blend(layer, out);
    return {under: out, opacity};
  };
  const bad = [];
  let checked = 0;
  const moving = (el) => {  // text being animated (a trick gathered, a card flying): not yet or no longer to read
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (e.getAnimations().some((a) => a.playState === "running")) return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll("body *")) {
    if (![...el.childNodes].some((t) => t.nodeType === 3 && t.textContent.trim())) continue;
    if (moving(el)) continue;
    const box = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (!box.width || !box.height || cs.visibility === "hidden") continue;
    const {under, opacity} = behind(el);
    const text = parse(cs.color);
    const seen = blend({...text, a: text.a * opacity}, under);
    const [hi, lo] = [luminance(seen), luminance(under)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    checked += 1;
    if (ratio < 4.5) bad.push({text: el.textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100});
  }
  return {checked, bad};
}"""

SIZES: dict[str, ViewportSize] = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "contrast.db"
    with ServerThread(f"sqlite:///{db}", summary_wait=0.0) as running:
        yield running


def low_contrast(page: Page) -> list[dict[str, Any]]:
    found = cast("dict[str, Any]", page.evaluate(CONTRAST))
    assert found["checked"] > 10, "the page shows text"
    return cast("list[dict[str, Any]]", found["bad"])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("game", "players"), [("fools_errand", 2), ("fool", 5), ("foolery", 5)])
def test_every_text_at_the_table_has_contrast(server: ServerThread, browser: Browser, game: str, players: int,
                                              size: str) -> None:
    spec = {"game": game, "players": players, "bot_delay": 0.3, "pace": 0,
            "seats": [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "bot": "heuristic"}] * (players - 1)}
    answer = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10)
    assert answer.status_code == 200, answer.text
    page = new_page(browser, SIZES[size])
    page.goto(server.base + answer.json()["seats"][0]["link"])
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    seen = []
    for _ in range(6):  # on Ann's turn and between turns
        seen += low_contrast(page)
        page.wait_for_timeout(250)
    assert seen == [], f"texts below 4.5:1: {seen[:10]}"


@pytest.mark.parametrize("size", SIZES)
def test_every_text_of_the_first_page_has_contrast(server: ServerThread, browser: Browser, size: str) -> None:
    page = new_page(browser, SIZES[size])
    page.goto(server.base + "/")
    page.locator(".game-card").first.wait_for()
    assert low_contrast(page) == []
