"""Observation tensor layouts declared once, as an ordered table of named pieces.

A game declares its tensor as a :class:`TensorLayout` (one per player count where sizes depend on it): the
pieces in order, each with a name, a shape, a description and the range of its values. Offsets follow from
the order and are computed once, when the layout is made; the observation code, a batch observer and the
docs' table (:func:`markdown_table`) all read them from there (as OpenSpiel's observers build a tensor from
named views over one flat buffer: :meth:`TensorLayout.views`).

A piece is row-major: entry ``(r, c)`` of a piece of shape ``(a, b)`` is at ``offset + r * b + c``. A piece
marked ``per_seat`` has the seats on its first axis, in relative order (index ``r`` is seat
``(seat + r) % n`` from ``seat``'s point of view: 0 is the observer).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: The value ranges a piece may declare: binary, or a closed interval.
RANGES = ("{0, 1}", "[0, 1]", "[-1, 1]")


@dataclass(frozen=True, slots=True)
class Piece:
    """One named part of an observation tensor.

    Attributes:
        name: identifier, unique in its layout (``hand``, ``voids``...).
        shape: the piece's shape (row-major in the flat tensor); its size is the product.
        description: what the values mean (the docs' "field" column), units and scales included.
        range: one of :data:`RANGES`: ``{0, 1}`` flags and one-hots, ``[0, 1]`` or ``[-1, 1]`` scaled values.
        per_seat: the first axis is the seats, in relative order.
    """

    name: str
    shape: tuple[int, ...]
    description: str
    range: str = "{0, 1}"
    per_seat: bool = False

    @property
    def size(self) -> int:
        """Number of floats (the product of the shape)."""
        return math.prod(self.shape)

    def holds(self, values: npt.NDArray[np.float32]) -> bool:
        """Whether every value lies in the piece's declared :attr:`range`."""
        if self.range == "{0, 1}":
            return bool(np.all((values == 0.0) | (values == 1.0)))
        low = -1.0 if self.range == "[-1, 1]" else 0.0
        return bool(np.all((values >= low) & (values <= 1.0)))


class TensorLayout:
    """The ordered pieces of a flat float32 tensor, with their offsets (computed once, here).

    Args:
        pieces: the pieces in tensor order.
    Raises:
        ValueError: for a repeated name, an empty or negative shape, or a range not in :data:`RANGES`.
    """

    __slots__ = ("_by_name", "_offsets", "pieces", "size")

    def __init__(self, pieces: Sequence[Piece]) -> None:
        self.pieces = tuple(pieces)
        self._offsets: dict[str, int] = {}
        at = 0
        for piece in self.pieces:
            if piece.name in self._offsets:
                raise ValueError(f"piece {piece.name!r} appears twice")
            if not piece.shape or min(piece.shape) < 0:
                raise ValueError(f"piece {piece.name!r} has shape {piece.shape}")
            if piece.range not in RANGES:
                raise ValueError(f"piece {piece.name!r} has range {piece.range!r}, not one of {RANGES}")
            self._offsets[piece.name] = at
            at += piece.size
        self._by_name = {piece.name: piece for piece in self.pieces}
        #: Length of the tensor: the sum of the pieces' sizes.
        self.size = at

    def __iter__(self) -> Iterator[Piece]:
        return iter(self.pieces)

    @property
    def shape(self) -> tuple[int, ...]:
        """``(size,)``: the shape of the flat tensor."""
        return (self.size,)

    def piece(self, name: str) -> Piece:
        """The piece called ``name`` (KeyError if none)."""
        if name not in self._by_name:
            raise self._missing(name)
        return self._by_name[name]

    def offset(self, name: str) -> int:
        """Where piece ``name`` starts in the flat tensor (KeyError if none)."""
        if name not in self._offsets:
            raise self._missing(name)
        return self._offsets[name]

    def offsets(self, *names: str) -> tuple[int, ...]:
        """The offsets of several pieces at once, in the order asked (for a hot loop to unpack into ints)."""
        return tuple(self.offset(name) for name in names)

    def slice(self, name: str) -> slice:
        """The half-open range ``offset:offset + size`` of piece ``name`` in the flat tensor."""
        at = self.offset(name)
        return slice(at, at + self.piece(name).size)

    def views(self, tensor: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """Each piece of a flat ``tensor`` of this layout as a view of its shape, by name (writes go through).

        Raises:
            ValueError: if ``tensor`` is not of shape ``(size,)``.
        """
        if tensor.shape != self.shape:
            raise ValueError(f"tensor of shape {tensor.shape}, layout of {self.shape}")
        return {p.name: tensor[self.slice(p.name)].reshape(p.shape) for p in self.pieces}

    def _missing(self, name: str) -> KeyError:
        return KeyError(f"no piece {name!r} (pieces: {', '.join(self._offsets)})")


def markdown_table(layouts: Mapping[int, TensorLayout], symbol: str = "n") -> str:
    """The docs' Markdown table of a game's layouts (offset | size | field | range), one row per piece.

    ``layouts`` maps each player count to its layout. Where they differ, offsets and sizes are written as
    linear forms in ``symbol`` (the player count: ``83 + 166n``, ``n × 83``), checked against every count.
    A last line gives the total size (per player count where it varies).

    Raises:
        ValueError: if the layouts' pieces differ in names, order, descriptions or ranges, or an offset or
            dimension is not linear in the player count.
    """
    counts = sorted(layouts)
    first = layouts[counts[0]]
    for count in counts:
        if [(p.name, p.description, p.range, len(p.shape)) for p in layouts[count]] != \
                [(p.name, p.description, p.range, len(p.shape)) for p in first]:
            raise ValueError(f"the layout at {count} players has other pieces than at {counts[0]}")
    rows = ["| offset | size | field | range |", "| --- | --- | --- | --- |"]
    for k, piece in enumerate(first):
        offset = _linear([layouts[c].offset(piece.name) for c in counts], counts, symbol)
        dims = [_linear([layouts[c].pieces[k].shape[d] for c in counts], counts, symbol)
                for d in range(len(piece.shape))]
        rows.append(f"| {offset} | {' × '.join(dims)} | `{piece.name}`: {piece.description} | {piece.range} |")
    total = _linear([layouts[c].size for c in counts], counts, symbol)
    if len(counts) == 1 or total.isdigit():
        rows.append(f"\nTotal: {total} floats.")
    else:
        each = ", ".join(f"{c}: {layouts[c].size}" for c in counts)
        rows.append(f"\nTotal: {total} floats ({symbol} = {each}).")
    return "\n".join(rows) + "\n"


def _linear(values: Sequence[int], counts: Sequence[int], symbol: str) -> str:
    """``values`` (one per player count in ``counts``) as ``a + b·symbol`` text (``7``, ``4n``, ``83 + 166n``)."""
    if len(counts) == 1 or len(set(values)) == 1:
        return str(values[0])
    slope, rest = divmod(values[1] - values[0], counts[1] - counts[0])
    start = values[0] - slope * counts[0]
    if rest or any(start + slope * c != v for c, v in zip(counts, values, strict=True)):
        raise ValueError(f"{values} is not linear in the player count {list(counts)}")
    term = symbol if slope == 1 else f"{slope}{symbol}"
    if start == 0:
        return term
    return f"{start} + {term}" if slope > 0 else f"{start} - {term.lstrip('-')}"
