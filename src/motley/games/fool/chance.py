"""Fool!'s deals as chance nodes (``GameSpec.deal_model``, :class:`motley.core.chance.DealModel`).

The first dealer is a node of its own under ``first_dealer=random`` (FL-D7); each round deals ``hand_size``
cards to each seat from the pack ``game.deck`` (its identical W1 cards are one outcome with their share),
seat 0 first, as the engine cuts its shuffled pack (FL-R3); every round is dealt so.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import cast

from motley.core.chance import DealModel
from motley.core.game import Game, State
from motley.games.fool.cards import CODES
from motley.games.fool.rules import FoolGameRules, FoolRules


def _cards(hand: list[list[int]]) -> list[int]:
    return [c for colour in hand for c in colour]


class FoolDeals(DealModel):
    """Fool!'s deal model (module docstring)."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        rules = cast(FoolGameRules, game)
        first = rules.params["first_dealer"]
        self.random_dealer = first == "random"
        self.fixed_dealer = 0 if self.random_dealer else int(first)
        self.pack = tuple(rules.deck)
        self.hand_size = rules.hand_size
        self.num_cards = self.hand_size * self.players

    def first_dealer(self) -> int:
        return self.fixed_dealer

    def code(self, card: int) -> str:
        return CODES[card]

    def hands(self, cards: list[int]) -> list[list[int]]:
        """Each seat's cards, seat 0 first, ``hand_size`` each."""
        k = self.hand_size
        return [cards[i * k:(i + 1) * k] for i in range(self.players)]

    def start(self, dealer: int, cards: list[int], slots: list[int], rng: random.Random) -> State:
        hands = [[CODES[c] for c in hand] for hand in self.hands(cards)]
        return self.game.new_initial_state(seed=0, deal={"hands": hands, "dealer": dealer})

    def dealer_of(self, state: State) -> int:
        return cast(FoolRules, state).dealer

    def redeal(self, state: State, cards: list[int]) -> None:
        rules = cast(FoolRules, state)
        rules.start_round(rules.dealer, rules.round_number, self.hands(cards))  # FL-R3 with the drawn cards

    def world_deal(self, real: State, world: State, seat: int, cards: list[int], dealer: int) -> list[int]:
        dealt = self.hands(cards)
        out: list[int] = []
        for q in range(self.players):
            if q == seat:
                out += dealt[q]
                continue
            played = Counter(dealt[q])  # every card a seat was dealt and no longer holds, it has played (public)
            played.subtract(_cards(cast(FoolRules, real).hands[q]))
            out += sorted(_cards(cast(FoolRules, world).hands[q]) + list(played.elements()))
        return out
