"""The bots the web offers, declared once: which kinds a table's seat may have, how strong an ISMCTS bot may
be, the spec a lobby choice becomes, the stand-in of a person seat, and each game's list for the lobby.

:mod:`~motley.server.play.bodies` (the ``bot`` field of a seat request), :mod:`~motley.server.play.requests` (seats of a
new table), :mod:`~motley.server.play.live` (which bots move on the event loop) and
:mod:`~motley.server.web.routes.games` (``GET /api/games``) all read it. Programs (external bots) and networks are
never offered: a web request must not start a process or load a file.

What is offered and how strong a search may be are the bots' own declarations (:mod:`motley.bots.spec`: a kind's
``web`` flag, the ``served`` caps of its options); the ``Literal`` type of a seat request's ``bot`` field mirrors
them for the API's schema and is held to them by ``tests/server/play/test_server_web_bots.py``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, get_args

from motley.bots import bot_kind, has_heuristic, parse_bot_spec, web_bot_kinds
from motley.core import MotleyError

#: A bot kind a web table may seat: ``best`` is the game's strongest bot (a search within one second per move).
BotKind = Literal["random", "heuristic", "ismcts", "best"]
#: Every kind the web offers, in the lobby's order for a game with a heuristic.
OFFERED: tuple[BotKind, ...] = get_args(BotKind)
#: Bot kinds fast enough to run in the event loop; any other kind runs in a worker (thread or process).
FAST_BOTS = ("random", "heuristic")
#: ISMCTS simulations per move a web table's bot may use, at least and at most (the ``served`` caps of the
#: ``simulations`` option: a search of a few seconds at most), and the lobby's default.
_SERVED = bot_kind("ismcts").option("simulations").served or (1, 1)
MIN_SIMULATIONS, MAX_SIMULATIONS = int(_SERVED[0]), int(_SERVED[1])
DEFAULT_SIMULATIONS = 300


@lru_cache(maxsize=256)
def kind_of(spec: str) -> str:
    """The kind of a bot spec (parsed once: :class:`motley.bots.BotSpec`): ``"ismcts(simulations=300)"`` ->
    ``"ismcts"``.

    Raises:
        MotleyError: for a spec that does not parse.
    """
    return parse_bot_spec(spec).kind


def is_fast(spec: str) -> bool:
    """Does the bot of ``spec`` choose quickly enough to move on the event loop (:data:`FAST_BOTS`)?"""
    return kind_of(spec) in FAST_BOTS


def bot_spec(kind: BotKind, strength: int | None) -> str:
    """The bot spec of a lobby choice: ``random``, ``heuristic``, ``best``, or ``ismcts`` with ``strength``
    simulations per move (None: :data:`DEFAULT_SIMULATIONS`).

    Raises:
        MotleyError: for an ISMCTS strength outside :data:`MIN_SIMULATIONS`..:data:`MAX_SIMULATIONS`.
    """
    if kind != "ismcts":
        return kind
    sims = DEFAULT_SIMULATIONS if strength is None else strength
    if not MIN_SIMULATIONS <= sims <= MAX_SIMULATIONS:
        raise MotleyError(f"ISMCTS strength (simulations per move) must be {MIN_SIMULATIONS}..{MAX_SIMULATIONS}")
    return f"ismcts(simulations={sims})"


def stand_in(game: str) -> str:
    """The bot that plays a person seat's moves on a timeout or a long disconnect: ``heuristic`` if the game
    has one, else ``random``."""
    return "heuristic" if has_heuristic(game) else "random"


def offered(game: str) -> list[str]:
    """The bots the lobby offers for ``game``, the default first: the heuristic (if the game has one), random,
    ismcts and best."""
    kinds = web_bot_kinds(game)
    return sorted(kinds, key=lambda kind: kind != "heuristic")  # stable: the others keep their order
