"""The game registry: ``load_game`` by name or by string form, ``registered_games``."""

from __future__ import annotations

from typing import Any

from motley.core.errors import OptionError
from motley.core.game import Game
from motley.core.options import parse_game_string

_GAMES: dict[str, type[Game]] = {}


def register_game(cls: type[Game]) -> type[Game]:
    """Class decorator: make a Game subclass loadable by its ``name``."""
    _GAMES[cls.name] = cls
    return cls


def registered_games() -> list[str]:
    """Names of every registered game, in registration order."""
    return list(_GAMES)


def game_class(name: str) -> type[Game]:
    """The Game subclass registered under ``name``.

    Raises:
        OptionError: for an unknown name (listing the known ones).
    """
    try:
        return _GAMES[name]
    except KeyError:
        raise OptionError(f"unknown game {name!r}; known games: {', '.join(_GAMES)}") from None


def load_game(spec: str, **params: Any) -> Game:
    """A game with its options: ``load_game("foolery", players=5)`` or ``load_game("foolery(players=5)")``.

    Keyword arguments override options of the string form.

    Raises:
        OptionError: for an unknown game or option, or a bad value.
    """
    if not isinstance(spec, str):
        raise OptionError(f"a game is named by a string; got {spec!r}")
    name, raw = parse_game_string(spec)
    cls = game_class(name)
    merged: dict[str, Any] = {**raw, **params}
    return cls(**merged)
