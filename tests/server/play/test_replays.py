"""Replays (issue: one step per click, seat numbers, public view only, The Fool's Errand showing its
decisions only): the replay steps carry names, the cards played inside a move, and each seat's view after
the match; the index gives the rounds to jump to and the score sheet; ``motley replay --html`` writes one
self-contained viewer file."""

from __future__ import annotations

import base64
import gzip
import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import motley
from motley.cli.main import app
from motley.server.play import replays

runner = CliRunner()


def finished_record(game: str, seed: int, **params: int) -> str:
    state = motley.load_game(game, **params).new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    record = json.loads(motley.records.dump(state))
    record["names"] = [f"P{i}" for i in range(state.game.num_players)]
    return json.dumps(record)


def test_the_fools_errand_replay_lists_every_card_played_inside_the_decisions() -> None:
    table = replays.table_of_record(finished_record("fools_errand", 5))
    steps = replays.every_step(table, None)
    played = [e for s in steps for e in s["events"] if e.get("event") == "play"]
    final_log = replays.observe(table.state, None)["log"]
    assert played == [e for e in final_log if e.get("event") == "play"]  # every card, each once, in order
    assert len(played) > len(table.record.moves)  # more cards than decisions
    assert steps[3] == replays.step(table, 3)  # one pass and one step at a time agree


def test_seat_views_show_the_hand_after_the_match_and_a_bad_view_is_refused() -> None:
    table = replays.table_of_record(finished_record("fool", 3, players=4))
    public, own = replays.step(table, 1), replays.step(table, 1, view=2)
    assert own["view"] == 2 and own["svg"] != public["svg"] and own["names"] == ["P0", "P1", "P2", "P3"]
    with pytest.raises(replays.ViewRefused, match=r"0\.\.3"):
        replays.step(table, 1, view=4)


def test_the_index_marks_each_round_and_the_sheet_ends_with_the_final_scores() -> None:
    table = replays.table_of_record(finished_record("fool", 3, players=4))
    index = replays.index(table)
    rounds = [m["stage"] for m in index["marks"]]
    assert rounds[0] == "round 1" and len(rounds) == len(set(rounds)) > 1
    for mark in index["marks"]:
        assert replays.step(table, mark["step"])["stage"] == mark["stage"]
    assert index["sheet"][-1]["scores"] == table.state.scores() and len(index["sheet"]) == len(rounds)


def test_replay_html_writes_one_file_with_the_viewer_script_and_every_view(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    record.write_text(finished_record("fools_errand", 7))
    out = tmp_path / "replay.html"
    result = runner.invoke(app, ["replay", str(record), "--html", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    static = Path(replays.__file__).parent.parent / "static"
    script = replays.inline_module((static / "dom.js").read_text(), (static / "replay.js").read_text())
    assert 'from "/static/' not in script and "export " not in script  # one module, importing nothing
    assert "function el(" in script and "function eventWords(" in script
    escaped = script.replace("</script", "<\\/script")
    assert f'<script type="module">{escaped}</script>' in page  # the viewer's module, inlined
    assert 'src="/static/' not in page and 'href="/static/' not in page  # nothing to fetch
    packed = re.search(r'id="replay-data" data-encoding="gzip\+base64">([^<]+)<', page)
    assert packed is not None
    data = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    table = replays.table_of_record(record.read_text())
    assert sorted(data["steps"]) == ["0", "1", "public"]
    assert data["steps"]["1"][2] == json.loads(json.dumps(replays.step(table, 2, view=1)))
    assert data["index"]["names"] == ["P0", "P1"]


def test_replay_html_refuses_a_bad_record_and_writes_nothing(tmp_path: Path) -> None:
    record = tmp_path / "bad.json"
    record.write_text('{"game": "fools_errand", "params": {}, "seed": 1, "moves": ["no such move"]}')
    out = tmp_path / "replay.html"
    result = runner.invoke(app, ["replay", str(record), "--html", str(out)])
    assert result.exit_code != 0 and "no such move" in result.output
    assert not out.exists()


@pytest.mark.parametrize(("game", "players"), [("fools_errand", 2), ("fool", 4), ("foolery", 3)])
def test_the_replay_board_names_the_players_and_escapes_them(game: str, players: int) -> None:
    record = json.loads(finished_record(game, 4, players=players))
    record["names"] = [f"<b>Ann{i}</b>" for i in range(players)]
    table = replays.table_of_record(json.dumps(record))
    for view in (None, 0):
        svg = replays.step(table, 1, view=view)["svg"]
        assert all(f"&lt;b&gt;Ann{i}&lt;/b&gt;" in svg for i in range(players) if i != view)
        assert "<b>" not in svg and "Seat 1" not in svg
