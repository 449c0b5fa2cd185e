"""The compiled observation tensor of Fool! (``_native.c``, plain CPython C API); ``observe.py`` installs it."""

from collections.abc import Callable, Mapping
from typing import Any

def install(cls: type, tables: Mapping[str, Any], /) -> dict[str, Callable[..., Any]]:
    """``{"_write_tensor": method}``: ``_write_tensor(seat, out) -> bool`` of the state class ``cls`` (a method
    descriptor reading its slots), ``observe.observation_tensor`` of ``seat`` written into ``out`` (a writable
    C-contiguous float32 buffer of its length; ValueError otherwise), False and nothing written for a seat that is
    no ``int`` of 0..n-1; ``tables``: ``COLOUR`` (cards.COLOUR) and ``LAYOUT`` ({players: the tensor's size and
    the offsets of ``observe._NATIVE_PIECES``}).

    Raises:
        TypeError, ValueError: for a class without the slots, or a bad table. RuntimeError: installed twice.
    """
