"""Foolery's deals as chance nodes (``GameSpec.deal_model``, :class:`motley.core.chance.DealModel`).

The first dealer is a node of its own (FY-D20); each hand deals the 78 cards one at a time from the dealer's
left (FY-R1, FY-D19); every hand is dealt so. The exchange's gives between two other seats are hidden from
a seat, so a world sampled for it draws its own (:meth:`FooleryDeals.world_history`).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import cast

from motley.core.chance import DealModel, Rewrite
from motley.core.game import Game, State
from motley.games.foolery.cards import CODES, EXCHANGE, EXCHANGE_VALUE, FOOL, HIGHEST, NUM_CARDS
from motley.games.foolery.moves import GIVE_BASE, NORMAL_BASE
from motley.games.foolery.rules import FooleryGameRules, FooleryRules


def _held(state: State, seat: int) -> set[int]:
    mask = cast(FooleryRules, state).hands[seat]
    return {c for c in range(NUM_CARDS) if mask >> c & 1}


#: Draws of the gives between two other seats tried for one world.
_GIVE_TRIES = 20
#: Card ids below this are suit cards (the trumps and the Fool follow).
_SUITS = 56


class FooleryDeals(DealModel):
    """Foolery's deal model (module docstring)."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.pack = tuple(range(NUM_CARDS))
        self.num_cards = NUM_CARDS

    def code(self, card: int) -> str:
        return CODES[card]

    def hands(self, cards: list[int], dealer: int) -> list[list[int]]:
        """Each seat's cards: the i-th card dealt goes to the (i % n)-th seat after the dealer (FY-D19)."""
        n = self.players
        hands: list[list[int]] = [[] for _ in range(n)]
        for i, card in enumerate(cards):
            hands[(dealer + 1 + i) % n].append(card)
        return hands

    def start(self, dealer: int, cards: list[int], slots: list[int], rng: random.Random) -> State:
        hands = [[CODES[c] for c in hand] for hand in self.hands(cards, dealer)]
        return self.game.new_initial_state(seed=0, deal={"hands": hands, "dealer": dealer})

    def dealer_of(self, state: State) -> int:
        return cast(FooleryRules, state).dealer

    def redeal(self, state: State, cards: list[int]) -> None:
        rules = cast(FooleryRules, state)
        masks = [sum(1 << c for c in hand) for hand in self.hands(cards, rules.dealer)]
        rules.start_hand(masks, rules.dealer, first=False)  # FY-R13: the exchange runs on the drawn hands

    def world_history(self, history: list[int], deal_start: int, inserts: list[int], real: State, world: State,
                      seat: int, rng: random.Random) -> tuple[list[int], int, Rewrite] | None:
        """The current hand's deal that gives ``world``: each other seat's cards held in ``world``, with those it
        played (public) and gave, less those it received. A world keeps only the gives ``seat`` saw (its own);
        the gives between two other seats are drawn here: what the lower seat received (its highest cards
        but the Fool: any give is allowed, FY-R13, and these leave the most choice) and what it gave (cards
        of the upper seat at least as high as every card it kept, FY-D15, FY-D25, at random). None when no
        such gives exist for ``world``. (Valid worlds, not the exact posterior over the hidden gives.)"""
        hist = list(history)
        offset = int(deal_start == 0)
        dealer = hist[deal_start] if offset else self.dealer_of(real)
        first, end = deal_start + offset, deal_start + offset + self.num_cards
        r, w = cast(FooleryRules, real), cast(FooleryRules, world)
        dealt = self.hands(hist[first:end], dealer)
        n = self.players
        # Cards each seat has held since the exchange: held now in the world, or played (public); counted, as a
        # card may go up in the exchange and come back down.
        pool = [_held(world, q) | set((Counter(dealt[q]) + Counter(r.received[q]) - Counter(r.gave[q])
                                       - Counter(_held(real, q))).elements()) for q in range(n)]
        gave = [list(g) for g in w.gave]
        got = [list(g) for g in w.received]
        if not self._hidden_gives(r, seat, dealt, pool, gave, got, rng):
            return None
        new = [dealt[q] if q == seat else sorted((Counter(pool[q]) + Counter(gave[q]) - Counter(got[q])).elements())
               for q in range(n)]
        out, at = [], [0] * n
        for i in range(self.num_cards):
            q = (dealer + 1 + i) % n
            if at[q] >= len(new[q]):
                return None
            out.append(new[q][at[q]])
            at[q] += 1
        hist[first:end] = out

        def rewrite(replay: State, action: int) -> int:
            rules = cast(FooleryRules, replay)
            giver = rules.current_player()
            if rules.phase != EXCHANGE or giver == seat or not GIVE_BASE <= action < NORMAL_BASE:
                return action
            legal = set(rules.legal_actions())
            for card in gave[giver]:  # a tied highest card, or any card (FY-D15): one the world gives
                if card not in rules.gave[giver] and GIVE_BASE + card in legal:
                    return GIVE_BASE + card
            return action

        return hist, end, rewrite

    def _hidden_gives(self, real: FooleryRules, seat: int, dealt: list[list[int]], pool: list[set[int]],
                      gave: list[list[int]], got: list[list[int]], rng: random.Random) -> bool:
        """Draw into ``gave`` / ``got`` the gives of the hand so far between two seats other than ``seat``
        (as many as ``real`` made, the engine asking the lower seat as often as it asked in ``real``: a
        decision is seen by every seat); False when none of the draws fits these pools."""
        suit_only = self.game.params["exchange_order"] == "suit_cards_only"
        steps = {giver: receiver for giver, receiver, _, _ in real.steps}
        for giver, receiver, _, rule in real.steps:
            if rule != HIGHEST or seat in (giver, receiver):
                continue
            lower, upper = giver, receiver  # FY-R13: the lower seat gives its highest cards up, then gets any back
            up, down = len(real.gave[lower]), len(real.gave[upper]) if steps.get(upper) == lower else 0
            asked = self._asked(set(dealt[lower]), real.gave[lower])
            back = sorted(c for c in pool[lower] if c != FOOL)
            if len(back) < down:
                return False
            rng.shuffle(back)  # what it got back: its highest cards (ties at random), which keeps the most worlds
            got_back = sorted(back, key=lambda c: (-(suit_only and c < _SUITS), -EXCHANGE_VALUE[c]))[:down]
            kept = pool[lower] - set(got_back)
            ups = self._ups(kept, pool[upper], suit_only)
            for _ in range(_GIVE_TRIES):
                if len(ups) < up:
                    return False
                given = sorted(rng.sample(ups, up), key=lambda c: -EXCHANGE_VALUE[c])
                if self._asked(kept | set(given), given) == asked:
                    break
            else:
                return False
            gave[lower], got[upper] = given, list(given)
            gave[upper], got[lower] = list(got_back), list(got_back)
        return True

    @staticmethod
    def _ups(kept: set[int], pool: set[int], suit_only: bool) -> list[int]:
        """The cards of ``pool`` that may have been given up from a hand that kept ``kept``: as high as every
        card kept (FY-D15); under ``suit_cards_only`` (FY-D25) suit cards as high as every suit card kept, or,
        when it kept none, any suit card or a trump as high as every card kept."""
        cards = [c for c in kept if c != FOOL]
        suits = [c for c in cards if c < _SUITS]
        if suit_only and suits:
            floor = max(EXCHANGE_VALUE[c] for c in suits)
            return [c for c in sorted(pool) if c < _SUITS and EXCHANGE_VALUE[c] >= floor]
        floor = max((EXCHANGE_VALUE[c] for c in cards), default=-1)
        return [c for c in sorted(pool) if c != FOOL and (EXCHANGE_VALUE[c] >= floor or (suit_only and c < _SUITS))]

    def _asked(self, hand: set[int], given: list[int]) -> int | None:
        """How many of ``given`` the engine asks the giver for, giving them in turn from ``hand`` as its
        highest cards (FY-D15, FY-D17, FY-D25, FY-D26), or None when they are not its highest cards."""
        suit_only = self.game.params["exchange_order"] == "suit_cards_only"
        exact_fill = cast(FooleryGameRules, self.game).exact_fill_gives
        hand, asked, i = set(hand), 0, 0
        while i < len(given):
            cards = [c for c in hand if c != FOOL]
            if suit_only and any(c < _SUITS for c in cards):
                cards = [c for c in cards if c < _SUITS]
            best = max((EXCHANGE_VALUE[c] for c in cards), default=None)
            if best is None:
                return None
            tied = {c for c in cards if EXCHANGE_VALUE[c] == best}
            if len(tied) == 1 or (exact_fill and len(tied) <= len(given) - i):
                if set(given[i:i + len(tied)]) != tied:
                    return None
                hand -= tied
                i += len(tied)
            elif given[i] in tied:
                asked += 1
                hand.discard(given[i])
                i += 1
            else:
                return None
        return asked
