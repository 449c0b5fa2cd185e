"""Fool! (Friedemann Friese, 2018), 4-8 players: shed your cards, never play the worst card (rules/fool.md).

A game is a match of rounds (FL-R14); ``rounds=N`` stops after N rounds (``rounds=1`` is a single deal).

Card ids (fixed, 88 cards, also the action ids -- an action is "play this card", FL-R6):

* ``0..25``  green  G2..G27  (id = value - 2)
* ``26..47`` red    R2..R23  (id = 26 + value - 2)
* ``48..67`` yellow Y2..Y21  (id = 48 + value - 2)
* ``68..81`` blue   B2..B15  (id = 68 + value - 2)
* ``82..87`` the six wild ones ``W1`` (FL-R1).

The six W1 cards are identical, so the engine keeps them interchangeable (ruling FL-D12): in hands and
tricks every W1 is held as id 82, and playing a W1 is always action 82 (``"W1"``), whoever holds it. Ids
83..87 name the other W1 cards of the pack but are never legal actions; this keeps an action meaning the
same thing in every determinization (``sample_state``), which search bots rely on.

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
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from motley.core.cards import cards_from_codes, shuffle
from motley.core.errors import DealError, IllegalMoveError, MotleyError, OptionError
from motley.core.game import TERMINAL, Game, Observation, rng_from_json
from motley.core.options import Option
from motley.core.search import SearchState

COLOUR_LETTERS = ("G", "R", "Y", "B")
COLOUR_NAMES = ("green", "red", "yellow", "blue", "wild")
#: Highest printed value per colour in the full pack (FL-R1).
TOPS = (27, 23, 21, 15)
BASES = (0, 26, 48, 68)
W = 4  # colour index of the wild ones
W1 = 82  # the id every W1 is held and played as (FL-D12)
NUM_CARDS = 88
WILD_IDS = tuple(range(82, 88))

CODES: tuple[str, ...] = tuple(
    f"{COLOUR_LETTERS[c]}{v}" for c in range(4) for v in range(2, TOPS[c] + 1)) + ("W1",) * 6
CODE_INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES[:W1])} | {"W1": W1}
#: Colour index (0..3 = G R Y B, 4 = wild) and printed value of every card id (FL-R1, FL-R7: a 1 is 1).
COLOUR: tuple[int, ...] = tuple(c for c in range(4) for _ in range(2, TOPS[c] + 1)) + (W,) * 6
VALUE: tuple[int, ...] = tuple(v for c in range(4) for v in range(2, TOPS[c] + 1)) + (1,) * 6
#: Minus points of a card left in hand (FL-R13: the printed value, a 1 counts 5).
PENALTY: tuple[int, ...] = VALUE[:W1] + (5,) * 6
#: ``card id - value`` for each colour: the ids of a colour run up with its values.
_ID_MINUS_VALUE: tuple[int, ...] = tuple(COLOUR.index(c) - 2 for c in range(4))


def badness(card: int, lead: int, index: int) -> int:
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


def hand_penalty(hand: Sequence[Sequence[int]]) -> int:
    """Minus points of a hand split by colour (FL-R13): the sum of the printed values, 5 for each 1."""
    k = _ID_MINUS_VALUE
    return (sum(hand[0]) - k[0] * len(hand[0]) + sum(hand[1]) - k[1] * len(hand[1]) + sum(hand[2])
            - k[2] * len(hand[2]) + sum(hand[3]) - k[3] * len(hand[3]) + PENALTY[W1] * len(hand[W]))

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


class _SeatOrRandom(Option):
    """An option taking ``"random"`` or a seat number (``first_dealer``, FL-D7)."""

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


def _colour_of(lead: int) -> str | None:
    return None if lead < 0 else COLOUR_NAMES[lead]


H = 83  # tensor block per card set: 82 coloured one-hot + W1 count / 6


def tensor_size(players: int) -> int:
    """Length of the observation tensor at ``players`` seats (see ``FoolState.observation_tensor``)."""
    return H * (2 + 2 * players) + 4 + players * 12 + 5


class Fool(Game):
    """Fool! (FL-R1 to FL-R14, rulings FL-D1 to FL-D12), seats 0..players-1 clockwise.

    Options: ``players`` 4-8 (FL-R3), ``deck_table`` (FL-D1), ``two_fools_from_players`` 7|8 (FL-D2),
    ``end_total`` and ``end_bonus_count`` (FL-R14, FL-D9), ``tie_break`` shared|most_bonuses (FL-D8),
    ``first_dealer`` "random" or a seat (FL-D7), ``rounds`` (0 = the whole match, N = stop after N rounds).

    Rulings beyond rules/fool.md: FL-D12 the six W1 are interchangeable, one action (82) plays a W1 (see the
    module docstring); FL-D13 an explicit deal names its dealer, which overrides ``first_dealer``; FL-D14 a
    ``deck_table`` may give only some player counts, the others keep the FL-D1 entry; FL-D15 ``returns()``
    gives +1 to every winner (each of a shared win, FL-D8) and -1 to everyone else, also when ``rounds``
    stops the match early (winners = highest totals then).

    Raises (constructor):
        OptionError: for a bad option value, a bad deck table, or a ``first_dealer`` seat out of range.
    """

    name = "fool"
    title = "Fool!"
    rules_file = "fool.md"
    min_players = 4
    max_players = 8
    options = (
        Option("players", 5, "number of players, 4-8 (FL-R3)", kind="int", minimum=4, maximum=8),
        Option("deck_table", DEFAULT_DECK_TABLE,
               "cards used per player count: highest value per colour and number of W1 (FL-D1; default ASSUMED)",
               kind="json", check=check_deck_table),
        Option("two_fools_from_players", 7, "two Fool discs from this player count on (FL-D2, FL-R4)",
               choices=(7, 8), kind="int"),
        Option("end_total", -80, "the match ends when a total is at or below this (FL-R14, FL-D9)", kind="int"),
        Option("end_bonus_count", 6, "the match ends when a player has this many +10 bonuses (FL-R14)",
               kind="int", minimum=1),
        Option("tie_break", "shared", "equal top totals: shared win, or most bonuses (FL-D8)",
               choices=("shared", "most_bonuses")),
        _SeatOrRandom("first_dealer", "random", "first dealer: random, or a seat number (FL-D7)"),
        Option("rounds", 0, "0 = play the match to its end (FL-R14); N = stop after N rounds", kind="int",
               minimum=0),
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        n = self.num_players
        first = self.params["first_dealer"]
        if first != "random" and not 0 <= first < n:
            raise OptionError(f"option 'first_dealer' must be 'random' or a seat 0..{n - 1}; got {first!r}")
        entry = self.params["deck_table"][str(n)]
        #: Whether the deck in use is the unverified FL-D1 placeholder.
        self.deck_assumed: bool = entry == DEFAULT_DECK_TABLE[str(n)]
        self.ones: int = entry["W1"]
        coloured = [BASES[c] + v - 2 for c in range(4) for v in range(2, entry[COLOUR_LETTERS[c]] + 1)]
        #: The cards of this player count's deck (FL-R3), W1s as id 82 repeated (FL-D12).
        self.deck: tuple[int, ...] = tuple(coloured) + (W1,) * self.ones
        kept = set(coloured)
        self.in_deck: tuple[bool, ...] = tuple(i in kept or (i >= W1 and self.ones > 0) for i in range(NUM_CARDS))
        self.hand_size: int = hand_size(n)
        #: Fool discs per trick (FL-R4, FL-R11, FL-D2).
        self.num_fools: int = 2 if n >= self.params["two_fools_from_players"] else 1
        #: Seats clockwise starting at each seat.
        self.rotations: tuple[tuple[int, ...], ...] = tuple(tuple((s + i) % n for i in range(n)) for s in range(n))
        #: The seats of the next trick after each (winner, Fools) (FL-R10, FL-D6), filled as met; the lists
        #: are shared by states and never changed in place.
        self.next_orders: dict[tuple[int, tuple[int, ...]], list[int]] = {}
        deck_block = np.zeros(H, dtype=np.float32)
        for c in coloured:
            deck_block[c] = 1.0
        deck_block[W1] = self.ones / 6.0
        self.deck_block = deck_block

    def _new_state(self, seed: int, deal: Mapping[str, Any] | None) -> FoolState:
        rng = random.Random(seed)
        state = FoolState(self, {"seed": seed, "deal": None if deal is None else self._deal_to_json(deal)}, rng)
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

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (tensor_size(self.num_players),)

    def num_distinct_actions(self) -> int:
        return NUM_CARDS

    def sample_state(self, observation: Observation, rng: random.Random) -> FoolState:
        """A world consistent with ``observation``: the hidden cards dealt to the other seats at random.

        Hidden cards are the deck (FL-R3) minus the observer's hand minus every card played this round.
        They are dealt by the public hand sizes (FL-D11), respecting voids revealed by play: a seat that
        played a card of another colour (not a 1) after the lead colour was set holds no card of that
        colour (FL-R6); a W1 reveals nothing (FL-R7). A uniformly random deal is kept when it respects the
        voids; after a few misses the cards of void colours are placed one by one, each where the rest stays
        feasible (a Hall check over colour sets), so it never fails on a consistent observation (see
        ``_HiddenDeal``).

        Raises:
            MotleyError: for an observation of another game or player count, or with inconsistent counts.
        """
        return self.determinizer(observation)(rng)

    def determinizer(self, observation: Observation) -> Callable[[random.Random], FoolState]:
        """A sampler distributed as :meth:`sample_state`, parsing ``observation`` once (for search).

        Raises:
            MotleyError: as :meth:`sample_state`: a malformed or inconsistent observation.
        """
        if not isinstance(observation, Mapping) or observation.get("game") != self.name:
            raise MotleyError(f"not a {self.name} observation")
        if observation.get("players") != self.num_players:
            raise MotleyError(f"observation is for {observation.get('players')} players; game has {self.num_players}")
        try:
            template = _public_state(self, observation)
            me = int(observation["seat"])
            mine = [CODE_INDEX[c] for c in observation["hand"]]
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise MotleyError(f"malformed {self.name} observation: {exc!r}") from None
        pool = list(self.deck)
        played = [t & 127 for t in template.trick] + [t & 127 for tr in template.tricks for t in tr[0]]
        for c in mine + played:
            try:
                pool.remove(c)
            except ValueError:
                raise MotleyError(f"observation shows {CODES[c]} more often than the deck holds it") from None
        sizes = [int(x) for x in observation["hand_sizes"]]
        if sizes[me] != len(mine):
            raise MotleyError("observation hand size of the observer differs from its hand")
        others = [s for s in range(self.num_players) if s != me]
        if sum(sizes[s] for s in others) != len(pool):
            raise MotleyError("observation hand sizes do not match the hidden cards")
        deals = _HiddenDeal(pool, sizes, template.voids(), me)
        my_hand = split_hand(mine)
        template.sizes = sizes
        template.hands = []

        def sample(rng: random.Random) -> FoolState:
            hands = deals.deal(rng)
            hands[me] = [list(part) for part in my_hand]
            state = template.clone()
            state.hands = hands
            state.use_seed(rng.getrandbits(64))
            return state

        return sample

    def _state_from_dict(self, data: Mapping[str, Any]) -> FoolState:
        state = FoolState(self, data["origin"])
        state._set_history(data["history"])
        state.use_rng(rng_from_json(data["rng"]))
        state.hands = [[[int(c) for c in col] for col in hand] for hand in data["hands"]]
        state.sizes = [sum(len(col) for col in hand) for hand in state.hands]
        state.dealer, state.round_no = int(data["dealer"]), int(data["round"])
        state.order, state.pos = [int(s) for s in data["order"]], int(data["pos"])
        state.trick, state.lead = [int(t) for t in data["trick"]], int(data["lead"])
        state.out = tuple(int(s) for s in data["out"])
        state.tricks = [(tuple(int(t) for t in p), int(lc), int(w), tuple(int(f) for f in fo))
                        for p, lc, w, fo in data["tricks"]]
        state.totals, state.bonuses = [int(x) for x in data["totals"]], [int(x) for x in data["bonuses"]]
        state.last = data["last"]
        state.done = bool(data["done"])
        return state


class _HiddenDeal:
    """Deals of the hidden cards of one observation, to be sampled many times (search determinizations).

    The hidden ``pool`` goes to the seats other than ``me`` by ``sizes``, no seat getting a colour it is
    void in (FL-R6: voids shown by play; a W1 shows none, FL-R7). A plain deal (the seats of the places
    shuffled) is uniform over all deals, so keeping it when it respects the voids gives the uniform
    distribution over consistent deals. Where that is unlikely (tight voids late in a round: ``TRIES``
    misses), the cards of void colours are placed one by one instead, each to a seat drawn in proportion to
    its free places among those that keep the rest feasible, and the other cards fill the remaining places:
    this never fails and stays close to uniform.

    Feasibility is Hall's condition over the sets of constrained colours: the cards of a set must fit in
    the places of the seats that accept one of its colours (a set with an unconstrained colour always fits,
    the totals being equal). It is kept as a slack per set: a card of colour ``col`` placed at a seat that
    accepts a set without ``col`` uses up one of that set's places.

    Raises (constructor):
        MotleyError: if no consistent deal exists (an inconsistent observation).
    """

    TRIES = 8

    def __init__(self, pool: Sequence[int], sizes: Sequence[int], voids: Sequence[int], me: int) -> None:
        n = len(sizes)
        self.n, self.me = n, me
        self.pool = sorted(pool)  # dealt in this order, each hand comes out sorted by colour and value
        self.slots = [s for s in range(n) if s != me for _ in range(sizes[s])]  # the seat of each place
        self.voids = [0 if s == me else voids[s] for s in range(n)]
        self.others = [s for s in range(n) if s != me]
        constrained = 0
        for v in self.voids:
            constrained |= v
        self.constrained = constrained
        self.allowed = allowed = [0 if s == me else 15 & ~self.voids[s] | 16 for s in range(n)]
        self.cap = cap = [0 if s == me else sizes[s] for s in range(n)]
        subsets = [m for m in range(1, 16) if m & constrained == m]
        count = [0] * 5
        for c in pool:
            count[COLOUR[c]] += 1
        self.slack = {m: sum(cap[s] for s in range(n) if allowed[s] & m)
                      - sum(count[col] for col in range(4) if m >> col & 1) for m in subsets}
        if any(v < 0 for v in self.slack.values()):
            raise MotleyError("no deal of the hidden cards respects the voids shown by play")
        self.tight = sum(1 << m for m, v in self.slack.items() if not v)  # bit m: set m has no slack left
        #: the sets whose slack a card of colour ``col`` at seat ``s`` uses up: ``uses[s][col]``
        self.uses = [[tuple(m for m in subsets if not m >> col & 1 and allowed[s] & m) for col in range(4)]
                     for s in range(n)]
        #: the same sets as a bitmask (bit ``m`` for set ``m``), to test against the tight sets at once
        self.use_bits = [[sum(1 << m for m in uses) for uses in row] for row in self.uses]
        self.void_cards = [c for c in self.pool if constrained >> COLOUR[c] & 1]
        self.free_cards = [c for c in self.pool if not constrained >> COLOUR[c] & 1]
        self.cards = self.void_cards + self.free_cards  # the order of a plain deal: void colours first
        self.colours = [COLOUR[c] for c in self.cards]
        self.bits = [1 << COLOUR[c] for c in self.void_cards]  # against a seat's void bitmask

    def deal(self, rng: random.Random) -> list[list[list[int]]]:
        """Every seat's hand split by colour (G R Y B W), ``me``'s left empty."""
        for _ in range(self.TRIES if self.constrained else 1):
            hands = self._plain(rng)
            if hands is not None:
                return hands
        return self._placed(rng)

    def _plain(self, rng: random.Random) -> list[list[list[int]]] | None:
        """A uniformly random deal, or None if it gives a seat a colour it is void in.

        The places are shuffled forward (Fisher-Yates: place ``i`` gets a uniformly random one of the
        rest), the cards of void colours first, so a deal that breaks a void is dropped after a few draws.
        """
        slots, voids, bits = self.slots, self.voids, self.bits
        draw = rng.random
        n = len(slots)
        for i in range(len(bits)):
            j = i + int(draw() * (n - i))
            s = slots[j]
            slots[j] = slots[i]
            slots[i] = s
            if voids[s] & bits[i]:
                return None
        for i in range(len(bits), n - 1):
            j = i + int(draw() * (n - i))
            slots[i], slots[j] = slots[j], slots[i]
        hands: list[list[list[int]]] = [[[], [], [], [], []] for _ in range(self.n)]
        for c, col, s in zip(self.cards, self.colours, slots, strict=True):
            hands[s][col].append(c)
        return hands

    def _placed(self, rng: random.Random) -> list[list[list[int]]]:
        """A consistent deal built card by card (see the class docstring)."""
        cap, slack, allowed, uses, others = list(self.cap), dict(self.slack), self.allowed, self.uses, self.others
        use_bits, tight = self.use_bits, self.tight
        hands: list[list[int]] = [[] for _ in range(self.n)]
        cards = list(self.void_cards)
        shuffle(cards, rng)
        draw = rng.random
        for c in cards:
            col = COLOUR[c]
            seats = [s for s in others if cap[s] and allowed[s] >> col & 1 and not use_bits[s][col] & tight]
            x = draw() * sum(cap[s] for s in seats)  # seats is never empty: every slack stays >= 0
            for s in seats:
                x -= cap[s]
                if x < 0:
                    break
            cap[s] -= 1
            for m in uses[s][col]:
                slack[m] -= 1
                if not slack[m]:
                    tight |= 1 << m
            hands[s].append(c)
        free = list(self.free_cards)
        shuffle(free, rng)
        start = 0
        for s in others:
            hands[s].extend(free[start:start + cap[s]])
            start += cap[s]
        return [split_hand(h) for h in hands]


def split_hand(cards: Sequence[int]) -> list[list[int]]:
    """A hand as five sorted per-colour lists (G R Y B W); ids are colour blocks, so slice the sorted hand."""
    hand = sorted(cards)
    r, y, b, w = bisect_left(hand, 26), bisect_left(hand, 48), bisect_left(hand, 68), bisect_left(hand, W1)
    return [hand[:r], hand[r:y], hand[y:b], hand[b:w], hand[w:]]


def _plays_from_json(plays: Sequence[Mapping[str, Any]]) -> list[int]:
    return [CODE_INDEX[p["card"]] | int(p["seat"]) << 7 for p in plays]


def _public_state(game: Fool, obs: Mapping[str, Any]) -> FoolState:
    """A state holding every public field of an observation (hands left empty)."""
    state = FoolState(game, None)
    state.dealer, state.round_no = int(obs["dealer"]), int(obs["round"])
    trick = obs["trick"]
    state.order = [int(s) for s in trick["order"]]
    state.trick = _plays_from_json(trick["plays"])
    state.pos = len(state.trick)
    state.lead = -1 if trick["lead"] is None else COLOUR_NAMES.index(trick["lead"])
    state.out = tuple(int(s) for s in obs["sitting_out"])
    state.tricks = [(tuple(_plays_from_json(t["plays"])), -1 if t["lead"] is None else COLOUR_NAMES.index(t["lead"]),
                     int(t["winner"]), tuple(int(f) for f in t["fools"])) for t in obs["tricks"]]
    state.totals = [int(x) for x in obs["scores"]]
    state.bonuses = [int(x) for x in obs["bonus_counts"]]
    state.last = _copy_last(obs["last_round"])
    state.done = bool(obs["terminal"])
    return state


class FoolState(SearchState):
    """A position of a Fool! match. See the module docstring for the layout and the card ids."""

    __slots__ = ("_legal", "bonuses", "dealer", "done", "hands", "last", "lead", "order", "out", "pos", "round_no",
                 "sizes", "totals", "trick", "tricks")

    game: Fool

    def __init__(self, game: Fool, origin: dict[str, Any] | None, rng: random.Random | None = None) -> None:
        super().__init__(game, origin, rng)  # the rng shuffles the later deals
        n = game.num_players
        self.hands: list[list[list[int]]] = [[[], [], [], [], []] for _ in range(n)]
        self.sizes = [0] * n
        self.dealer = 0
        self.round_no = 1
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
        self.done = False
        self._legal: list[int] | None = None

    # ---- rounds ------------------------------------------------------------------------------
    def start_round(self, dealer: int, round_no: int, hands: list[list[int]] | None) -> None:
        """Deal a round (FL-R3) and set up its first trick (FL-R5, FL-D7).

        ``hands`` are the explicit cards per seat; ``None`` shuffles the deck with the state's rng.
        Discs start in the centre, so everybody plays the first trick (FL-R10, FL-D7).
        """
        game = self.game
        if hands is None:
            draw = self.own_rng().random
            deck = sorted(game.deck, key=lambda _card: draw())  # a uniform shuffle, faster than rng.shuffle
            k = game.hand_size
            hands = [deck[i * k:(i + 1) * k] for i in range(game.num_players)]
        self.hands = [split_hand(h) for h in hands]
        self.sizes = [len(h) for h in hands]
        self.dealer, self.round_no = dealer, round_no
        self.order = list(game.rotations[(dealer + 1) % game.num_players])  # FL-R5: left of the dealer leads
        self.pos = 0
        self.trick = []
        self.lead = -1
        self.out = ()
        self.tricks = []
        self._legal = None

    def _finish_trick(self) -> None:
        """Winner (FL-R8, FL-D5), Fool(s) (FL-R9, FL-R10, FL-R11, FL-D3, FL-D4, FL-D6), round end (FL-R12)."""
        trick, lc = self.trick, self.lead
        winner = trick[0] >> 7  # FL-D5: if only 1s were played, the first-played 1 wins
        best = 0
        bad = BADNESS[lc + 1]  # FL-R9, FL-D3, FL-D4: smaller = worse (see badness)
        keys = []  # badness << 3 | seat, so the smallest is the worst card and names its seat
        for i, t in enumerate(trick):
            c = t & 127
            if COLOUR[c] == lc:
                v = VALUE[c]
                if v > best:  # FL-R8: the highest lead-colour card wins
                    best, winner = v, t >> 7
            keys.append((bad[c] - i) << 3 | t >> 7)
        game = self.game
        if game.num_fools == 1:
            fools: tuple[int, ...] = (min(keys) & 7,)
        else:
            keys.sort()
            fools = (keys[0] & 7, keys[1] & 7)
        self.tricks.append((tuple(trick), lc, winner, fools))
        if 0 in self.sizes:  # FL-R12: somebody played their last card; the trick is complete
            self._end_round(fools)
            return
        self.out = fools  # FL-R10: the Fools take the discs (the previous Fools rejoin) and sit out
        nxt = game.next_orders.get((winner, fools))
        if nxt is None:
            rot = game.rotations
            leader = winner
            if winner in fools:  # FL-D6: the lead passes clockwise to the next seat not sitting out
                leader = next(s for s in rot[winner] if s not in fools)
            nxt = game.next_orders[winner, fools] = [s for s in rot[leader] if s not in fools]
        self.order = nxt
        self.pos = 0
        self.trick = []
        self.lead = -1

    def _end_round(self, fools: tuple[int, ...]) -> None:
        """Score the round (FL-R13), then end the match (FL-R14, FL-D9, ``rounds``) or deal the next."""
        params = self.game.params
        round_scores = []
        bonus, fooled = [], []
        totals = self.totals
        for s, hand in enumerate(self.hands):
            if not self.sizes[s]:
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
        self.last = {
            "round": self.round_no,
            "scores": round_scores,
            "bonus": bonus,
            "went_out_fooled": fooled,
            "fools": list(fools),
            "final_trick": [{"seat": t >> 7, "card": CODES[t & 127]} for t in self.trick],
        }
        self.out = fools  # FL-R12: the Fools of the final trick still take the discs
        self.trick = []
        self.lead = -1
        self.order = []
        self.pos = 0
        self._legal = None
        limit = params["rounds"]
        if (limit and self.round_no >= limit) or min(self.totals) <= params["end_total"] \
                or max(self.bonuses) >= params["end_bonus_count"]:  # FL-R14
            self.done = True
            return
        if self.stops_at_deal_end:  # a search world: nobody looks at the next deal
            self.round_no += 1
            return
        n = self.game.num_players
        self.start_round((self.dealer + 1) % n, self.round_no + 1, None)  # FL-D7: the deal passes left

    # ---- the move interface ------------------------------------------------------------------
    def deal_number(self) -> int:
        """Index of the current round from 0 (search stops its rollouts at the end of the round)."""
        return self.round_no - 1

    def current_player(self) -> int:
        return TERMINAL if self.done else self.order[self.pos]

    def _compute_legal(self) -> list[int]:
        """FL-R6 follow colour, FL-R7 a W1 is always allowed (one action for all W1s, FL-D12)."""
        if self.done:
            self._legal = []
            return self._legal
        hand = self.hands[self.order[self.pos]]
        lc = self.lead
        if lc < 0 or not hand[lc]:
            lc = -1  # leading, or void in the lead colour: any card (FL-R6)
        legal = hand[0] + hand[1] + hand[2] + hand[3] + hand[W][:1] if lc < 0 else hand[lc] + hand[W][:1]
        self._legal = legal
        return legal

    def legal_actions(self) -> list[int]:
        """Sorted card ids the player to move may play (FL-R6, FL-R7); ``[]`` when the match is over."""
        legal = self._legal
        if legal is None:
            legal = self._compute_legal()
        return list(legal)

    def _is_legal(self, action: int) -> bool:
        """Is card ``action`` playable now (FL-R6, FL-R7), read from the cached legal list."""
        legal = self._legal
        if legal is None:
            legal = self._compute_legal()
        return action in legal

    def why_not_turn(self, seat: int) -> str:
        """Why ``seat`` may not move now: it sits out this trick with a Fool disc (FL-R10), or it is not its turn."""
        if seat in self.out:
            return f"seat {seat} holds a Fool disc and sits out this trick (FL-R10)"
        return super().why_not_turn(seat)

    def action_to_string(self, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_CARDS:
            raise IllegalMoveError(action, f"unknown action id; actions are card ids 0..{NUM_CARDS - 1}")
        return CODES[action]

    def _parse_move(self, text: str) -> int:
        action = CODE_INDEX.get("".join(text.split()).upper())
        if action is None:
            raise IllegalMoveError(text, "unknown card code; codes are G2..G27, R2..R23, Y2..Y21, B2..B15 and W1")
        return action

    def why_illegal(self, action: int) -> str:
        """The reason ``action`` cannot be played now (game over, unknown id, not in deck/hand, FL-R6)."""
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
                return f"seat {p} (to move) holds no W1"
            return f"every W1 is played as action {W1} ('W1')"
        if action not in hand[COLOUR[action]]:
            return f"seat {p} (to move) does not hold {code}"
        lc = self.lead
        if lc >= 0 and hand[lc] and COLOUR[action] != lc:
            return (f"{code} does not follow the lead colour {COLOUR_NAMES[lc]}: seat {p} holds "
                    f"{', '.join(CODES[c] for c in hand[lc])} and must play {COLOUR_NAMES[lc]} or a W1 (FL-R6, FL-R7)")
        return super().why_illegal(action)

    def _apply(self, action: int) -> None:
        p = self.order[self.pos]
        col = COLOUR[action]
        self.hands[p][col].remove(action)
        self.sizes[p] -= 1
        self.trick.append(action | p << 7)
        if self.lead < 0 and col != W:
            self.lead = col  # FL-R7: the first non-1 card sets the lead colour
        self.pos += 1
        self._legal = None
        if self.pos == len(self.order):
            self._finish_trick()

    def playout(self, rng: random.Random) -> None:
        """``SearchState.playout`` as one loop over the tricks (search rollouts spend most of their time here):
        uniformly random cards until the match or the current round ends.

        At each turn the legal cards are listed in ``legal_actions()`` order (FL-R6, FL-R7) and one is
        drawn as ``legal[int(rng.random() * len(legal))]``: uniform up to a bias below 2**-46 (a 53-bit
        float scaled to a hand), at a tenth of the cost of ``rng.randrange``.
        """
        draw = rng.random
        history: list[int] = []
        round_no = self.round_no
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
            self.pos, self.lead, self._legal = len(order), lead, None
            self._finish_trick()
            if self.round_no != round_no:
                break
        self._extend_history(history)

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

    # ---- information -------------------------------------------------------------------------
    def voids(self) -> list[int]:
        """Per seat a bitmask of colours (bit 0..3 = G R Y B) the seat is known to lack this round.

        A non-1 card of another colour played after the lead colour was set shows a void (FL-R6); the card
        that sets the colour after a led 1 shows nothing, nor does a W1 (FL-R7).
        """
        voids = [0] * self.game.num_players
        for plays, _, _, _ in self.tricks:
            _mark_voids(plays, voids)
        _mark_voids(self.trick, voids)
        return voids

    def observation(self, seat: int) -> Observation:
        """The information state of ``seat``: its hand and everything public (FL-D11: hand sizes).

        Keys: ``game``, ``players``, ``seat``, ``current_player`` (TERMINAL = -4 at the end), ``dealer``,
        ``round`` (1-based), ``hand`` (own codes, by colour G R Y B then value, W1 last), ``hand_sizes``,
        ``trick`` (``{"leader", "order", "lead", "plays": [{"seat", "card"}]}``; ``order`` = the seats
        playing it in turn; ``lead`` a colour name or None), ``tricks`` (this round's completed tricks,
        ``{"leader", "lead", "plays", "winner", "fools"}``), ``sitting_out`` and ``discs`` (the seats holding
        a Fool disc: they sit out the current trick, FL-R10), ``num_fools``, ``voids`` (colour names each
        seat is known to lack), ``scores`` (totals), ``bonus_counts``, ``last_round`` (None, or
        ``{"round", "scores", "bonus", "went_out_fooled", "fools", "final_trick"}``), ``deck`` (the table entry in use),
        ``deck_table_assumed``, ``terminal``, ``winners``, ``returns``.
        """
        self.check_seat(seat)
        hand = self.hands[seat]
        voids = self.voids()
        order = self.order
        return {
            "game": "fool",
            "players": self.game.num_players,
            "seat": seat,
            "current_player": self.current_player(),
            "dealer": self.dealer,
            "round": self.round_no,
            "hand": [CODES[c] for col in hand for c in col],
            "hand_sizes": list(self.sizes),
            "trick": {"leader": order[0] if order else None, "order": list(order), "lead": _colour_of(self.lead),
                      "plays": [{"seat": t >> 7, "card": CODES[t & 127]} for t in self.trick]},
            "tricks": [{"leader": plays[0] >> 7, "lead": _colour_of(lc),
                        "plays": [{"seat": t >> 7, "card": CODES[t & 127]} for t in plays],
                        "winner": winner, "fools": list(fools)} for plays, lc, winner, fools in self.tricks],
            "sitting_out": list(self.out),
            "discs": list(self.out),
            "num_fools": self.game.num_fools,
            "voids": [[COLOUR_NAMES[c] for c in range(4) if v >> c & 1] for v in voids],
            "scores": list(self.totals),
            "bonus_counts": list(self.bonuses),
            "last_round": _copy_last(self.last),
            "deck": dict(self.game.params["deck_table"][str(self.game.num_players)]),
            "deck_table_assumed": self.game.deck_assumed,
            "terminal": self.done,
            "winners": self.winners(),
            "returns": self.returns(),
        }

    def observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        """float32 vector of ``tensor_size(players)`` = 83·(2+2n) + 4 + 12n + 5, from ``seat``'s view.

        Seats are relative: index ``r`` is seat ``(seat + r) % n`` (r = 0 is me, then clockwise). A *card
        block* is 83 floats: 82 one-hot coloured cards (card id order) + the number of W1 / 6. In order:

        * card block: my hand;
        * n card blocks: cards each relative seat played this round (completed tricks and current trick);
        * n card blocks: the card each relative seat played in the current trick;
        * 4: lead colour one-hot (G R Y B; all 0 = not set);
        * n: hand sizes / 12;  n: sitting out (holds a disc);  n: to move one-hot;  n: dealer one-hot;
          n: leader of the current trick one-hot;
        * 4n: known voids (per relative seat, G R Y B);
        * n: totals / 100 clipped to [-1, 1];  n: bonus counts / end_bonus_count clipped to [0, 1];
          n: last round's scores / 100 clipped (0 before the first round ends);
        * card block: the deck in use (1 per coloured card present, W1 count / 6);
        * 5: round / 20 clipped, completed tricks this round / 12, terminal, deck table assumed, two Fools.
        """
        self.check_seat(seat)
        n = self.game.num_players
        out = np.zeros(tensor_size(n), dtype=np.float32)
        rel = [(s - seat) % n for s in range(n)]
        _block(out, 0, [c for col in self.hands[seat] for c in col])
        played_base, trick_base = H, H * (1 + n)
        for plays, _, _, _ in self.tricks:
            for t in plays:
                _add(out, played_base + H * rel[t >> 7], t & 127)
        for t in self.trick:
            _add(out, played_base + H * rel[t >> 7], t & 127)
            _add(out, trick_base + H * rel[t >> 7], t & 127)
        i = H * (1 + 2 * n)
        if self.lead >= 0:
            out[i + self.lead] = 1.0
        i += 4
        for s in range(n):
            r = rel[s]
            out[i + r] = self.sizes[s] / 12.0
            if s in self.out:
                out[i + n + r] = 1.0
        if not self.done:
            out[i + 2 * n + rel[self.order[self.pos]]] = 1.0
            out[i + 4 * n + rel[self.order[0]]] = 1.0
        out[i + 3 * n + rel[self.dealer]] = 1.0
        i += 5 * n
        for s, v in enumerate(self.voids()):
            for c in range(4):
                if v >> c & 1:
                    out[i + 4 * rel[s] + c] = 1.0
        i += 4 * n
        bonus_scale = float(self.game.params["end_bonus_count"])
        for s in range(n):
            r = rel[s]
            out[i + r] = max(-1.0, min(1.0, self.totals[s] / 100.0))
            out[i + n + r] = min(1.0, self.bonuses[s] / bonus_scale)
            if self.last is not None:
                out[i + 2 * n + r] = max(-1.0, min(1.0, self.last["scores"][s] / 100.0))
        i += 3 * n
        out[i:i + H] = self.game.deck_block
        i += H
        out[i] = min(1.0, self.round_no / 20.0)
        out[i + 1] = min(1.0, len(self.tricks) / 12.0)
        out[i + 2] = float(self.done)
        out[i + 3] = float(self.game.deck_assumed)
        out[i + 4] = float(self.game.num_fools == 2)
        return out

    # ---- copies and persistence --------------------------------------------------------------
    def clone(self) -> FoolState:
        new = FoolState.__new__(FoolState)
        self._clone_base(new)
        new.hands = [[list(col) for col in hand] for hand in self.hands]
        new.sizes = list(self.sizes)
        new.dealer, new.round_no = self.dealer, self.round_no
        new.order, new.pos = self.order, self.pos  # never changed in place
        new.trick, new.lead, new.out = list(self.trick), self.lead, self.out
        new.tricks = list(self.tricks)
        new.totals, new.bonuses = list(self.totals), list(self.bonuses)
        new.last, new.done = self.last, self.done  # ``last`` is never mutated, only replaced
        new._legal = None
        return new

    def _to_dict(self) -> dict[str, Any]:
        return {
            "origin": self.origin, "history": self.history(), "rng": self.rng_json(),
            "hands": self.hands, "dealer": self.dealer, "round": self.round_no, "order": self.order,
            "pos": self.pos, "trick": self.trick, "lead": self.lead, "out": list(self.out),
            "tricks": [[list(p), lc, w, list(f)] for p, lc, w, f in self.tricks],
            "totals": self.totals, "bonuses": self.bonuses, "last": self.last, "done": self.done,
        }


def _copy_last(last: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A copy of a last-round result (so an observation never shares mutable data with a state)."""
    if last is None:
        return None
    return {key: [dict(p) for p in value] if key == "final_trick" else
            (list(value) if isinstance(value, list) else value) for key, value in last.items()}


def _mark_voids(plays: Sequence[int], voids: list[int]) -> None:
    lc = -1
    for t in plays:
        col = COLOUR[t & 127]
        if col == W:
            continue
        if lc < 0:
            lc = col  # this card set the lead colour (led, or first non-1 after a led 1)
        elif col != lc:
            voids[t >> 7] |= 1 << lc


def _block(out: npt.NDArray[np.float32], base: int, cards: Sequence[int]) -> None:
    for c in cards:
        _add(out, base, c)


def _add(out: npt.NDArray[np.float32], base: int, c: int) -> None:
    if c >= W1:
        out[base + W1] += 1.0 / 6.0
    else:
        out[base + c] = 1.0
