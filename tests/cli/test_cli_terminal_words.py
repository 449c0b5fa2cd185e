"""The terminal game speaks to the person as "you": illegal-move reasons, log lines, the closing summary."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import motley
from motley.cli.main import app, match_summary
from motley.games.foolery import views as foolery_views
from tests.support import assert_scores_named, game_configs, play_random, summary_line

runner = CliRunner()


@pytest.mark.parametrize(("name", "players"), game_configs())
def test_illegal_move_reasons_speak_to_the_seat_to_move(name: str, players: int) -> None:
    """A refused move is explained to whoever tried it: "you hold ...", never "seat N holds ..." for that seat."""
    game = motley.load_game(name, players=players)
    rng = random.Random(11)
    checked = 0
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            mover = state.current_player()
            legal = set(state.legal_actions())
            ids = rng.sample(range(game.num_distinct_actions()), min(150, game.num_distinct_actions()))
            for action in (a for a in ids if a not in legal):
                reason = state.why_illegal(action)
                assert not re.search(rf"\bseat {mover}\b", reason, re.IGNORECASE), (action, reason)
                checked += 1
            play_random(state, rng, rng.randint(1, 25))
    assert checked > 0


def test_fool_reasons_say_you_hold() -> None:
    state = motley.load_game("fool", players=4).new_initial_state(seed=2)
    obs = state.observation(state.current_player())
    hand = set(obs["hand"])
    absent = next(state.action_to_string(a) for a in range(state.game.num_distinct_actions())
                  if state.action_to_string(a) not in hand and state.action_to_string(a) != "W1"
                  and "not in the deck" not in state.why_illegal(a))
    with pytest.raises(motley.IllegalMoveError, match=f"you do not hold {absent}"):
        state.apply_action(state.string_to_action(absent))


@pytest.mark.parametrize("me", [None, 0, 2])
def test_foolery_log_lines_are_sentences_with_a_subject_and_a_verb(me: int | None) -> None:
    events: list[dict[str, object]] = [
        {"event": "play", "seat": 2, "cards": "7S 7H"}, {"event": "pass", "seat": 2},
        {"event": "skip", "seat": 2}, {"event": "trick", "seat": 2, "value": 2},
        {"event": "out", "seat": 2, "value": 0}, {"event": "peasant", "seat": 2}]
    subject = "You" if me == 2 else "Seat 2"
    verbs = (["play", "pass", "are skipped", "win", "are out", "are left"] if me == 2 else
             ["plays", "passes", "is skipped", "wins", "is out", "is left"])
    for event, verb in zip(events, verbs, strict=True):
        plain = re.sub(r"\[/?[^\]]*\]", "", foolery_views.event_line(event, me))
        assert plain.startswith(f"{subject} {verb}"), plain
    trick = re.sub(r"\[/?[^\]]*\]", "", foolery_views.event_line(events[3], me))
    assert trick.endswith("you lead" if me == 2 else "seat 2 leads")


def test_quitting_ends_with_the_scores_so_far_and_who_leads(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    moves = "play joker\ndraw\n" * 3 + "quit\n"
    result = runner.invoke(app, ["play", "fools_errand", "--seed", "4", "--save", str(record)], input=moves)
    assert result.exit_code == 0, result.output
    state = motley.records.load(record.read_text())
    assert not state.is_terminal()
    mine = sum(1 for m in json.loads(record.read_text())["moves"] if m["seat"] == 0)
    line = summary_line(result.output, "You stopped after")
    assert line.startswith(f"You stopped after {mine} moves. Scores so far:")
    assert_scores_named(line, state.scores(), you=0)
    you, other = state.scores()
    lead = ("all level" if you == other else f"you lead with {you} points" if you > other
            else f"seat 1 leads with {other} points")
    assert lead in line


def test_the_summary_names_the_leaders_and_the_winners() -> None:
    assert match_summary([3, 9, 9], [0, 0, 0], 0, False, 1).endswith(
        "seat 1 and seat 2 share the lead with 9 points.")
    assert "you lead with 9 points" in match_summary([9, 1, 2], [0, 0, 0], 0, False, 2)
    assert "You win!" in match_summary([9, 1, 2], [1.0, -1.0, -1.0], 0, True, 2)
    assert "You lose: seat 2 wins." in match_summary([1, 1, 9], [-1.0, -1.0, 1.0], 0, True, 2)
    assert "You share the win with seat 1." in match_summary([9, 9, 2], [1.0, 1.0, -1.0], 0, True, 2)
    assert "A draw." in match_summary([5, 5], [0.0, 0.0], 1, True, 2)
