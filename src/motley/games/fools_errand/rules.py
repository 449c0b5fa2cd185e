"""The Fool's Errand: two players, one shared scale, and a Joker each (rules/fools-errand.md).

Play is automatic except for the Joker (FE-R2): each player draws the top card of their own deck and
plays it at once. The engine runs those plays itself and stops only at a decision:

* ``draw`` / ``play joker`` -- at the start of a turn, when the player's Joker is set aside (FE-R8);
* ``play joker`` / ``keep joker`` -- right after drawing the Joker with another card behind it (FE-R8).

Forced Joker plays (FE-D6) happen automatically. Every play is logged with its announcement (FE-R9), so
the log is the public history of the match.

The pack's ids and codes, the moves and the Joker's places are in ``cards.py``. This module holds the rules
only, as the bases :class:`FoolsErrandGameRules` and :class:`FoolsErrandRules`; what a seat sees is in
``observe.py`` and the determinizer in ``sample.py``, and ``game.py`` assembles the public ``FoolsErrand`` and
``FoolsErrandState`` from the three (so this module imports neither).

State layout (compact, for speed): cards are ints (``cards.py``). Decks are lists with the top card at
the *end*. The ``scale`` is kept from seat 0's (A's) point of view (FE-R3).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from motley.core.cards import cards_from_codes, check_no_duplicates
from motley.core.errors import DealError, InvalidMoveError
from motley.core.game import TERMINAL, Game
from motley.core.options import Option
from motley.core.search import SearchState
from motley.games.fools_errand.cards import (
    CODE_INDEX,
    CODES,
    DECK_SIZE,
    DRAW,
    DRAWN,
    IN_DECK,
    IS_ACE,
    JOKER_A,
    JOKER_B,
    KEEP_JOKER,
    MOVES,
    PLAY_JOKER,
    PLAY_VALUE,
    POINTS,
    SET_ASIDE,
    Action,
    Card,
    Event,
    Seat,
)

_TURN_MOVES = (DRAW, PLAY_JOKER)  # a turn with the Joker set aside (FE-R8)
_JOKER_MOVES = (PLAY_JOKER, KEEP_JOKER)  # right after drawing the Joker (FE-R8)
_MOVE_WORDS = {"draw": DRAW, "play joker": PLAY_JOKER, "joker": PLAY_JOKER, "play": PLAY_JOKER,
               "keep joker": KEEP_JOKER, "keep": KEEP_JOKER, "set aside": KEEP_JOKER}


def _card_points(cards: list[Card]) -> int:
    return sum(map(POINTS.__getitem__, cards))


class FoolsErrandGameRules(Game):
    """The Fool's Errand (FE-R1 to FE-R10, rulings FE-D1 to FE-D15), two seats: 0 = A, 1 = B: the options and
    the deal. The public game is ``game.FoolsErrand``, which adds the observation's size and the determinizer.

    Options (CONFIG rulings): ``opening_tie`` (FE-D1), ``after_scoop`` (FE-D2), ``reveal_joker`` (FE-D3),
    ``end_when`` (FE-D7), ``unclaimed_at_end`` (FE-D8), ``tie_break`` (FE-D9).
    """

    #: The class of this game's states (set by ``game.py`` to the assembled ``FoolsErrandState``).
    state_class: ClassVar[type[FoolsErrandRules]]

    name = "fools_errand"
    title = "The Fool's Errand"
    rules_file = "fools-errand.md"
    min_players = 2
    max_players = 2
    options = (
        Option("players", 2, "number of players (always 2)", kind="int", minimum=2, maximum=2,
               label="Players"),
        Option("opening_tie", "reveal_again", "opening reveal at 0: reveal again, or leave at 0 with A first (FE-D1)",
               choices=("reveal_again", "leave_at_zero_A_first"), label="Opening reveal at 0",
               choice_labels={"reveal_again": "reveal again", "leave_at_zero_A_first": "leave it at 0, A plays first"}),
        Option("after_scoop", "alternate", "after a scoop: strict alternation, or a new simultaneous reveal (FE-D2)",
               choices=("alternate", "simultaneous_reveal"), label="After a scoop",
               choice_labels={"alternate": "take turns", "simultaneous_reveal": "a new reveal together"}),
        Option("reveal_joker", "set_aside", "a Joker drawn in a simultaneous reveal is set aside, or played (FE-D3)",
               choices=("set_aside", "play"), label="Joker in a reveal",
               choice_labels={"set_aside": "set it aside", "play": "play it"}),
        Option("end_when", "both_decks_joker_only", "end when both decks, or either deck, hold only the Joker (FE-D7)",
               choices=("both_decks_joker_only", "either_deck_joker_only"), label="The game ends when",
               choice_labels={"both_decks_joker_only": "both decks hold only the Joker",
                              "either_deck_joker_only": "either deck holds only the Joker"}),
        Option("unclaimed_at_end", "discard", "cards in play at the end: discarded, or to the player ahead (FE-D8)",
               choices=("discard", "to_player_ahead"), label="Cards in play at the end",
               choice_labels={"discard": "discarded", "to_player_ahead": "go to the player ahead"}),
        Option("tie_break", "draw", "equal final points (FE-D9)", choices=("draw",),
               label="Equal points", choice_labels={"draw": "a draw"}),
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        # The CONFIG rulings read on every play, as flags.
        self.either_deck_ends = self.params["end_when"] == "either_deck_joker_only"  # FE-D7
        self.reveal_after_scoop = self.params["after_scoop"] == "simultaneous_reveal"  # FE-D2

    def _new_state(self, seed: int, deal: Mapping[str, Any] | None) -> FoolsErrandRules:
        rng = random.Random(seed)
        if deal is None:
            cards = list(range(52))
            rng.shuffle(cards)
            decks = [cards[:26], cards[26:]]  # FE-R1: split in half
            for seat, deck in enumerate(decks):  # each player shuffles their Joker in
                deck.insert(rng.randrange(len(deck) + 1), JOKER_A + seat)
        else:
            decks = _decks_from_deal(deal)
        state = self.state_class(self, {"seed": seed, "deal": None if deal is None else _deal_to_json(deal)}, rng)
        state.decks = decks
        state.reveal()
        state.run()
        return state

    def max_decisions(self) -> None:
        """No finite bound: a played Joker goes back into its owner's deck at a random place (FE-R8, FE-D13),
        possibly on top, to be drawn (a decision) and played again, any number of times in a row; every other
        draw uses up a card for good (52 in all), so a match is long only with vanishing probability."""
        return None

    def num_distinct_actions(self) -> int:
        return len(MOVES)


def _deal_to_json(deal: Mapping[str, Any]) -> dict[str, Any]:
    return {"decks": [[str(c).upper() for c in deck] for deck in deal["decks"]]}


def _decks_from_deal(deal: Mapping[str, Any]) -> list[list[Card]]:
    """Internal decks (top card last) from ``{"decks": [[27 codes, top first], [27 codes]]}``.

    Raises:
        DealError: wrong shape, wrong card count, unknown code, a deck without exactly one Joker, or a
            duplicate card.
    """
    if not isinstance(deal, Mapping) or set(deal) != {"decks"}:
        raise DealError('a fools_errand deal is {"decks": [[27 codes], [27 codes]]}')
    raw = deal["decks"]
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise DealError("a fools_errand deal has exactly 2 decks")
    decks = []
    index = {**CODE_INDEX, "JK": -1}
    for seat, codes in enumerate(raw):
        what = f"deck of seat {seat}"
        cards = cards_from_codes(codes, index, what)
        if len(cards) != DECK_SIZE:
            raise DealError(f"{what} has {len(cards)} cards; each deck has {DECK_SIZE} (26 + a Joker, FE-R1)")
        if cards.count(-1) != 1:
            raise DealError(f"{what} must hold exactly one Joker (JK); it holds {cards.count(-1)}")
        decks.append([JOKER_A + seat if c == -1 else c for c in reversed(cards)])
    check_no_duplicates(decks[0] + decks[1], CODES, "the deal", allow=(JOKER_A, JOKER_B))
    return decks


class FoolsErrandRules(SearchState):
    """A position of The Fool's Errand and the rules it plays by. See the module docstring for the layout,
    ``cards.py`` for the cards; the public State is ``game.FoolsErrandState``, which adds what a seat sees."""

    __slots__ = ("decks", "joker", "log", "piles", "scale", "table", "to_move", "unclaimed")

    game: FoolsErrandGameRules

    def __init__(self, game: FoolsErrandGameRules, origin: dict[str, Any] | None,
                 rng: random.Random | None = None) -> None:
        super().__init__(game, origin, rng)  # the rng re-inserts Jokers (FE-D4)
        self.decks: list[list[Card]] = [[], []]
        self.scale = 0
        self.table: list[int] = []  # cards in play, each ``card | seat << 6``, in play order
        self.piles: list[list[int]] = [[], []]
        self.unclaimed: list[int] = []
        self.joker = [IN_DECK, IN_DECK]
        self.to_move = 0
        self.log: list[Event] = []

    # ---- automatic play --------------------------------------------------------------------
    def reveal(self) -> None:
        """Simultaneous reveal (FE-R5) with its rulings FE-D1 and FE-D3; sets the player to move.

        The same for the opening and every reveal after a scoop: ``opening_tie`` governs them all (FE-D14).
        A seat with no card to show reveals nothing and the other seat's card alone sets the scale
        (FE-D12); the callers check FE-D7 first, so at least one seat has a card to show.
        """
        params = self.game.params
        while True:
            before = self.scale
            shown: list[int] = []
            for q in (0, 1):
                card = self._reveal_card(q)
                if card >= 0:
                    shown.append(card | q << 6)
            jokers = [t for t in shown if (t & 63) >= JOKER_A]
            if len(jokers) == 2:  # FE-D3 "play": two Jokers -> both return, reveal again
                self.log.append(("reveal", 0, JOKER_A, 0, 0))
                self.log.append(("reveal", 1, JOKER_B, 0, 0))
                self._return_jokers()
                continue
            for t in shown:
                card, q = t & 63, t >> 6
                if card < JOKER_A:
                    value = PLAY_VALUE[card]  # FE-D11: an Ace at a simultaneous reveal counts 1
                    self.scale += value if q == 0 else -value
                    self.table.append(t)
            for t in shown:
                q = t >> 6
                self.log.append(("reveal", q, t & 63, 0 if t & 63 >= JOKER_A else PLAY_VALUE[t & 63],
                                 self.scale if q == 0 else -self.scale))
            if jokers:  # FE-D3 "play": the Joker sets the scale to 0 and its player scoops
                self._joker_to_zero(jokers[0] >> 6)
                if self._ended():
                    return self._finish()
                if params["after_scoop"] == "alternate":
                    self.to_move = 1 - (jokers[0] >> 6)
                    return None
                continue
            if self._ended():
                return self._finish()
            if self.scale == 0:
                if params["opening_tie"] == "reveal_again" and self.scale == before == 0 and shown:
                    continue  # FE-D1: nobody scoops, the cards stay in play
                self.to_move = 0
                return None
            self.to_move = 1 if self.scale > 0 else 0  # FE-R6: the trailing player plays first
            return None

    def _reveal_card(self, q: Seat) -> Card:
        """The card seat ``q`` reveals, or -1 when its deck has no card to show (FE-D12: only its Joker,
        which is then set aside, or an empty deck)."""
        deck = self.decks[q]
        if not deck:
            return -1
        card = deck.pop()
        if card >= JOKER_A:
            if self.game.params["reveal_joker"] == "play":
                self.joker[q] = DRAWN
                return card
            self.joker[q] = SET_ASIDE  # FE-D3: set aside face up, reveal the next card instead
            self.log.append(("set_aside", q, card, 0, 0))
            return deck.pop() if deck else -1
        return card

    def run(self, draw: bool = False) -> None:
        """Play the automatic steps (draws, forced Jokers) until a decision or the end.

        ``draw``: the player to move draws and plays a card first, whatever their Joker (after ``keep
        joker``, FE-R8). The plain draw-and-play (FE-R2 to FE-R4, FE-R7) is inlined: it is most of a match.
        """
        decks, joker, table, log = self.decks, self.joker, self.table, self.log
        play_value, is_ace = PLAY_VALUE, IS_ACE
        scale = self.scale  # kept local in the loop; stored before any call that reads or changes it
        while True:
            p = self.to_move
            if p == TERMINAL:
                return
            deck = decks[p]
            place = joker[p]
            if place == IN_DECK or draw:
                draw = False
                card = deck.pop()
                if card >= JOKER_A:
                    joker[p] = DRAWN
                    if deck:
                        return  # decision: play the Joker now, or keep it
                    self._play_joker(p)  # FE-D6: only the Joker was left
                    scale = self.scale
                    continue
                value = play_value[card]
                if is_ace[card] and (scale <= -11 if p == 0 else scale >= 11):
                    value = 11  # FE-R4: the trailing player's Ace counts 11 when the gap is at least 11
                scale = scale + value if p == 0 else scale - value  # FE-R3: the scale is kept from A's side
                table.append(card | p << 6)
                log.append(("play", p, card, value, scale if p == 0 else -scale))  # FE-R9: announced from p's side
                if scale == 0:  # FE-R7: exactly 0 scoops
                    self.scale = 0
                    self._scoop(p)
                    self._after_play(p, True)
                    scale = self.scale
                elif len(deck) <= 1 and self._ended():
                    # Only the drawing deck shrank, and a deck of 2+ cards holds a card besides its Joker.
                    self.scale = scale
                    self._finish()
                else:
                    self.scale = scale
                    self.to_move = 1 - p  # FE-R6: strict alternation
            elif place == SET_ASIDE:
                if deck:
                    return  # decision: draw, or play the kept Joker
                self._play_joker(p)  # FE-D6: nothing left to draw
                scale = self.scale
            else:
                return  # DRAWN: the decision on the drawn Joker

    def _play_joker(self, p: Seat) -> None:
        """FE-R8: the Joker sets the scale to 0, its player scoops (FE-D10 on an empty table)."""
        self.log.append(("play", p, JOKER_A + p, 0, 0))
        self._joker_to_zero(p)
        self._after_play(p, True)

    def _joker_to_zero(self, p: Seat) -> None:
        self.joker[p] = DRAWN
        self.scale = 0
        self._scoop(p)
        self._return_jokers()

    def _scoop(self, p: Seat) -> None:
        cards = [t & 63 for t in self.table]
        self.piles[p].extend(cards)
        self.table.clear()
        self.log.append(("scoop", p, -1, len(cards), _card_points(cards)))

    def _return_jokers(self) -> None:
        """FE-R8, FE-D4, FE-D5: every Joker outside a deck goes back into its owner's deck.

        FE-D13: inserted at a uniformly random position; the other cards keep their order.
        """
        for q in (0, 1):
            if self.joker[q] != IN_DECK:
                deck = self.decks[q]
                deck.insert(self.own_rng().randrange(len(deck) + 1), JOKER_A + q)
                self.joker[q] = IN_DECK
                self.log.append(("joker_back", q, JOKER_A + q, 0, 0))

    def _after_play(self, p: Seat, scooped: bool) -> None:
        if self._ended():
            self._finish()
        elif scooped and self.game.reveal_after_scoop:
            self.reveal()  # FE-D2 option; FE-D14: a Joker onto an empty table counts as a scoop too
        else:
            self.to_move = 1 - p  # FE-R6, FE-D2: strict alternation

    def _ended(self) -> bool:
        """FE-D7: does a deck (both, or either) hold no card but its Joker?"""
        a = len(self.decks[0]) - (self.joker[0] == IN_DECK)
        b = len(self.decks[1]) - (self.joker[1] == IN_DECK)
        if self.game.either_deck_ends:
            return a == 0 or b == 0
        return a == 0 and b == 0

    def _finish(self) -> None:
        """FE-D8: cards still in play are discarded, or go to the player the scale tips toward (FE-D15: at
        scale 0 nobody is ahead, and they are discarded)."""
        cards = [t & 63 for t in self.table]
        self.table.clear()
        if self.game.params["unclaimed_at_end"] == "to_player_ahead" and self.scale != 0:
            ahead = 0 if self.scale > 0 else 1
            self.piles[ahead].extend(cards)
            self.log.append(("scoop", ahead, -1, len(cards), _card_points(cards)))
        else:
            self.unclaimed.extend(cards)
        self.to_move = TERMINAL
        self.log.append(("end", -1, -1, 0, 0))

    # ---- the move interface ------------------------------------------------------------------
    def current_player(self) -> int:
        return self.to_move

    def legal_actions(self) -> list[Action]:
        if self.to_move == TERMINAL:
            return []
        return list(_TURN_MOVES if self.joker[self.to_move] == SET_ASIDE else _JOKER_MOVES)

    def action_to_string(self, action: Action) -> str:
        if not 0 <= action < len(MOVES):
            raise InvalidMoveError(action, f"unknown action id; actions are 0..{len(MOVES) - 1}")
        return MOVES[action]

    def _parse_move(self, text: str) -> Action:
        action = _MOVE_WORDS.get(" ".join(text.lower().split()))
        if action is None:
            raise InvalidMoveError(text, "unknown move; the moves are 'draw', 'play joker' and 'keep joker'")
        return action

    def why_illegal(self, action: Action) -> str:
        if self.to_move == TERMINAL:
            return "the game is over"
        if not 0 <= action < len(MOVES):
            return f"unknown action id; actions are 0..{len(MOVES) - 1}"
        if self.joker[self.to_move] == SET_ASIDE:
            return "you have not drawn your Joker: draw, or play your set-aside Joker"
        return "you have just drawn your Joker: play it or keep it (set it aside), no other move"

    def _is_legal(self, action: Action) -> bool:
        """Is ``action`` one of the decisions offered now (FE-R2, FE-R8)?"""
        p = self.to_move
        return p != TERMINAL and action in (_TURN_MOVES if self.joker[p] == SET_ASIDE else _JOKER_MOVES)

    def _apply(self, action: Action) -> None:
        p = self.to_move
        if action == PLAY_JOKER:
            self._play_joker(p)
            self.run()
            return
        if action == KEEP_JOKER:  # FE-R8: set aside face up, then draw and play another card
            self.joker[p] = SET_ASIDE
            self.log.append(("set_aside", p, JOKER_A + p, 0, 0))
        self.run(draw=True)

    # ---- results -----------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.to_move == TERMINAL

    def scores(self) -> list[int]:
        """Points in each score pile (FE-R10); ``scores()[0] + scores()[1] + unclaimed == 340`` (FE-T10)."""
        return [_card_points(self.piles[0]), _card_points(self.piles[1])]

    def returns(self) -> list[float]:
        """+1 for the player with more points, -1 for the other, 0 each for equal points (FE-D9)."""
        if self.to_move != TERMINAL:
            return [0.0, 0.0]
        a, b = self.scores()
        if a == b:
            return [0.0, 0.0]
        return [1.0, -1.0] if a > b else [-1.0, 1.0]

    # ---- copies and persistence --------------------------------------------------------------
    def clone(self) -> Self:
        cls = type(self)
        new = cls.__new__(cls)
        self._clone_base(new)
        new.decks = [list(self.decks[0]), list(self.decks[1])]
        new.scale, new.table, new.unclaimed = self.scale, list(self.table), list(self.unclaimed)
        new.piles = [list(self.piles[0]), list(self.piles[1])]
        new.joker, new.to_move, new.log = list(self.joker), self.to_move, list(self.log)
        return new

    def _to_dict(self) -> dict[str, Any]:
        return {"observation": self.observation(0), "origin": self.origin, "decks": self.decks,
                "rng": self.rng_json()}
