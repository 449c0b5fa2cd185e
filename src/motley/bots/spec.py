"""Bot kinds and their declared options, and :class:`BotSpec`: a bot spec string parsed once into typed options.

Each bot kind registers a factory with its options declared as :class:`motley.core.options.Option` (kind, default,
doc, choices, bounds, and ``served`` caps for what a table made over the web may use), as a game declares its own.
A spec string ``"kind(key=value,...)"`` is parsed once by :meth:`BotSpec.parse`; :func:`make_bot` builds the bot
from the typed values, and the command line (``motley bots``), the lobby and the server read the same declarations
(:func:`bot_kind`, :func:`web_bot_kinds`, :func:`has_heuristic`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from motley.bots.base import Bot, HeuristicBot, RandomBot
from motley.core import Game, MotleyError
from motley.core.errors import OptionError
from motley.core.options import Option, parse_game_string
from motley.core.registry import game_spec

BotFactory = Callable[..., Bot]
#: Characters that make a value be written in quotes in a spec string.
_QUOTED = set(",()[]{}'\"= \t")


@dataclass(frozen=True)
class BotKind:
    """One registered bot kind.

    Attributes:
        name: the kind, as written in a spec (``"ismcts"``).
        factory: builds a bot: ``factory(game, **options)``, every declared option given, typed.
        options: the declared options, in the order of the canonical spec string.
        doc: one line for help texts.
        web: offered to tables made over the web (the lobby's bots).
        needs_heuristic: only for a game with a heuristic (``GameSpec.heuristic``).
    """

    name: str
    factory: BotFactory = field(compare=False)
    options: tuple[Option, ...] = ()
    doc: str = ""
    web: bool = False
    needs_heuristic: bool = False

    def option(self, name: str) -> Option:
        """The declared option ``name``.

        Raises:
            OptionError: naming the kind and the option, with the options the kind has.
        """
        for option in self.options:
            if option.name == name:
                return option
        if not self.options:
            raise OptionError(f"{self.name} takes no options; got {name!r}")
        known = ", ".join(o.name for o in self.options)
        raise OptionError(f"unknown option {name!r} for bot {self.name}; known options: {known}")

    def available(self, game_name: str) -> bool:
        """Whether this kind can play ``game_name`` (a heuristic bot needs the game's heuristic)."""
        return not self.needs_heuristic or has_heuristic(game_name)

    def describe(self) -> dict[str, Any]:
        """The kind for ``motley bots --json`` (JSON-able): ``name``, ``doc``, ``web``, ``needs_heuristic`` and
        ``options``, each ``name``, ``kind``, ``default``, ``minimum``, ``maximum`` (the declared bounds),
        ``choices``, ``doc`` and ``served`` (``[low, high]``, a web table's caps, or None)."""
        return {"name": self.name, "doc": self.doc, "web": self.web, "needs_heuristic": self.needs_heuristic,
                "options": [{"name": o.name, "kind": o.kind, "default": o.default, "minimum": o.minimum,
                             "maximum": o.maximum, "choices": list(o.choices), "doc": o.doc,
                             "served": list(o.served) if o.served else None} for o in self.options]}


_KINDS: dict[str, BotKind] = {}


def register_bot_kind(kind: str, factory: BotFactory, options: Sequence[Option] = (), *, doc: str = "",
                      web: bool = False, needs_heuristic: bool = False) -> BotKind:
    """Make ``make_bot("kind(...)", game)`` build bots with ``factory(game, **options)`` (every option in
    ``options`` given, typed; see :class:`BotKind` for the rest). Registering a kind again replaces it."""
    entry = BotKind(kind, factory, tuple(options), doc, web, needs_heuristic)
    _KINDS[kind] = entry
    return entry


def bot_kinds() -> list[str]:
    """Every bot kind ``make_bot`` accepts, in the order they were registered."""
    return list(_KINDS)


def bot_kind(kind: str) -> BotKind:
    """The registered kind ``kind`` with its declared options.

    Raises:
        MotleyError: for an unknown kind, listing the known ones.
    """
    entry = _KINDS.get(kind)
    if entry is None:
        raise MotleyError(f"unknown bot {kind!r}; known bots: {', '.join(bot_kinds())}")
    return entry


def has_heuristic(game_name: str) -> bool:
    """Whether the game ``game_name`` has a heuristic (and so a ``heuristic`` bot): read from its spec."""
    return game_spec(game_name).heuristic is not None


def web_bot_kinds(game_name: str | None = None) -> list[str]:
    """The kinds offered to tables made over the web (:attr:`BotKind.web`), in registration order; with
    ``game_name``, only those that can play it (:meth:`BotKind.available`)."""
    return [k for k, e in _KINDS.items() if e.web and (game_name is None or e.available(game_name))]


@dataclass(frozen=True)
class BotSpec:
    """A bot kind with typed option values: what a spec string says, parsed once.

    ``options`` holds the options that differ from their declared defaults (read-only), so equal bots have equal
    specs; ``str(spec)`` is the canonical spec string, ``kind(key=value,...)`` in declaration order, and
    ``BotSpec.parse(str(spec)) == spec``. Hashable.

    Attributes:
        kind: a registered bot kind (``"ismcts"``).
        options: option name -> typed value (``{"simulations": 4000, "points": 0.25}``).
    """

    kind: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        entry = bot_kind(self.kind)
        typed = {}
        for name, value in self.options.items():
            option = entry.option(name)
            try:
                typed[name] = option.parse(value)
            except OptionError as exc:
                raise OptionError(f"bot {self.kind}: {exc}") from None
        changed = {o.name: typed[o.name] for o in entry.options if o.name in typed and typed[o.name] != o.default}
        object.__setattr__(self, "options", MappingProxyType(changed))

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """The spec of ``"kind"`` or ``"kind(key=value,...)"``; a value may be quoted (``cmd='node bot.js'``).

        Raises:
            MotleyError: for an unknown kind, a malformed string, an unknown option or a bad value (each
                message names the kind, the option and the value).
        """
        try:
            kind, raw = parse_game_string(text)
        except OptionError as exc:
            raise OptionError(f"bot spec {text!r}: {exc}") from None
        return cls(kind, {name: _unquote(value) for name, value in raw.items()})

    def resolved(self) -> dict[str, Any]:
        """Every declared option of the kind: the given values, the defaults for the rest."""
        return {o.name: self.options.get(o.name, o.default) for o in bot_kind(self.kind).options}

    def __str__(self) -> str:
        items = ",".join(f"{name}={_format(value)}" for name, value in self.options.items())
        return f"{self.kind}({items})" if items else self.kind

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BotSpec):
            return NotImplemented
        return self.kind == other.kind and dict(self.options) == dict(other.options)

    def __hash__(self) -> int:
        return hash((self.kind, tuple(self.options.items())))


def parse_bot_spec(spec: str | BotSpec) -> BotSpec:
    """``spec`` parsed (:meth:`BotSpec.parse`), or itself if it already is one."""
    return spec if isinstance(spec, BotSpec) else BotSpec.parse(spec)


def make_bot(spec: str | BotSpec, game: Game) -> Bot:
    """A bot from its spec: ``"random"``, ``"heuristic"``, ``"kind(key=value,...)"`` or a :class:`BotSpec`.

    Raises:
        MotleyError: for an unknown kind, bad options (:meth:`BotSpec.parse`), or a bot that cannot play
            ``game`` (a game without a heuristic, without inference support, ...).
    """
    parsed = parse_bot_spec(spec)
    return bot_kind(parsed.kind).factory(game, **parsed.resolved())


def _unquote(value: str) -> str:
    """``'node bot.js'`` -> ``node bot.js``: one pair of matching quotes around a value taken off."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _format(value: Any) -> str:
    """A typed value as a spec string writes it (quoted where it holds commas, brackets, quotes or spaces)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if not text or _QUOTED & set(text):
        quote = '"' if "'" in text else "'"
        return f"{quote}{text}{quote}"
    return text


# The kinds every game has (bots/base.py); the other kinds register themselves in their own modules.
register_bot_kind("random", RandomBot, doc="a uniformly random legal move", web=True)
register_bot_kind("heuristic", HeuristicBot, doc="the game's heuristic (GameSpec.heuristic)", web=True,
                  needs_heuristic=True)
