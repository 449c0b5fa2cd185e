"""Bots: the Bot protocol, random, each game's heuristic, ISMCTS, learned networks, the strongest (``best``) and
external programs (registered on import)."""

from motley.bots import external as external
from motley.bots import ismcts as ismcts
from motley.bots import network as network
from motley.bots.base import Bot, HeuristicBot, RandomBot, bot_kinds, make_bot, register_bot_kind

__all__ = ["Bot", "HeuristicBot", "RandomBot", "bot_kinds", "make_bot", "register_bot_kind"]
