"""Bots: the protocol, ISMCTS (sees only the observation) and external programs with their failures."""

from __future__ import annotations

import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import motley
from motley.bots import make_bot
from motley.bots.external import ExternalBot
from motley.bots.ismcts import ISMCTSBot
from motley.eval.simulate import play_game

ROOT = Path(__file__).resolve().parents[2]
JS_BOT = ROOT / "examples" / "bots" / "joker_bot.js"


def test_make_bot_refuses_unknown_kinds_and_bad_options() -> None:
    game = motley.load_game("fools_errand")
    with pytest.raises(motley.MotleyError, match="unknown bot 'genius'"):
        make_bot("genius", game)
    with pytest.raises(motley.MotleyError, match="'simulations' must be at least 1"):
        make_bot("ismcts(simulations=0)", game)
    with pytest.raises(motley.MotleyError, match="unknown option 'depth' for bot ismcts"):
        make_bot("ismcts(depth=3)", game)


def test_ismcts_searches_only_sampled_worlds_and_explains() -> None:
    game = motley.load_game("fools_errand")
    state = game.new_initial_state(seed=5)
    bot = ISMCTSBot(game, simulations=400)
    calls: list[motley.Observation] = []  # the observation each world was drawn from
    original = game.determinizer

    def spy(observation: motley.Observation) -> Callable[[random.Random], motley.State]:
        sample = original(observation)

        def draw(rng: random.Random) -> motley.State:
            calls.append(observation)
            return sample(rng)

        return draw

    game.determinizer = spy  # type: ignore[method-assign]
    seat = state.current_player()
    obs = state.observation(seat)
    action = bot.act(obs, state.legal_actions(), random.Random(1))
    assert action in state.legal_actions()
    assert len(calls) == 400 and all(c is obs for c in calls)
    explained = bot.explain()
    assert {e["action"] for e in explained} == set(state.legal_actions())
    assert sum(e["visits"] for e in explained) == 400
    assert explained[0]["action"] == action  # the most visited move is played
    assert all(-1.0 <= e["mean"] <= 1.0 for e in explained)


def test_ismcts_time_budget() -> None:
    game = motley.load_game("fools_errand")
    state = game.new_initial_state(seed=6)
    bot = ISMCTSBot(game, seconds=0.05)
    bot.act(state.observation(state.current_player()), state.legal_actions(), random.Random(2))
    assert bot.last_iterations > 10


def test_ismcts_heuristic_rollouts_play_a_game() -> None:
    game = motley.load_game("fools_errand")
    bots = [make_bot("ismcts(simulations=30,rollout=heuristic)", game), make_bot("random", game)]
    assert play_game(game, bots, seed=3).is_terminal()


def test_javascript_example_bot_plays_a_full_game() -> None:
    assert shutil.which("node"), "Node.js is missing: ./scripts/test installs it"
    game = motley.load_game("fools_errand")
    external = ExternalBot(game, cmd=f"node {JS_BOT}", timeout=10)
    try:
        state = play_game(game, [external, make_bot("random", game)], seed=11)
    finally:
        external.close()
    assert state.is_terminal()
    assert external.errors == [] and not external.failed


def python_bot(tmp_path: Path, body: str) -> str:
    script = tmp_path / "bot.py"
    script.write_text("import sys, json, time\n" + body)
    return f"{sys.executable} {script}"


def one_decision(bot: ExternalBot) -> tuple[motley.State, int]:
    state = motley.load_game("fools_errand").new_initial_state(seed=5)
    seat = state.current_player()
    return state, bot.act(state.observation(seat), state.legal_actions(), random.Random(0))


def test_crashing_bot_falls_back_for_the_rest_of_the_game(tmp_path: Path) -> None:
    game = motley.load_game("fools_errand")
    bot = ExternalBot(game, cmd=python_bot(tmp_path, "sys.stderr.write('boom'); sys.exit(3)\n"), timeout=5)
    state, action = one_decision(bot)
    assert action in state.legal_actions()
    assert bot.failed and "exited (code 3)" in bot.errors[0] and "boom" in bot.errors[0]
    assert play_game(game, [bot, make_bot("random", game)], seed=2).is_terminal()


def test_silent_bot_times_out(tmp_path: Path) -> None:
    game = motley.load_game("fools_errand")
    bot = ExternalBot(game, cmd=python_bot(tmp_path, "time.sleep(30)\n"), timeout=0.3, fallback="heuristic")
    state, action = one_decision(bot)
    assert action in state.legal_actions()
    assert bot.failed and "did not answer within 0.3 s" in bot.errors[0]


def answering_bot(tmp_path: Path, answers: str, decisions: int) -> ExternalBot:
    """An external bot that answers the lines of the Python list expression ``answers`` in turn, after it has
    been asked for ``decisions`` decisions at one position (each answered with a legal action) and closed."""
    body = (
        f"answers = {answers}\n"
        "for i, line in enumerate(sys.stdin):\n"
        "    print(answers[i % len(answers)], flush=True)\n"
    )
    game = motley.load_game("fools_errand")
    bot = ExternalBot(game, cmd=python_bot(tmp_path, body), timeout=5)
    state = game.new_initial_state(seed=5)
    seat = state.current_player()
    for _ in range(decisions):
        assert bot.act(state.observation(seat), state.legal_actions(), random.Random(0)) in state.legal_actions()
    bot.close()
    return bot


def test_illegal_and_malformed_answers_fall_back_per_decision(tmp_path: Path) -> None:
    bot = answering_bot(tmp_path, "['{\"move\": \"fly\"}', '{oops', 'keep joker', '{\"action\": 99}']", 4)
    assert not bot.failed
    assert "invalid move 'fly'" in bot.errors[0]
    assert "malformed JSON" in bot.errors[1]
    assert "illegal action 99" in bot.errors[-1]
    assert len(bot.errors) in (3, 4)  # 'keep joker' is legal exactly when a Joker was just drawn


def test_external_bot_refuses_bad_configuration() -> None:
    game = motley.load_game("fools_errand")
    with pytest.raises(motley.MotleyError, match="needs a command"):
        ExternalBot(game, cmd="  ")
    with pytest.raises(motley.MotleyError, match="timeout"):
        make_bot("external(cmd='node x.js',timeout=0)", game)
    bot = ExternalBot(game, cmd="/no/such/program")
    state, action = one_decision(bot)
    assert action in state.legal_actions() and "cannot start" in bot.errors[0] and bot.failed


def test_a_hostile_answer_falls_back_for_that_decision(tmp_path: Path) -> None:
    """Deeply nested JSON or a 5,000-digit action from a bot program: refused as malformed, never a crash."""
    bot = answering_bot(tmp_path, "['{\"a\":' * 50000, '{\"action\": ' + '9' * 5000 + '}']", 2)
    assert not bot.failed and len(bot.errors) == 2
    assert all("malformed JSON" in error for error in bot.errors)
