"""Bots: the Bot protocol, random, each game's heuristic, ISMCTS, learned networks, the strongest (``best``) and
external programs (registered on import, each kind with its declared options: :mod:`motley.bots.spec`)."""

from motley.bots import external as external
from motley.bots import ismcts as ismcts
from motley.bots import network as network

# isort: split
from motley.bots import best as best  # after the bots it may stand for
from motley.bots.base import Bot, HeuristicBot, RandomBot
from motley.bots.spec import (
    BotKind,
    BotSpec,
    bot_kind,
    bot_kinds,
    has_heuristic,
    make_bot,
    parse_bot_spec,
    register_bot_kind,
    web_bot_kinds,
)

__all__ = ["Bot", "BotKind", "BotSpec", "HeuristicBot", "RandomBot", "bot_kind", "bot_kinds", "has_heuristic",
           "make_bot", "parse_bot_spec", "register_bot_kind", "web_bot_kinds"]
