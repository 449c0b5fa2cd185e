"""The bots the web offers are the bots' own declarations (``web`` kinds, ``served`` caps), read by the server."""

from __future__ import annotations

from typing import get_args

import pytest

import motley
from motley.bots import bot_kind, has_heuristic, make_bot, web_bot_kinds
from motley.core import MotleyError
from motley.server.play import web_bots
from motley.server.play.bodies import SeatRequest


def test_the_seat_request_offers_exactly_the_declared_web_kinds() -> None:
    declared = set(web_bot_kinds())
    assert set(get_args(web_bots.BotKind)) == declared
    assert set(web_bots.OFFERED) == declared
    annotation = SeatRequest.model_fields["bot"].annotation
    assert set(get_args(get_args(annotation)[0])) == declared  # Optional[BotKind]


def test_the_strength_bounds_are_the_served_caps_of_ismcts_simulations() -> None:
    served = bot_kind("ismcts").option("simulations").served or (0, 0)
    low, high = int(served[0]), int(served[1])
    assert (low, high) == (web_bots.MIN_SIMULATIONS, web_bots.MAX_SIMULATIONS)
    assert web_bots.bot_spec("ismcts", high) == f"ismcts(simulations={high})"
    for bad in (low - 1, high + 1):
        with pytest.raises(MotleyError, match="simulations per move"):
            web_bots.bot_spec("ismcts", bad)


@pytest.mark.parametrize("name", motley.registered_games())
def test_each_game_offers_the_kinds_that_can_play_it(name: str) -> None:
    offered = web_bots.offered(name)
    assert offered == sorted(web_bot_kinds(name), key=lambda kind: kind != "heuristic")
    assert ("heuristic" in offered) == has_heuristic(name)
    game = motley.load_game(name)
    for kind in offered:
        assert make_bot(web_bots.bot_spec(kind, None), game).game is game  # type: ignore[arg-type]
    assert web_bots.stand_in(name) == ("heuristic" if has_heuristic(name) else "random")


def test_kind_of_reads_the_parsed_spec() -> None:
    assert web_bots.kind_of("ismcts(simulations=300)") == "ismcts"
    assert web_bots.is_fast("heuristic") and not web_bots.is_fast("best")
    with pytest.raises(MotleyError):
        web_bots.kind_of("nosuchbot")
