"""The games the server offers (``GET /api/games``: options, bots, words for the first page, picture), each game's
picture (``GET /api/games/{name}/picture.svg``) and the server's table settings (``GET /api/defaults``: those a new
table gets where its request says nothing, the server's ``--bot-delay`` and the others, and the bot "Play with
bots" seats, :data:`PLAY_BOT`, for the lobby to show and use).

A route function has no docstring: FastAPI would publish it in ``/openapi.json``.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

import motley
from motley.bots import make_bot
from motley.core import load_game
from motley.core.registry import game_class, game_spec
from motley.drawing import render
from motley.server.play.web_bots import MAX_SIMULATIONS, offered, stand_in
from motley.server.web.context import Context
from motley.server.web.refusals import NotFound, contents, refusals

#: The seed of the deal a game's picture shows (:func:`game_picture`).
PICTURE_SEED = 7
#: Seconds a browser may keep a game's picture (it changes only with the server's version).
PICTURE_MAX_AGE = 86400
#: The bot that "Play with bots" seats beside you: the heuristic moves at once, so a trick waits only for the
#: table's bot delay. ``best`` searches up to a second a move (measured: 0.6 s a decision on average, 2 s at
#: most, for Fool! at 5 players on a 2-core machine): with 4 such bots a person waits seconds more each trick,
#: minutes more each match, and a busy server's search workers are shared by every table.
PLAY_BOT = "heuristic"

router = APIRouter()


def games_info() -> list[dict[str, Any]]:
    """Every registered game with its options (:meth:`Option.describe`: label, explanation, choices in words,
    defaults, kind, and the bounds a table on this server allows), the bots it has, and the most ISMCTS
    simulations per move a table's bot may use."""
    out = []
    for name in motley.registered_games():
        cls = game_class(name)
        spec = game_spec(name)
        out.append({
            "name": name, "title": cls.title, "min_players": cls.min_players, "max_players": cls.max_players,
            "bots": offered(name), "stand_in": stand_in(name),
            "max_simulations": MAX_SIMULATIONS, "cards": card_table(name),
            "how_to_play": list(spec.how_to_play), "summary": spec.summary, "at_a_glance": spec.at_a_glance(),
            "usual_players": spec.players_usually, "match_options": list(spec.match_options),
            "picture": {"url": f"/api/games/{name}/picture.svg", **picture_size(name)},
            "options": [o.describe() for o in cls.options if o.name != "players"],
        })
    return out


@lru_cache(maxsize=32)
def game_picture(name: str) -> str:
    """The picture of game ``name`` for the first page: its spec's drawing of seat 0's view (the first seat's
    hand shown) after ``sample_moves`` moves of the heuristic (random where it has none) from the deal of
    :data:`PICTURE_SEED` at the game's usual player count. Made once per game.

    Raises:
        OptionError: for a game that is not registered.
    """
    spec = game_spec(name)
    game = load_game(name, players=spec.players_usually)
    state = game.new_initial_state(seed=PICTURE_SEED)
    bot = make_bot(stand_in(name), game)
    rng = random.Random(PICTURE_SEED)
    for _ in range(spec.sample_moves):
        if state.is_terminal():
            break
        seat = state.current_player()
        state.apply_action(bot.act(state.observation(seat), state.legal_actions(), rng))
    return render(state.observation(0))


def picture_size(name: str) -> dict[str, int]:
    """The width and height of game ``name``'s picture (its root ``<svg>``'s), so the page sizes its box before the
    picture loads."""
    head = game_picture(name).partition(">")[0]
    size = {key: re.search(rf'\b{key}="([0-9.]+)"', head) for key in ("width", "height")}
    return {key: round(float(m.group(1))) if m else 0 for key, m in size.items()}


def card_table(game: str) -> dict[str, dict[str, Any]]:
    """How each card of ``game``'s pack is shown and read out in the browser: ``{code: GameSpec.card_info(code)}``
    (empty for a game without ``card_info``). The pack is public, so every viewer may have it."""
    spec = game_spec(game)
    if spec.card_info is None:
        return {}
    return {code: spec.card_info(code) for code in sorted(spec.card_codes)}


@router.get("/api/games")
def api_games() -> list[dict[str, Any]]:
    return games_info()


@router.get("/api/games/{name}/picture.svg", response_class=Response,
            responses={**contents("image/svg+xml", what="the game's picture"), **refusals(404, e404="no such game")})
def api_picture(name: str) -> Response:
    if name not in motley.registered_games():
        raise NotFound("no such game")
    return Response(game_picture(name), media_type="image/svg+xml",
                    headers={"Cache-Control": f"public, max-age={PICTURE_MAX_AGE}"})


@router.get("/api/defaults")
def api_defaults(web: Context) -> dict[str, Any]:  # the settings a new table gets where its request says nothing
    return {**web.service.defaults.as_dict(), "play_bot": PLAY_BOT}
