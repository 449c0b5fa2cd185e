"""The table page held steady, in a real browser (issue 44): the keyboard alone plays (arrow keys move within the
hand, Space or Enter selects, P plays, and after a move the focus is on no card), the deal's dialog closes itself
for a viewer nothing waits for and a reload during the summary shows it again, Foolery's exchange is said in words
to each seat (what it gave and what it received; to anyone else only how many cards), Help speaks of the titles
the table's player count has, and nothing on the page shifts during play (the layout shifts of a whole round on a
phone, measured by the browser's ``layout-shift`` entries, add up to less than 0.01).

The moves that only bring a table to the moment under test are sent through the page's own socket by a small loop
in the page (:data:`AUTOPLAY`): no input event, so every layout shift meanwhile counts.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from motley.games.foolery.cards import CODES
from motley.games.foolery.rules import FooleryRules
from motley.server.play.live import LiveTable
from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, create_table, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, ViewportSize, expect

PHONE: ViewportSize = {"width": 390, "height": 844}
SMALL_PHONE: ViewportSize = {"width": 360, "height": 640}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}

#: Random legal moves through the page's own socket, once per state version, while no dialog is open (``through``:
#: also while one is; a forced move is left to the server, which plays it at the table's pace, here 0).
AUTOPLAY = """(through) => {
  let sent = -1;
  clearInterval(window.motleyAuto);
  window.motleyAuto = setInterval(() => {
    const t = window.motleyTable, d = t && t.decision();
    if (!d || d.version === sent || d.legal.length < 2 || (!through && document.querySelector('[role=dialog]'))) return;
    sent = d.version;
    const m = d.legal[Math.floor(Math.random() * d.legal.length)];
    t.raw(JSON.stringify({type: 'move', version: d.version, action: m.action}));
  }, 20);
}"""

#: The layout shifts of the page from now on (``window.motleyShifts``: their sum without those that follow an
#: input; ``hand``: the part of it where only the person's own cards moved, as cards came into or left the hand;
#: and the elements that moved).
SHIFTS = """() => {
  window.motleyShifts = {total: 0, hand: 0, count: 0, sources: {}};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      window.motleyShifts.total += e.value;
      window.motleyShifts.count += 1;
      const nodes = (e.sources || []).map((s) => (s.node && s.node.nodeType === 1 ? s.node
                                                  : s.node && s.node.parentElement));
      // a frame in which the person's own cards moved (cards came into the hand or left it without an input: a
      // new deal, a Foolery exchange) is the hand's, whatever moved with it (the exchange's line of the cards
      // received, a seat's count of cards)
      if (nodes.some((n) => n && n.closest('#hand-cards'))) window.motleyShifts.hand += e.value;
      for (const n of nodes) {
        const name = n ? `${n.tagName.toLowerCase()}.${[...n.classList].join('.')}` : '?';
        window.motleyShifts.sources[name] = (window.motleyShifts.sources[name] || 0) + e.value;
      }
    }
  }).observe({type: 'layout-shift', buffered: false});
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "steady.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0, pace=0.0) as running:
        yield running


def open_page(browser: Browser, server: ServerThread, link: str, viewport: ViewportSize = DESKTOP,
              settings: str = "autoMoves: false, trickPause: 0, motion: false") -> Page:
    """A fresh browser context on ``link`` with these table settings; a page error fails the test at its end."""
    page = browser.new_context(viewport=viewport).new_page()
    page.add_init_script(f"localStorage.setItem('motley-table-settings', JSON.stringify({{{settings}}}))")
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.base + link)
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    cast("Any", page).motley_errors = errors
    return page


def errors_of(page: Page) -> list[str]:
    return cast("list[str]", cast("Any", page).motley_errors)


def live_table(server: ServerThread, table_id: str) -> LiveTable:
    return cast("LiveTable", server.app.state.service.tables[table_id])


def card_names(server: ServerThread, game: str) -> dict[str, str]:
    info = next(g for g in httpx.get(f"{server.base}/api/games", timeout=10).json() if g["name"] == game)
    return {code: str(card["name"]) for code, card in info["cards"].items()}


# ---- the keyboard ---------------------------------------------------------------------------------------------
FOCUS = """() => { const e = document.activeElement;
  return {card: e && e.classList.contains('hand-card') ? e.dataset.card : null, hand: e && e.id === 'hand-cards',
          inHand: !!(e && e.closest('#hand-cards')), label: e ? (e.getAttribute('aria-label') || e.textContent || '')
          .trim() : ''}; }"""
SHOWN = "() => [...document.querySelectorAll('#hand-cards .hand-card')].map((e) => e.dataset.card)"


class Keys:
    """The keys pressed for one decision."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.count += 1

    def focus(self) -> dict[str, Any]:
        return cast("dict[str, Any]", self.page.evaluate(FOCUS))

    def into_hand(self) -> None:
        """Tab until the focus is in the hand (the page's first Tab stops come before it)."""
        for _ in range(40):
            if self.focus()["inHand"]:
                return
            self.press("Tab")
        raise AssertionError("Tab never reached the hand")

    def to_card(self, code: str, skip: list[int]) -> None:
        """Move the focus to a card ``code`` of the hand (one not in ``skip``, hand positions already selected)
        with the arrow keys (Home or End first when that is shorter), and check where each key took it."""
        shown: list[str] = self.page.evaluate(SHOWN)
        if self.focus()["hand"]:
            self.press("ArrowRight")  # from the hand as a whole: onto its card with the tab stop
        now = shown.index(self.focus()["card"])
        targets = [k for k, c in enumerate(shown) if c == code and k not in skip]
        target = min(targets, key=lambda k: abs(k - now))
        ways = [(abs(target - now), now, None), (1 + target, 0, "Home"), (1 + len(shown) - 1 - target,
                                                                          len(shown) - 1, "End")]
        _, now, jump = min(ways, key=lambda w: w[0])
        if jump:
            self.press(jump)
        while now != target:
            self.press("ArrowRight" if target > now else "ArrowLeft")
            now += 1 if target > now else -1
            assert self.focus()["card"] == shown[now], "an arrow key moves the focus to the next card shown"
        skip.append(target)


def key_decision(page: Page, pending: dict[str, Any], rng: random.Random) -> int:
    """Make a random legal move of ``pending`` with the keyboard alone; returns the keys pressed."""
    keys = Keys(page)
    legal = pending["legal"]
    version = pending["version"]
    keys.into_hand()
    if pending["give"]:
        cards = rng.sample(sorted({c for m in legal for c in m["cards"]}), pending["give"])
    else:
        move = legal[rng.randrange(len(legal))]
        cards = move["cards"]
        if not cards:  # a move of no card (Pass): Tab to its button, Enter
            for _ in range(6):
                keys.press("Tab")
                if keys.focus()["label"] == "Pass":
                    break
            assert keys.focus()["label"] == "Pass", "Pass is a few Tabs from the hand"
            keys.press("Enter")
            return keys.count
    skip: list[int] = []
    for code in cards:
        if page.evaluate(f"window.motleyTable.state().version !== {version}"):
            break  # one key played it
        selected = page.evaluate("window.motleyTable.selection()")
        if selected.count(code) >= cards.count(code):
            continue  # the page selected it with the rest of the only play that fits
        keys.to_card(code, skip)
        keys.press("Space")
    if page.evaluate(f"window.motleyTable.state().version === {version} && !!window.motleyTable.decision()"):
        keys.press("p")
    return keys.count


def no_card_focused(page: Page, version: int) -> None:
    """After the move: the table moved on and the focus is on no card (a stray key plays nothing)."""
    page.wait_for_function(f"() => window.motleyTable.state().version !== {version}")
    page.wait_for_timeout(50)
    focus = page.evaluate(FOCUS)
    assert focus["card"] is None, f"after a move the focus is on {focus}"


@pytest.mark.parametrize(("game", "players", "options"), [("fool", 4, {"rounds": 1}),
                                                         ("foolery", 3, {"hands": 2})])
def test_the_keyboard_alone_plays_with_a_few_keys_a_decision(server: ServerThread, browser: Browser, game: str,
                                                             players: int, options: dict[str, int]) -> None:
    """A person plays a whole match with the keyboard: Tab into the hand, arrows to a card, Space, P; after each
    move the focus is on the hand as a whole, never on a card. The keys per decision are reported."""
    table = create_table(server, game, ["Ann"], players - 1, options=options, summary_wait=0)
    page = open_page(browser, server, table["seats"][0]["link"], DESKTOP,
                     "autoMoves: true, trickPause: 0, motion: false")
    rng = random.Random(f"keys-{game}")
    counts: list[int] = []
    hand_sizes: list[int] = []
    for _ in range(400):
        handle = page.wait_for_function("() => document.querySelector('#match-over') ? 'over' : "
                                        "window.motleyTable.decision()")
        pending = handle.json_value()
        if pending == "over":
            break
        hand_sizes.append(len(page.evaluate(SHOWN)))
        counts.append(key_decision(page, pending, rng))
        no_card_focused(page, pending["version"])
        assert page.evaluate(FOCUS)["hand"], "the focus is on the hand as a whole"
    assert counts and page.locator("#match-over").count(), "the match was played to its end"
    mean = sum(counts) / len(counts)
    print(f"\n{game}: {len(counts)} decisions by keyboard, keys per decision min {min(counts)} "
          f"mean {mean:.1f} max {max(counts)} (hand of up to {max(hand_sizes)} cards)")
    # the first decision Tabs in from the top of the page; every later one starts on the hand: an arrow onto the
    # card with the tab stop, at most half the hand (or Home/End and the rest) of arrows, Space per card, P
    longest = max(hand_sizes)
    assert max(counts[1:] or [0]) <= 2 + math.ceil(longest / 2) + 5 + 1, counts
    assert not errors_of(page), errors_of(page)
    page.context.close()


# ---- the deal's dialog ------------------------------------------------------------------------------------------
def autoplay(page: Page, through: bool = False) -> None:
    """Start the page's loop of random legal moves (:data:`AUTOPLAY`)."""
    page.evaluate(AUTOPLAY, through)


def test_a_spectators_summary_closes_itself_when_nothing_waits(server: ServerThread, browser: Browser) -> None:
    """Bots alone (nothing waits at the end of a round): the spectator's summary opens, says it closes by itself,
    offers Close (no Continue that nothing waits for) and closes while the next round is played."""
    table = create_table(server, "fool", [], 4, options={"rounds": 2}, bot_delay=0.4)
    page = open_page(browser, server, table["spectate"], PHONE)
    summary = page.get_by_role("dialog", name="End of the deal")
    summary.wait_for(timeout=90_000)
    expect(summary).to_contain_text(re.compile(r"closes by itself in \d+ seconds?"))
    assert summary.get_by_role("button", name="Continue").count() == 0
    summary.get_by_role("button", name="Close").wait_for()
    version = page.evaluate("window.motleyTable.state().version")
    expect(summary).to_be_hidden(timeout=12_000)
    live = live_table(server, table["id"])
    assert live.table.version > version and not live.table.state.is_terminal(), "round 2 went on meanwhile"
    assert not errors_of(page), errors_of(page)
    page.context.close()


def test_a_reload_during_the_summary_shows_it(server: ServerThread, browser: Browser) -> None:
    """A person reloads the page while the deal's summary waits for them: the new page shows the summary with
    Continue, nothing moved meanwhile, and Continue lets the table go on."""
    table = create_table(server, "foolery", ["Ann"], 2, options={"hands": 2}, summary_wait=None)
    page = open_page(browser, server, table["seats"][0]["link"], PHONE)
    autoplay(page)
    summary = page.get_by_role("dialog", name="End of the deal")
    summary.wait_for()
    live = live_table(server, table["id"])
    held = live.table.version
    page.reload()
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    summary.wait_for()
    expect(summary).to_contain_text("Hand 1 is over")
    expect(page.locator("#status")).to_have_text(re.compile("Waiting for you to continue"))
    assert live.table.version == held and live.summary is not None, "the table waited through the reload"
    summary.get_by_role("button", name="Continue").click()
    expect(summary).to_be_hidden()
    page.wait_for_function(f"() => window.motleyTable.state().version > {held} || "
                           "window.motleyTable.decision() !== null")
    assert live.summary is None
    assert not errors_of(page), errors_of(page)
    page.context.close()


# ---- Foolery's exchange in words ----------------------------------------------------------------------------------
def words_of(codes: list[str], names: dict[str, str]) -> str:
    """Cards in a sentence as the page says them: "the 7 of spades and the King of clubs"."""
    said = [names[c] if names[c].startswith("the ") else f"the {names[c]}" for c in codes]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


@pytest.mark.parametrize("players", [4, 3])
def test_the_exchange_is_said_to_each_seat_and_only_its_own_cards(server: ServerThread, browser: Browser,
                                                                  shots: Path, players: int) -> None:
    """Every seat a person: the first hand is played to its end, then the second hand's exchange is made (the
    King's and the Prince's gives through their pages, Give pressed). Before anyone plays, each seat in the
    exchange reads on the table and in the log the cards it gave and received, as the server holds them; a
    Noble and a spectator read who gave whom how many cards and no exchanged card; no chosen give is called
    automatic; Help speaks of this player count's titles only."""
    names = ["Ann", "Ben", "Cleo", "Dan"][:players]
    table = create_table(server, "foolery", names, 0, options={"hands": 2}, summary_wait=None)
    sizes = [PHONE, DESKTOP, DESKTOP, SMALL_PHONE]
    pages = [open_page(browser, server, table["seats"][q]["link"], sizes[q]) for q in range(players)]
    watcher = open_page(browser, server, table["spectate"], DESKTOP)
    live = live_table(server, table["id"])
    for page in pages:
        autoplay(page)
    for page in pages:
        page.get_by_role("dialog", name="End of the deal").wait_for()
    for page in pages:
        page.evaluate("clearInterval(window.motleyAuto)")
        page.get_by_role("dialog", name="End of the deal").get_by_role("button", name="Continue").click()
    titles = page_titles(pages[0])
    card_name = card_names(server, "foolery")
    # the exchange: each give with a choice made on its page (the cards selected, Give pressed)
    for _ in range(20):
        if live.table.state.observation(0)["phase"] != "exchange":
            break
        giver = live.table.state.current_player()
        page = pages[giver]
        pending = page.wait_for_function("() => window.motleyTable.decision()").json_value()
        cards = sorted({c for m in pending["legal"] for c in m["cards"]})[:pending["give"]]
        for code in cards:
            page.get_by_role("region", name="Your hand").get_by_role("group", name="Your cards").get_by_role(
                "button", name=card_name[code], exact=True, pressed=False).first.click(position={"x": 8, "y": 8})
        page.get_by_role("button", name="Give", exact=True).click()
        page.wait_for_function(f"() => window.motleyTable.state().current_player !== {giver} || "
                               "window.motleyTable.state().observation.phase !== 'exchange'")
    obs0 = live.table.state.observation(0)
    assert obs0["phase"] == "play" and not [e for e in obs0["log"] if e["event"] == "play"], "before the first lead"
    rules = cast("FooleryRules", live.table.state)
    gave, received = rules.gave, rules.received  # the server's truth, card ids
    exchanged = {CODES[c] for q in range(players) for c in gave[q]}
    for q, page in enumerate(pages):
        page.wait_for_function("() => window.motleyTable.state().observation.phase === 'play'")
        title = titles[q]
        if gave[q] or received[q]:
            words = page.locator("#exchange-words")
            expect(words).to_contain_text(f"You gave {names[partner(live, q)]} ({titles[partner(live, q)]}) "
                                          f"{words_of([CODES[c] for c in gave[q]], card_name)}")
            expect(words).to_contain_text(f"you received {words_of([CODES[c] for c in received[q]], card_name)}")
            if title in ("Peasant", "Merchant"):
                expect(words).to_contain_text("as the rules require")
            else:
                expect(words).not_to_contain_text("as the rules require")
            log = log_text(page)
            assert page.locator("#exchange-words").inner_text() in log, "the same words in the log"
            gives = [line for line in log.splitlines() if " gave " in line and "(automatic)" in line]
            assert not gives, f"{title}: a chosen give is never called automatic: {gives}"
        else:  # a Noble: who gave whom how many cards, no card
            expect(page.locator("#exchange-words")).to_contain_text("gave")
            said = page.locator("#exchange-words").inner_text()
            assert not [c for c in exchanged if card_name[c] in said], said
        help_text = help_of(page)
        if players == 3:
            assert "no Prince and no Merchant" in help_text and "Merchant gives" not in help_text
        else:
            assert "the Merchant gives the Prince" in help_text
    said = watcher.locator("#exchange-words").inner_text()
    assert re.search(r"gave .* 2 cards", said) and not [c for c in exchanged if card_name[c] in said], said
    assert not [c for c in exchanged if card_name[c] in watcher.locator("#log").inner_text()]
    peasant = titles.index("Peasant")
    for size, view in (("phone", PHONE), ("desktop", DESKTOP)):
        pages[peasant].set_viewport_size(view)
        pages[peasant].wait_for_timeout(100)
        pages[peasant].screenshot(path=str(shots / f"exchange-{players}p-{size}.png"))
    for page in [*pages, watcher]:
        assert not errors_of(page), errors_of(page)
        page.context.close()


def page_titles(page: Page) -> list[str]:
    return cast("list[str]", page.evaluate("window.motleyTable.state().observation.titles"))


def partner(live: LiveTable, seat: int) -> int:
    return cast("FooleryRules", live.table.state).partner_of(seat)


def log_text(page: Page) -> str:
    page.locator(".log-panel summary").click()
    text = page.locator("#log").inner_text()
    page.locator(".log-panel summary").click()
    return text


def help_of(page: Page) -> str:
    page.get_by_role("button", name="Help").click()
    text = page.locator("#help").inner_text()
    page.get_by_role("button", name="Help").click()
    return text


# ---- layout shift -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "players", "options", "viewport"), [
    ("fool", 4, {"rounds": 1}, PHONE), ("foolery", 3, {"hands": 2}, SMALL_PHONE)], ids=["fool", "foolery"])
def test_nothing_shifts_during_play_on_a_phone(server: ServerThread, browser: Browser, game: str, players: int,
                                               options: dict[str, int], viewport: ViewportSize) -> None:
    """A whole match at a table with hints, the person's moves each with an input (a click), everything else
    (the bots' moves, the forced moves the table plays, the deal's summaries) with none: the layout shifts that
    the browser counts add up to less than 0.01, apart from the frames in which the person's own cards close up
    or make room when cards leave or come into the hand without an input (a new deal, a Foolery exchange, and
    what moves with them in the same frame: the exchange's line of the cards received, a seat's count of cards),
    which are reported; in Fool! no card comes into a hand during a round, so there nothing may shift at all."""
    # the bots move 0.6 s apart: more than the half second after the person's input, so their moves' shifts count
    table = create_table(server, game, ["Ann"], players - 1, options=options, summary_wait=0, hints=True, bot_delay=0.6)
    page = open_page(browser, server, table["seats"][0]["link"], viewport,
                     "autoMoves: false, trickPause: 0.3")
    page.wait_for_timeout(300)
    page.evaluate(SHIFTS)
    rng = random.Random(f"shift-{game}")
    for _ in range(2000):  # the table does not wait at the end of a deal: play goes on behind its summary
        pending = page.wait_for_function("() => document.querySelector('#match-over') ? 'over' : "
                                         "window.motleyTable.decision()").json_value()
        if pending == "over":
            break
        # the person's move comes with an input, as when they press a card or a button (a shift in the half
        # second after an input is the page answering it, which the browser does not count)
        page.mouse.click(2, 2)
        move = pending["legal"][rng.randrange(len(pending["legal"]))]
        page.evaluate("(m) => window.motleyTable.raw(JSON.stringify({type: 'move', version: m.v, action: m.a}))",
                      {"v": pending["version"], "a": move["action"]})
        page.wait_for_function(f"() => window.motleyTable.state().version !== {pending['version']} || "
                               "document.querySelector('#error').textContent !== ''")
    shifts = page.evaluate("window.motleyShifts")
    print(f"\n{game} on {viewport['width']}x{viewport['height']}: layout shift {shifts['total']:.4f} "
          f"(the hand's own cards {shifts['hand']:.4f}) in {shifts['count']} shifts, by {shifts['sources']}")
    assert shifts["total"] - shifts["hand"] < 0.01, shifts
    if game == "fool":  # no card comes into a hand during a round: a card leaves it only with the person's input
        assert shifts["total"] < 0.01, shifts
    assert not errors_of(page), errors_of(page)
    page.context.close()


# ---- hints -------------------------------------------------------------------------------------------------------
def test_the_hint_counts_of_the_people_are_on_the_table_during_play(server: ServerThread, browser: Browser) -> None:
    """At a table with hints the dock shows each person's count while the match is played (no bot: bots ask for
    none), the moment a hint is asked; before any, "Hints on"."""
    table = create_table(server, "fool", ["Ann", "Ben"], 2, options={"rounds": 1}, hints=True)
    ann = open_page(browser, server, table["seats"][0]["link"], PHONE)
    ben = open_page(browser, server, table["seats"][1]["link"], DESKTOP)
    expect(ann.locator("#hints-on")).to_have_text("Hints on")
    autoplay(ben)
    ann.wait_for_function("() => { const d = window.motleyTable.decision(); return d && d.legal.length > 1; }")
    ann.get_by_role("button", name="Hint: the strongest bot's choice").click()
    expect(ann.locator("#hints-on")).to_have_text("Hints: you 1, Ben 0")
    expect(ben.locator("#hints-on")).to_have_text("Hints: Ann 1, you 0")
    bots = [s["name"] for s in ann.evaluate("window.motleyTable.state().seats") if s["kind"] == "bot"]
    assert bots and not [b for b in bots if b in ann.locator("#hints-on").inner_text()]
    for page in (ann, ben):
        assert not errors_of(page), errors_of(page)
        page.context.close()
