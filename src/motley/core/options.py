"""Game options (parameters): declaration, validation and the ``name(key=value,...)`` string form.

A game declares its options as a tuple of :class:`Option`. Values arrive either as Python values
(``load_game("fool", players=5)``) or as strings (``load_game("fool(players=5)")``, the command line);
both go through :meth:`Option.parse`, so they are validated the same way.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from motley.core import jsonsafe
from motley.core.errors import OptionError

Converter = Callable[[Any], Any]
#: A rule id as the rules files write it: ``FL-R14``, ``FY-D22``, ``FE-D1``.
RULE_ID = re.compile(r"\b[A-Z]{2}-[A-Z]{1,2}\d+\b")


@dataclass(frozen=True)
class Option:
    """One named game option.

    Attributes:
        name: the key, as used in ``load_game`` and records.
        default: the value when not given (the rules' default).
        doc: one line for help texts, with the rule id it implements.
        choices: allowed values, when the option is an enumeration.
        kind: ``"str"``, ``"int"``, ``"float"`` (a finite number), ``"bool"`` or ``"json"`` (a JSON value, e.g. a
            table). An option whose default is None also takes None (written ``none``, or nothing).
        minimum / maximum: bounds for ``"int"`` and ``"float"`` options (inclusive).
        check: extra validation, called with the converted value; raises :class:`OptionError`.
        served: bounds (inclusive) for ``"int"`` and ``"float"`` options of tables made over the web, where a shared
            server caps the length of a match (:func:`check_served`); None: the rules' bounds only.
        label: a few words naming the option for people (the lobby); empty: the name is shown.
        choice_labels: words for each choice (``{"shared": "share the win"}``); a choice without words is
            shown as it is written.
        assumed: the default is an assumption where the rules leave the value open (flagged in the lobby).
        seats: the option names a seat: its whole-number choices are seat numbers from 0 (their words count from
            1, "Seat 1"), and a form offers only those of the table's player count.
    """

    name: str
    default: Any
    doc: str
    choices: Sequence[Any] = ()
    kind: str = "str"
    minimum: float | None = None
    maximum: float | None = None
    check: Converter | None = field(default=None, compare=False)
    served: tuple[float, float] | None = None
    label: str = ""
    choice_labels: Mapping[Any, str] = field(default_factory=dict, compare=False)
    assumed: bool = False
    seats: bool = False

    def describe(self) -> dict[str, Any]:
        """The option for a person choosing it (JSON-able): ``{"name", "label", "doc", "default", "kind",
        "choices", "choice_labels", "assumed", "seats", "minimum", "maximum", "explanation", "rules"}``;
        ``choice_labels[i]`` are the words for ``choices[i]``; ``explanation`` is :attr:`doc` without its rule
        ids, which are listed in ``rules`` (:func:`split_rule_ids`); ``minimum``/``maximum`` are the
        :attr:`served` bounds where there are some (a web table's caps), else the rules' bounds."""
        low, high = self.served if self.served else (self.minimum, self.maximum)
        explanation, rules = split_rule_ids(self.doc)
        return {"name": self.name, "label": self.label or self.name.replace("_", " "), "doc": self.doc,
                "default": self.default, "kind": self.kind, "assumed": self.assumed, "seats": self.seats,
                "minimum": low, "maximum": high, "choices": list(self.choices),
                "choice_labels": [self.choice_labels.get(c, _format(c)) for c in self.choices],
                "explanation": explanation, "rules": rules}

    def parse(self, value: Any) -> Any:
        """Convert and validate ``value`` (a Python value or its string form).

        Raises:
            OptionError: naming the option, the value and what is allowed.
        """
        if self.default is None and _means_none(value):
            return None
        converted = self._convert(value)
        if self.choices and converted not in self.choices:
            allowed = ", ".join(_format(c) for c in self.choices)
            raise OptionError(f"option {self.name!r} must be one of {allowed}; got {value!r}")
        if self.kind in ("int", "float"):
            if self.minimum is not None and converted < self.minimum:
                raise OptionError(f"option {self.name!r} must be at least {self.minimum}; got {value!r}")
            if self.maximum is not None and converted > self.maximum:
                raise OptionError(f"option {self.name!r} must be at most {self.maximum}; got {value!r}")
        if self.check is not None:
            converted = self.check(converted)
        return converted

    def _convert(self, value: Any) -> Any:
        if self.kind == "int":
            if isinstance(value, bool):
                raise OptionError(f"option {self.name!r} takes a whole number; got {value!r}")
            if isinstance(value, int):
                return value
            try:
                return int(str(value).strip())
            except ValueError:
                raise OptionError(f"option {self.name!r} takes a whole number; got {value!r}") from None
        if self.kind == "float":
            return self._convert_float(value)
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise OptionError(f"option {self.name!r} takes true or false; got {value!r}")
        if self.kind == "json":
            if isinstance(value, str):
                try:
                    return jsonsafe.loads(value, f"option {self.name!r}")
                except jsonsafe.JSONInputError as exc:
                    raise OptionError(str(exc)) from None
            return value
        if not isinstance(value, str):
            raise OptionError(f"option {self.name!r} takes a word; got {value!r}")
        word = value.strip()
        for choice in self.choices:  # choices match case-insensitively, the canonical spelling is kept
            if isinstance(choice, str) and choice.lower() == word.lower():
                return choice
        return word

    def _convert_float(self, value: Any) -> float:
        number: float | None = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str):
            with contextlib.suppress(ValueError):
                number = float(value.strip())
        if number is None or not math.isfinite(number):
            raise OptionError(f"option {self.name!r} takes a number; got {value!r}")
        return number


def _means_none(value: Any) -> bool:
    """``value`` is None, or written as none (``"none"``, ``""``)."""
    return value is None or (isinstance(value, str) and value.strip().lower() in ("", "none"))


def split_rule_ids(doc: str) -> tuple[str, list[str]]:
    """``doc`` without its rule ids, and the ids in order (each once): ``"ends at this (FL-R14, FL-D9)"`` ->
    ``("ends at this", ["FL-R14", "FL-D9"])``; brackets left empty and stray separators go too."""
    ids = list(dict.fromkeys(RULE_ID.findall(doc)))
    text = RULE_ID.sub("", doc)
    text = re.sub(r"\s*[,;]\s*(?=[,;)])|(?<=\()\s*[,;]\s*", "", text)
    text = re.sub(r"\s*\(\s*\)", "", text)
    text = re.sub(r"\s+([,;)])", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip(), ids


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def resolve(game: str, options: Sequence[Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``given`` against ``options`` and fill in the defaults.

    Returns:
        A new dict with every option of the game, in declaration order.
    Raises:
        OptionError: for an unknown name (listing the known ones) or a bad value.
    """
    known = {o.name: o for o in options}
    for key in given:
        if key not in known:
            raise OptionError(f"unknown option {key!r} for {game}; known options: {', '.join(known)}")
    return {o.name: (o.parse(given[o.name]) if o.name in given else o.default) for o in options}


def check_served(options: Sequence[Option], params: Mapping[str, Any]) -> None:
    """Check resolved ``params`` against the options' :attr:`Option.served` bounds (a web table's caps).

    Raises:
        OptionError: naming the option, its value and the range a server table allows.
    """
    for option in options:
        value = params.get(option.name, option.default)
        if option.served is not None and not option.served[0] <= value <= option.served[1]:
            low, high = option.served
            raise OptionError(f"option {option.name!r} must be in {low}..{high} for a table on this server "
                              f"(it caps the length of a match); got {value!r}")


def parse_game_string(text: str) -> tuple[str, dict[str, str]]:
    """Split ``"foolery(players=5,trump_variation=true)"`` into its name and raw option strings.

    JSON values may contain commas and parentheses (``deck_table={...}``); brackets and quotes are
    balanced before splitting (:func:`parse_options`).

    Raises:
        OptionError: for an unbalanced string, an item without ``=`` or an option given twice.
    """
    text = text.strip()
    if "(" not in text:
        return text.lower(), {}
    if not text.endswith(")"):
        raise OptionError(f"game string {text!r} must end with ')'")
    name, inner = text[: text.index("(")].strip().lower(), text[text.index("(") + 1 : -1]
    return name, parse_options(inner, where=f" in {text!r}")


def parse_options(text: str, where: str = "") -> dict[str, str]:
    """``"a=1,b=x"`` -> ``{"a": "1", "b": "x"}``: the one KEY=VALUE parser (game strings, ``--option``,
    ``compare --options``). Values stay strings; the game's :class:`Option` converts them.

    Items are split at the commas outside brackets and quotes, so a JSON value may hold commas
    (``deck_table={"4": [23, 19]}``); empty items are skipped; keys and values are stripped.

    Args:
        text: the items; ``where``: appended to error messages (``" in 'fool(...)'"``).
    Raises:
        OptionError: for unbalanced brackets or quotes, an item without ``=``, an empty key, or a key
            given twice.
    """
    items: dict[str, str] = {}
    for part in split_top_level(text, where):
        if not part.strip():
            continue
        if "=" not in part:
            raise OptionError(f"option {part.strip()!r}{where} has no '=value' (options are KEY=VALUE)")
        key, value = (x.strip() for x in part.split("=", 1))
        if not key:
            raise OptionError(f"option {part.strip()!r}{where} has no name before '='")
        if key in items:
            raise OptionError(f"option {key!r}{where} is given twice")
        items[key] = value
    return items


def split_top_level(text: str, where: str = "") -> list[str]:
    """``text`` split at the commas outside brackets and quotes (``"a(x=1,y=2),b"`` -> ``["a(x=1,y=2)", "b"]``).

    Raises:
        OptionError: for unbalanced brackets or quotes (``where`` is appended to the message).
    """
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                raise OptionError(f"unbalanced brackets{where or f' in {text!r}'}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth or quote:
        raise OptionError(f"unbalanced brackets or quotes{where or f' in {text!r}'}")
    parts.append(text[start:])
    return parts


def format_game_string(name: str, options: Sequence[Option], params: Mapping[str, Any]) -> str:
    """The string form of a game: only the options that differ from their defaults are listed."""
    changed = [f"{o.name}={_format(params[o.name])}" for o in options if params[o.name] != o.default]
    return f"{name}({','.join(changed)})" if changed else name
