"""The command line, driven as a person would: wrong input on purpose, then a whole game."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import motley
from motley.cli.main import app
from tests.support import assert_scores_named, summary_line

runner = CliRunner()


def test_every_command_has_help() -> None:
    for command in ("play", "simulate", "replay", "rules", "games", "bots"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0, result.output
        assert "Usage" in result.output


def test_play_answers_bad_input_then_plays_to_the_end_and_saves(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    # Bad input first, then '?', then always the first legal move: "draw" or "play joker" is legal at
    # every decision of a seat holding its Joker one way or the other.
    moves = "dance\n?\n" + "play joker\ndraw\n" * 60
    result = runner.invoke(app, ["play", "fools_errand", "--seed", "5", "--save", str(record)], input=moves)
    assert result.exit_code == 0, result.output
    assert "unknown move" in result.output
    assert "Legal moves:" in result.output
    state = motley.records.load(record.read_text())
    assert state.is_terminal()
    assert_scores_named(summary_line(result.output, "Final scores:"), state.scores(), you=0)


def test_play_rejects_bad_options() -> None:
    result = runner.invoke(app, ["play", "fools_errand", "-o", "after_scoop=never"], input="")
    assert result.exit_code == 2 and "after_scoop" in result.output
    result = runner.invoke(app, ["play", "fools_errand", "--bots", "genius"], input="")
    assert result.exit_code == 2 and "unknown bot" in result.output
    result = runner.invoke(app, ["play", "nothing"], input="")
    assert result.exit_code == 2 and "unknown game" in result.output


def test_simulate_json_is_reproducible_and_rotates_seats() -> None:
    args = ["simulate", "fools_errand", "-n", "60", "--bots", "heuristic,random", "--seed", "1", "--json"]
    first = runner.invoke(app, args)
    second = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert first.output == second.output
    data = json.loads(first.output)
    assert [e["bot"] for e in data["entries"]] == ["heuristic", "random"]
    for entry in data["entries"]:
        low, high = entry["win_share_ci"]
        assert 0 <= low <= entry["win_share"] <= high <= 1
        assert entry["games"] == 60
    wins = [e["win_share"] for e in data["entries"]]
    draws = data["entries"][0]["draw_rate"]
    assert abs(sum(wins) + draws - 1) < 1e-9


def test_simulate_refuses_too_many_bots() -> None:
    result = runner.invoke(app, ["simulate", "fools_errand", "-n", "5", "--bots", "random,random,random"])
    assert result.exit_code == 2 and "give 1 to 2 bots" in result.output


def test_replay_prints_moves_and_refuses_broken_records(tmp_path: Path) -> None:
    state = motley.load_game("fools_errand").new_initial_state(seed=8)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    good = tmp_path / "good.json"
    good.write_text(motley.records.dump(state))
    result = runner.invoke(app, ["replay", str(good)])
    assert result.exit_code == 0, result.output
    assert "1. seat" in result.output and f"Final scores: {state.scores()}" in result.output
    bad = tmp_path / "bad.json"
    data = json.loads(good.read_text())
    data["moves"][0]["move"] = "fly"
    bad.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "does not replay" in result.output
    result = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "cannot read record" in result.output


def test_replay_takes_every_record_load_takes_and_refuses_the_rest_without_a_traceback(tmp_path: Path) -> None:
    state = motley.load_game("fools_errand").new_initial_state(seed=8)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    data = json.loads(motley.records.dump(state))
    plain = tmp_path / "plain.json"  # moves as plain strings: load() takes them, so replay does too
    plain.write_text(json.dumps({**data, "moves": [m["move"] for m in data["moves"]]}))
    result = runner.invoke(app, ["replay", str(plain)])
    assert result.exit_code == 0, result.output
    first = data["moves"][0]
    assert f"1. seat {first['seat']}: {first['move']}" in result.output
    assert f"Final scores: {state.scores()}" in result.output
    for name, content in (("broken.json", b"{not json"), ("list.json", b"[1, 2]"), ("binary.json", b"\xff\xfe\x00"),
                          ("number.json", json.dumps({**data, "moves": [5]}).encode())):
        path = tmp_path / name
        path.write_bytes(content)
        result = runner.invoke(app, ["replay", str(path)])
        assert result.exit_code == 2 and "error:" in result.output, (name, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (name, result.exception)


def test_rules_prints_rule_ids() -> None:
    result = runner.invoke(app, ["rules", "fools_errand"])
    assert result.exit_code == 0
    assert "FE-R4" in result.output and "FE-D11" in result.output


def test_rules_start_with_how_to_play_then_sources_and_rulings() -> None:
    """``motley rules`` prints the title, then the rules a player reads, then sources, rulings and cases."""
    out = runner.invoke(app, ["rules", "fool"])
    assert out.exit_code == 0, out.output
    lines = [line.strip() for line in out.output.splitlines() if line.strip()]
    assert lines[0].startswith("Fool! (Friedemann Friese)") and lines[1] == "How to play"
    text = out.output
    assert text.index("How to play") < text.index("FL-R1 Cards") < text.index("FL-R14 Game end") < text.index(
        "Sources, rulings and worked cases") < text.index("Source text:") < text.index("2.1 Sources searched")
    for game, first, last in (("fools_errand", "FE-R1 Deck", "FE-D15"), ("foolery", "FY-R1 Deal", "FY-D29")):
        text = runner.invoke(app, ["rules", game]).output
        assert text.index("How to play") < text.index(first) < text.index("Source text:") < text.index(last)
    # The game in short (the spec's paragraphs, as the table page's help shows them) opens "How to play".
    for game in motley.registered_games():
        short = motley.game_spec(game).how_to_play
        flat = " ".join(runner.invoke(app, ["rules", game]).output.split())
        assert short, f"{game} has its rules in short"
        assert all(" ".join(p.split()) in flat for p in short)
        assert flat.index("How to play") < flat.index(" ".join(short[0].split())) < flat.index("Source text:")
    # Nothing is left out: every section of the packaged text is printed once.
    packaged = (Path(motley.__file__).parent / "rules" / "fool.md").read_text(encoding="utf-8")
    for heading in (line[4:] for line in packaged.splitlines() if line.startswith("### ")):
        assert out.output.count(heading) == 1, heading


def test_simulation_results_do_not_depend_on_the_number_of_workers() -> None:
    from motley.eval import simulate

    game = motley.load_game("fools_errand")
    one = simulate(game, ["heuristic", "random"], 40, seed=7, workers=1)
    two = simulate(game, ["heuristic", "random"], 40, seed=7, workers=2)
    assert one.results == two.results
    assert one.as_dict() == two.as_dict()
    assert [r.index for r in two.results] == list(range(40))
    assert {tuple(r.lineup) for r in two.results} == {(0, 1), (1, 0)}  # seats rotate


def test_rules_open_with_the_games_own_sentence_as_the_lobby_says_it() -> None:
    """``motley rules`` opens with the spec's sentence, players and match length: the lobby's words."""
    for game in motley.registered_games():
        spec = motley.game_spec(game)
        flat = " ".join(runner.invoke(app, ["rules", game]).output.split())
        assert flat.index(spec.summary) < flat.index(" ".join(spec.how_to_play[0].split()))
        assert spec.at_a_glance().capitalize() in flat
