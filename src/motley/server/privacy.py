"""What each viewer may see: the spectator (public) view, and which moves a viewer may read in the log.

The games have no public observation, so the spectator view is any seat's observation with that seat's
private fields removed. :data:`PRIVATE_FIELDS` lists them per game, in this one place; the leak property
test (tests/test_server_leak.py) proves over whole games that no hidden card reaches any viewer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from motley.core import Observation, State
from motley.drawing import card_codes

#: Per game, the paths (key tuples) of an observation that belong to its seat alone.
PRIVATE_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "fools_errand": (),  # everything in its observation is public (the decks never appear in it)
    "fool": (("hand",),),
    "foolery": (("hand",), ("hand_groups",), ("exchange", "gave"), ("exchange", "received"), ("exchange", "partner")),
}
#: Games not listed: every list-valued field whose name contains "hand" (except sizes) is treated as private.
_GUESS_PRIVATE = ("hand",)


def private_fields(game: str, observation: Observation) -> tuple[tuple[str, ...], ...]:
    """The private paths of ``game``'s observations."""
    if game in PRIVATE_FIELDS:
        return PRIVATE_FIELDS[game]
    return tuple((key,) for key, value in observation.items()
                 if any(word in key for word in _GUESS_PRIVATE) and "size" not in key and isinstance(value, list))


def spectator_view(state: State) -> Observation:
    """The public view of ``state``: seat 0's observation without its private fields, ``seat`` = ``None``."""
    obs = dict(state.observation(0))
    for path in private_fields(state.game.name, obs):
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


#: Per game, which moves are public as they are made (cards played face up, draws, passes).
PUBLIC_MOVES: dict[str, Callable[[str], bool]] = {
    "fools_errand": lambda move: True,  # draw / play joker / keep joker are all seen (FE-R2, FE-R8)
    "fool": lambda move: True,  # every card is played face up into the trick
    "foolery": lambda move: not move.lower().startswith("give"),  # the exchange is private (FY-R13)
}


def move_is_visible(game: str, move: str, viewer_tokens: set[str]) -> bool:
    """May a viewer read ``move`` in the log?

    Yes when the game declares the move public (:data:`PUBLIC_MOVES`), or when every card code in it is
    visible to the viewer (``viewer_tokens``: :func:`visible_tokens` of the viewer's observation just
    after the move).
    """
    public = PUBLIC_MOVES.get(game)
    if public is not None and public(move):
        return True
    codes = card_codes(game)
    return all(word in viewer_tokens for word in move.upper().split() if word in codes)
