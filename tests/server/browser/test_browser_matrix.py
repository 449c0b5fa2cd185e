"""Every viewer, every game, every size, to the end (issue 32): whole short matches through the table page.

Each game at its smallest and largest player count; the roles one person with bots, two people, a spectator from
the start, and a spectator who opens the link during a Foolery exchange; desktop (1280x800) and phone (390x844).
Every run asserts that no page throws, that whenever a person has a decision its controls (the cards of the move
and its button) lie inside the viewport without scrolling, the end-of-match words for every viewer (the place
by the match's returns, ties shared), and that the spectator reaches the end.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
import pytest

from motley.server.play.table import Table
from motley.server.web.testing import ServerThread
from tests.support import CHROMIUM, needs_chromium

pytestmark = needs_chromium

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, ViewportSize

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
LABELS = {"pass": "Pass", "draw": "Draw", "play joker": "Play Joker", "keep joker": "Keep Joker"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = tmp_path_factory.mktemp("db") / "matrix.db"
    with ServerThread(f"sqlite:///{db}", bot_delay=0.0) as running:
        yield running


@dataclass
class Viewer:
    """A page at the table: a seat's (``seat``) or a spectator's (None), and what went wrong in it."""

    page: Page
    seat: int | None
    errors: list[str] = field(default_factory=list)
    decisions: int = 0


def create(server: ServerThread, game: str, seats: list[dict[str, Any]], options: dict[str, Any],
           pace: float = 0) -> dict[str, Any]:
    spec: dict[str, Any] = {"game": game, "bot_delay": 0, "pace": pace, "seats": seats, "options": options}
    if game != "fools_errand":
        spec["players"] = len(seats)
    answer = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10)
    assert answer.status_code == 200, answer.text
    return cast("dict[str, Any]", answer.json())


def open_page(browser: Browser, server: ServerThread, link: str, viewport: ViewportSize, seat: int | None,
              auto: bool = True) -> Viewer:
    """A fresh browser context on ``link``; its table settings keep the pace short (``auto``: forced moves by the
    page)."""
    page = browser.new_context(viewport=viewport).new_page()
    page.add_init_script("localStorage.setItem('motley-table-settings', JSON.stringify("
                         f"{{drawDelay: 0.5, trickPause: 0.3, autoMoves: {'true' if auto else 'false'}}}))")
    page.set_default_timeout(20_000)
    viewer = Viewer(page, seat)
    page.on("pageerror", lambda exc: viewer.errors.append(str(exc)))
    page.on("console", lambda m: viewer.errors.append(m.text) if m.type == "error" else None)
    page.goto(server.base + link)
    page.wait_for_function("() => window.motleyTable && window.motleyTable.state()")
    return viewer


def card_names(server: ServerThread, game: str) -> dict[str, str]:
    info = next(g for g in httpx.get(f"{server.base}/api/games", timeout=10).json() if g["name"] == game)
    return {code: str(card["name"]) for code, card in info["cards"].items()}


def in_view(page: Page, locator: Any) -> None:
    """The control lies inside the viewport as the page is now (no scrolling). A state message may re-render the
    hand between finding the control and measuring it (a card moving to another row is a new element): it is found
    again, a few times at most."""
    box = None
    for _ in range(5):
        locator.wait_for(state="visible")
        box = locator.bounding_box()
        if box is not None:
            break
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["y"] >= 0 and box["y"] + 8 <= size["height"] and 0 <= box["x"] < size["width"], \
        f"control {locator} at {box} is outside the {size} viewport"


def card_button(page: Page, name: str, pressed: bool | None = None) -> Any:
    group = page.get_by_role("region", name="Your hand").get_by_role("group", name="Your cards")
    if pressed is None:
        return group.get_by_role("button", name=name, exact=True).first
    return group.get_by_role("button", name=name, exact=True, pressed=pressed).first


def decide(viewer: Viewer, pending: dict[str, Any], names: dict[str, str], rng: random.Random) -> None:
    """Check the decision's controls are on screen, then make a random legal move as a person does: select its
    cards (pressed at their visible corner: a hand overlaps where space is short) and press Play / Give, or press
    the move's button."""
    page = viewer.page
    legal = pending["legal"]
    for move in legal:
        if move["cards"]:
            for code in set(move["cards"]):
                in_view(page, card_button(page, names[code]))
        else:
            in_view(page, page.get_by_role("button", name=LABELS[move["move"]], exact=True))
    version = pending["version"]
    if pending["give"]:
        cards = rng.sample(sorted({c for m in legal for c in m["cards"]}), pending["give"])
    else:
        move = legal[rng.randrange(len(legal))]
        cards = move["cards"]
        if not cards:
            page.get_by_role("button", name=LABELS[move["move"]], exact=True).click()
            viewer.decisions += 1
            return
    for code in cards:
        if page.evaluate(f"window.motleyTable.state().version !== {version}"):
            return  # one click played it
        if page.evaluate("window.motleyTable.selection()").count(code) >= cards.count(code):
            continue  # selected with the rest of the only play that fits
        card_button(page, names[code], pressed=False).click(position={"x": 5, "y": 14})
    if page.evaluate(f"window.motleyTable.state().version === {version} && window.motleyTable.decision() !== null"):
        button = page.get_by_role("button", name="Give" if pending["give"] else "Play", exact=True)
        in_view(page, button)
        button.click()
    viewer.decisions += 1
    page.wait_for_function(f"() => window.motleyTable.state().version !== {version} || "
                           "document.querySelector('#error').textContent !== ''")


def ordinal(k: int) -> str:
    end = "th" if 11 <= k % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{end}"


def points(n: int) -> str:
    return f"{n} point" + ("" if n == 1 else "s")


def join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def expected_verdict(names: list[str], scores: list[int], returns: list[float], seat: int | None) -> str:
    """The match's end in words, as a player reads it: the winners by the returns share 1st, the others are
    placed by their returns, then their points (ties share a place)."""
    best = max(returns)
    place = [1 if returns[q] >= best - 1e-9 else
             1 + sum(returns[r] > returns[q] + 1e-9 or (abs(returns[r] - returns[q]) <= 1e-9 and scores[r] > scores[q])
                     for r in range(len(names)))
             for q in range(len(names))]
    winners = [q for q in range(len(names)) if place[q] == 1]
    if len(winners) == len(names):
        return "The match is a draw."
    won = (f"{names[winners[0]]} won with {points(scores[winners[0]])}." if len(winners) == 1
           else f"{join([f'{names[q]} ({points(scores[q])})' for q in winners])} share the win.")
    if seat is None:
        return won
    if place[seat] == 1:
        others = [names[q] for q in winners if q != seat]
        return (f"You share the win with {join(others)}, with {points(scores[seat])}." if others
                else f"You won with {points(scores[seat])}!")
    tied = [names[q] for q in range(len(names)) if place[q] == place[seat] and q != seat]
    return (f"You finished {ordinal(place[seat])} of {len(names)} with {points(scores[seat])}"
            f"{f' (tied with {join(tied)})' if tied else ''}; {won}")


#: The elements that stick out of the page sideways (what would make it scroll).
WIDE = """[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
  .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"""


@dataclass(frozen=True)
class Case:
    game: str
    players: int
    people: int          # person seats (0 and, with 2, seat 1); the rest are random bots
    sizes: tuple[str, ...]  # the viewport of each person's page, then the spectator's
    spectator: str       # "start", "exchange" (joins during a Foolery exchange) or "" (none)
    options: dict[str, Any]


CASES = [
    Case("fools_errand", 2, 2, ("desktop", "phone", "phone"), "start", {}),
    Case("fool", 4, 1, ("desktop", "desktop"), "start", {"rounds": 1}),
    Case("fool", 8, 1, ("phone", "phone"), "start", {"rounds": 1}),
    Case("foolery", 3, 2, ("phone", "desktop", "phone"), "exchange", {"hands": 2}),
    Case("foolery", 7, 1, ("desktop", "desktop"), "start", {"hands": 1}),
]


def spectator_in_exchange(browser: Browser, server: ServerThread, link: str, viewport: ViewportSize) -> Viewer:
    """A spectator who opens the table's link during a Foolery exchange: the page draws the exchange."""
    spectator = open_page(browser, server, link, viewport, None)
    spectator.page.locator(".center h2", has_text="the exchange").wait_for()
    assert "Connecting" not in spectator.page.inner_text("body")
    return spectator


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.game}-{c.players}-{c.people}p-{c.spectator or 'alone'}")
def test_every_viewer_reaches_the_end(server: ServerThread, browser: Browser, case: Case) -> None:
    seats = [{"kind": "human", "name": name} for name in ("Ann", "Bob")[:case.people]]
    seats += [{"kind": "bot", "bot": "random"}] * (case.players - case.people)
    # in the exchange case the person pages make no forced move by themselves and the test makes them (the
    # server would only after 10 s), so every exchange step of a person waits for the test: the spectator opens
    # the link while the table is in the exchange
    exchange = case.spectator == "exchange"
    table = create(server, case.game, seats, case.options, pace=10 if exchange else 0)
    live: Table = server.app.state.service.tables[table["id"]].table
    view = {"desktop": DESKTOP, "phone": PHONE}
    auto = not exchange
    people = [open_page(browser, server, table["seats"][q]["link"], view[case.sizes[q]], q, auto)
              for q in range(case.people)]
    viewers = list(people)
    if case.spectator == "start":
        viewers.append(open_page(browser, server, table["spectate"], view[case.sizes[-1]], None))
    names = card_names(server, case.game)
    rng = random.Random(f"{case}")
    joined = False
    for _ in range(20_000):
        if live.state.is_terminal():
            break
        moved = False
        for viewer in people:
            page = viewer.page
            dialog = page.get_by_role("dialog", name="End of the deal")
            if dialog.count():
                phase = page.evaluate("window.motleyTable.state().observation.phase")
                if exchange and not joined and phase == "exchange":
                    # the hand's summary holds the table at the start of the exchange (whoever gives first,
                    # bot or person): the spectator opens the link now
                    joined = True
                    viewers.append(spectator_in_exchange(browser, server, table["spectate"], view[case.sizes[-1]]))
                button = dialog.get_by_role("button", name="Continue")
                if button.count():
                    in_view(page, button)
                    button.click()
                else:
                    dialog.get_by_role("button", name="Close").click()
                moved = True
            pending = page.evaluate("window.motleyTable.decision()")
            if pending is None:
                continue
            if exchange and not joined and pending["give"]:
                joined = True
                viewers.append(spectator_in_exchange(browser, server, table["spectate"], view[case.sizes[-1]]))
            decide(viewer, pending, names, rng)
            moved = True
        if not moved:
            people[0].page.wait_for_timeout(20)
    assert live.state.is_terminal(), "the match ended"
    assert case.spectator != "exchange" or joined, "a spectator joined during an exchange"
    assert all(v.decisions for v in people) or case.game == "fools_errand", "every person decided something"
    seat_names = [s.name for s in live.seats]
    scores, returns = live.state.scores(), live.state.returns()
    for viewer in viewers:
        over = viewer.page.get_by_role("dialog", name="Match over")
        over.wait_for()
        verdict = over.locator(".verdict").inner_text()
        assert verdict == expected_verdict(seat_names, scores, returns, viewer.seat), f"seat {viewer.seat}"
        ranking = over.locator(".ranking").inner_text()
        assert all(name in ranking for name in seat_names)
        assert viewer.page.evaluate("document.documentElement.scrollWidth <= innerWidth"), \
            f"no sideways scrolling: {viewer.page.evaluate(WIDE)}"
        assert viewer.errors == [], f"seat {viewer.seat}: {viewer.errors}"
    for viewer in viewers:
        viewer.page.context.close()
