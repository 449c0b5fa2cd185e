"""Fool! (Friedemann Friese, 2018), 4-8 players: shed your cards, never play the worst card (rules/fool.md).

The game (options, the deck table, deals) and the rules its State plays by: every FL-R / FL-D rule of
rules/fool.md is carried out here, once; the other modules of the package only cite the ids they rely on.
The pack's card ids and codes are in ``cards.py`` (a card id is also the action "play this card", FL-R6;
every W1 is held and played as id 82, FL-D12). The rules are the bases :class:`FoolGameRules` and
:class:`FoolRules`; what a seat sees is in ``observe.py`` and the determinizer in ``sample.py``, and
``game.py`` assembles the public ``Fool`` and ``FoolState`` from the three (so this module imports neither).

A game is a match of rounds (FL-R14); ``rounds=N`` stops after N rounds (``rounds=1`` is a single deal).

Deck per player count (FL-R3, FL-D1): ``DEFAULT_DECK_TABLE`` below is the FL-D1 placeholder -- **ASSUMED,
not verified against the printed Overview card**. A table entry gives, per colour, the highest value kept
(cards 2..max; 1 means no card of that colour) and ``W1`` the number of wild ones. The option
``deck_table`` replaces entries (``{"5": {"G": 20, "R": 16, "Y": 14, "B": 10, "W1": 4}}``); the
observation says whether the table in use is the assumed one (``deck_table_assumed``).

State layout (compact, for speed): a hand is five sorted lists of card ids, one per colour G R Y B W
(the W list holds 82 once per W1); a trick is a list of ``card | seat << 7`` in play order; ``order`` is
the seats playing the current trick in turn order (leader first, sitting-out seats skipped, FL-R10).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import partial
from itertools import repeat, starmap
from typing import Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from motley.core.cards import cards_from_codes
from motley.core.errors import DealError, InvalidMoveError, OptionError
from motley.core.game import TERMINAL, Game, rng_from_json, seeded_rng
from motley.core.options import Option
from motley.core.search import SearchState
from motley.games.fool.cards import (
    BASES,
    CODE_INDEX,
    CODES,
    COLOUR,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    NUM_CARDS,
    PENALTY,
    TOPS,
    VALUE,
    W1,
    Action,
    Card,
    Seat,
    W,
    split_hand,
    split_sorted,
)


def badness(card: Card, lead: int, index: int) -> int:
    """How far a card of a trick is from being the worst card, smaller = worse (FL-R9, FL-D3, FL-D4).

    A card of the lead colour, or a 1 (it counts as lead colour with value 1, FL-R7), is above any discard
    (a card of another colour); then the higher value is better; among equal cards the later-played one
    (higher ``index`` in the trick, 0..14) is worse. ``lead`` is the lead colour 0..3, or -1 while none is set.
    """
    follows = COLOUR[card] == lead or COLOUR[card] == W
    return ((100 if follows else 0) + VALUE[card]) * 16 + 15 - index


#: ``badness(card, lead, 0)`` by ``lead + 1`` and card id: ``BADNESS[lead + 1][card] - index`` is the badness
#: of the card played ``index``-th (the table the trick end and the heuristic read, for speed).
BADNESS: tuple[tuple[int, ...], ...] = tuple(tuple(badness(c, lead, 0) for c in range(NUM_CARDS))
                                             for lead in range(-1, 4))
#: ``BADNESS[lead + 1][card]`` by ``lead`` and trick entry ``card | seat << 7`` (seats 0..7), as lists (the trick's
#: end reads them through ``list.__getitem__``): the rows of the lead colours 0..3, then the row of no lead colour,
#: which ``TRICK_BADNESS[-1]`` finds (no ``lead + 1`` to add at each trick).
TRICK_BADNESS: tuple[list[int], ...] = tuple([*row, *[0] * (128 - NUM_CARDS)] * 8 for row in (*BADNESS[1:], BADNESS[0]))
#: ``{"seat", "card"}`` (the card's code; "" past the pack) by trick entry ``card | seat << 7`` (seats 0..7): the
#: final trick of a round's result (``FoolRules.last``) is made of these, shared and never changed (observations
#: copy them).
PLAYS: tuple[dict[str, Any], ...] = tuple({"seat": t >> 7, "card": CODES[t & 127] if t & 127 < NUM_CARDS else ""}
                                          for t in range(8 << 7))


#: A trick entry's seat part ``seat << 7`` by seat (0..7): ``card + SEAT_BITS[seat]`` is ``card | seat << 7`` at
#: less cost (a tuple read and an int add are specialized instructions, a shift and an or are not).
SEAT_BITS: tuple[int, ...] = tuple(seat << 7 for seat in range(8))
#: The seat ``entry >> 7`` of each trick entry ``card | seat << 7`` (seats 0..7), read at the trick's end (a shift is
#: not a specialized instruction, a tuple read is).
ENTRY_SEAT: tuple[int, ...] = tuple(entry >> 7 for entry in range(8 << 7))

#: Each card's minus points by id (``PENALTY``) as a list: ``list.__getitem__`` is a faster call than a tuple's.
_PENALTY_OF = list(PENALTY).__getitem__


def hand_penalty(hand: Sequence[Sequence[Card]]) -> int:
    """Minus points of a hand split by colour (FL-R13): the sum of the printed values, 5 for each 1."""
    g, r, y, b, w = hand
    return sum(map(_PENALTY_OF, [*g, *r, *y, *b, *w]))

#: FL-D1 placeholder deck table -- ASSUMED, unverified (must be checked against a physical Overview card).
DEFAULT_DECK_TABLE: dict[str, dict[str, int]] = {
    "4": {"G": 17, "R": 13, "Y": 11, "B": 8, "W1": 3},
    "5": {"G": 20, "R": 16, "Y": 14, "B": 10, "W1": 4},
    "6": {"G": 23, "R": 19, "Y": 17, "B": 12, "W1": 5},
    "7": {"G": 26, "R": 22, "Y": 20, "B": 14, "W1": 6},
    "8": {"G": 27, "R": 23, "Y": 21, "B": 15, "W1": 6},
}
TABLE_KEYS = ("G", "R", "Y", "B", "W1")


def hand_size(players: int) -> int:
    """Cards dealt to each player (FL-R3, FL-T15): 12, or 11 with 8 players."""
    return 11 if players == 8 else 12


def check_deck_table(value: Any) -> dict[str, dict[str, int]]:
    """Validate a ``deck_table`` option value and merge it over the FL-D1 default (FL-R3, FL-D1).

    Args:
        value: ``{"<players>": {"G": max, "R": max, "Y": max, "B": max, "W1": ones}, ...}`` for any of the
            player counts 4..8 (keys may be ints; colour keys case-insensitive); counts not given keep the
            default entry.
    Returns:
        The full table, every count 4..8, keys normalized (``"4"``, ``"G"`` ... ``"W1"``).
    Raises:
        OptionError: for a bad shape, an unknown player count or colour, a value out of range (colour max
            1..top of the pack, where 1 = no card of that colour; W1 0..6), or an entry that does not deal
            evenly (12 cards per player, 11 at 8 players; FL-T15).
    """
    if not isinstance(value, Mapping):
        raise OptionError("option 'deck_table' must be an object {players: {G, R, Y, B, W1}}; "
                          f"got {value!r}")
    table = {k: dict(v) for k, v in DEFAULT_DECK_TABLE.items()}
    for raw_key, entry in value.items():
        key = str(raw_key).strip()
        if key not in table:
            raise OptionError(f"option 'deck_table': unknown player count {raw_key!r}; counts are 4..8")
        if not isinstance(entry, Mapping):
            raise OptionError(f"option 'deck_table': entry {key} must be an object with G, R, Y, B, W1")
        norm: dict[str, int] = {}
        for name, amount in entry.items():
            letter = str(name).strip().upper()
            if letter not in TABLE_KEYS:
                raise OptionError(f"option 'deck_table': entry {key} has unknown colour {name!r}; "
                                  "colours are G, R, Y, B and W1")
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise OptionError(f"option 'deck_table': entry {key} {letter} must be a whole number; "
                                  f"got {amount!r}")
            if letter == "W1":
                if not 0 <= amount <= 6:
                    raise OptionError(f"option 'deck_table': entry {key} W1 must be 0..6 wild ones; got {amount}")
            else:
                top = TOPS[COLOUR_LETTERS.index(letter)]
                if not 1 <= amount <= top:
                    raise OptionError(f"option 'deck_table': entry {key} {letter} is the highest value kept and "
                                      f"must be 1..{top}; got {amount}")
            norm[letter] = amount
        missing = [k for k in TABLE_KEYS if k not in norm]
        if missing:
            raise OptionError(f"option 'deck_table': entry {key} lacks {', '.join(missing)}")
        players = int(key)
        total = sum(norm[c] - 1 for c in COLOUR_LETTERS) + norm["W1"]
        if total != players * hand_size(players):
            raise OptionError(f"option 'deck_table': entry {key} has {total} cards, which does not deal evenly: "
                              f"{players} players need {players * hand_size(players)} "
                              f"({hand_size(players)} each, FL-R3)")
        table[key] = {k: norm[k] for k in TABLE_KEYS}
    return table


#: The seats an option naming a seat offers: every seat of the largest table (FL-R3: 8 players); the value is the
#: seat's number from 0, its words count from 1 ("Seat 1"), as every surface numbers seats for people.
SEAT_CHOICES: tuple[Any, ...] = ("random", *range(8))
SEAT_WORDS: dict[Any, str] = {"random": "random", **{seat: f"Seat {seat + 1}" for seat in range(8)}}


class _SeatOrRandom(Option):
    """An option taking ``"random"`` or a seat number from 0 (``first_dealer``, FL-D7), shown to people as
    "Seat 1".."Seat 8" (:data:`SEAT_WORDS`)."""

    def _convert(self, value: Any) -> Any:
        if isinstance(value, bool):
            raise OptionError(f"option {self.name!r} takes 'random' or a seat number; got {value!r}")
        if isinstance(value, int):
            return value
        text = str(value).strip().lower()
        if text == "random":
            return "random"
        try:
            return int(text)
        except ValueError:
            raise OptionError(f"option {self.name!r} takes 'random' or a seat number; got {value!r}") from None


class FoolGameRules(Game):
    """Fool! (FL-R1 to FL-R14, rulings FL-D1 to FL-D12), seats 0..players-1 clockwise.

    Options: ``players`` 4-8 (FL-R3), ``deck_table`` (FL-D1), ``two_fools_from_players`` 7|8 (FL-D2),
    ``end_total`` and ``end_bonus_count`` (FL-R14, FL-D9), ``tie_break`` shared|most_bonuses (FL-D8),
    ``first_dealer`` "random" or a seat (FL-D7), ``rounds`` (0 = the whole match, N = stop after N rounds).

    Rulings beyond rules/fool.md: FL-D12 the six W1 are interchangeable, one action (82) plays a W1 (see
    ``cards.py``); FL-D13 an explicit deal names its dealer, which overrides ``first_dealer``; FL-D14 a
    ``deck_table`` may give only some player counts, the others keep the FL-D1 entry; FL-D15 ``returns()``
    gives +1 to every winner (each of a shared win, FL-D8) and -1 to everyone else, also when ``rounds``
    stops the match early (winners = highest totals then).

    The options, the deck and the deals; the public game is ``game.Fool``, which adds the observation's size
    and the determinizer.

    Raises (constructor):
        OptionError: for a bad option value, a bad deck table, or a ``first_dealer`` seat out of range.
    """

    #: The class of this game's states (set by ``game.py`` to the assembled ``FoolState``).
    state_class: ClassVar[type[FoolRules]]
    #: The deck's block of the observation tensor (``observe.deck_block``; set by ``game.Fool``).
    deck_block: npt.NDArray[np.float32]

    name = "fool"
    title = "Fool!"
    rules_file = "fool.md"
    min_players = 4
    max_players = 8
    options = (
        Option("players", 5, "number of players, 4-8 (FL-R3)", kind="int", minimum=4, maximum=8,
               label="Players"),
        Option("deck_table", DEFAULT_DECK_TABLE,
               "one row per player count: the highest card of each colour (G, R, Y, B) and how many W1 cards "
               "are used (FL-D1; default ASSUMED)",
               kind="json", check=check_deck_table, label="Cards in play per player count", assumed=True),
        Option("two_fools_from_players", 7, "two Fool discs from this player count on (FL-D2, FL-R4)",
               choices=(7, 8), kind="int", label="Two Fool discs from",
               choice_labels={7: "7 players", 8: "8 players only"}),
        Option("end_total", -80, "the match ends when a total is at or below this (FL-R14, FL-D9)", kind="int",
               served=(-300, -10), label="Match ends at total"),
        Option("end_bonus_count", 6, "the match ends when a player has this many +10 bonuses (FL-R14)",
               kind="int", minimum=1, served=(1, 20), label="Match ends at +10 bonuses"),
        Option("tie_break", "shared", "equal top totals: shared win, or most bonuses (FL-D8)",
               choices=("shared", "most_bonuses"), label="Tie for the top",
               choice_labels={"shared": "share the win", "most_bonuses": "most +10 bonuses wins"}),
        _SeatOrRandom("first_dealer", "random", "first dealer: random, or a seat number from 0 (FL-D7)",
                      choices=SEAT_CHOICES, label="First dealer", choice_labels=SEAT_WORDS, seats=True),
        Option("rounds", 0, "0 = play the match to its end (FL-R14); N = stop after N rounds", kind="int",
               minimum=0, served=(0, 100), label="Rounds (0: whole match)"),
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        n = self.num_players
        first = self.params["first_dealer"]
        if first != "random" and not 0 <= first < n:
            raise OptionError(f"option 'first_dealer' must be 'random' or a seat 0..{n - 1} (Seat 1 to Seat {n} "
                              f"at {n} players); got {first!r} (Seat {first + 1})")
        entry = self.params["deck_table"][str(n)]
        #: Whether the deck in use is the unverified FL-D1 placeholder.
        self.deck_assumed: bool = entry == DEFAULT_DECK_TABLE[str(n)]
        self.ones: int = entry["W1"]
        coloured = [BASES[c] + v - 2 for c in range(4) for v in range(2, entry[COLOUR_LETTERS[c]] + 1)]
        #: The cards of this player count's deck (FL-R3), W1s as id 82 repeated (FL-D12).
        self.deck: tuple[int, ...] = tuple(coloured) + (W1,) * self.ones
        kept = set(coloured)
        self.in_deck: tuple[bool, ...] = tuple(i in kept or (i >= W1 and self.ones > 0) for i in range(NUM_CARDS))
        runs = [f"{COLOUR_LETTERS[c]}2..{COLOUR_LETTERS[c]}{entry[COLOUR_LETTERS[c]]}" for c in range(4)
                if entry[COLOUR_LETTERS[c]] >= 2] + (["W1"] if self.ones else [])
        #: The card codes of this deck in words, for errors ("G2..G20, R2..R16, ... and W1").
        self.deck_codes: str = ", ".join(runs[:-1]) + " and " + runs[-1] if len(runs) > 1 else "".join(runs)
        self.hand_size: int = hand_size(n)
        #: Where each seat's hand starts in the dealt deck, seat 0 first (FL-R3).
        self.cuts = range(0, n * self.hand_size, self.hand_size)
        #: Fool discs per trick (FL-R4, FL-R11, FL-D2).
        self.num_fools: int = 2 if n >= self.params["two_fools_from_players"] else 1
        #: Seats clockwise starting at each seat.
        self.rotations: tuple[tuple[int, ...], ...] = tuple(tuple((s + i) % n for i in range(n)) for s in range(n))
        #: The seats of the next trick after each (winner, Fools) (FL-R10, FL-D6), filled as met; the lists
        #: are shared by states and never changed in place.
        self.next_orders: dict[tuple[int, tuple[int, ...]], list[int]] = {}
        #: With one Fool a trick: ``next_order(winner, (fool,))`` as ``one_fool_orders[winner][fool]``, read
        #: without hashing a key (empty with two Fools).
        self.one_fool_orders: list[list[list[int]]] = []
        if self.num_fools == 1:
            self.one_fool_orders = [[self.next_order(winner, (fool,)) for fool in range(n)] for winner in range(n)]

    def next_order(self, winner: int, fools: tuple[int, ...]) -> list[int]:
        """The seats of the trick after one won by ``winner`` with ``fools`` (seats, in order): the winner leads
        (FL-R10), or if the winner is a Fool the next seat clockwise not sitting out (FL-D6); the Fools sit out.
        Kept in ``next_orders``: the same list each time, never to be changed in place."""
        nxt = self.next_orders.get((winner, fools))
        if nxt is None:
            rot = self.rotations
            leader = winner
            if winner in fools:  # FL-D6: the lead passes clockwise to the next seat not sitting out
                leader = next(s for s in rot[winner] if s not in fools)
            nxt = self.next_orders[winner, fools] = [s for s in rot[leader] if s not in fools]
        return nxt

    def _new_state(self, seed: int, deal: Mapping[str, Any] | None) -> FoolRules:
        rng = seeded_rng(seed)  # as random.Random(seed)
        state = self.state_class(self, {"seed": seed, "deal": None if deal is None else self._deal_to_json(deal)}, rng)
        if deal is None:
            first = self.params["first_dealer"]
            dealer = rng.randrange(self.num_players) if first == "random" else int(first)  # FL-D7
            state.start_round(dealer, 1, None)
        else:
            hands, dealer = self._hands_from_deal(deal)
            state.start_round(dealer, 1, hands)
        return state

    def _deal_to_json(self, deal: Mapping[str, Any]) -> dict[str, Any]:
        self._hands_from_deal(deal)  # validate first: DealError before anything else
        return {"hands": [[str(c).strip().upper() for c in hand] for hand in deal["hands"]],
                "dealer": int(deal["dealer"])}

    def _hands_from_deal(self, deal: Mapping[str, Any]) -> tuple[list[list[int]], int]:
        """Hands (card ids) and dealer of ``{"hands": [[codes], ...], "dealer": seat}`` (FL-R3, FL-T15).

        Raises:
            DealError: wrong shape, wrong number of hands or cards, an unknown code, a duplicate card, a card
                not in this player count's deck, too many W1, or a dealer that is not a seat.
        """
        n = self.num_players
        if not isinstance(deal, Mapping) or set(deal) != {"hands", "dealer"}:
            raise DealError('a fool deal is {"hands": [[codes], ...one per seat], "dealer": seat}')
        dealer = deal["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise DealError(f"the deal's dealer must be a seat 0..{n - 1}; got {dealer!r}")
        raw = deal["hands"]
        if not isinstance(raw, (list, tuple)) or len(raw) != n:
            raise DealError(f"a fool deal at {n} players has exactly {n} hands")
        hands: list[list[int]] = []
        seen: set[int] = set()
        ones = 0
        for seat, codes in enumerate(raw):
            what = f"hand of seat {seat}"
            cards = cards_from_codes(codes, CODE_INDEX, what)
            if len(cards) != self.hand_size:
                raise DealError(f"{what} has {len(cards)} cards; each hand has {self.hand_size} at {n} players "
                                "(FL-R3)")
            for c in cards:
                if c == W1:
                    ones += 1
                    continue
                if c in seen:
                    raise DealError(f"the deal holds {CODES[c]} twice")
                if not self.in_deck[c]:
                    raise DealError(f"{what} holds {CODES[c]}, which is not in the deck at {n} players "
                                    "(FL-D1 deck table)")
                seen.add(c)
            hands.append(cards)
        if ones > self.ones:
            raise DealError(f"the deal holds {ones} W1 but the deck at {n} players has {self.ones}")
        return hands, dealer

    def num_distinct_actions(self) -> int:
        return NUM_CARDS

    def max_decisions(self) -> int:
        """At most ``rounds x N x hand size`` decisions for N players (every decision plays a card, FL-R6).

        Rounds: ``rounds`` when set, and in any case at most ``floor(N (10 (B - 1) - (E + 1)) / 2) + 1`` with
        ``E = end_total`` and ``B = end_bonus_count`` (FL-R14): while the match goes on every total is above E,
        so the totals sum to at least N (E + 1); fewer than B bonuses of +10 each per seat have been scored
        (FL-R13), at most 10 N (B - 1) points in all; and every round takes at least 2 points off the totals:
        a round ends in a trick after the first (hands hold 11-12 cards, FL-R3), which the previous trick's
        Fool sits out (FL-R10) holding at least one card, worth -2 or less (FL-R1, FL-R13).
        """
        n = self.num_players
        p = self.params
        rounds: int = (n * (10 * (p["end_bonus_count"] - 1) - (p["end_total"] + 1))) // 2 + 1
        if p["rounds"]:
            rounds = min(rounds, int(p["rounds"]))
        return max(rounds, 1) * n * hand_size(n)

    def _state_from_dict(self, data: Mapping[str, Any]) -> FoolRules:
        state = self.state_class(self, data["origin"])
        state._set_history(data["history"])
        state.use_rng(rng_from_json(data["rng"]))
        state.hands = [[[int(c) for c in col] for col in hand] for hand in data["hands"]]
        state.sizes = [sum(len(col) for col in hand) for hand in state.hands]
        state.dealer = int(data["dealer"])
        state.round_number = int(data["round_number"] if "round_number" in data else data["round"])  # older: "round"
        state.order, state.pos = [int(s) for s in data["order"]], int(data["pos"])
        state.trick, state.lead = [int(t) for t in data["trick"]], int(data["lead"])
        state.out = tuple(int(s) for s in data["out"])
        state.tricks = [(tuple(int(t) for t in p), int(lc), int(w), tuple(int(f) for f in fo))
                        for p, lc, w, fo in data["tricks"]]
        state.totals, state.bonuses = [int(x) for x in data["totals"]], [int(x) for x in data["bonuses"]]
        last = data["last"]
        if last is not None and "round" in last:  # older text named the round number "round"
            last = {"round_number" if key == "round" else key: value for key, value in last.items()}
        state.last = last
        # text serialized before the score sheet existed has none: it starts from the rounds still to come
        state.rounds = tuple(tuple(int(x) for x in r) for r in data.get("rounds", ()))
        state.done = bool(data["done"])
        return state


def trick_winner(trick: Sequence[int], lead: int) -> int:
    """The seat whose card wins ``trick`` so far (entries ``seat << 7 | card``, in play order; ``lead`` the lead
    colour index, -1 while only 1s were played): the highest lead-colour card (FL-R8), else the first-played 1
    (FL-D5).

    Raises:
        IndexError: for an empty trick.
    """
    winner = trick[0] >> 7
    best = 0
    for t in trick:
        c = t & 127
        if COLOUR[c] == lead and VALUE[c] > best:
            best, winner = VALUE[c], t >> 7
    return winner


class FoolRules(SearchState):
    """A position of a Fool! match and the rules it plays by. See the module docstring for the layout,
    ``cards.py`` for the card ids; the public State is ``game.FoolState``, which adds what a seat sees."""

    __slots__ = ("bonuses", "dealer", "done", "hands", "last", "lead", "order", "out", "pos", "round_number",
                 "rounds", "sizes", "totals", "trick", "tricks")

    game: FoolGameRules

    def __init__(self, game: FoolGameRules, origin: dict[str, Any] | None,
                 rng: random.Random | None = None) -> None:
        super().__init__(game, origin, rng)  # the rng shuffles the later deals
        n = game.num_players
        #: Per seat five sorted lists of card ids, G R Y B W (the module docstring); none until a round is dealt
        #: (``start_round``) or the position is built (``_state_from_dict``, ``sample``).
        self.hands: list[list[list[int]]] = []
        self.sizes = [0] * n
        self.dealer = 0
        self.round_number = 1
        self.order: list[int] = []
        self.pos = 0
        self.trick: list[int] = []
        self.lead = -1  # lead colour of the current trick, -1 while unset (FL-R7)
        self.out: tuple[int, ...] = ()  # seats holding a Fool disc: they sit out this trick (FL-R10)
        #: Completed tricks of this round: (plays, lead colour, winner, fools).
        self.tricks: list[tuple[tuple[int, ...], int, int, tuple[int, ...]]] = []
        self.totals = [0] * n
        self.bonuses = [0] * n
        self.last: dict[str, Any] | None = None
        #: Each finished round's points per seat, in order (FL-R13): the match's score sheet.
        self.rounds: tuple[tuple[int, ...], ...] = ()
        self.done = False

    # ---- rounds ------------------------------------------------------------------------------
    def start_round(self, dealer: int, round_number: int, hands: list[list[int]] | None) -> None:
        """Deal a round (FL-R3) and set up its first trick (FL-R5, FL-D7).

        ``hands`` are the explicit cards per seat; ``None`` shuffles the deck with the state's rng.
        Discs start in the centre, so everybody plays the first trick (FL-R10, FL-D7).
        """
        game = self.game
        if hands is None:
            # A uniform shuffle, faster than rng.shuffle: the deck sorted by a draw of the generator for each card,
            # drawn in the deck's order. The key is ``next(draws, card)``: the next draw (the card, the default,
            # is never returned), all of it called in C, without a Python frame per card.
            draws = starmap(self.own_rng().random, repeat(()))
            dealt = sorted(game.deck, key=partial(next, draws))
            k = game.hand_size
            self.hands = dealt_hands = []
            for i in game.cuts:  # each seat's cards, sorted in place (a new list) and split by colour
                hand = dealt[i:i + k]
                hand.sort()
                dealt_hands.append(split_sorted(hand))
            self.sizes = [k] * game.num_players
        else:
            self.hands = [split_hand(h) for h in hands]
            self.sizes = [len(h) for h in hands]
        self.dealer, self.round_number = dealer, round_number
        self.order = list(game.rotations[(dealer + 1) % game.num_players])  # FL-R5: left of the dealer leads
        self.pos = 0
        self.trick = []
        self.lead = -1
        self.out = ()
        self.tricks = []

    def winning_seat(self) -> int | None:
        """The seat whose card wins the current trick so far (:func:`trick_winner`), None before its first card."""
        return trick_winner(self.trick, self.lead) if self.trick else None

    def _finish_trick(self) -> None:
        """Winner (FL-R8, FL-D5), Fool(s) (FL-R9, FL-R10, FL-R11, FL-D3, FL-D4, FL-D6), round end (FL-R12)."""
        trick, lc = self.trick, self.lead
        # FL-R9, FL-D3, FL-D4: the badness of each entry, the index left out: only W1s (all id 82) are equal
        # cards, and among equals the later-played is worse. The winner (FL-R8, FL-D5, as trick_winner): the
        # highest badness, the first-played of equals. With a lead colour set, that is the highest lead-colour
        # card (a W1 counts as value 1, below every coloured card, and a discard lower still); with none set
        # every card is a W1, all equal, and the first one played wins.
        bad = TRICK_BADNESS[lc]  # -1, no lead colour: the last row
        game = self.game
        if game.num_fools == 1:  # one pass: the worst (the last-played of equals) and the best
            worst = best = trick[0]
            low = high = bad[worst]
            for entry in trick:
                b = bad[entry]
                if b <= low:
                    worst, low = entry, b
                elif b > high:
                    best, high = entry, b
            winner, fool = ENTRY_SEAT[best], ENTRY_SEAT[worst]
            fools: tuple[int, ...] = (fool,)
            order = game.one_fool_orders[winner][fool]
        else:  # a stable sort of the trick reversed: equals in the order later-played first
            ranked = sorted(reversed(trick), key=bad.__getitem__)
            winner, fools = ranked[-1] >> 7, (ranked[0] >> 7, ranked[1] >> 7)
            order = game.next_order(winner, fools)
        self.tricks.append((tuple(trick), lc, winner, fools))
        if 0 in self.sizes:  # FL-R12: somebody played their last card; the trick is complete
            self._end_round(fools)
            return
        self.out = fools  # FL-R10: the Fools take the discs (the previous Fools rejoin) and sit out
        self.order = order
        self.pos = 0
        self.trick = []
        self.lead = -1

    def _end_round(self, fools: tuple[int, ...]) -> None:
        """Score the round (FL-R13), then end the match (FL-R14, FL-D9, ``rounds``) or deal the next."""
        params = self.game.params
        round_scores = []
        bonus, fooled = [], []
        totals, sizes = self.totals, self.sizes
        for s, hand in enumerate(self.hands):
            if not sizes[s]:
                if s in fools:  # FL-R13: 0 if fooled in the final trick
                    pts = 0
                    fooled.append(s)
                else:  # FL-R13: +10 for going out
                    pts = 10
                    bonus.append(s)
                    self.bonuses[s] += 1
            else:  # a 1 counts -5
                pts = -hand_penalty(hand)
            round_scores.append(pts)
            totals[s] += pts
        self.rounds = (*self.rounds, tuple(round_scores))
        self.last = {
            "round_number": self.round_number,
            "scores": round_scores,
            "bonus": bonus,
            "went_out_fooled": fooled,
            "fools": list(fools),
            "final_trick": [PLAYS[t] for t in self.trick],
        }
        self.out = fools  # FL-R12: the Fools of the final trick still take the discs
        self.trick = []
        self.lead = -1
        self.order = []
        self.pos = 0
        limit = params["rounds"]
        if (limit and self.round_number >= limit) or min(self.totals) <= params["end_total"] \
                or max(self.bonuses) >= params["end_bonus_count"]:  # FL-R14
            self.done = True
            return
        if self.stops_at_deal_end:  # a search world: nobody looks at the next deal
            self.round_number += 1
            return
        n = self.game.num_players
        self.start_round((self.dealer + 1) % n, self.round_number + 1, None)  # FL-D7: the deal passes left

    # ---- the move interface ------------------------------------------------------------------
    def deal_number(self) -> int:
        """Index of the current round from 0 (search stops its rollouts at the end of the round)."""
        return self.round_number - 1

    def current_player(self) -> int:
        return TERMINAL if self.done else self.order[self.pos]

    def legal_actions(self) -> list[Action]:
        """Sorted card ids the player to move may play (FL-R6 follow colour, FL-R7 a W1 is always allowed, one
        action for all W1s, FL-D12); ``[]`` when the match is over. A new list each call (nothing is cached:
        building it costs less than keeping a copy up to date)."""
        try:  # a try costs nothing until it catches, a test of ``done`` costs every call
            hand = self.hands[self.order[self.pos]]
        except IndexError:  # no seat is to play: the match is over (its end empties ``order``, FL-R14)
            return []
        lc = self.lead
        if lc >= 0 and hand[lc]:  # FL-R6: follow the lead colour, or play a W1 (FL-R7)
            return [*hand[lc], W1] if hand[W] else [*hand[lc]]
        # leading, or void in the lead colour: any card (FL-R6)
        legal = [*hand[0], *hand[1], *hand[2], *hand[3]]
        if hand[W]:
            legal.append(W1)
        return legal

    def _is_legal(self, action: Action) -> bool:
        """Is card id ``action`` (an int) playable now (FL-R6, FL-R7, FL-D12): exactly ``action in
        legal_actions()``, read from the hand without building the list."""
        try:  # cheaper than testing ``done`` and the id's range: ids 83..87 name W1s but are held as 82 (FL-D12),
            col = COLOUR[action]  # and negative ids are in no hand
            hand = self.hands[self.order[self.pos]]
        except IndexError:  # an id past the pack, or no seat to play: the match is over (its end empties ``order``)
            return False
        lc = self.lead
        # the colour may be played (FL-R6, FL-R7): the lead colour's (the commonest first), any while none is set, a
        # W1 (W: the last colour), any of a seat void in the lead colour; as a condition, as a compare that only
        # jumps runs specialized (one whose value is returned does not)
        if col == lc or lc < 0 or col >= W or not hand[lc]:
            return action in hand[col]  # and the card is held
        return False

    def why_illegal(self, action: Action) -> str:
        """The reason ``action`` cannot be played now (game over, unknown id, not in deck/hand, FL-R6), addressed to
        the seat to move ("you hold ...")."""
        if self.done:
            return "the game is over"
        if not 0 <= action < NUM_CARDS:
            return f"unknown action id; actions are card ids 0..{NUM_CARDS - 1}"
        p = self.order[self.pos]
        code = CODES[action]
        if not self.game.in_deck[action]:
            return f"{code} is not in the deck at {self.game.num_players} players (FL-D1 deck table)"
        hand = self.hands[p]
        if action >= W1:
            if not hand[W]:
                return "you hold no W1"
            return f"every W1 is played as action {W1} ('W1')"
        if action not in hand[COLOUR[action]]:
            return f"you do not hold {code}"
        lc = self.lead
        if lc >= 0 and hand[lc] and COLOUR[action] != lc:
            return (f"{code} does not follow the lead colour {COLOUR_NAMES[lc]}: you hold "
                    f"{', '.join(CODES[c] for c in hand[lc])} and must play {COLOUR_NAMES[lc]} or a W1 (FL-R6, FL-R7)")
        return super().why_illegal(action)

    def _apply(self, action: Action) -> None:
        order, pos = self.order, self.pos
        p = order[pos]
        col = COLOUR[action]
        self.hands[p][col].remove(action)
        self.sizes[p] -= 1
        self.trick.append(action + SEAT_BITS[p])  # action | p << 7
        if self.lead < 0 and col != W:
            self.lead = col  # FL-R7: the first non-1 card sets the lead colour
        pos += 1
        self.pos = pos
        if pos == len(order):
            self._finish_trick()

    def playout(self, rng: random.Random) -> None:
        """``SearchState.playout`` as one loop over the tricks (search rollouts spend most of their time here):
        uniformly random cards until the match or the current round ends.

        At each turn the legal cards are listed in ``legal_actions()`` order (FL-R6, FL-R7) and one is
        drawn as ``legal[int(rng.random() * len(legal))]``: uniform up to a bias below 2**-46 (a 53-bit
        float scaled to a hand), at a tenth of the cost of ``rng.randrange``. The loop repeats
        ``legal_actions`` and ``_apply`` above (FL-R6, FL-R7): a change to either rule changes it too.
        """
        draw = rng.random
        history: list[int] = []
        round_number = self.round_number
        while not self.done:
            hands, sizes, order, trick, lead = self.hands, self.sizes, self.order, self.trick, self.lead
            for pos in range(self.pos, len(order)):
                p = order[pos]
                hand = hands[p]
                ones = hand[W]
                # the legal cards, in legal_actions() order: the lead colour (else every colour), one W1
                if lead >= 0 and hand[lead]:
                    cards = hand[lead]
                    i = int(draw() * (len(cards) + (1 if ones else 0)))
                else:
                    i = int(draw() * (sizes[p] - len(ones) + (1 if ones else 0)))
                    for cards in hand:  # ends at the W1s if i is past the coloured cards
                        if i < len(cards):
                            break
                        i -= len(cards)
                action = cards.pop(i) if i < len(cards) else ones.pop()
                col = COLOUR[action]
                sizes[p] -= 1
                trick.append(action | p << 7)
                history.append(action)
                if lead < 0 and col != W:
                    lead = col  # FL-R7: the first non-1 card sets the lead colour
            self.pos, self.lead = len(order), lead
            self._finish_trick()
            if self.round_number != round_number:
                break
        self._extend_history(history)

    def why_not_turn(self, seat: Seat) -> str:
        """Why ``seat`` may not move now: it sits out this trick with a Fool disc (FL-R10), or it is not its turn."""
        if seat in self.out:
            return f"seat {seat} holds a Fool disc and sits out this trick (FL-R10)"
        return super().why_not_turn(seat)

    def action_to_string(self, action: Action) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_CARDS:
            raise InvalidMoveError(action, f"unknown action id; actions are card ids 0..{NUM_CARDS - 1}")
        return CODES[action]

    def _parse_move(self, text: str) -> Action:
        action = CODE_INDEX.get("".join(text.split()).upper())
        if action is None:
            raise InvalidMoveError(text, f"unknown card code; the codes at {self.game.num_players} players are "
                                         f"{self.game.deck_codes}")
        return action

    # ---- results -----------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.done

    def scores(self) -> list[int]:
        """Running totals of the match (FL-R13)."""
        return list(self.totals)

    def winners(self) -> list[int]:
        """Seats with the highest total (FL-R14), tie broken by ``tie_break`` (FL-D8); [] before the end."""
        if not self.done:
            return []
        top = max(self.totals)
        tied = [s for s, t in enumerate(self.totals) if t == top]
        if len(tied) > 1 and self.game.params["tie_break"] == "most_bonuses":
            most = max(self.bonuses[s] for s in tied)
            tied = [s for s in tied if self.bonuses[s] == most]
        return tied

    def returns(self) -> list[float]:
        """+1 for every winner (a shared win gives +1 to each, FL-D8), -1 for the others; 0s until the end."""
        if not self.done:
            return [0.0] * self.game.num_players
        won = self.winners()
        return [1.0 if s in won else -1.0 for s in range(self.game.num_players)]

    # ---- copies and persistence --------------------------------------------------------------
    def clone(self) -> Self:
        cls = type(self)
        new = cls.__new__(cls)
        self._clone_base(new)
        new.hands = [[list(col) for col in hand] for hand in self.hands]
        new.sizes = list(self.sizes)
        new.dealer, new.round_number = self.dealer, self.round_number
        new.order, new.pos = self.order, self.pos  # never changed in place
        new.trick, new.lead, new.out = list(self.trick), self.lead, self.out
        new.tricks = list(self.tricks)
        new.totals, new.bonuses = list(self.totals), list(self.bonuses)
        new.last, new.done = self.last, self.done  # ``last`` is never mutated, only replaced
        new.rounds = self.rounds  # a tuple, replaced at each round's end
        return new

    def _to_dict(self) -> dict[str, Any]:
        return {
            "origin": self.origin, "history": self.history(), "rng": self.rng_json(),
            "hands": self.hands, "dealer": self.dealer, "round_number": self.round_number, "order": self.order,
            "pos": self.pos, "trick": self.trick, "lead": self.lead, "out": list(self.out),
            "tricks": [[list(p), lc, w, list(f)] for p, lc, w, f in self.tricks],
            "totals": self.totals, "bonuses": self.bonuses, "last": self.last, "done": self.done,
            "rounds": [list(r) for r in self.rounds],
        }
