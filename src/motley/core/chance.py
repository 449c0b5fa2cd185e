"""Explicit chance: a game's deals (and its engine's draws) as chance nodes, for adapters that declare them
(the OpenSpiel adapter, ``motley.envs.openspiel``).

A :class:`DealModel` says how one game's deals are drawn card by card, the way OpenSpiel's own card games
(``hearts``, ``bridge``, ``leduc_poker``) deal: one chance node per card dealt, whose outcomes are the cards
left (card ids; each physical card equally likely, identical cards make one outcome with their share),
before it a node for the first dealer where the rules draw it, after it any places the deal still draws
(The Fool's Errand's Jokers), and during play every draw of the engine's own generator as a node of its
own through :class:`ScriptedRandom`. Games give their model as ``GameSpec.deal_model``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from motley.core.game import Game, State

#: ``rewrite(replayed state, move) -> move``: the move a sampled world makes in place of a real one.
Rewrite = Callable[[State, int], int]


def _same_move(state: State, action: int) -> int:
    return action

#: Kinds of chance event: the first deal of the match, a later deal, the engine's draws during a move.
FIRST, DEAL, DRAW = 0, 1, 2


class ChanceNeeded(Exception):
    """Raised by a :class:`ScriptedRandom` asked for a draw it has no outcome for: the draw is the next chance
    node (``size`` outcomes, uniform)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"a chance draw out of {size} has no outcome yet (it is a chance node)")
        self.size = size


class ScriptedRandom(random.Random):
    """A generator whose uniform whole-number draws (``randrange``, ``shuffle``: ``_randbelow``) are given
    chance outcomes, in order.

    Args:
        outcomes: the outcomes of the draws so far, each in ``range(size)`` of its draw.
    Raises (on a draw):
        ChanceNeeded: when every outcome is used (a draw out of 1 needs none: it is 0).
        TypeError: for a float or bit draw (``random()``, ``getrandbits``), which no chance node gives.
    """

    def __init__(self, outcomes: list[int]) -> None:
        super().__init__(0)
        self.outcomes = outcomes
        #: Outcomes used so far.
        self.used = 0
        #: The size of every draw made, in order (draws out of 1 included).
        self.sizes: list[int] = []

    def _randbelow(self, n: int) -> int:
        if n == 1:
            self.sizes.append(1)
            return 0
        if self.used == len(self.outcomes):
            raise ChanceNeeded(n)
        self.sizes.append(n)
        outcome = self.outcomes[self.used]
        self.used += 1
        return outcome

    def random(self) -> float:
        raise TypeError("a float draw is not an explicit chance outcome")

    def getrandbits(self, k: int) -> int:
        raise TypeError("a bit draw is not an explicit chance outcome")


class ChanceEvent:
    """A chance event in progress: its ``kind`` (:data:`FIRST`, :data:`DEAL`, :data:`DRAW`), the ``outcomes``
    drawn so far, and for the engine's draws the move being applied (``action``) and the size of the pending
    draw (``size``; the draws of the first deal's opening follow its cards and places in ``outcomes``)."""

    __slots__ = ("action", "kind", "left", "outcomes", "size")

    def __init__(self, kind: int, action: int = -1, size: int = 0) -> None:
        self.kind, self.action, self.size = kind, action, size
        self.outcomes: list[int] = []
        #: How many of each card id are left to deal (kept while the cards are dealt; None: not yet counted).
        self.left: list[int] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> ChanceEvent:
        new = ChanceEvent(self.kind, self.action, self.size)
        new.outcomes = list(self.outcomes)
        new.left = None if self.left is None else list(self.left)
        return new

    def to_json(self) -> list[Any]:
        return [self.kind, self.action, self.size, self.outcomes]

    @classmethod
    def from_json(cls, data: list[Any]) -> ChanceEvent:
        new = cls(int(data[0]), int(data[1]), int(data[2]))
        new.outcomes = [int(o) for o in data[3]]
        return new


class DealModel:
    """How one game's deals are chance nodes (one game, its options fixed). Subclasses set the pack and the
    hooks; the order of nodes is fixed here.

    A deal is: ``dealer`` (one node of ``players`` uniform outcomes, in the first deal only, where
    ``random_dealer``), one node per card dealt (``num_cards`` of them, outcomes :meth:`card_outcomes`), then
    ``slots`` nodes of ``slot_size`` uniform outcomes. ``draws``: the engine draws from its generator during
    play (each draw a node of its own, :class:`ScriptedRandom`); such a game builds its first state with
    :meth:`start` from that generator.
    """

    random_dealer = True
    slots = 0
    slot_size = 0
    #: What a slot node draws, in its outcomes' text.
    slot_name = "place"
    draws = False
    #: The largest draw of the engine during play (outcomes ``0..draw_size - 1``).
    draw_size = 0

    def __init__(self, game: Game) -> None:
        self.game = game
        self.players = game.num_players
        #: The cards of a deal (ids; identical cards repeated).
        self.pack: tuple[int, ...] = ()
        #: Cards dealt in a deal.
        self.num_cards = 0

    @functools.cached_property
    def _counts(self) -> tuple[int, ...]:
        """How many of each card id the pack holds."""
        counts = [0] * (max(self.pack) + 1)
        for card in self.pack:
            counts[card] += 1
        return tuple(counts)

    def max_outcomes(self) -> int:
        """The largest chance outcome + 1."""
        return max(max(self.pack) + 1, self.players, self.slot_size, self.draw_size)

    def steps(self, kind: int) -> int:
        """Number of chance nodes of a deal of ``kind`` (:data:`FIRST` or :data:`DEAL`)."""
        return self._offset(kind) + self.num_cards + self.slots

    def _offset(self, kind: int) -> int:
        return int(kind == FIRST and self.random_dealer)

    def card_outcomes(self, drawn: list[int]) -> list[tuple[int, float]]:
        """The cards left after ``drawn`` (ids, sorted), each with its share of the cards left."""
        total = len(self.pack) - len(drawn)
        return [(card, count / total) for card, count in enumerate(self.cards_left(drawn)) if count]

    def cards_left(self, drawn: list[int]) -> list[int]:
        """How many of each card id are left after ``drawn``."""
        left = list(self._counts)
        for card in drawn:
            left[card] -= 1
        return left

    def outcomes(self, event: ChanceEvent) -> list[tuple[int, float]]:
        """The outcomes of ``event``'s next node, with their probabilities (they sum to 1)."""
        done = event.outcomes
        offset = self._offset(event.kind)
        if event.kind == DRAW or len(done) >= offset + self.num_cards + self.slots:
            return [(i, 1.0 / event.size) for i in range(event.size)]
        if len(done) < offset:
            return [(seat, 1.0 / self.players) for seat in range(self.players)]
        if len(done) < offset + self.num_cards:
            left = event.left if event.left is not None else self.cards_left(done[offset:])
            total = len(self.pack) - len(done) + offset
            return [(card, count / total) for card, count in enumerate(left) if count]
        return [(i, 1.0 / self.slot_size) for i in range(self.slot_size)]

    def draw(self, event: ChanceEvent, outcome: int) -> None:
        """Append ``outcome`` to ``event``.

        Raises:
            ValueError: when it is not an outcome of non-zero probability of ``event``'s next node.
        """
        done = event.outcomes
        offset = self._offset(event.kind)
        if event.kind != DRAW and offset <= len(done) < offset + self.num_cards:
            if event.left is None:
                event.left = self.cards_left(done[offset:])
            if not 0 <= outcome < len(event.left) or not event.left[outcome]:
                raise ValueError(f"{outcome} is not a card left to deal")
            event.left[outcome] -= 1
        else:
            size = event.size if event.kind == DRAW or len(done) >= offset + self.num_cards + self.slots else (
                self.players if len(done) < offset else self.slot_size)
            if not 0 <= outcome < size:
                raise ValueError(f"{outcome} is not an outcome of this chance node (0..{size - 1})")
        done.append(outcome)

    def outcome_string(self, event: ChanceEvent, outcome: int) -> str:
        """The text of an outcome of ``event``'s next node: ``dealer 2``, ``deal 7S``, ``Joker place 14``
        (:attr:`slot_name`), ``draw 3 of 20``."""
        done = len(event.outcomes)
        offset = self._offset(event.kind)
        if event.kind == DRAW or done >= offset + self.num_cards + self.slots:
            return f"draw {outcome} of {event.size}"
        if done < offset:
            return f"dealer {outcome}"
        if done < offset + self.num_cards:
            return f"deal {self.code(outcome)}"
        return f"{self.slot_name} {outcome}"

    def split(self, kind: int, outcomes: list[int]) -> tuple[int, list[int], list[int]]:
        """(dealer, cards, slots) of a deal's outcomes (the dealer of a first deal without a dealer node:
        :meth:`first_dealer`; of a later deal: -1, the state knows it)."""
        offset = self._offset(kind)
        dealer = outcomes[0] if offset else self.first_dealer() if kind == FIRST else -1
        return dealer, outcomes[offset:offset + self.num_cards], outcomes[offset + self.num_cards:]

    def first_dealer(self) -> int:
        """The first dealer when the rules fix it (``random_dealer`` False)."""
        return 0

    def code(self, card: int) -> str:
        """The card code of card id ``card``."""
        raise NotImplementedError

    def start(self, dealer: int, cards: list[int], slots: list[int], rng: random.Random) -> State:
        """The match's first state with this first deal (the engine's draws of its opening from ``rng``).

        Raises:
            ChanceNeeded: from ``rng`` (games with ``draws``).
        """
        raise NotImplementedError

    def dealer_of(self, state: State) -> int:
        """The dealer of ``state``'s current deal."""
        raise NotImplementedError

    def redeal(self, state: State, cards: list[int]) -> None:
        """Replace the cards of ``state``'s current deal, just dealt by the engine from its generator, by
        ``cards`` (games of several deals; the state is then as if the engine had dealt them)."""
        raise NotImplementedError

    def world_deal(self, real: State, world: State, seat: int, cards: list[int], dealer: int) -> list[int]:
        """The card outcomes of the current deal that deal ``world`` (a world sampled from ``seat``'s
        observation of ``real``): ``cards`` dealt ``real``; ``seat``'s own cards keep their places."""
        raise NotImplementedError

    def world_history(self, history: list[int], deal_start: int, inserts: list[int], real: State, world: State,
                      seat: int, rng: random.Random) -> tuple[list[int], int, Rewrite] | None:
        """A history of chance outcomes and moves that reaches ``world`` (sampled from ``seat``'s observation
        of ``real``, whose history is ``history``) in place of ``real``: the earlier deals as played, the current
        deal (its first node at ``deal_start``) by :meth:`world_deal`. Returns it, the index from which its
        moves go through the returned rewrite (``rewrite(replayed state, move) -> move``: a move hidden from
        ``seat`` as the world makes it), or None when ``world`` cannot be reached (draw another).
        ``inserts``: see :meth:`note_draws`."""
        hist = list(history)
        offset = self._offset(FIRST if deal_start == 0 else DEAL)
        dealer = hist[deal_start] if offset else self.dealer_of(real)
        first, end = deal_start + offset, deal_start + offset + self.num_cards
        hist[first:end] = self.world_deal(real, world, seat, hist[first:end], dealer)
        return hist, end, _same_move

    def initial_inserts(self) -> list[int]:
        """The bookkeeping of :meth:`note_draws` at the first deal."""
        return []

    def log_size(self, state: State) -> int:
        """Where :meth:`note_draws` starts reading ``state``'s log (games with ``draws``)."""
        return 0

    def note_draws(self, state: State, rng: ScriptedRandom, logged: int, first: int, inserts: list[int]) -> None:
        """Record in ``inserts`` what ``rng``'s draws placed (games with ``draws``): ``first`` is the history
        index of its first outcome, ``logged`` :meth:`log_size` before the move."""
