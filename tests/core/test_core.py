"""The core API: registry, options and their string form, errors, records."""

from __future__ import annotations

import json
import random

import pytest

import motley
from motley.core.game import seeded_rng
from motley.core.options import Option, parse_game_string
from tests.support import game_configs, play_out, play_random


def test_registered_games_include_fools_errand() -> None:
    assert "fools_errand" in motley.registered_games()


def test_load_game_string_form_equals_keywords() -> None:
    a = motley.load_game("fools_errand(after_scoop=simultaneous_reveal,end_when=either_deck_joker_only)")
    b = motley.load_game("fools_errand", after_scoop="simultaneous_reveal", end_when="either_deck_joker_only")
    assert a == b
    assert a.params["after_scoop"] == "simultaneous_reveal"
    assert motley.load_game(str(a)) == a


def test_option_values_match_case_insensitively_and_keep_canonical_spelling() -> None:
    game = motley.load_game("fools_errand(opening_tie=LEAVE_AT_ZERO_A_FIRST)")
    assert game.params["opening_tie"] == "leave_at_zero_A_first"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("no_such_game", "unknown game"),
        ("fools_errand(colour=red)", "unknown option 'colour'"),
        ("fools_errand(after_scoop=sometimes)", "after_scoop"),
        ("fools_errand(players=3)", "at most 2"),
        ("fools_errand(after_scoop", "must end with"),
        ("fools_errand(after_scoop)", "no '=value'"),
    ],
)
def test_bad_game_strings_name_the_problem(spec: str, words: str) -> None:
    with pytest.raises(motley.OptionError, match=words):
        motley.load_game(spec)


def test_game_string_keeps_json_values_whole() -> None:
    name, raw = parse_game_string('fool(players=5,deck_table={"5": [1, 2]},x="a,b")')
    assert name == "fool"
    assert raw == {"players": "5", "deck_table": '{"5": [1, 2]}', "x": '"a,b"'}


def test_option_kinds_convert_and_refuse() -> None:
    flag = Option("flag", False, "a flag", kind="bool")
    assert flag.parse("true") is True and flag.parse("off") is False
    with pytest.raises(motley.OptionError, match="true or false"):
        flag.parse("maybe")
    count = Option("count", 3, "a count", kind="int", minimum=1, maximum=5)
    assert count.parse("4") == 4
    with pytest.raises(motley.OptionError, match="whole number"):
        count.parse("four")
    with pytest.raises(motley.OptionError, match="at least 1"):
        count.parse(0)


def test_seed_must_be_a_non_negative_integer() -> None:
    game = motley.load_game("fools_errand")
    for bad in (-1, "7", 1.5, True):
        with pytest.raises(motley.MotleyError, match="seed"):
            game.new_initial_state(seed=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32, 2**63 - 1, 2**63 + 7])
def test_seeded_rng_starts_where_random_random_starts(seed: int) -> None:
    ours, theirs = seeded_rng(seed), random.Random(seed)
    assert ours.getstate() == theirs.getstate()
    assert [ours.random() for _ in range(5)] == [theirs.random() for _ in range(5)]
    assert ours.gauss(0, 1) == theirs.gauss(0, 1)
    assert ours.getstate() == theirs.getstate()


def test_same_seed_same_match() -> None:
    game = motley.load_game("fools_errand")
    a = play_out(game.new_initial_state(seed=11), random.Random(3))
    b = play_out(game.new_initial_state(seed=11), random.Random(3))
    assert a.serialize() == b.serialize()


def test_unseeded_state_records_its_seed_and_replays() -> None:
    game = motley.load_game("fools_errand")
    state = play_out(game.new_initial_state(), random.Random(5))
    assert state.origin is not None and isinstance(state.origin["seed"], int)
    assert motley.records.load(motley.records.dump(state)).serialize() == state.serialize()


def test_record_holds_game_params_seed_moves_and_result() -> None:
    game = motley.load_game("fools_errand(unclaimed_at_end=to_player_ahead)")
    state = play_out(game.new_initial_state(seed=4), random.Random(4))
    record = json.loads(motley.records.dump(state))
    assert record["game"] == "fools_errand"
    assert record["params"] == game.params
    assert record["seed"] == 4
    assert len(record["moves"]) == len(state.history())
    assert all(m["move"] in ("draw", "play joker", "keep joker") for m in record["moves"])
    assert record["result"]["scores"] == state.scores()


def broken_records() -> list[tuple[str, str]]:
    game = motley.load_game("fools_errand")
    state = play_out(game.new_initial_state(seed=9), random.Random(9))
    good = json.loads(motley.records.dump(state))
    wrong_move = json.loads(json.dumps(good))
    wrong_move["moves"][0]["move"] = "dance"
    wrong_result = json.loads(json.dumps(good))
    wrong_result["result"]["scores"] = [0, 0]
    no_moves = {k: v for k, v in good.items() if k != "moves"}
    bad_game = {**good, "game": "chess"}
    wrong_seat = json.loads(json.dumps(good))
    wrong_seat["moves"][0]["seat"] = 1 - wrong_seat["moves"][0]["seat"]
    return [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps(no_moves), "no 'moves'"),
        (json.dumps(bad_game), "unknown game"),
        (json.dumps(wrong_move), "move 1 .*does not replay"),
        (json.dumps(wrong_result), "differs from the replayed result"),
        (json.dumps(wrong_seat), "recorded for seat"),
    ]


@pytest.mark.parametrize(("text", "words"), broken_records())
def test_broken_records_are_refused_with_the_reason(text: str, words: str) -> None:
    with pytest.raises(motley.RecordError, match=words):
        motley.records.load(text)


def test_deserialize_refuses_broken_text() -> None:
    game = motley.load_game("fools_errand")
    with pytest.raises(motley.RecordError):
        game.deserialize_state("{")
    with pytest.raises(motley.RecordError, match="not a fools_errand state"):
        game.deserialize_state('{"game": "fool"}')
    text = game.new_initial_state(seed=1).serialize()
    data = json.loads(text)
    del data["state"]["decks"]
    with pytest.raises(motley.RecordError, match="broken"):
        game.deserialize_state(json.dumps(data))
    other = motley.load_game("fools_errand(after_scoop=simultaneous_reveal)")
    with pytest.raises(motley.RecordError, match="params"):
        other.deserialize_state(text)


def test_dump_refuses_a_determinization() -> None:
    game = motley.load_game("fools_errand")
    state = game.new_initial_state(seed=2)
    sampled = game.sample_state(state.observation(0), random.Random(1))
    with pytest.raises(motley.MotleyError, match="determinization"):
        motley.records.dump(sampled)


def load_noting_moves(text: str) -> tuple[motley.State, list[tuple[int, int]]]:
    """``records.load(text)`` and the ``(seat, action)`` of each move its ``on_move`` hook saw."""
    seen: list[tuple[int, int]] = []
    final = motley.records.load(text, on_move=lambda after, seat, action: seen.append((seat, action)))
    return final, seen


@pytest.mark.parametrize(("name", "players"), game_configs())
def test_records_replay_move_by_move_with_the_seat_of_each_move(name: str, players: int) -> None:
    """``records.load(text, on_move)`` reports each move's seat and action as it replays; moves written as
    plain strings (no seat) replay too; an unfinished match has a record as well."""
    game = motley.load_game(name, players=players) if players > 2 else motley.load_game(name)
    rng = random.Random(6)
    for state in (play_random(game.new_initial_state(seed=6), rng, 25), play_out(game.new_initial_state(seed=7), rng)):
        text = motley.records.dump(state)
        record = json.loads(text)
        final, seen = load_noting_moves(text)
        assert final.serialize() == state.serialize()
        assert [action for _, action in seen] == state.history()
        assert [seat for seat, _ in seen] == [m["seat"] for m in record["moves"]]
        plain = {**record, "moves": [m["move"] for m in record["moves"]]}
        assert motley.records.load(json.dumps(plain)).serialize() == state.serialize()


def test_read_checks_a_record_without_replaying_it() -> None:
    game = motley.load_game("fools_errand")
    state = play_out(game.new_initial_state(seed=3), random.Random(3))
    data = json.loads(motley.records.dump(state))
    data["moves"][0] = "fly"  # read does not replay, so a move that does not replay passes
    record = motley.records.read(json.dumps(data))
    assert record.game == game and record.seed == 3 and record.deal is None
    assert record.moves[0] == (None, "fly") and record.moves[1][0] == data["moves"][1]["seat"]
    assert record.result == data["result"]
    with pytest.raises(motley.RecordError, match=r"move 1 .*does not replay"):
        motley.records.load(json.dumps(data))
    with pytest.raises(motley.RecordError, match="move 2 must be a move string"):
        motley.records.read(json.dumps({**data, "moves": ["draw", 7]}))
    with pytest.raises(motley.RecordError, match="'result' must be an object"):
        motley.records.read(json.dumps({**data, "result": [1, 2]}))


@pytest.mark.parametrize(("name", "players"), game_configs())
def test_play_checks_the_seat_in_every_game(name: str, players: int) -> None:
    """``State.play(seat, action)``: a seat not to move is refused with the reason and nothing changes; the
    seat to move plays as with ``apply_action``."""
    game = motley.load_game(name, players=players) if players > 2 else motley.load_game(name)
    rng = random.Random(2)
    for seed in range(3):
        state = play_random(game.new_initial_state(seed=seed), rng, rng.randrange(30))
        if state.is_terminal():
            continue
        mover, legal = state.current_player(), state.legal_actions()
        before = state.serialize()
        other = (mover + 1) % game.num_players
        with pytest.raises(motley.IllegalMoveError, match=f"not seat {other}'s|seat {other} holds a Fool disc"):
            state.play(other, legal[0])
        assert state.serialize() == before
        twin = state.clone()
        state.play(mover, legal[-1])
        twin.apply_action(legal[-1])
        assert state.serialize() == twin.serialize()
    finished = play_out(game.new_initial_state(seed=9), rng)
    with pytest.raises(motley.IllegalMoveError, match="over"):
        finished.play(0, 0)


@pytest.mark.parametrize("seed", [None, -1, "7", True, 1.5])
def test_a_record_without_a_proper_seed_is_refused(seed: object) -> None:
    """A replay never draws a fresh seed: a record whose seed is missing or not a whole number is refused."""
    state = play_out(motley.load_game("fools_errand").new_initial_state(seed=3), random.Random(0))
    data = json.loads(motley.records.dump(state))
    data["seed"] = seed
    with pytest.raises(motley.RecordError, match="seed"):
        motley.records.load(json.dumps(data))
