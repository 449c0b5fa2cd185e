"""Bots: the Bot protocol, random, and a heuristic per game (registered on import)."""

from motley.bots import external as external
from motley.bots import fool as fool
from motley.bots import foolery as foolery
from motley.bots import fools_errand
from motley.bots import ismcts as ismcts
from motley.bots.base import Bot, RandomBot, bot_kinds, make_bot, register_bot_kind, register_heuristic

__all__ = ["Bot", "RandomBot", "bot_kinds", "fools_errand", "make_bot", "register_bot_kind", "register_heuristic"]
