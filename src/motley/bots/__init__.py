"""Bots: the Bot protocol, random, each game's heuristic, ISMCTS, learned networks, the strongest (``best``) and
external programs (registered on import, in the order ``motley bots`` lists them)."""

from motley.bots import external as external
from motley.bots import ismcts as ismcts
from motley.bots import network as network

# isort: split
from motley.bots import best as best  # after the bots it may stand for
from motley.bots.base import Bot, HeuristicBot, RandomBot, bot_kinds, make_bot, register_bot_kind

__all__ = ["Bot", "HeuristicBot", "RandomBot", "bot_kinds", "make_bot", "register_bot_kind"]
