"""One guarded JSON parser for every piece of outside input (records, serialized states, WebSocket messages,
HTTP bodies): it limits the size, the nesting depth and the length of numbers before anything else runs, so
hostile input gets a :class:`JSONInputError` and never a ``RecursionError``, a ``ValueError`` from Python's
int parser, an infinite float, or minutes of work.

The depth is measured without recursion: strings are blanked out with one regular expression, and the
running count of the brackets left is taken in C (``itertools.accumulate``) before ``json.loads`` runs.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any

from motley.core.errors import MotleyError

#: Default limits: size in bytes (characters for ``str`` input), nesting depth, digits in one number.
MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
MAX_DIGITS = 100

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JSONInputError(MotleyError):
    """Outside input that is not acceptable JSON.

    Attributes:
        reason: ``"too_large"`` (over the size limit), ``"too_deep"`` (nested over the depth limit),
            ``"number"`` (a number with too many digits, or not finite), ``"encoding"`` (bytes that are not
            UTF-8, or neither text nor bytes) or ``"syntax"`` (not JSON).
        what: the name of the input, as given to :func:`loads`.
    """

    def __init__(self, what: str, reason: str, detail: str) -> None:
        super().__init__(f"{what} {detail}")
        self.what = what
        self.reason = reason


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]!r} is not finite")
    return value


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads(text: str | bytes | bytearray, what: str = "input", *, max_bytes: int = MAX_BYTES,
          max_depth: int = MAX_DEPTH, max_digits: int = MAX_DIGITS) -> Any:
    """Parse ``text`` (``str``, or UTF-8 ``bytes``) as JSON within the limits.

    Raises:
        JSONInputError: naming ``what`` and the reason (see :attr:`JSONInputError.reason`); never anything else.
    """
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_bytes:
            raise JSONInputError(what, "too_large", f"is {len(text)} bytes; the limit is {max_bytes}")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise JSONInputError(what, "encoding", "is not UTF-8 text") from None
    if not isinstance(text, str):
        raise JSONInputError(what, "encoding", f"must be JSON text, not {type(text).__name__}")
    if len(text) > max_bytes:
        raise JSONInputError(what, "too_large", f"is {len(text)} characters; the limit is {max_bytes}")
    bare = _STRING.sub('""', text)
    brackets = _NOT_BRACKET.sub("", bare)
    if brackets and max(itertools.accumulate(map(_STEP.__getitem__, brackets))) > max_depth:
        raise JSONInputError(what, "too_deep", f"is nested deeper than {max_depth} levels")
    if re.search(rf"\d{{{max_digits + 1}}}", bare):
        raise JSONInputError(what, "number", f"has a number of more than {max_digits} digits")
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise JSONInputError(what, "syntax", f"is not valid JSON: {exc}") from None
    except RecursionError:
        raise JSONInputError(what, "too_deep", "is nested too deeply") from None
    except ValueError as exc:  # a number the parsers refuse (non-finite, NaN, Infinity)
        raise JSONInputError(what, "number", f"has a number that is not accepted: {exc}") from None
