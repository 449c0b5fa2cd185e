"""What search needs of a game, behind one opt-in interface (docs/design.md, The core API).

A game's State opts in by subclassing :class:`SearchState` instead of :class:`~motley.core.game.State`. It
then offers what a search (ISMCTS) needs beyond the core contract:

* **Cheap clones of worlds**: the generator of later shuffles is shared by clones until one of them draws
  (copy on write, :meth:`SearchState.own_rng`), and a determinization is seeded lazily
  (:meth:`SearchState.use_seed`), because most search worlds never shuffle again.
* **One way to stop at the end of the deal**: :meth:`SearchState.stop_at_deal_end` marks a world; when its
  deal ends, the next one is not dealt (the deal is scored and ``deal_number()`` moves on, which is all a
  rollout reads). :meth:`SearchState.playout` and a :class:`SearchPolicy` rollout play to the end of the deal.
* **Unchecked application** of actions taken from ``legal_actions()`` (:meth:`SearchState.apply_legal`),
  and fast uniformly random playouts (:meth:`SearchState.playout`, which games may override).

:class:`SearchPolicy` is a game's heuristic played on full states: search rolls sampled worlds out with it
and, in ISMCTS with a heuristic opponent model, moves the other seats by it. A game offers one through its
spec (``GameSpec.search_policy``); games without one are searched with uniformly random playouts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from motley.core.game import Game, State, copy_rng, rng_to_json

#: The generator of a state made without one; shared, so any draw copies it first (see SearchState.own_rng).
_ZERO_RNG = random.Random(0)


class SearchState(State):
    """A State with the search support of this module's docstring.

    Attributes:
        rng: read and drawn from through :meth:`own_rng` only: until then it may be shared with clones, or
            stand in for a seed not yet used.
    """

    __slots__ = ("_rng_seed", "_rng_shared", "_stops_at_deal_end")

    def __init__(self, game: Game, origin: dict[str, Any] | None, rng: random.Random | None = None) -> None:
        super().__init__(game, origin, _ZERO_RNG if rng is None else rng)
        self._rng_shared = rng is None
        self._rng_seed: int | None = None  # see use_seed
        self._stops_at_deal_end = False

    # ---- the generator, copy on write ------------------------------------------------------------
    def own_rng(self) -> random.Random:
        """This state's generator, ready to draw from: a shared one is copied first, so drawing never
        changes another state's future."""
        if self._rng_shared:
            seed = self._rng_seed
            self.rng = copy_rng(self.rng) if seed is None else random.Random(seed)
            self._rng_shared, self._rng_seed = False, None
        return self.rng

    def use_rng(self, rng: random.Random) -> None:
        """Give this state ``rng`` as its own generator (nothing else may draw from it)."""
        self.rng = rng
        self._rng_shared, self._rng_seed = False, None

    def use_seed(self, seed: int) -> None:
        """Give this state the generator ``random.Random(seed)``, made at its first draw.

        For determinizations: a search world rarely draws (most end with the deal), and seeding a
        Mersenne Twister costs about a quarter of what dealing the hidden cards of a Fool! round does.
        """
        self._rng_seed = seed
        self._rng_shared = True

    def share_rng(self, other: SearchState) -> None:
        """Let ``other`` (a clone of this state) start from this state's generator without copying it."""
        other.rng, other._rng_seed = self.rng, self._rng_seed
        other._rng_shared = self._rng_shared = True

    def rng_json(self) -> list[Any]:
        """The state of this state's generator as JSON-able data (:func:`~motley.core.game.rng_to_json`),
        read without copying a shared generator or making a seeded one."""
        seed = self._rng_seed
        return rng_to_json(self.rng if seed is None else random.Random(seed))

    def _clone_base(self, new: SearchState) -> None:
        """Fill the attributes of the base classes in ``new``, a clone made with ``__new__`` (the history
        copied, the generator shared, the search mark kept)."""
        self._copy_history_to(new)
        new._stops_at_deal_end = self._stops_at_deal_end
        self.share_rng(new)

    # ---- search worlds ------------------------------------------------------------------------------
    def stop_at_deal_end(self) -> None:
        """Mark this state as a search world: when the current deal ends, the next one is not dealt.

        The deal is scored and ``deal_number()`` moves on, which is all a rollout reads there; the state
        must not be played on after that (a match that ends with the deal ends as usual). Games whose
        next deal costs real work (a shuffle, a deal, an exchange) skip it; the others ignore the mark.
        Clones keep it.
        """
        self._stops_at_deal_end = True

    @property
    def stops_at_deal_end(self) -> bool:
        """Whether :meth:`stop_at_deal_end` marked this state."""
        return self._stops_at_deal_end

    def apply_legal(self, action: int) -> None:
        """Play an action taken from this state's ``legal_actions()`` without checking it again.

        For search loops that already hold the legal list; anything else must use ``apply_action``. An
        action that is not legal leaves the state undefined.
        """
        self._apply(action)
        self._history.append(action)  # core's own base: the hottest call of every rollout

    def playout(self, rng: random.Random) -> None:
        """Play uniformly random legal actions until the match ends or the current deal is over.

        Games may override this with a faster loop; the distribution of play must stay uniform over
        ``legal_actions()`` at every step.
        """
        deal = self.deal_number()
        while not self.is_terminal() and self.deal_number() == deal:
            legal = self.legal_actions()
            self.apply_legal(legal[rng.randrange(len(legal))])


@dataclass(frozen=True)
class SearchPolicy:
    """A game's heuristic on full states.

    Attributes:
        move: ``move(state) -> action`` for the seat to move of a full state (a determinization).
        rollout: ``rollout(state, rng, epsilon)`` plays ``state`` on with ``move`` (a uniformly random legal
            action with probability ``epsilon``) until the match ends or the deal it was in on entry is over.
    """

    move: Callable[[State], int]
    rollout: Callable[[State, random.Random, float], None]


def roll_out_seats(state: State, rng: random.Random, move: Callable[[State], int], epsilons: Sequence[float]) -> None:
    """Play ``state`` on with ``move`` until the match ends or the deal it was in on entry is over, each seat's
    move a uniformly random legal one with probability ``epsilons[seat]``: :attr:`SearchPolicy.rollout` with a
    share of random moves per seat (each seat's model learned from its play,
    :func:`motley.core.inference.random_share`), one loop for every game.

    Args:
        state: a full state with search support (``apply_legal``); changed in place.
        move: the game's heuristic on full states (:attr:`SearchPolicy.move`).
        epsilons: per seat, the share of its moves played at random, in [0, 1].
    """
    search = cast("SearchState", state)
    deal = search.deal_number()
    is_terminal, deal_number, current_player = search.is_terminal, search.deal_number, search.current_player
    legal_actions, apply_legal, rand = search.legal_actions, search.apply_legal, rng.random
    while not is_terminal() and deal_number() == deal:
        epsilon = epsilons[current_player()]
        if epsilon and rand() < epsilon:
            legal = legal_actions()
            apply_legal(legal[rng.randrange(len(legal))])
        else:
            apply_legal(move(search))
