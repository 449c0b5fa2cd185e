"""Terminal view of Foolery: your hand by rank and trumps, the climbing pile, hand sizes, titles, the
exchange and the scores, drawn from one seat's observation only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.markup import escape

from motley.core import Observation

#: The rules as a player reads them, in short paragraphs (the binding text with every rule id is
#: ``motley rules``): the table page's help panel and the start of ``motley rules``.
#: One sentence of what the game is (``GameSpec.summary``): the lobby's first page, the table's help and
#: ``motley rules`` say it.
SUMMARY = ("A climbing game with a Tarot pack: beat the last play with more of the same, or with trumps, and "
           "be first out to become King, or end up the Peasant who gives up their best cards.")
#: How long a match usually takes at the usual player count, one person and bots at the
#: server's bot delay (``GameSpec.typical_match``).
TYPICAL_MATCH = "about 20 minutes"

HOW_TO_PLAY = (
    "Foolery is a climbing game with a Tarot pack (four suits Ace to King with a Cavalier, 21 trumps and the Fool). "
    "The leader plays 1 to 4 cards of one rank, or a 5-card hand (straight, flush, full house, straight flush, five "
    "of a kind). Each next play must have the same number of cards and be equal or higher; an equal single or pair "
    "skips the next player.",
    "Trumps beat normal plays: 3 trumps beat a 5-card hand, 2 trumps a 3- or 4-card play, 1 trump a single or a pair. "
    "The Fool beats everything and ends the trick at once. You may pass at any time; when play comes back to the last "
    "player who played, they win the trick and lead.",
    "The first out becomes King, then Prince, Nobles, Merchant and last the Peasant. Before the next hand the Peasant "
    "gives the King their two highest cards and the King gives back any two; the Merchant and the Prince swap one "
    "card the same way.",
)

SUIT_STYLE = {"S": "white", "C": "white", "H": "red", "D": "red"}


def card(code: str) -> str:
    """Rich markup of one card code: red hearts and diamonds, cyan trumps, magenta Fool."""
    if code == "FOOL":
        return "[bold magenta]FOOL[/]"
    if code[-1] in SUIT_STYLE:  # suit cards end in S H D C, trumps in I V X
        return f"[bold {SUIT_STYLE[code[-1]]}]{code}[/]"
    return f"[bold cyan]{code}[/]"


def cards(text_or_codes: str | Sequence[str]) -> str:
    """Markup of several codes (a play string or a list)."""
    codes = text_or_codes.split() if isinstance(text_or_codes, str) else list(text_or_codes)
    return " ".join(card(c) for c in codes) or "-"


def seat_name(seat: int, me: int | None, capital: bool = True) -> str:
    """``You`` or ``Seat N`` (``you`` or ``seat N`` without ``capital``); ``me`` None names every seat by number."""
    name = "you" if seat == me else f"seat {seat}"
    return name.capitalize() if capital else name


def event_line(event: dict[str, object], me: int | None) -> str:
    """One log event of the hand as a sentence: who did what (``me`` None: neutral seat names).

    The verb agrees with the subject: "You play 7S 7H", "Seat 2 plays 7S 7H", "You pass", "Seat 3 passes".
    """
    seat = int(str(event["seat"]))
    who = seat_name(seat, me)
    you = seat == me
    kind = event["event"]
    if kind == "play":
        return f"{who} {'play' if you else 'plays'} {cards(str(event['cards']))}"
    if kind == "pass":
        return f"[dim]{who} {'pass' if you else 'passes'}[/]"
    if kind == "skip":
        return f"[yellow]{who} {'are' if you else 'is'} skipped (equal play)[/]"
    if kind == "trick":
        leader = int(str(event["value"]))
        leads = "lead" if leader == me else "leads"
        return f"[green]{who} {'win' if you else 'wins'} the trick; {seat_name(leader, me, capital=False)} {leads}[/]"
    if kind == "out":
        return f"[bold green]{who} {'are' if you else 'is'} out, place {int(str(event['value'])) + 1}[/]"
    return f"[red]{who} {'are' if you else 'is'} left with only the Fool: Peasant[/]"


def render(observation: Observation, legal_moves: Sequence[str] = ()) -> str:
    """The table as seen by ``observation["seat"]``."""
    me = int(observation["seat"])
    n = len(observation["hand_sizes"])
    total = observation["hands_total"]
    lines = [f"[bold]Hand {observation['hand_number']}{f' of {total}' if total else ''}[/]"
             f"  dealer: {seat_name(int(observation['dealer']), me, capital=False)}  phase: {observation['phase']}"]
    table = observation["table"]
    if table is None:
        lines.append("Table: empty (a new trick)")
    else:
        by = seat_name(int(table["seat"]), me, capital=False)
        lines.append(f"Table: {cards(table['cards'])} ({table['kind']}) by {by}")
    titles = observation["titles"]
    places = observation["places"]
    for q in range(n):
        title = f" {titles[q]}" if titles[q] else ""
        place = f"  out: place {places[q] + 1}" if places[q] is not None else ""
        marks = " [dim](passed)[/]" if q in observation["passed"] else ""
        turn = " [bold yellow]<- to play[/]" if observation["current_player"] == q else ""
        lines.append(f"  {seat_name(q, me):7}{escape(title):10} {observation['hand_sizes'][q]:2} cards  "
                     f"score {observation['scores'][q]:4}{place}{marks}{turn}")
    ex = observation["exchange"]
    if ex["partner"] is not None:
        lines.append(f"Exchange with seat {ex['partner']}: you gave {cards(ex['gave'])}, "
                     f"received {cards(ex['received'])}")
    groups = observation["hand_groups"]
    lines.append("Your hand: " + ("  ".join(cards(g) for g in groups) or "-"))
    if legal_moves:
        lines.append("Your move: " + " | ".join(f"[cyan]{escape(m)}[/]" for m in legal_moves))
    return "\n".join(lines)


def log_lines(observation: Observation, cursor: Any, neutral: bool = False) -> tuple[list[str], Any]:
    """The hand's events since ``cursor`` (None at first) as lines, and the new cursor ``(hand, events shown)``.

    When a hand has ended since the cursor, its places and points are shown first (FY-R11, FY-D21);
    ``neutral`` names every seat by number (replays).
    """
    me = None if neutral else int(observation["seat"])
    hand, shown = cursor if cursor else (observation["hand_number"], 0)
    lines = []
    if hand != observation["hand_number"] and observation["hand_results"]:
        last = observation["hand_results"][-1]
        n = len(last["places"])
        order = sorted(range(n), key=lambda q: last["places"][q])
        names = ", ".join(f"{seat_name(q, me)} ({last['points'][q]:+d})" for q in order)
        lines.append(f"[bold]Hand {hand} over[/], finishing order: {names}")
        shown = 0
    log = observation["log"]
    lines.extend(event_line(e, me) for e in log[shown:])
    return lines, (observation["hand_number"], len(log))
