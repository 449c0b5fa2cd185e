"""The Fool! heuristic (rules/fool.md), written once: the ``heuristic`` bot plays it on a seat's observation,
and search plays it on sampled full states (fast rollouts, the other seats' moves in the tree).

Reasoning. A round ends when somebody plays their last card (FL-R12); everybody else then loses the
value of the cards still in hand, a W1 costing 5 (FL-R13), and the player who went out gets +10. So every
trick a player sits out (being the Fool, FL-R10) is a card they could not shed: not being the worst card
is what matters most:

* **Safety.** A card is *safe* when at least as many cards already in the trick are worse than it as there
  are Fools this trick (FL-R9, FL-D3: a discard is worse than any lead-colour card, lower is worse, a tie
  goes against the later card -- which is ours). Players still to come can only add worse cards for us or
  better ones, so a safe card can never be fooled.
* **Following, safe.** Dump a W1 if it is safe (it is the lowest lead-colour card later and costs 5 at the
  end); otherwise play the lowest safe card, keeping high cards as protection for later tricks.
* **Following, at risk.** Play the highest lead-colour card (least likely to be the lowest).
* **Void.** A W1 counts as lead colour (FL-R7), so it beats every discard for safety: play it if a discard
  is not already safe. A safe discard sheds the highest-value card; an unsafe one does too (if we are fooled
  anyway, at least the most expensive card is gone).
* **Leading.** Lead the card with the fewest unseen higher cards of its colour (a card no unseen card beats
  cannot be the worst: everybody else plays lower or discards), preferring higher values on ties; a W1 is led
  only when nothing else is in hand.

The view. :func:`choose` reads five things: the mover's hand by colour, the cards the mover cannot see (by
colour, in one or more groups), the trick so far, the lead colour and the number of Fools. On an observation
the unseen cards are the deck less the hand and every card played this round (:func:`heuristic`); in a full
state they are the other hands (:func:`move`), which in a determinization are exactly the unseen cards.
Search is still fair: the policy plays the sampled world, never the searcher's decision, which sees only its
own observation (standard ISMCTS).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right, insort
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, cast

from motley.core import Game, Observation, State
from motley.core.search import SearchPolicy
from motley.games.fool.cards import CODE_INDEX, COLOUR, COLOUR_NAMES, VALUE, W1, W, split_hand
from motley.games.fool.rules import BADNESS, FoolGameRules, FoolRules

if TYPE_CHECKING:
    from motley.core.inference import PlayerModel


def choose(hand: Sequence[Sequence[int]], unseen: Sequence[Sequence[Sequence[int]]], trick: Sequence[int],
           lead: int, fools: int) -> int:
    """The heuristic's card (module docstring).

    Args:
        hand: the mover's cards, five sorted lists of ids (G R Y B, then W1s as id 82).
        unseen: groups of cards the mover cannot see, each split by colour like ``hand`` (a group may be the
            mover's own hand: nothing in it is above the mover's top card of a colour).
        trick: the trick so far, ``card | seat << 7`` in play order.
        lead: the lead colour (0..3), or -1 when no colour is set yet.
        fools: Fool discs this trick (FL-R4, FL-D2).
    Returns:
        A card id legal for ``hand`` (FL-R6, FL-R7).
    """
    if lead < 0:
        best, best_key = -1, (99, 0)
        for col in range(4):
            cards = hand[col]
            if not cards:
                continue
            card = cards[-1]  # the top card of a colour has the fewest higher cards and the highest value
            higher = 0
            for other in unseen:
                lst = other[col]
                if lst and lst[-1] > card:
                    higher += len(lst) - bisect_right(lst, card)
            key = (higher, -VALUE[card])
            if key < best_key:
                best, best_key = card, key
        return best if best >= 0 else W1
    me = len(trick)
    bad = BADNESS[lead + 1]  # the worst-card order of the rules (FL-R9, FL-D3, FL-D4: rules.badness)
    if me < fools:
        threshold = 1 << 30  # fewer cards in the trick than Fools: nothing is safe
    else:
        keys = [bad[t & 127] - i for i, t in enumerate(trick)]
        if fools == 1:
            threshold = min(keys)
        else:
            keys.sort()
            threshold = keys[fools - 1]
    threshold += me  # a card of mine is safe when bad[card] - me > threshold
    following = hand[lead]
    if following:
        if hand[W] and bad[W1] > threshold:
            return W1
        for c in following:
            if bad[c] > threshold:
                return c
        return following[-1]
    top = -1
    for col in range(4):
        cards = hand[col]
        if cards and (top < 0 or VALUE[cards[-1]] > VALUE[top]):
            top = cards[-1]
    if top < 0:
        return W1
    if bad[top] > threshold or not hand[W]:
        return top
    return W1


def _safety_threshold(trick: Sequence[int], lead: int, fools: int) -> int:
    """The badness a card of the mover must exceed to be safe (module docstring: Safety), as :func:`choose`
    reads it: ``BADNESS[lead + 1][card] > threshold``."""
    me = len(trick)
    bad = BADNESS[lead + 1]
    if me < fools:
        return (1 << 30) + me  # fewer cards in the trick than Fools: nothing is safe
    keys = [bad[t & 127] - i for i, t in enumerate(trick)]
    keys.sort()
    return keys[fools - 1] + me


def scores(hand: Sequence[Sequence[int]], unseen: Sequence[Sequence[Sequence[int]]], trick: Sequence[int],
           lead: int, fools: int) -> dict[int, float]:
    """The heuristic's preference for every legal card (FL-R6, FL-R7): a larger score is preferred, and the
    card :func:`choose` plays has the largest (arguments as :func:`choose`).

    The scores follow the reasoning of the module docstring, in tiers about 1 apart, so a softmax at a
    temperature of about 1 mostly keeps the tier and mixes within it:

    * leading: minus the number of unseen higher cards of the colour, plus a hundredth of the value (a W1,
      led only from a hand of W1s, scores -100);
    * following: a safe W1 3; a safe card 2 less a hundredth of its rank among the safe cards (lowest
      first); an unsafe card a hundredth of its value (highest first); an unsafe W1 -1;
    * void: a safe discard 2 plus a hundredth of its value; a W1 1.5; an unsafe discard a hundredth of its
      value. Equal values go to the earlier colour (a thousandth less per colour index), as in :func:`choose`.
    Returns:
        ``{card id: score}`` over the legal cards (W1s as the one id ``W1``, FL-D12).
    """
    out: dict[int, float] = {}
    if lead < 0:
        for col in range(4):
            for card in hand[col]:
                higher = 0
                for other in unseen:
                    lst = other[col]
                    if lst and lst[-1] > card:
                        higher += len(lst) - bisect_right(lst, card)
                out[card] = -higher + VALUE[card] / 100 - col / 1000
        if hand[W]:
            out[W1] = -100.0 if out else 0.0
        return out
    bad = BADNESS[lead + 1]
    threshold = _safety_threshold(trick, lead, fools)
    following = hand[lead]
    if following:
        rank = 0
        for c in following:
            if bad[c] > threshold:
                out[c] = 2.0 - rank / 100
                rank += 1
            else:
                out[c] = VALUE[c] / 100
        if hand[W]:
            out[W1] = 3.0 if bad[W1] > threshold else -1.0
        return out
    for col in range(4):
        for c in hand[col]:
            out[c] = (2.0 if bad[c] > threshold else 0.0) + VALUE[c] / 100 - col / 1000
    if hand[W]:
        out[W1] = 1.5
    return out


def move_scores(state: State) -> dict[int, float]:
    """:func:`scores` for the seat to move in a full state, the other hands as the unseen cards (as :func:`move`)."""
    state = cast("FoolRules", state)  # not isinstance: an ABC check is slow here
    hands = state.hands
    return scores(hands[state.order[state.pos]], hands, state.trick, state.lead, state.game.num_fools)


def play_log_likelihood(world: State, observer: int, model: PlayerModel) -> float:
    """``InferenceSupport.log_likelihood`` of Fool!: the log-likelihood of the other seats' plays of the round
    under ``model`` (the heuristic, :func:`move` / :func:`move_scores`) if ``world`` holds the hidden cards.

    The same figure as ``core.inference.replay_log_likelihood`` (the same floats summed in play order), read
    from the world's hands and the round's tricks instead of replaying the round through the engine:

    * a seat's hand at a play is its hand now plus its later plays (FL-R3), its legal cards those of FL-R6 and
      FL-R7 (one action for the W1s, FL-D12);
    * the cards the mover cannot see are read as one group, the cards not yet played (all are dealt, FL-R3),
      which the heuristic counts as it counts the other hands;
    * so a seat's terms depend on the public plays and its own hand alone: they are kept per (plays, seat,
      hand) in :data:`_ROUNDS`, and a chain's proposal, which swaps cards between two seats, computes only
      those two seats' terms again.

    Args:
        world: a Fool! state inside a round; ``observer`` the seat whose plays carry no evidence.
    Returns:
        A log-likelihood <= 0. ``world`` is unchanged.
    """
    world = cast("FoolRules", world)  # not isinstance: an ABC check is slow here
    tricks = tuple(trick[0] for trick in world.tricks) + (tuple(world.trick),)
    key = (id(world.game), tricks, model.temperature, model.epsilon, model.trust)  # the entry holds the game
    history = _ROUNDS.get(key)
    if history is None:
        if len(_ROUNDS) >= _ROUNDS_KEPT:
            del _ROUNDS[next(iter(_ROUNDS))]
        history = _ROUNDS[key] = _RoundPlays(world, tricks)
    if model.learned:  # each seat's counts, from seat 0 (core.inference.replay_log_likelihood)
        return model.counts_log_likelihood([history.terms(seat, world.hands[seat], model)
                                            for seat in range(len(world.hands)) if seat != observer])
    terms = [history.terms(seat, world.hands[seat], model) if seat != observer else None
             for seat in range(len(world.hands))]
    total = 0.0
    for seat, k in history.sequence:
        seat_terms = terms[seat]
        if seat_terms is not None:
            total += seat_terms[k]
    return total


class _RoundPlays:
    """The plays of a round so far as :func:`play_log_likelihood` reads them, made once per round position.

    ``sequence[i]`` is the seat of the ``i``-th play and its index among that seat's plays; ``plays[seat]`` that
    seat's plays as ``(card, lead, trick so far, cards not yet played)``; ``known`` a seat's terms per hand.
    """

    __slots__ = ("fools", "game", "known", "plays", "sequence")

    def __init__(self, world: FoolRules, tricks: tuple[tuple[int, ...], ...]) -> None:
        self.game = world.game  # its deck is the cards dealt (FL-R3); held, so its id is not reused
        self.fools = world.game.num_fools
        players = len(world.hands)
        left = [sorted(c for hand in world.hands for c in hand[col]) for col in range(5)]
        for trick in tricks:
            for t in trick:
                insort(left[COLOUR[t & 127]], t & 127)
        self.plays: list[list[tuple[int, int, tuple[int, ...], list[list[list[int]]]]]] = [[] for _ in range(players)]
        self.sequence: list[tuple[int, int]] = []
        for trick in tricks:
            lead = -1
            for i, t in enumerate(trick):
                seat, card = t >> 7, t & 127
                self.sequence.append((seat, len(self.plays[seat])))
                self.plays[seat].append((card, lead, trick[:i], [[list(col) for col in left]]))
                left[COLOUR[card]].remove(card)
                if lead < 0 and COLOUR[card] != W:
                    lead = COLOUR[card]  # FL-R7: the first non-1 card sets the lead colour
        self.known: dict[tuple[int, tuple[int, ...]], list[float]] = {}

    def terms(self, seat: int, hand_now: Sequence[Sequence[int]], model: PlayerModel) -> list[float]:
        """The model's log-probability of each play of ``seat`` (0 for a forced one) if it holds ``hand_now``; for
        a learned trust the seat's (agreements, disagreements, log_choices) (``PlayerModel.counts_log_likelihood``)."""
        key = (seat, tuple(c for col in hand_now for c in col))
        found = self.known.get(key)
        if found is not None:
            return found
        fools = self.fools
        if model.learned:
            agreements = disagreements = 0
            log_choices = 0.0
            for n, card, hand, groups, trick, lead in self._decisions(seat, hand_now):
                if n == 1:
                    continue  # forced: no evidence
                if card == choose(hand, groups, trick, lead, fools):
                    agreements += 1
                else:
                    disagreements += 1
                    log_choices -= math.log(n - 1)
            out = [agreements, disagreements, log_choices]
        elif model.temperature == 0.0:
            out = [0.0 if n == 1 else model.log_prob_given_move(n, card, choose(hand, groups, trick, lead, fools))
                   for n, card, hand, groups, trick, lead in self._decisions(seat, hand_now)]
        else:
            out = [0.0 if n == 1 else model.log_prob_given_scores(n, card, scores(hand, groups, trick, lead, fools))
                   for n, card, hand, groups, trick, lead in self._decisions(seat, hand_now)]
        self.known[key] = out
        return out

    def _decisions(self, seat: int, hand_now: Sequence[Sequence[int]]) -> Iterator[_Decision]:
        """Each play of ``seat`` if it holds ``hand_now``, in play order: its number of legal moves, the card
        played, the seat's hand then (valid until the next play is drawn), the unseen cards, the trick so far and
        the lead colour (-1: none yet)."""
        hand = [list(col) for col in hand_now]
        for card, _, _, _ in self.plays[seat]:
            insort(hand[COLOUR[card]], card)
        for card, lead, trick, groups in self.plays[seat]:
            follow = hand[lead] if lead >= 0 else None
            wild = 1 if hand[W] else 0
            n = len(follow) + wild if follow else len(hand[0]) + len(hand[1]) + len(hand[2]) + len(hand[3]) + wild
            yield n, card, hand, groups, trick, lead
            hand[COLOUR[card]].remove(card)


#: One play as ``_RoundPlays._decisions`` gives it: (legal moves, card, hand, unseen groups, trick, lead colour).
_Decision = tuple[int, int, list[list[int]], list[list[list[int]]], tuple[int, ...], int]


#: Round positions read by :func:`play_log_likelihood`, newest last, at most :data:`_ROUNDS_KEPT` (a search asks
#: about one position many times over; the bots of one process take turns).
_ROUNDS: dict[tuple[object, ...], _RoundPlays] = {}
_ROUNDS_KEPT = 8


def heuristic(game: Game, observation: Observation, legal: Sequence[int], rng: random.Random) -> int:
    """The heuristic on a seat's observation (the ``heuristic`` bot): :func:`choose` with the unseen cards
    being the deck less the hand and every card played this round."""
    if len(legal) == 1:
        return legal[0]
    game = cast("FoolGameRules", game)  # not isinstance: an ABC check is slow here
    mine = [CODE_INDEX[c] for c in observation["hand"]]
    trick_obs = observation["trick"]
    trick = [CODE_INDEX[p["card"]] | int(p["seat"]) << 7 for p in trick_obs["plays"]]
    gone = set(mine)
    gone.update(t & 127 for t in trick)
    for t in observation["tricks"]:
        gone.update(CODE_INDEX[p["card"]] for p in t["plays"])
    unseen = [c for c in game.deck if c < W1 and c not in gone]
    lead = -1 if trick_obs["lead"] is None else COLOUR_NAMES.index(trick_obs["lead"])
    return choose(split_hand(mine), [split_hand(unseen)], trick, lead, int(observation["num_fools"]))


def move(state: State) -> int:
    """The heuristic for the seat to move in a full state: :func:`choose` with the other hands as the unseen cards."""
    state = cast("FoolRules", state)  # not isinstance: an ABC check is slow here
    hands = state.hands
    return choose(hands[state.order[state.pos]], hands, state.trick, state.lead, state.game.num_fools)


def rollout(state: State, rng: random.Random, epsilon: float) -> None:
    """Play a Fool! state to the end of its round with :func:`move`, a uniformly random card with probability
    ``epsilon`` (epsilon-greedy, so rollouts still see the moves the heuristic never makes)."""
    state = cast("FoolRules", state)  # not isinstance: an ABC check is slow here
    round_number = state.round_number
    rand, apply_legal = rng.random, state.apply_legal
    fools = state.game.num_fools
    while not state.done and state.round_number == round_number:
        if epsilon and rand() < epsilon:
            legal = state.legal_actions()
            apply_legal(legal[rng.randrange(len(legal))])
        else:
            hands = state.hands
            apply_legal(choose(hands[state.order[state.pos]], hands, state.trick, state.lead, fools))


SEARCH_POLICY = SearchPolicy(move=move, rollout=rollout)
