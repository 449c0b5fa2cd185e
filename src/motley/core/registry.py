"""The game registry: every game's :class:`~motley.core.spec.GameSpec` by name; ``load_game`` by name or string form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from motley.core.errors import OptionError
from motley.core.game import Game
from motley.core.options import parse_game_string
from motley.core.spec import GameSpec

_SPECS: dict[str, GameSpec] = {}


def register_spec(spec: GameSpec) -> GameSpec:
    """Make the game of ``spec`` loadable by its name (called once by each game package)."""
    _SPECS[spec.name] = spec
    return spec


def registered_games() -> list[str]:
    """Names of every registered game, in registration order."""
    return list(_SPECS)


def game_spec(name: str) -> GameSpec:
    """The spec registered under ``name``.

    Raises:
        OptionError: for an unknown name (listing the known ones).
    """
    try:
        return _SPECS[name]
    except KeyError:
        raise OptionError(f"unknown game {name!r}; known games: {', '.join(_SPECS)}") from None


def game_class(name: str) -> type[Game]:
    """The Game subclass registered under ``name``.

    Raises:
        OptionError: for an unknown name (listing the known ones).
    """
    return game_spec(name).game


def load_recorded_game(name: str, params: Mapping[str, Any]) -> Game:
    """The game of a record or stored table: ``name`` with its recorded ``params``, where options the record
    lacks (it was made before they existed) take the spec's ``legacy_options`` rather than today's default,
    so the record replays as it was played.

    Raises:
        OptionError: for an unknown game or option, or a bad value.
    """
    if not isinstance(name, str):
        raise OptionError(f"a game is named by a string; got {name!r}")
    legacy = game_spec(name).legacy_options
    return game_class(name)(**{**legacy, **params})


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
