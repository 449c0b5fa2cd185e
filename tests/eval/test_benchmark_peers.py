"""The peer loops of ``benchmarks/random_play.py``: OpenSpiel's chance outcomes are drawn as moves only where
every outcome is equally likely, so the fair loop plays the peer's own game."""

from __future__ import annotations

import pytest

from tests.support import benchmark_module

pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("name", ["dou_dizhu", "hearts", "oh_hell"])
def test_the_peers_timed_have_uniform_chance_nodes_listed_by_legal_actions(name: str) -> None:
    benchmark_module("random_play")._check_uniform_chance(pyspiel.load_game(name))


def test_a_peer_with_an_unequal_chance_node_is_refused() -> None:
    # 2048 places a 2 (probability 0.9) or a 4 (0.1): drawing its outcomes as moves would change the game
    with pytest.raises(ValueError, match="not uniform"):
        benchmark_module("random_play")._check_uniform_chance(pyspiel.load_game("2048"))

