"""Fast rollout policies for search bots: the heuristics of ``bots/fool.py`` and ``bots/foolery.py``, played
directly on a determinized State.

Why. ISMCTS with uniformly random rollouts judges a move by how it fares among players who throw cards
at random; in Fool! and Foolery that is a poor model of the table (random players are fooled, stuck with
high cards and out-played all the time), so the search prefers moves that only pay against random play and
ends up weaker than the heuristic bots. Rollouts that play like the heuristics give much better estimates.

Why not the heuristic bots themselves. A bot is given an observation (a dict of strings, built for every
decision), which costs far more than the move. Inside a rollout the world is a sampled full state (a
determinization), so a rollout policy may read it directly: it never reaches the bot's decision, which
still only sees its own observation (standard ISMCTS, nothing leaks). Each policy below mirrors its
heuristic rule for rule (see those modules for the reasoning) on the game's internal lists and bitmasks.

Epsilon. Each move is uniformly random among the legal ones with probability ``epsilon`` (epsilon-greedy),
so rollouts still see the moves the heuristic never makes and the search is not blind to them.

``ROLLOUTS`` maps a game name to its policy; :func:`rollout_policy` looks one up (``None``: no fast policy,
search then falls back to the game's heuristic bot on observations).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable

from motley.core import State
from motley.games.fool import COLOUR, VALUE, W1, FoolState, W
from motley.games.foolery import (
    A_KIND,
    A_MASK,
    A_SIZE,
    A_STR,
    EXCHANGE_VALUE,
    FOOL_BIT,
    GIVE_BASE,
    K_FIVE,
    K_FOOL,
    K_GIVE,
    K_NORMAL,
    K_TRUMP,
    PASS,
    TRUMP_MASK,
    FooleryState,
    cards_of,
)

#: A rollout policy: plays ``state`` on (with ``rng`` and the random-move share ``epsilon``) until the match
#: ends or the deal ``state.deal_number()`` had on entry is over.
Rollout = Callable[[State, random.Random, float], None]

#: One move of a policy for the seat to move: ``state -> action``.
Move = Callable[[State], int]


# ---- Fool! ----------------------------------------------------------------------------------------------
def fool_move(state: FoolState) -> int:
    """The move ``bots/fool.py``'s heuristic makes for the seat to move, read from the full state.

    Rules (FL-R9, FL-D3: smaller badness = worse; a card is *safe* when at least ``num_fools`` cards already
    in the trick are worse): following, a safe W1, else the lowest safe lead-colour card, else the highest;
    void, the highest discard if it is safe, else a W1, else the highest discard; leading (also after a led
    W1), the top card of the colour with the fewest higher cards in the other hands, higher values on ties
    (in a determinization the unseen cards are exactly the other hands), a W1 only when nothing else is left.
    """
    hands = state.hands
    p = state.order[state.pos]
    hand = hands[p]
    lead = state.lead
    if lead < 0:
        best, best_key = -1, (99, 0)
        for col in range(4):
            cards = hand[col]
            if not cards:
                continue
            card = cards[-1]  # the top card of a colour has the fewest higher cards and the highest value
            higher = 0
            for other in hands:  # p's own hand holds nothing above its top card
                lst = other[col]
                if lst and lst[-1] > card:
                    higher += len(lst) - bisect_right(lst, card)
            key = (higher, -VALUE[card])
            if key < best_key:
                best, best_key = card, key
        return best if best >= 0 else W1
    trick = state.trick
    fools = state.game.num_fools
    me = len(trick)
    if me < fools:
        threshold = 1 << 30  # fewer cards in the trick than Fools: nothing is safe
    else:
        keys = []
        for i, t in enumerate(trick):
            c = t & 127
            col = COLOUR[c]
            keys.append(((100 if col in (lead, W) else 0) + VALUE[c]) * 16 + 15 - i)
        if fools == 1:
            threshold = min(keys)
        else:
            keys.sort()
            threshold = keys[fools - 1]
    tail = 15 - me
    following = hand[lead]
    if following:
        if hand[W] and 101 * 16 + tail > threshold:
            return W1
        for c in following:
            if (100 + VALUE[c]) * 16 + tail > threshold:
                return c
        return following[-1]
    top = -1
    for col in range(4):
        cards = hand[col]
        if cards and (top < 0 or VALUE[cards[-1]] > VALUE[top]):
            top = cards[-1]
    if top < 0:
        return W1
    if VALUE[top] * 16 + tail > threshold or not hand[W]:
        return top
    return W1


def fool_rollout(state: State, rng: random.Random, epsilon: float) -> None:
    """Play a Fool! state to the end of its round with :func:`fool_move` (epsilon-greedy)."""
    assert isinstance(state, FoolState)
    round_no = state.round_no
    rand, apply_legal = rng.random, state.apply_legal
    while not state.done and state.round_no == round_no:
        if epsilon and rand() < epsilon:
            legal = state.legal_actions()
            apply_legal(legal[rng.randrange(len(legal))])
        else:
            apply_legal(fool_move(state))


# ---- Foolery ----------------------------------------------------------------------------------------------
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


def foolery_move(state: FooleryState, legal: list[int]) -> int:
    """The move ``bots/foolery.py``'s heuristic makes for the seat to move, read from the full state.

    Rules: go out if one play empties the hand; in the exchange give the lowest card, preferring one that
    breaks no rank group; leading, the lowest whole rank group, or a low 5-card hand (top card at most 10,
    or when the lowest group is above 10; never five of a kind); following, the Fool with three cards or
    fewer (never be left with it alone at a lead, FY-D13), else the cheapest play that breaks no group, else
    (six cards or fewer) the cheapest play, else the cheapest trump set when it pays (few cards left after
    it, or a high table and four trumps or more), else pass.
    """
    if len(legal) == 1:
        return legal[0]
    p = state.to_move
    hand = state.hands[p]
    if A_KIND[legal[0]] == K_GIVE:
        best, best_key = legal[0], (1 << 30, 0)
        for a in legal:
            c = a - GIVE_BASE
            key = (EXCHANGE_VALUE[c], _POP[hand >> 4 * (c >> 2) & 15] if c < 56 else 9)
            if key < best_key:
                best, best_key = a, key
        return best
    size = state.sizes[p]
    for a in legal:  # going out beats everything (FY-R11)
        if A_SIZE[a] == size:
            return a
    top = state.top
    if top < 0:
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
        return min(legal, key=lambda a: (A_STR[a] if A_KIND[a] != K_FIVE else 99, -A_SIZE[a]))
    if size <= 3 and hand & FOOL_BIT:
        return next(a for a in legal if A_KIND[a] == K_FOOL)
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
    if spend >= 0:
        top_kind = A_KIND[top]
        high_table = top_kind in (K_TRUMP, K_FIVE) or A_STR[top] >= 12 or A_SIZE[top] >= 3
        if size - A_SIZE[spend] <= 5 or (high_table and (hand & TRUMP_MASK).bit_count() >= 4):
            return spend
    return PASS


def foolery_rollout(state: State, rng: random.Random, epsilon: float) -> None:
    """Play a Foolery state to the end of its hand with :func:`foolery_move` (epsilon-greedy)."""
    assert isinstance(state, FooleryState)
    hand_no = state.hand_no
    rand = rng.random
    while state.phase != 2 and state.hand_no == hand_no:  # 2 = OVER
        legal = state.legal_actions()
        if epsilon and rand() < epsilon:
            state.apply_legal(legal[rng.randrange(len(legal))])
        else:
            state.apply_legal(foolery_move(state, legal))


def _fool_policy_move(state: State) -> int:
    assert isinstance(state, FoolState)
    return fool_move(state)


def _foolery_policy_move(state: State) -> int:
    assert isinstance(state, FooleryState)
    return foolery_move(state, state.legal_actions())


#: Fast heuristic rollout policy per game name.
ROLLOUTS: dict[str, Rollout] = {"fool": fool_rollout, "foolery": foolery_rollout}

#: One move of the same policy per game name: ``state -> action``.
MOVES: dict[str, Move] = {"fool": _fool_policy_move, "foolery": _foolery_policy_move}


def rollout_policy(game_name: str) -> Rollout | None:
    """The fast heuristic rollout policy of a game, or None if it has none."""
    return ROLLOUTS.get(game_name)


def move_policy(game_name: str) -> Move | None:
    """The fast heuristic policy of a game for one move (the seat to move in a full State), or None."""
    return MOVES.get(game_name)
