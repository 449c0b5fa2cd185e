"""The Foolery heuristic (rules/foolery.md), written once: the ``heuristic`` bot plays it on a seat's
observation, and search plays it on sampled full states (fast rollouts, the other seats' moves in the tree).

Reasoning. The goal is to go out early (FY-R11, FY-D21). Low cards are the hard ones to get rid of, so a
lead sheds the lowest cards, as a whole rank group (never breaking a pair or triple) or as a low 5-card
hand that carries five cards away at once (top card at most 10, or when the lowest group is above 10; never
five of a kind). Following, it plays the cheapest play that beats the table without breaking a group
(with six cards or fewer, the cheapest play). Trumps and the Fool win tricks (FY-R7, FY-R9), and winning a
trick is worth most near the end, when the lead lets us shed the rest: it spends the cheapest trump set
when the trick is worth it (few cards left after it, or a high table and four trumps or more), and always
plays the Fool with three cards or fewer, before it could be left holding only the Fool at a lead (FY-D13,
which makes it the Peasant). In the card exchange it gives its lowest card, preferring one that breaks no
rank group (FY-R13). Going out beats everything (FY-R11).

The view. :func:`choose` reads the mover's hand (a card bitmask), its size, the play to beat and the legal
actions: on an observation they come from the seat's own fields (:func:`heuristic`), in a full state from
the state (:func:`move`). Search stays fair: the policy plays the sampled world, never the searcher's own
decision, which sees only its observation (standard ISMCTS).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, cast

from motley.core import Game, Observation, State
from motley.core.cards import split_codes
from motley.core.search import SearchPolicy
from motley.games.foolery.cards import CODE_INDEX, EXCHANGE_VALUE, FOOL_BIT, OVER, TRUMP_MASK, cards_of
from motley.games.foolery.moves import (
    A_KIND,
    A_MASK,
    A_SIZE,
    A_STR,
    GIVE_BASE,
    K_FIVE,
    K_FOOL,
    K_GIVE,
    K_NORMAL,
    K_TRUMP,
    MASK_TO_ACTION,
    PASS,
)
from motley.games.foolery.rules import FooleryRules

_POP = tuple(m.bit_count() for m in range(16))
_TOP_VALUE: dict[int, int] = {}


def _top_value(action: int) -> int:
    """Highest rank value among the suit cards of a play (cached)."""
    value = _TOP_VALUE.get(action)
    if value is None:
        value = _TOP_VALUE[action] = max((c >> 2) + 1 for c in cards_of(A_MASK[action]) if c < 56)
    return value


def _breaks(action: int, hand: int) -> bool:
    """True if the normal play ``action`` leaves part of its rank group in ``hand``."""
    return _POP[hand >> 4 * (A_STR[action] - 1) & 15] != A_SIZE[action]


def choose(hand: int, size: int, top: int, legal: Sequence[int]) -> int:
    """The heuristic's action (module docstring).

    Args:
        hand: the mover's cards as a bitmask of card ids.
        size: the number of cards in ``hand``.
        top: the action id of the play to beat, or -1 at a lead.
        legal: the legal action ids, ascending (non-empty).
    Returns:
        One of ``legal``.
    """
    if len(legal) == 1:
        return legal[0]
    if A_KIND[legal[0]] == K_GIVE:
        best, best_key = legal[0], (1 << 30, 0)
        for a in legal:
            c = a - GIVE_BASE
            key = (EXCHANGE_VALUE[c], _POP[hand >> 4 * (c >> 2) & 15] if c < 56 else 9)
            if key < best_key:
                best, best_key = a, key
        return best
    for a in legal:  # going out beats everything (FY-R11)
        if A_SIZE[a] == size:
            return a
    if top < 0:
        return _lead(hand, legal)
    if size <= 3 and hand & FOOL_BIT:
        return next(a for a in legal if A_KIND[a] == K_FOOL)  # never be left with only the Fool (FY-D13)
    whole = plain = spend = -1
    for a in legal:
        kind = A_KIND[a]
        if kind in (K_NORMAL, K_FIVE):
            if plain < 0 or A_STR[a] < A_STR[plain]:
                plain = a
            if (kind == K_FIVE or not _breaks(a, hand)) and (whole < 0 or A_STR[a] < A_STR[whole]):
                whole = a
        elif kind == K_TRUMP and (spend < 0 or (A_SIZE[a], A_STR[a]) < (A_SIZE[spend], A_STR[spend])):
            spend = a
    if whole >= 0:
        return whole
    if plain >= 0 and size <= 6:
        return plain
    if spend >= 0 and _worth_trumps(hand, size, top, spend):
        return spend
    return PASS


def _worth_trumps(hand: int, size: int, top: int, spend: int) -> bool:
    """Is the trick worth the trump set ``spend`` (module docstring): few cards left after it, or a high table
    and four trumps or more."""
    high_table = A_KIND[top] in (K_TRUMP, K_FIVE) or A_STR[top] >= 12 or A_SIZE[top] >= 3
    return size - A_SIZE[spend] <= 5 or (high_table and (hand & TRUMP_MASK).bit_count() >= 4)


def _lead(hand: int, legal: Sequence[int]) -> int:
    """At a lead: the lowest whole rank group, or a low 5-card hand (never five of a kind), else the lowest card."""
    low = -1
    five = -1
    five_key = (99, 0)
    for a in legal:
        kind = A_KIND[a]
        if kind == K_NORMAL:
            if low < 0 and not _breaks(a, hand):
                low = a  # legal ids ascend by rank: the first whole group is the lowest
        elif kind == K_FIVE and A_STR[a] < 64:
            key = (_top_value(a), A_STR[a])
            if key < five_key:
                five, five_key = a, key
    if five >= 0 and (five_key[0] <= 10 or low < 0 or A_STR[low] > 10):
        return five
    if low >= 0:
        return low
    # only trumps (FY-R8) or only breaking plays: the lowest single card
    return min(legal, key=lambda a: (A_STR[a] if A_KIND[a] != K_FIVE else 99, -A_SIZE[a]))


def _ranked(actions: Sequence[int], key: Callable[[int], Any], base: float, out: dict[int, float]) -> None:
    """Score ``actions`` ``base`` for the best by ``key`` (lowest; ties by their order), then down by rank,
    every score in ``(base - 1, base]``."""
    ordered = sorted(actions, key=key)  # stable: equal keys keep the legal order, as choose reads it
    step = 1.0 / (len(ordered) + 1)
    for rank, a in enumerate(ordered):
        out[a] = base - rank * step


def scores(hand: int, size: int, top: int, legal: Sequence[int]) -> dict[int, float]:
    """The heuristic's preference for every legal action (arguments as :func:`choose`): a larger score is
    preferred, and the action :func:`choose` takes has the largest, alone.

    Tiers 1 apart (a softmax at a temperature of about 1 mostly keeps the tier), within a tier by the order
    :func:`choose` reads them (the cheapest play first):

    * the exchange: by the key :func:`choose` gives by (lowest exchange value, then the smallest rank group);
    * going out: 9 (FY-R11); the Fool with three cards or fewer: 8 (FY-D13);
    * following: a play that breaks no group 7; one that breaks a group 6 with six cards or fewer, else 2;
      trumps 5 when :func:`choose` would spend them, else 1; a pass 3; the Fool otherwise 0;
    * leading: the play :func:`choose` leads 8; whole groups 6 (lowest first), low 5-card hands 5, the rest
      4 (as :func:`choose`'s last resort orders them).
    Returns:
        ``{action: score}`` over ``legal``.
    """
    out: dict[int, float] = {}
    if len(legal) == 1:
        return {legal[0]: 0.0}
    if A_KIND[legal[0]] == K_GIVE:
        def give_key(a: int) -> tuple[int, int]:
            c = a - GIVE_BASE
            return EXCHANGE_VALUE[c], _POP[hand >> 4 * (c >> 2) & 15] if c < 56 else 9

        _ranked(legal, give_key, 0.0, out)
        return out
    outs = [a for a in legal if A_SIZE[a] == size]
    rest = [a for a in legal if A_SIZE[a] != size]
    _ranked(outs, lambda a: 0, 9.0, out)
    if top < 0:
        pick = choose(hand, size, top, legal)
        if pick not in out:
            out[pick] = 8.0
        groups = [a for a in rest if a != pick and A_KIND[a] == K_NORMAL and not _breaks(a, hand)]
        fives = [a for a in rest if a != pick and A_KIND[a] == K_FIVE and A_STR[a] < 64]
        others = [a for a in rest if a != pick and a not in groups and a not in fives]
        _ranked(groups, lambda a: A_STR[a], 6.0, out)
        _ranked(fives, lambda a: (_top_value(a), A_STR[a]), 5.0, out)
        _ranked(others, lambda a: (A_STR[a] if A_KIND[a] != K_FIVE else 99, -A_SIZE[a]), 4.0, out)
        return out
    whole: list[int] = []
    plain: list[int] = []
    trumps: list[int] = []
    for a in rest:
        kind = A_KIND[a]
        if kind == K_FIVE or (kind == K_NORMAL and not _breaks(a, hand)):
            whole.append(a)
        elif kind == K_NORMAL:
            plain.append(a)
        elif kind == K_TRUMP:
            trumps.append(a)
        elif kind == K_FOOL:
            out[a] = 8.0 if size <= 3 else 0.0
        else:
            out[a] = 3.0  # the pass
    _ranked(whole, lambda a: A_STR[a], 7.0, out)
    _ranked(plain, lambda a: A_STR[a], 6.0 if size <= 6 else 2.0, out)
    spend = bool(trumps) and _worth_trumps(hand, size, top, min(trumps, key=lambda a: (A_SIZE[a], A_STR[a])))
    _ranked(trumps, lambda a: (A_SIZE[a], A_STR[a]), 5.0 if spend else 1.0, out)
    return out


def move_scores(state: State) -> dict[int, float]:
    """:func:`scores` for the seat to move in a full state (as :func:`move`)."""
    state = cast("FooleryRules", state)  # not isinstance: an ABC check is slow here
    p = state.to_move
    return scores(state.hands[p], state.sizes[p], state.top, state.legal_actions())


def play_of(text: str) -> int:
    """The action id of a play string from an observation (``"9S 9H"``)."""
    mask = 0
    for code in split_codes(text):
        mask |= 1 << CODE_INDEX[code]
    return MASK_TO_ACTION[mask]


def heuristic(game: Game, observation: Observation, legal: Sequence[int], rng: random.Random) -> int:
    """The heuristic on a seat's observation (the ``heuristic`` bot)."""
    hand = 0
    for code in observation["hand"]:
        hand |= 1 << CODE_INDEX[code]
    table = observation["table"]
    top = -1 if table is None else play_of(table["cards"])
    return choose(hand, len(observation["hand"]), top, legal)


def move(state: State) -> int:
    """The heuristic for the seat to move in a full state."""
    state = cast("FooleryRules", state)  # not isinstance: an ABC check is slow here
    p = state.to_move
    return choose(state.hands[p], state.sizes[p], state.top, state.legal_actions())


def rollout(state: State, rng: random.Random, epsilon: float) -> None:
    """Play a Foolery state to the end of its hand with :func:`choose` (a uniformly random action with
    probability ``epsilon``)."""
    state = cast("FooleryRules", state)  # not isinstance: an ABC check is slow here
    hand_number = state.hand_number
    rand = rng.random
    while state.phase != OVER and state.hand_number == hand_number:
        legal = state.legal_actions()
        if epsilon and rand() < epsilon:
            state.apply_legal(legal[rng.randrange(len(legal))])
        else:
            p = state.to_move
            state.apply_legal(choose(state.hands[p], state.sizes[p], state.top, legal))


SEARCH_POLICY = SearchPolicy(move=move, rollout=rollout)
