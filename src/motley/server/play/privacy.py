"""What each viewer may see: the spectator (public) view, and which moves a viewer may read in the log.

The games have no public observation, so the spectator view is any seat's observation with that seat's
private fields removed. Each game's spec lists them (``GameSpec.private_fields``) and says which moves are
public (``GameSpec.public_move``); the leak property test (tests/server/play/test_server_leak.py) proves over whole
games that no hidden card reaches any viewer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from motley.core import GameSpec, Observation, State
from motley.core.registry import game_spec


def spectator_view(state: State) -> Observation:
    """The public view of ``state``: seat 0's observation without its private fields, ``seat`` = ``None``."""
    return public_view(game_spec(state.game.name), state.observation(0))


def public_view(spec: GameSpec, observation: Observation) -> Observation:
    """Any seat's ``observation`` of the game of ``spec`` without its private fields (``spec.private_fields``),
    ``seat`` = ``None``.

    The observation given is never changed: every dict on the way to a removed field is copied.
    """
    obs = dict(observation)
    for path in spec.private_fields:
        node: Any = obs
        for key in path[:-1]:  # copy each dict on the way, so the seat's own observation is never changed
            child = node.get(key) if isinstance(node, dict) else None
            if not isinstance(child, dict):
                node = None
                break
            node[key] = dict(child)
            node = node[key]
        if isinstance(node, dict):
            node.pop(path[-1], None)
    obs["seat"] = None
    return obs


def strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like value (dict keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings(item)


def visible_tokens(observation: Observation) -> set[str]:
    """Every white-space separated word in the string values of an observation."""
    return {word for text in strings(observation) for word in text.split()}


def move_is_visible(spec: GameSpec, move: str, cards: Sequence[str], viewer_tokens: set[str]) -> bool:
    """May a viewer read ``move`` (a move string of the game of ``spec``, using the card codes ``cards``:
    ``spec.move_cards(move)``) in the log?

    Yes when the game declares the move public (``GameSpec.public_move``), or when every card code in it is
    visible to the viewer (``viewer_tokens``: :func:`visible_tokens` of the viewer's observation just
    after the move).
    """
    return spec.public_move(move) or all(card in viewer_tokens for card in cards)
