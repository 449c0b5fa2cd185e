"""What the first page needs from the server: each game's words from its spec (one sentence, players, match
length, usual player count, which options set the match's length), its picture (the game's own drawing of a
sample position, served as SVG and cached), and the server's defaults for a new table (its ``--bot-delay``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

import motley
from motley.core.registry import game_class, game_spec
from motley.server.play.web_bots import offered
from motley.server.web.routes.games import PLAY_BOT, game_picture, games_info
from motley.server.web.testing import ServerThread

RULE_ID = re.compile(r"\b(FL|FY|FE)-[A-Z]+\d+")


@pytest.fixture(scope="module")
def server(module_store_url: str) -> Iterator[ServerThread]:
    with ServerThread(module_store_url, bot_delay=0.3, grace=12.0) as running:
        yield running


@pytest.mark.parametrize("name", motley.registered_games())
def test_every_game_says_what_it_is_in_its_spec(name: str) -> None:
    spec, cls = game_spec(name), game_class(name)
    assert spec.summary.endswith(".") and spec.summary.count(". ") == 0, "one sentence"
    assert not RULE_ID.search(spec.summary) and "_" not in spec.summary
    assert spec.typical_match.startswith("about ")
    assert cls.min_players <= spec.players_usually <= cls.max_players
    assert set(spec.match_options) <= {o.name for o in cls.options}, "match options are options of the game"
    assert spec.players_words() in spec.at_a_glance() and spec.typical_match in spec.at_a_glance()


def test_games_info_sends_the_words_and_the_picture_size() -> None:
    for game in games_info():
        spec = game_spec(game["name"])
        assert game["summary"] == spec.summary and game["at_a_glance"] == spec.at_a_glance()
        assert game["usual_players"] == spec.players_usually
        assert game["picture"]["url"] == f"/api/games/{game['name']}/picture.svg"
        assert game["picture"]["width"] > game["picture"]["height"] > 0


@pytest.mark.parametrize("name", motley.registered_games())
def test_the_picture_is_the_games_own_drawing_served_and_cached(server: ServerThread, name: str) -> None:
    r = httpx.get(f"{server.base}/api/games/{name}/picture.svg", timeout=20)
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert "max-age=" in r.headers["cache-control"]
    assert r.text.startswith("<svg") and "motley-table" in r.text
    assert r.text == game_picture(name) and game_picture(name) is game_picture(name), "drawn once"
    info = next(g for g in games_info() if g["name"] == name)
    assert f'width="{info["picture"]["width"]}"' in r.text.partition(">")[0]


def test_the_picture_is_a_sample_position_not_the_deal() -> None:
    spec = game_spec("fool")
    assert spec.sample_moves > 0
    assert "trick" in game_picture("fool")  # a trick under way, as the table looks in play


@pytest.mark.parametrize("name", ["nosuchgame", "fool%2F..%2Fx", "FOOL"])
def test_a_picture_of_no_game_is_404(server: ServerThread, name: str) -> None:
    r = httpx.get(f"{server.base}/api/games/{name}/picture.svg", timeout=10)
    assert r.status_code == 404


def test_the_defaults_are_the_servers_own(server: ServerThread) -> None:
    defaults = httpx.get(f"{server.base}/api/defaults", timeout=10).json()
    assert defaults["bot_delay"] == 0.3 and defaults["grace"] == 12.0 and defaults["move_time"] is None
    assert defaults["wait_for_people"] is True
    assert defaults["play_bot"] == PLAY_BOT and all(PLAY_BOT in offered(name) for name in motley.registered_games())


def test_a_table_made_without_timers_gets_the_servers_bot_delay(server: ServerThread) -> None:
    """The lobby sends a timer only when the player changed it, so the server's own setting applies."""
    made = httpx.post(f"{server.base}/api/tables", json={"game": "fools_errand"}, timeout=10).json()
    live = server.app.state.service.tables[made["id"]]
    assert live.table.settings.bot_delay == 0.3 and live.table.settings.grace == 12.0


def test_motley_serve_passes_its_pace_and_summary_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--pace`` and ``--summary-wait`` reach the app's defaults; a negative wait means without limit."""
    import uvicorn
    from typer.testing import CliRunner

    import motley.server
    from motley.cli.main import app

    given: list[tuple[float, float | None]] = []
    monkeypatch.setattr(motley.server, "create_app",
                        lambda *a, **kw: given.append((kw["pace"], kw["summary_wait"])))
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: None)
    cases: list[tuple[list[str], tuple[float, float | None]]] = [
        ([], (0.7, 30.0)), (["--pace", "0", "--summary-wait", "5"], (0.0, 5.0)),
        (["--summary-wait", "0"], (0.7, 0.0)), (["--summary-wait", "-1"], (0.7, None))]
    for args, expected in cases:
        result = CliRunner().invoke(app, ["serve", "--db", "sqlite://", *args])
        assert result.exit_code == 0, result.output
        assert given.pop() == expected
    help_text = CliRunner().invoke(app, ["serve", "--help"]).output
    assert "--pace" in help_text and "--summary-wait" in help_text
