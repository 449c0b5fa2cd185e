"""Terminal view of Fool!: hand by colour, the trick, who sits out with a Fool disc, scores and bonuses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from motley.core import Observation

#: The rules as a player reads them, in short paragraphs (the binding text with every rule id is
#: ``motley rules``): the table page's help panel and the start of ``motley rules``.
#: One sentence of what the game is (``GameSpec.summary``): the lobby's first page, the table's help and
#: ``motley rules`` say it.
SUMMARY = ("A trick game where the worst card of each trick makes you the Fool: you take the Fool disc and sit "
           "out the next trick; go out first, and keep your hand's values low.")
#: How long a match usually takes at the usual player count, one person and bots at the
#: server's bot delay (``GameSpec.typical_match``).
TYPICAL_MATCH = "about 20 minutes"

HOW_TO_PLAY = (
    "Fool! is a trick game for 4 to 8 players. The leader plays any card; everyone else must follow the lead colour "
    "if they can, otherwise they may play any other colour (a discard). A wild 1 counts as the lowest card of the "
    "lead colour and may be played at any time.",
    "The highest card of the lead colour wins the trick, and its player leads the next one. The worst card (the "
    "lowest of the lead colour, or the lowest discard if anyone discarded; on a tie the last one played) makes its "
    "player the Fool: they take the Fool disc and sit out the next trick. With 7 or 8 players two Fools are chosen.",
    "A round ends after the trick in which someone plays their last card. Going out scores +10 (0 if you became the "
    "Fool in that trick); everyone else loses the values left in hand (a 1 costs 5). The match ends when someone "
    "reaches -80 or has gone out six times; the highest total wins.",
)

STYLE = {"G": "green", "R": "red", "Y": "yellow", "B": "blue", "W": "white"}


def card(code: str, legal: bool = False) -> str:
    """Rich markup of one card code in its colour (W1 white); a legal card is bold and underlined."""
    style = STYLE.get(code[:1], "white")
    return f"[bold underline {style}]{code}[/]" if legal else f"[{style}]{code}[/]"


def _seat(seat: int, me: int) -> str:
    return "you" if seat == me else f"seat {seat}"


def _plays(plays: Sequence[Mapping[str, Any]], me: int) -> str:
    return ", ".join(f"{_seat(int(p['seat']), me)} {card(str(p['card']))}" for p in plays) or "-"


def render(observation: Observation, legal_moves: Sequence[str] = ()) -> str:
    """The table as seen by ``observation["seat"]`` (Rich markup; nothing the observation does not hold).

    Shows the round, dealer and the deck table (flagged *assumed* when it is the FL-D1 placeholder), the
    last completed trick (winner and Fools), the current trick with its lead colour, who sits out holding
    a disc (FL-R10), hand sizes, totals and +10 bonus counts, the last round's scores when a round has just
    ended (or the match is over), and the hand sorted by colour with the legal cards marked.
    """
    me = int(observation["seat"])
    n = int(observation["players"])
    deck = observation["deck"]
    flag = " [bold magenta](deck table ASSUMED, FL-D1, unverified)[/]" if observation["deck_table_assumed"] else ""
    lines = [
        f"[bold]Fool![/] round {observation['round_number']}, dealer {_seat(int(observation['dealer']), me)}, "
        f"{observation['num_fools']} Fool disc(s)",
        f"Deck: G2-G{deck['G']} R2-R{deck['R']} Y2-Y{deck['Y']} B2-B{deck['B']} and {deck['W1']} W1{flag}",
    ]
    tricks = observation["tricks"]
    if tricks:
        last = tricks[-1]
        fools = ", ".join(_seat(int(f), me) for f in last["fools"])
        lines.append(f"Last trick: {_plays(last['plays'], me)} -> won by {_seat(int(last['winner']), me)}, "
                     f"[bold red]Fool: {fools}[/]")
    trick = observation["trick"]
    lead = trick["lead"] or "not set"
    if not observation["terminal"]:
        lines.append(f"Trick {len(tricks) + 1} (lead colour {lead}): {_plays(trick['plays'], me)}")
    out = observation["sitting_out"]
    lines.append("Sitting out with a Fool disc: " + (", ".join(_seat(int(s), me) for s in out) or "nobody"))
    rows = []
    for s in range(n):
        marks = []
        if s == observation["current_player"]:
            marks.append("to move")
        if s in out:
            marks.append("disc")
        mark = f" ({', '.join(marks)})" if marks else ""
        rows.append(f"  {_seat(s, me)}{mark}: {observation['hand_sizes'][s]} cards, total "
                    f"{observation['scores'][s]:+d}, bonuses {observation['bonus_counts'][s]}")
    lines.extend(rows)
    last_round = observation["last_round"]
    if last_round is not None and ((not tricks and not trick["plays"]) or observation["terminal"]):
        scores = ", ".join(f"{_seat(s, me)} {v:+d}" for s, v in enumerate(last_round["scores"]))
        if not observation["terminal"]:
            lines.append(f"Final trick of round {last_round['round_number']}: {_plays(last_round['final_trick'], me)}")
        lines.append(f"[bold]Round {last_round['round_number']} scores:[/] {scores}")
    if observation["terminal"]:
        winners = ", ".join(_seat(int(s), me) for s in observation["winners"])
        lines.append(f"[bold]The match is over. Winner(s): {winners}[/]")
    legal = {m.upper() for m in legal_moves}
    hand = " ".join(card(c, c in legal) for c in observation["hand"]) or "-"
    lines.append(f"Your hand: {hand}")
    if legal_moves:
        lines.append("Your move: " + " | ".join(card(m.upper(), True) for m in legal_moves))
    return "\n".join(lines)


def _trick_line(number: int, trick: Mapping[str, Any], me: int) -> str:
    fools = ", ".join(_seat(int(f), me) for f in trick["fools"])
    return (f"Trick {number} ({trick['lead'] or 'all W1'}): {_plays(trick['plays'], me)} -> won by "
            f"{_seat(int(trick['winner']), me)}, [bold red]Fool: {fools}[/]")


def log_lines(observation: Observation, cursor: Any, neutral: bool = False) -> tuple[list[str], Any]:
    """Completed tricks and round results since ``cursor`` (None at first), and the new cursor.

    The cursor is ``(round, tricks shown)``. When a round has ended since, its final trick and scores
    are shown from ``last_round`` (FL-R12, FL-R13). ``neutral`` names every seat by number (replays).
    """
    me = -1 if neutral else int(observation["seat"])
    rnd, shown = cursor if cursor else (observation["round_number"], 0)
    lines = []
    last = observation["last_round"]
    if rnd != observation["round_number"] and last is not None:
        final = {"lead": None, "plays": last["final_trick"], "winner": None, "fools": last["fools"]}
        plays = _plays(final["plays"], me)
        fools = ", ".join(_seat(int(f), me) for f in last["fools"])
        lines.append(f"Final trick of round {last['round_number']}: {plays}; [bold red]Fool: {fools}[/]")
        scores = ", ".join(f"{_seat(s, me)} {v:+d}" for s, v in enumerate(last["scores"]))
        lines.append(f"[bold]Round {last['round_number']} scores:[/] {scores}")
        shown = 0
    for i, trick in enumerate(observation["tricks"][shown:], start=shown + 1):
        lines.append(_trick_line(i, trick, me))
    return lines, (observation["round_number"], len(observation["tricks"]))
