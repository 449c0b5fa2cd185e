"""Terminal view of The Fool's Errand: the scale, the cards in play, piles, decks and Jokers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from motley.core import Observation

#: The rules as a player reads them, in short paragraphs (the binding text with every rule id is
#: ``motley rules``): the table page's help panel and the start of ``motley rules``.
#: One sentence of what the game is (``GameSpec.summary``): the lobby's first page, the table's help and
#: ``motley rules`` say it.
SUMMARY = ("A duel of two decks: each card you draw tips a scale, and a card that brings it back to exactly 0 "
           "scoops everything in play; keep or play your Joker at the right moment.")
#: How long a match usually takes at the usual player count, one person and bots at the
#: server's bot delay (``GameSpec.typical_match``).
TYPICAL_MATCH = "about 2 minutes"

HOW_TO_PLAY = (
    "The Fool's Errand is a two-player game without hands: on your turn the top card of your own deck is drawn and "
    "played for you, and tips the scale towards you by its value (J, Q, K count 10; an Ace counts 11 when you trail "
    "by 11 or more, else 1).",
    "A play that brings the scale to exactly 0 scoops every card in play into your score pile. The only decision is "
    "the Joker: when you draw it you may play it at once (the scale goes to 0 and you scoop) or keep it aside face up "
    "and play it on a later turn instead of drawing.",
    "The game ends when both decks hold only their Joker; the bigger score pile (Ace 1, number cards their value, "
    "J/Q/K 10) wins.",
)

SUIT_STYLE = {"C": "white", "S": "white", "D": "red", "H": "red"}
NAMES = ("A", "B")


def card(code: str | None) -> str:
    """Rich markup of one card code (red for hearts and diamonds, magenta for the Joker)."""
    if code is None:
        return ""
    if code == "JK":
        return "[bold magenta]JK[/]"
    return f"[bold {SUIT_STYLE[code[-1]]}]{code}[/]"


def scale_bar(scale_for_you: int, width: int = 20) -> str:
    """A text scale: ``|`` is 0, the marker shows which way it tips (right = toward you)."""
    pos = max(-width, min(width, scale_for_you))
    left = ["·"] * width
    right = ["·"] * width
    if pos < 0:
        left[width + pos] = "◆"
    elif pos > 0:
        right[pos - 1] = "◆"
    return f"them {''.join(left)}|{''.join(right)} you"


def event_line(event: dict[str, object], seat: int | None) -> str:
    """One log event (FE-R9 announcements) as a line of text, for ``seat`` or neutrally (``None``: A/B)."""
    you = seat is not None and event["seat"] == seat
    who = "You" if you else (NAMES[int(str(event["seat"]))] if seat is None else "Opponent")
    s = "" if you else "s"
    kind = event["event"]
    code = event["card"] if isinstance(event["card"], str) else None
    if kind in ("play", "reveal"):
        value = f" (value {event['value']})" if code != "JK" else " (scale to 0)"
        mine = "" if you or seat is None or event["scale"] == 0 else f" ({-int(str(event['scale'])):+d} for you)"
        return f"{who} {'reveal' if kind == 'reveal' else 'play'}{s} {card(code)}{value}, " \
               f"announcing [bold]{event['scale']}[/]{mine}"
    if kind == "scoop":
        return f"[green]{who} scoop{s} {event['value']} cards worth {event['scale']}[/]"
    if kind == "set_aside":
        return f"{who} set{s} a Joker aside, face up"
    if kind == "joker_back":
        owner = "Your" if you else f"{who}'s"
        return f"{owner} Joker is shuffled back into the deck"
    return "[bold]The game is over[/]"


def render(observation: Observation, legal_moves: Sequence[str] = ()) -> str:
    """The table as seen by ``observation["seat"]``."""
    me = int(observation["seat"])
    them = 1 - me
    lines = [
        f"Scale {observation['scale_for_you']:+d} (positive tips toward you)",
        scale_bar(int(observation["scale_for_you"])),
        "In play: " + (" ".join(card(e["card"]) for e in observation["in_play"]) or "-"),
        f"Your pile: {observation['pile_points'][me]} points   Opponent's pile: {observation['pile_points'][them]}",
        f"Decks: you {observation['deck_sizes'][me]} cards, opponent {observation['deck_sizes'][them]}",
        f"Jokers: yours {observation['jokers'][me].replace('_', ' ')}, "
        f"opponent's {observation['jokers'][them].replace('_', ' ')}",
    ]
    if legal_moves:
        lines.append("Your move: " + " | ".join(f"[cyan]{m}[/]" for m in legal_moves))
    return "\n".join(lines)


def log_lines(observation: Observation, cursor: Any, neutral: bool = False) -> tuple[list[str], Any]:
    """New log events since ``cursor`` (None at first) as lines (the FE-R9 announcements), and the new cursor.

    ``neutral`` names the seats A and B instead of "you" and "opponent" (replays).
    """
    seat = None if neutral else int(observation["seat"])
    start = int(cursor or 0)
    return [event_line(e, seat) for e in observation["log"][start:]], len(observation["log"])
