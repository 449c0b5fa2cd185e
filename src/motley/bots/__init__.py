"""Bots: the Bot protocol, random, each game's heuristic, ISMCTS and external programs (registered on import)."""

from motley.bots import external as external
from motley.bots import ismcts as ismcts
from motley.bots.base import Bot, HeuristicBot, RandomBot, bot_kinds, make_bot, register_bot_kind

__all__ = ["Bot", "HeuristicBot", "RandomBot", "bot_kinds", "make_bot", "register_bot_kind"]
