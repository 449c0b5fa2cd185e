"""The rules of each game, one module (or package) per game. Importing this registers them all.

Each module implements its rules file in ``motley/rules/`` and cites its ids: ``FE-R1``.. in
``fools_errand``, ``FL-R1``.. in ``fool``, ``FY-R1``.. in ``foolery``.
"""

from motley.games import fool, foolery, fools_errand

__all__ = ["fool", "foolery", "fools_errand"]
