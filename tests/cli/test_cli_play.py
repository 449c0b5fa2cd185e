"""`motley play` driven through a real process, as a person would: ask for the legal moves, answer one.

Whole matches of every game are played this way to the end (Fool! at 4 and 8 players, Foolery at 3 and 7,
when registered), with a wrong move typed on purpose at the first prompt.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import motley
from tests.support import assert_scores_named, summary_line

PROMPT = "your move> "
PLAYER_COUNTS: dict[str, list[int | None]] = {"fools_errand": [None], "fool": [4, 8], "foolery": [3, 7]}
CONFIGS = [(game, n) for game in motley.registered_games() for n in PLAYER_COUNTS.get(game, [None])]


class Terminal:
    """A `motley play` process with helpers to read up to the next prompt and type a line."""

    def __init__(self, args: list[str]) -> None:
        env = {**os.environ, "COLUMNS": "200", "TERM": "dumb"}
        self.proc = subprocess.Popen([sys.executable, "-m", "motley.cli.main", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        self.transcript = ""

    def read_to_prompt(self) -> str | None:
        """Output up to the next prompt, or None when the program has ended."""
        assert self.proc.stdout is not None
        chunk = b""
        while not chunk.decode(errors="replace").endswith(PROMPT):
            byte = os.read(self.proc.stdout.fileno(), 4096)
            if not byte:
                self.transcript += chunk.decode(errors="replace")
                return None
            chunk += byte
        text = chunk.decode(errors="replace")
        self.transcript += text
        return text

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()


def legal_moves(text: str) -> list[str]:
    line = next(x for x in reversed(text.splitlines()) if x.startswith("Legal moves: "))
    return line.removeprefix("Legal moves: ").split(" | ")


@pytest.mark.parametrize(("game", "players"), CONFIGS)
def test_a_person_plays_a_whole_match_in_the_terminal(game: str, players: int | None, tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    args = ["play", game, "--seed", "3", "--save", str(record)] + (["--players", str(players)] if players else [])
    term = Terminal(args)
    rng = random.Random(1)
    moves = 0
    first = True
    while term.read_to_prompt() is not None:
        if first:
            term.type("not a move")
            assert term.read_to_prompt() is not None
            assert "invalid move 'not a move'" in term.transcript
            first = False
        term.type("?")
        text = term.read_to_prompt()
        assert text is not None
        term.type(rng.choice(legal_moves(text)))
        moves += 1
        assert moves < 5000, "the match does not end"
    assert term.proc.wait(timeout=30) == 0, term.transcript[-2000:]
    state = motley.records.load(record.read_text())
    assert state.is_terminal()
    assert_scores_named(summary_line(term.transcript, "Final scores:"), state.scores(), you=0)
    # The person is "you" throughout: after the opening line ("you are seat 0"), no line names seat 0, every
    # log line says who did what ("Seat 1 plays ...", not "Seat 1: ..."), and one apostrophe style.
    body = term.transcript.split("\n", 1)[1]
    assert not re.search(r"\bseat 0\b", body, re.IGNORECASE), body[:3000]
    assert not re.search(r"^(You|Seat \d+|Opponent): ", body, re.MULTILINE), body[:3000]
    assert "\u2019" not in term.transcript
    assert moves == sum(1 for m in json.loads(record.read_text())["moves"] if m["seat"] == 0)
