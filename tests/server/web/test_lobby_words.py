"""The lobby speaks in words: every option of every game has a label, each choice its own words, and
``/api/games`` sends them (declared with the options, never per game in the page)."""

from __future__ import annotations

import re

import pytest

import motley
from motley.core.options import Option, split_rule_ids
from motley.core.registry import game_class
from motley.server.web.routes.games import games_info

RULE_ID = re.compile(r"\b(FL|FY|FE)-[A-Z]+\d+")


@pytest.mark.parametrize("name", motley.registered_games())
def test_every_option_has_a_label_without_code_names(name: str) -> None:
    for option in game_class(name).options:
        assert option.label, f"{name}.{option.name} has no label"
        assert "_" not in option.label and not RULE_ID.search(option.label), option.label
        for choice in option.choices:
            words = option.choice_labels.get(choice)
            assert words, f"{name}.{option.name}: choice {choice!r} has no words"
            assert "_" not in words, words


def test_games_info_sends_labels_choice_words_and_the_assumed_default() -> None:
    games = {g["name"]: g for g in games_info()}
    fool = {o["name"]: o for o in games["fool"]["options"]}
    two = fool["two_fools_from_players"]
    assert two["label"] == game_class("fool").options[2].label
    assert dict(zip(two["choices"], two["choice_labels"], strict=True)) == {7: "7 players", 8: "8 players only"}
    assert fool["deck_table"]["assumed"] is True and fool["end_total"]["assumed"] is False
    assert fool["end_total"]["minimum"] == -300  # the server's cap, not the rules' open bound


def test_describe_falls_back_to_the_name_and_the_written_choice() -> None:
    option = Option("some_thing", 1, "doc", choices=(1, 2), kind="int", choice_labels={1: "one"})
    described = option.describe()
    assert described["label"] == "some thing"
    assert described["choice_labels"] == ["one", "2"]
    assert described["choices"] == [1, 2]
    assert option.parse("2") == 2  # the words change nothing in how a value is read


def test_rule_ids_are_split_from_the_explanation() -> None:
    text, ids = split_rule_ids("tied (auto, FY-D17), or asked (ask: the engine before FY-D17, for older, FY-D30)")
    assert text == "tied (auto), or asked (ask: the engine before, for older)"
    assert ids == ["FY-D17", "FY-D30"]
    assert split_rule_ids("ends here (FL-R14, FL-D9)") == ("ends here", ["FL-R14", "FL-D9"])
    for game in games_info():
        for option in game["options"]:
            assert not RULE_ID.search(option["explanation"]), option
