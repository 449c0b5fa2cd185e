"""The compiled core of Foolery's rules (``_native.c``, plain CPython C API); ``rules.py`` installs it."""

import random
from collections.abc import Callable, Mapping
from typing import Any

def install(cls: type, tables: Mapping[str, Any], /) -> dict[str, Callable[..., Any]]:
    """The compiled ``legal_actions``, ``apply_action``, ``_apply`` and ``is_terminal`` of the state class ``cls``
    (method descriptors bound to it), reading its slots; ``tables``: the action tables of ``moves.py``. Also
    ``_write_tensor(seat, out) -> bool``: ``observe.observation_tensor`` of ``seat`` written into ``out`` (a
    writable C-contiguous float32 buffer of its length; ValueError otherwise), False and nothing written for a
    seat that is no ``int`` of 0..N-1; ``legal_mask_bytes()`` (``State.legal_mask_bytes``, read from the cached
    legal list) and ``observation_bytes(seat)`` (``State.observation_bytes``).

    Raises:
        TypeError, ValueError: for a class without the slots, or a missing table. RuntimeError: installed twice.
    """

def deal(rng: random.Random, players: int, dealer: int, /) -> list[int]:
    """The hands (bitmasks) of ``FooleryRules.shuffle_deal``: the same numbers drawn from ``rng``."""
