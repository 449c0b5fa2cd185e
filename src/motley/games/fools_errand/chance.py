"""The Fool's Errand's deal as chance nodes (``GameSpec.deal_model``, :class:`motley.core.chance.DealModel`).

The 52 cards are dealt into the two decks, 26 each, top first (FE-R1: deck 0's, then deck 1's); then one
node per deck says where its Joker is shuffled in (0..26: the cards above it); during play every Joker
going back into its deck (FE-R8, FE-D13) is a node of its own (0..the deck's size: the cards below it; none
when the deck is empty). The engine draws those from its generator, a :class:`~motley.core.chance.ScriptedRandom`.
"""

from __future__ import annotations

import random
from typing import cast

from motley.core.chance import DealModel, Rewrite, ScriptedRandom
from motley.core.game import Game, State
from motley.games.fools_errand.cards import CODES, IN_DECK, JOKER_A
from motley.games.fools_errand.rules import FoolsErrandGameRules, FoolsErrandRules

#: History indices of the two Joker places of the deal (after its 52 cards).
_SLOT_INDEX = (52, 53)


class FoolsErrandDeals(DealModel):
    """The Fool's Errand's deal model (module docstring)."""

    random_dealer = False
    slots = 2
    slot_size = 27
    slot_name = "Joker place"
    draws = True
    draw_size = 27

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.pack = tuple(range(52))
        self.num_cards = 52

    def code(self, card: int) -> str:
        return CODES[card]

    def start(self, dealer: int, cards: list[int], slots: list[int], rng: random.Random) -> State:
        decks = []
        for q in range(2):
            top_first = cards[26 * q:26 * (q + 1)]
            top_first.insert(slots[q], JOKER_A + q)
            decks.append(top_first[::-1])  # the engine's decks hold the top card last
        codes = [["JK" if c >= JOKER_A else CODES[c] for c in deck[::-1]] for deck in decks]
        game = cast(FoolsErrandGameRules, self.game)
        state = game.state_class(game, {"seed": 0, "deal": {"decks": codes}}, rng)
        state.decks = decks
        state.reveal()  # the opening (FE-R5) and the play up to the first decision, as new_initial_state runs them
        state.run()
        return state

    def dealer_of(self, state: State) -> int:
        return 0

    def initial_inserts(self) -> list[int]:
        return list(_SLOT_INDEX)

    def log_size(self, state: State) -> int:
        return len(cast(FoolsErrandRules, state).log)

    def note_draws(self, state: State, rng: ScriptedRandom, logged: int, first: int, inserts: list[int]) -> None:
        """``inserts[q]``: the history index of the node that last put Joker ``q`` into its deck (-1: into an
        empty deck, no node), from the engine's ``joker_back`` log events, one per draw, in order."""
        backs = [event[1] for event in cast(FoolsErrandRules, state).log[logged:] if event[0] == "joker_back"]
        at = first
        for q, size in zip(backs, rng.sizes, strict=True):
            if size == 1:
                inserts[q] = -1
            else:
                inserts[q] = at
                at += 1

    def world_history(self, history: list[int], deal_start: int, inserts: list[int], real: State, world: State,
                      seat: int, rng: random.Random) -> tuple[list[int], int, Rewrite] | None:
        """Each deck's cards revealed so far keep their places; the world's unseen cards follow them; each
        Joker in its deck is put where the world holds it, by the node that last put it there."""
        hist = list(history)
        w = cast(FoolsErrandRules, world)
        for q in range(2):
            rest = [c for c in reversed(w.decks[q]) if c < JOKER_A]  # top first
            shown = 26 - len(rest)  # the cards of deck q revealed so far are its first ones (FE-R2)
            hist[26 * q:26 * (q + 1)] = hist[26 * q:26 * q + shown] + rest
            if w.joker[q] != IN_DECK:
                continue
            below = w.decks[q].index(JOKER_A + q)
            where = inserts[q]
            if where == _SLOT_INDEX[q]:  # never drawn: its place at the deal, counted from the top
                hist[where] = shown + len(rest) - below
            elif where >= 0:  # put back (FE-D13): the cards below it, which have not moved since
                hist[where] = below
        return hist, len(hist), lambda state, action: action
