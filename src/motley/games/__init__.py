"""The rules of each game, one module (or package) per game. Importing this registers them all."""

from motley.games import fool, foolery, fools_errand

__all__ = ["fool", "foolery", "fools_errand"]
