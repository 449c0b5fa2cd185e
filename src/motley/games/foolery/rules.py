"""Foolery (Jared McComb): a Tarot climbing game for 3-7 players (rules/foolery.md).

The game (options, deals, match end) and the rules its State plays by: dealing, the card exchange, whose
turn it is, which plays beat the table, tricks, places and titles, scoring and the match. The pack is in
``cards.py``; every play is an entry of the fixed action table in ``moves.py`` (its shape and strength).
The rules are the bases :class:`FooleryGameRules` and :class:`FooleryRules`; what a seat sees is in
``observe.py`` and the determinizer in ``sample.py``, and ``game.py`` assembles the public ``Foolery`` and
``FooleryState`` from the three (so this module imports neither).

The hottest methods (``legal_actions``, ``_is_legal``, ``_apply``, ``is_terminal``, ``legal_mask_bytes``,
``observation_bytes`` and the deal of ``shuffle_deal``) also exist compiled, in ``_native.c``: installed on
:class:`FooleryRules` at import when the extension is built and ``MOTLEY_PURE_PYTHON`` is not ``1``
(:data:`NATIVE`), they work on the same slots and play the same game; the Python methods here (and the core
State's for the two byte methods) stay the reference and the fallback (:data:`PYTHON_METHODS`).


Extra rulings (not in the rules file, FY-D23 onward):

* **FY-D23** ``ace_high_straight=true`` adds J-C-Q-K-A as the highest straight (key 15); A-2-3-4-5 stays the
  lowest; still no wrap (FY-D2: Q-K-A-2-3 is never a straight). The Ace is low in flushes either way (the
  option is about straights).
* **FY-D24** A skipped player (FY-R6, FY-D6) only loses that turn: under ``pass_locks_out`` a skip does not
  lock them out of the trick. The skip goes to the next player who would have had the turn.
* **FY-D25** ``exchange_order=suit_cards_only``: the "highest cards" are the highest suit cards; a giver
  with no suit card left gives their highest trump instead.
* **FY-D26** Ties among equal ranks in the exchange (FY-D15) are a real decision of the giver when more
  cards are tied than remain to give: the engine asks the Peasant (Merchant) for ``give CARD`` among the
  tied cards. An untied highest card, or tied highest cards that exactly fill the number to give, go up
  without asking (FY-D17).
* **FY-D27** Match end: ``match_end=hands`` plays ``hands`` hands (0 = 2 x players, FY-D22; ``hands=1`` is a
  single hand); ``match_end=target`` ends after the hand in which a total reaches ``target_score``
  (``hands``, if not 0, then caps the match length). The winner is the highest total, ties broken by the
  better place in the last hand (FY-D22).
* **FY-D28** ``returns()``: seats ranked as in FY-D27; rank ``i`` (0 = winner) gets ``1 - 2 i / (N - 1)``.
* **FY-D29** ``dealer_3p=previous_dealer_left``: with 3 players the next dealer is the previous dealer's
  left neighbour. The King always leads (FY-R12).
* **FY-D30** ``exchange_ties``: ``auto`` (FY-D17) gives tied highest cards that exactly fill the give without
  asking; ``ask`` is the engine before FY-D17 (the giver chooses among them). Records and stored tables made
  before the option existed lack it and load with ``ask`` (``GameSpec.legacy_options``), so they replay.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Self

import numpy as np

from motley.core.cards import cards_from_codes, check_no_duplicates, split_codes
from motley.core.errors import DealError, IllegalMoveError, InvalidMoveError, OptionError
from motley.core.game import TERMINAL, Game, seeded_rng
from motley.core.native import compiled
from motley.core.options import Option
from motley.core.search import SearchState
from motley.games.foolery import moves
from motley.games.foolery.cards import (
    ANY,
    BIT,
    CODE_INDEX,
    CODES,
    EV_OUT,
    EV_PASS,
    EV_PLAY,
    EV_SKIP,
    EV_STUCK,
    EV_TRICK,
    EXCHANGE,
    EXCHANGE_VALUE,
    FOOL,
    FOOL_BIT,
    HIGHEST,
    KING,
    MERCHANT,
    NOBLE,
    NUM_CARDS,
    OVER,
    PEASANT,
    PLAY,
    PRINCE,
    RANK_CODES,
    ROMAN,
    SUIT_MASK,
    TRUMP_MASK,
    Action,
    Card,
    Event,
    Seat,
    Step,
    cards_of,
    mask_of,
    shuffle_as_random,
)
from motley.games.foolery.moves import (
    A_CAT,
    A_KIND,
    A_MASK,
    A_SIZE,
    A_STR,
    A_TEXT,
    A_TOP,
    BYTE_TABLES,
    CAT_ACE_HIGH,
    FIVE_KIND,
    FIVE_KIND_BASE,
    GIVE_BASE,
    HIGH_ABOVE,
    HIGH_SHIFT,
    K_FIVE,
    K_FOOL,
    K_GIVE,
    K_PASS,
    K_TRUMP,
    MASK_TO_ACTION,
    NUM_ACTIONS,
    PASS,
    PLAY_FOOL,
    REPLY_PLAYS,
    SINGLES_HIGH,
    SINGLES_LOW,
    SKIP_RANK,
    STR_ACE_HIGH,
    five_card_plays,
    shape_problem,
    trump_sets,
)


def title_of(place: int, players: int) -> int:
    """FY-R11: title index of finishing ``place`` (0 = first out); 3 players have no Prince and no Merchant."""
    if place == 0:
        return KING
    if place == players - 1:
        return PEASANT
    if players >= 4 and place == 1:
        return PRINCE
    if players >= 4 and place == players - 2:
        return MERCHANT
    return NOBLE


def deal_sizes(players: int, dealer: int) -> list[int]:
    """FY-R1, FY-D19: cards per seat; the first ``78 % players`` seats after the dealer get one more."""
    base, extra = divmod(NUM_CARDS, players)
    sizes = [base] * players
    for i in range(extra):
        sizes[(dealer + 1 + i) % players] += 1
    return sizes


def hand_points(places: Sequence[int], scoring: str) -> list[int]:
    """FY-D21: points of one hand per seat from the finishing places (0 = first out).

    ``positional``: 1st scores N, 2nd N-1, ..., last 1. ``president``: King +2, Prince +1, Nobles 0,
    Merchant -1, Peasant -2.
    """
    n = len(places)
    if scoring == "positional":
        return [n - p for p in places]
    value = {KING: 2, PRINCE: 1, NOBLE: 0, MERCHANT: -1, PEASANT: -2}
    return [value[title_of(p, n)] for p in places]


class FooleryGameRules(Game):
    """Foolery (FY-R1 to FY-R14, rulings FY-D1 to FY-D22 and the module's FY-D23..D29), 3-7 seats.

    Options: ``players`` (3-7), ``ace_high_straight`` (FY-D2), ``five_kind_trump`` (FY-D3), ``skip_rule``
    (FY-D6), ``pass_locks_out`` (FY-D7), ``trump_variation`` (FY-R14, FY-D9), ``exchange_order`` (FY-D15),
    ``dealer_3p`` (FY-D18), ``scoring`` (FY-D21), ``match_end`` / ``hands`` / ``target_score`` (FY-D22).

    Raises (constructor):
        OptionError: for a bad option, ``match_end=target`` without a positive ``target_score``, or a
            ``target_score`` given with ``match_end=hands``.

    The options, the deals and the match end; the public game is ``game.Foolery``, which adds the
    observation's size and the determinizer.
    """

    #: The class of this game's states (set by ``game.py`` to the assembled ``FooleryState``).
    state_class: ClassVar[type[FooleryRules]]

    name = "foolery"
    title = "Foolery"
    rules_file = "foolery.md"
    min_players = 3
    max_players = 7
    options = (
        Option("players", 5, "number of players, 3-7 (FY-R1)", kind="int", minimum=3, maximum=7,
               label="Players"),
        Option("ace_high_straight", False, "J-C-Q-K-A is also a straight (FY-D2, FY-D23)", kind="bool",
               label="Ace-high straight"),
        Option("five_kind_trump", "matching", "trump completing five of a kind: the matching one or any (FY-D3)",
               choices=("matching", "any"), label="Trump for five of a kind",
               choice_labels={"matching": "the matching trump", "any": "any trump"}),
        Option("skip_rule", True, "an equal single or pair skips the next player (FY-R6, FY-D6)", kind="bool",
               label="Skip rule"),
        Option("pass_locks_out", False, "a pass locks you out of the rest of the trick (FY-D7)", kind="bool",
               label="A pass locks you out"),
        Option("trump_variation", False, "3 trumps beat 3, 2 beat 2 (FY-R14, FY-D9)", kind="bool",
               label="Trump variation"),
        Option("exchange_order", "trumps_high", "which cards are 'highest' in the exchange (FY-D15, FY-D25)",
               choices=("trumps_high", "suit_cards_only"), label="Highest cards in the exchange",
               choice_labels={"trumps_high": "trumps count as highest", "suit_cards_only": "suit cards only"}),
        Option("exchange_ties", "auto", "tied highest cards that exactly fill the give go up without asking "
               "(auto, FY-D17), or the giver is asked (ask: the engine before FY-D17, for older records, FY-D30)",
               choices=("auto", "ask"), label="Tied highest cards in the exchange",
               choice_labels={"auto": "go up without asking", "ask": "the giver is asked"}),
        Option("dealer_3p", "peasant", "3 players: who deals the next hand (FY-D18, FY-D29)",
               choices=("peasant", "previous_dealer_left"), label="Next dealer with 3 players",
               choice_labels={"peasant": "the peasant", "previous_dealer_left": "left of the previous dealer"}),
        Option("scoring", "positional", "points per hand (FY-D21)", choices=("positional", "president"),
               label="Scoring", choice_labels={"positional": "by finishing place", "president": "president style"}),
        Option("match_end", "hands", "end after a number of hands, or at a target score (FY-D22, FY-D27)",
               choices=("hands", "target"), label="Match ends",
               choice_labels={"hands": "after a number of hands", "target": "at a target score"}),
        Option("hands", 0, "hands in the match; 0 = 2 x players (FY-D22); a cap when the match ends at a "
               "target score",
               kind="int", minimum=0, maximum=10_000, served=(0, 50), label="Hands (0: twice the players)"),
        Option("target_score", 0, "total that ends the match when it ends at a target score (FY-D27)",
               kind="int", minimum=0, maximum=1_000_000, label="Target score"),
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        if p["match_end"] == "target" and p["target_score"] <= 0:
            raise OptionError("option 'match_end=target' needs a positive 'target_score'")
        if p["match_end"] == "hands" and p["target_score"] != 0:
            raise OptionError("option 'target_score' needs 'match_end=target'")
        self.hands_total: int = p["hands"] or (2 * self.num_players if p["match_end"] == "hands" else 0)
        self.ace_high: bool = p["ace_high_straight"]
        self.any_trump: bool = p["five_kind_trump"] == "any"
        self.skip_rule: bool = p["skip_rule"]
        self.locks_out: bool = p["pass_locks_out"]
        self.trump_variation: bool = p["trump_variation"]
        #: FY-D17: tied highest cards that exactly fill the number to give go up without asking.
        self.exact_fill_gives: bool = p["exchange_ties"] == "auto"
        self.strength: list[int] = STR_ACE_HIGH if self.ace_high else A_STR
        self.category: list[int] = CAT_ACE_HIGH if self.ace_high else A_CAT
        n = self.num_players
        #: ``seats_after[p]``: the seats after ``p`` in turn order, ``p`` itself last.
        self.seats_after: tuple[tuple[Seat, ...], ...] = tuple(
            tuple((p + i) % n for i in range(1, n + 1)) for p in range(n))
        #: ``next_holding[live][p]``: the first seat after ``p`` (``p`` itself last) in the seat mask ``live``.
        self.next_holding: tuple[tuple[Seat, ...], ...] = tuple(
            tuple(next((q for q in after if live >> q & 1), -1) for after in self.seats_after)
            for live in range(1 << n))

    def _new_state(self, seed: int, deal: Mapping[str, Any] | None) -> FooleryRules:
        rng = seeded_rng(seed)  # random.Random(seed)
        state = self.state_class(self, {"seed": seed, "deal": None if deal is None else _deal_to_json(deal)}, rng)
        if deal is None:
            dealer = rng.randrange(self.num_players)  # FY-D20
            hands = state.shuffle_deal(dealer)
        else:
            hands, dealer = _hands_from_deal(deal, self.num_players)
        state.start_hand(hands, dealer, first=True)
        return state

    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def max_decisions(self) -> int | None:
        """At most ``hands x (78 x N + 6)`` decisions for N players, or ``None`` (no finite bound).

        One hand: every play takes at least one card from a hand (FY-R3; a Fool stuck in a leader's hand
        leaves it without a decision, FY-D13), so there are at most 78 plays; after a play the turn goes round
        at most the N - 1 other seats before it is back at the play's seat and the trick ends (FY-D7; a skip
        only shortens the round, FY-R6), so at most N - 1 passes follow each play; and the exchange asks at
        most once per card given, 2 + 1 + 2 + 1 (FY-R13). The hands: ``hands`` (2 x N when 0, FY-D22); under
        ``match_end=target`` with ``positional`` scoring the totals of all seats grow by N (N + 1) / 2 a
        hand, so the best total reaches ``target_score`` by hand ``ceil(2 x target_score / (N + 1))``
        (capped by ``hands`` when not 0); with ``president`` scoring the points of a hand sum to 0 (FY-D21)
        and the totals may never reach the target: no bound unless ``hands`` caps the match.
        """
        n = self.num_players
        hands = self.hands_total or None
        if self.params["match_end"] == "target" and self.params["scoring"] == "positional":
            by_target = -(-2 * self.params["target_score"] // (n + 1))
            hands = by_target if hands is None else min(hands, by_target)
        return None if hands is None else hands * (NUM_CARDS * n + 6)

    def points(self, places: Sequence[int]) -> list[int]:
        """FY-D21: the points of one hand's finishing places under this game's ``scoring`` (:func:`hand_points`)."""
        return hand_points(places, self.params["scoring"])

def _deal_to_json(deal: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return {"hands": [[str(c).strip().upper() for c in hand] for hand in deal["hands"]], "dealer": deal["dealer"]}
    except (KeyError, TypeError):
        raise DealError('a foolery deal is {"hands": [[codes], ...], "dealer": seat}') from None


def _hands_from_deal(deal: Mapping[str, Any], players: int) -> tuple[list[int], int]:
    """Hand bitmasks and dealer from ``{"hands": [[codes], ...], "dealer": seat}`` (FY-R1, FY-D19).

    Raises:
        DealError: wrong shape, wrong number of hands, a hand of the wrong size for that dealer, an unknown
            or duplicate code, a card missing, or a bad dealer.
    """
    if not isinstance(deal, Mapping) or set(deal) != {"hands", "dealer"}:
        raise DealError('a foolery deal is {"hands": [[codes], ...], "dealer": seat}')
    dealer = deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise DealError(f"the dealer must be a seat 0..{players - 1}; got {dealer!r}")
    raw = deal["hands"]
    if not isinstance(raw, (list, tuple)) or len(raw) != players:
        raise DealError(f"a {players}-player foolery deal has exactly {players} hands")
    sizes = deal_sizes(players, dealer)
    hands: list[list[int]] = []
    for seat, codes in enumerate(raw):
        cards = cards_from_codes(codes, CODE_INDEX, f"hand of seat {seat}")
        if len(cards) != sizes[seat]:
            raise DealError(f"hand of seat {seat} has {len(cards)} cards; with dealer {dealer} the hands hold "
                            f"{', '.join(map(str, sizes))} cards (FY-R1, FY-D19)")
        hands.append(cards)
    every = [c for h in hands for c in h]
    check_no_duplicates(every, CODES, "the deal")
    return [mask_of(h) for h in hands], dealer


#: A hand's trumps and its Fool as bits of ``hand >> HIGH_SHIFT``: the Fool is held when that is ``_FOOL_HIGH`` or more.
_HIGH_TRUMPS, _FOOL_HIGH = TRUMP_MASK >> HIGH_SHIFT, FOOL_BIT >> HIGH_SHIFT
#: The legal actions when only a pass is (FY-R10), as :meth:`FooleryRules.legal_actions` caches them.
_PASS_ONLY: tuple[Action, ...] = (PASS,)
#: ``LEAD_TABLES[i][byte]``: every play of one rank in byte ``i`` of a hand (ranks ``2 i``, ``2 i + 1``), ascending.
LEAD_TABLES = BYTE_TABLES[0]
#: FY-R6: ``SKIP_RANK`` with every other action's entry made unique (``-1 - a``), and one more entry, read
#: for no table (``top`` -1), equal to none: equal entries mean an equal single or pair.
_SKIP_KEY: tuple[int, ...] = (*(r if r >= 0 else -1 - a for a, r in enumerate(SKIP_RANK)), -1 - NUM_ACTIONS)
#: The log event of a pass by each seat (events are read-only tuples: one per seat serves every pass).
_PASS_EVENTS: tuple[Event, ...] = tuple((EV_PASS, seat, 0) for seat in range(8))


class FooleryRules(SearchState):
    """A position of a Foolery match and the rules it plays by. The cards are laid out in ``cards.py``, the
    actions in ``moves.py``; the public State is ``game.FooleryState``, which adds what a seat sees."""

    __slots__ = ("_fives", "_legal", "_locked", "_next", "dealer", "gave", "hand_number", "hands", "log", "next_place",
                 "phase", "places", "played", "received", "results", "sizes", "step_given", "step_index",
                 "steps", "titles", "to_move", "top", "top_seat", "totals")

    def __init__(self, game: FooleryGameRules, origin: dict[str, Any] | None,
                 rng: random.Random | None = None) -> None:
        super().__init__(game, origin, rng)  # the rng shuffles the later deals
        self.game: FooleryGameRules = game
        n = game.num_players
        self.hands: list[int] = [0] * n
        self.sizes: list[int] = [0] * n
        self.phase = PLAY
        self.to_move = 0
        self.top = -1  # action id of the play on the table (FY-R5), -1 for none
        self.top_seat = -1
        self.places: list[int] = [-1] * n  # finishing place this hand, 0 = first out (FY-R11)
        self.next_place = 0
        self.played = 0  # cards out this hand (bitmask)
        self.log: list[Event] = []
        self.hand_number = 1
        self.dealer = 0
        self.titles: list[int] = [-1] * n  # titles in force this hand (from the previous hand)
        self.totals: list[int] = [0] * n
        self.results: list[list[int]] = []  # places of every finished hand
        self.steps: list[Step] = []
        self.step_index = 0
        self.step_given = 0
        self.gave: list[list[int]] = [[] for _ in range(n)]
        self.received: list[list[int]] = [[] for _ in range(n)]
        self._legal: Sequence[int] | None = None
        #: Per seat: a hand and its 5-card plays, ascending (:meth:`_five_card_plays`); any part of that hand
        #: has exactly those of them that it holds.
        self._fives: list[tuple[int, tuple[Action, ...]]] = [(0, ())] * n
        #: ``_next[p]``: the next seat after ``p`` holding cards, while that is whom the turn goes to (no seat
        #: went out in this trick, ``pass_locks_out`` off); None otherwise (:meth:`_apply` then walks the seats).
        self._next: tuple[Seat, ...] | None = None
        #: Under ``pass_locks_out``: the seats that passed in this trick, out of it (FY-D7; ``passed`` read from
        #: the log, kept as a mask for the turn); 0 without the option.
        self._locked = 0

    @property
    def passed(self) -> int:
        """The seats that passed in this trick (a bitmask, FY-R10, FY-D7): the passes logged since the trick
        began (the last ``trick`` or ``stuck`` event of the hand, FY-D13); none once the match is over."""
        if self.phase == OVER:
            return 0
        passed = 0
        for kind, q, _ in reversed(self.log):
            if kind == EV_PASS:
                passed |= 1 << q
            elif kind in (EV_TRICK, EV_STUCK):
                break
        return passed

    # ---- dealing and the exchange -----------------------------------------------------------------
    def shuffle_deal(self, dealer: Seat) -> list[int]:
        """FY-R1, FY-D19: shuffle with the state's rng and deal one at a time from the dealer's left."""
        n = self.game.num_players
        bits = shuffle_as_random(list(BIT), self.own_rng())  # the pack's cards as bits, in shuffled_pack's order
        hands = [0] * n
        for i in range(n):  # the i-th card dealt goes to the (i % n)-th seat after the dealer
            hands[(dealer + 1 + i) % n] = sum(bits[i::n])
        return hands

    def start_hand(self, hands: list[int], dealer: Seat, first: bool) -> None:
        """Set up a hand: the first is led by the dealer (FY-R1); later ones start with the exchange
        (FY-R13, FY-D17) and are led by the King (FY-R12)."""
        n = self.game.num_players
        self.hands = hands
        self.sizes = [h.bit_count() for h in hands]
        self.dealer = dealer
        self.top, self.top_seat, self._locked = -1, -1, 0
        self.places = [-1] * n
        self.next_place = 0
        self.played = 0
        self.log = []
        self.gave = [[] for _ in range(n)]
        self.received = [[] for _ in range(n)]
        self.steps, self.step_index, self.step_given = [], 0, 0
        self._legal = None
        self._next = self._ring()
        if first:
            self.phase, self.to_move = PLAY, dealer
            return
        seat_of = {t: q for q, t in enumerate(self.titles) if t in (KING, PRINCE, MERCHANT, PEASANT)}
        # FY-D17: every upward give (Peasant to King, Merchant to Prince) before any downward give.
        self.steps = [(seat_of[PEASANT], seat_of[KING], 2, HIGHEST)]
        if n >= 4:
            self.steps.append((seat_of[MERCHANT], seat_of[PRINCE], 1, HIGHEST))
        self.steps.append((seat_of[KING], seat_of[PEASANT], 2, ANY))
        if n >= 4:
            self.steps.append((seat_of[PRINCE], seat_of[MERCHANT], 1, ANY))
        self.phase = EXCHANGE
        self._run_exchange()

    def partner_of(self, seat: Seat) -> Seat:
        """The seat ``seat`` exchanges cards with this hand (FY-R13), or -1."""
        for giver, receiver, _, _ in self.steps:
            if giver == seat:
                return receiver
            if receiver == seat:
                return giver
        return -1

    def highest_candidates(self, seat: Seat) -> list[Card]:
        """FY-D15, FY-D25: the cards tied for ``seat``'s highest card (never the Fool)."""
        hand = self.hands[seat] & ~FOOL_BIT
        if self.game.params["exchange_order"] == "suit_cards_only" and hand & SUIT_MASK:
            hand &= SUIT_MASK
        cards = cards_of(hand)
        best = max(EXCHANGE_VALUE[c] for c in cards)
        return [c for c in cards if EXCHANGE_VALUE[c] == best]

    def _run_exchange(self) -> None:
        """Advance the exchange: every upward give, then every downward one (FY-D17, the order of
        ``steps``). Highest cards go up without asking when there is no choice: an untied highest card,
        or tied highest cards that exactly fill the number still to give (FY-D15, FY-D17, FY-D26). Stop
        at a decision, or start play with the King's lead (FY-R12)."""
        while self.step_index < len(self.steps):
            giver, _, count, rule = self.steps[self.step_index]
            if self.step_given >= count:
                self.step_index += 1
                self.step_given = 0
                continue
            if rule == HIGHEST:
                cands = self.highest_candidates(giver)
                if len(cands) == 1 or (len(cands) <= count - self.step_given and self.game.exact_fill_gives):
                    # FY-D17: no choice (one card, or tied cards that exactly fill the number to give)
                    for card in cands:
                        self._give(card)
                    continue
            self.to_move = giver
            return
        self.phase = PLAY
        self.to_move = self.titles.index(KING)

    def _give(self, card: Card) -> None:
        giver, receiver, _, _ = self.steps[self.step_index]
        bit = 1 << card
        self.hands[giver] ^= bit
        self.hands[receiver] |= bit
        self.sizes[giver] -= 1
        self.sizes[receiver] += 1
        self.gave[giver].append(card)
        self.received[receiver].append(card)
        self.step_given += 1

    # ---- the move interface -------------------------------------------------------------------------
    def deal_number(self) -> int:
        """Index of the current hand from 0 (search stops its rollouts at the end of the hand)."""
        return self.hand_number - 1

    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.to_move

    def legal_actions(self) -> list[Action]:
        """Legal action ids, sorted (cached until the next move): a reply to the table (FY-R5..R10, FY-R14,
        FY-D8, FY-D9), a lead (:meth:`_lead`), or a give (:meth:`_gives`).

        A reply, the hottest case, is built here (one call less per move): plays of one rank from the byte
        tables of ``moves.py`` (two ranks at a time), trump sets and 5-card hands from its cached tables.
        """
        legal = self._legal
        if legal is not None:
            return list(legal)
        top = self.top
        if top < 0:
            legal = self._legal = self._lead() if self.phase == PLAY else self._gives()
            return legal[:]
        hand = self.hands[self.to_move]
        high = hand >> HIGH_SHIFT  # the trumps (I at bit 0 .. XXI at bit 20) and the Fool (bit 21): a small int
        reply = REPLY_PLAYS[top]
        if reply is not None:  # FY-R5: same count, equal or higher rank; FY-R7: 1 or 2 trumps
            out = [PASS, PLAY_FOOL] if high >= _FOOL_HIGH else [PASS]  # FY-R9: the Fool on any turn but a lead
            tables, from_rank, trumps_needed = reply
            h = hand & from_rank  # the suit cards from the table's rank up
            if h:  # the plays of that count two ranks (a byte of the hand) at a time
                t0, t1, t2, t3, t4, t5, t6 = tables
                b0, b1, b2, b3, b4, b5, b6 = h.to_bytes(7, "little")
                out += [*t0[b0], *t1[b1], *t2[b2], *t3[b3], *t4[b4], *t5[b5], *t6[b6]]
            if high & _HIGH_TRUMPS:
                if trumps_needed == 1:  # every single trump
                    out += SINGLES_LOW[high & 0x7FF]
                    out += SINGLES_HIGH[high >> 11 & 0x3FF]
                else:
                    out += trump_sets(hand & TRUMP_MASK, 2)
            # ascending: pass, Fool, plays by rank, then trumps
            self._legal = out
            return out[:]
        above = high & HIGH_ABOVE[top]  # trumps numbered above the table's top trump (any, on most 5-card plays)
        if A_KIND[top] == K_TRUMP:  # FY-R7, FY-R14, FY-D8, FY-D9
            if not above:
                if high < _FOOL_HIGH:  # only the pass: cached as a tuple, so the list returned is the only copy
                    self._legal = _PASS_ONLY
                    return [PASS]
                out = [PASS, PLAY_FOOL]
            else:
                out = [PASS, PLAY_FOOL] if high >= _FOOL_HIGH else [PASS]
                size = A_SIZE[top]
                want = size if self.game.trump_variation else (1 if size <= 2 else 2)
                if want == 1:
                    out += SINGLES_LOW[above & 0x7FF]
                    out += SINGLES_HIGH[above >> 11]
                else:
                    t = A_TOP[top]
                    out += [a for a in trump_sets(hand & TRUMP_MASK, want) if A_TOP[a] > t]
        else:
            out = [PASS, PLAY_FOOL] if high >= _FOOL_HIGH else [PASS]
            out += self._five_replies(hand, top, above)
        self._legal = out
        return out[:]

    def _is_legal(self, action: Action) -> bool:
        """Is ``action`` legal now, read from the cached legal list (the Python engine's ``apply_action`` is the
        core's, :meth:`State.apply_action`, which checks a move with this once and records it)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return action in legal

    def _generate(self) -> Sequence[Action]:
        """The cached legal list (:meth:`legal_actions` builds it); callers must not change it."""
        legal = self._legal
        if legal is None:
            self.legal_actions()
            legal = self._legal
            assert legal is not None
        return legal

    def _five_replies(self, hand: int, top: Action, above: int) -> list[Action]:
        """Replies to a 5-card hand (FY-D4) but pass and the Fool: exactly 3 trumps, above a five of a kind's
        trump (FY-R7), then the 5-card hands at least as strong, ascending. ``above``: the hand's trumps above
        that trump (every trump on other 5-card hands) as ``HIGH_ABOVE`` bits."""
        out: list[Action] = []
        if above:
            t = A_TOP[top]
            out += [a for a in trump_sets(hand & TRUMP_MASK, 3) if A_TOP[a] > t]
        game = self.game
        strength = game.strength
        need = strength[top]
        out += [a for a in self._five_card_plays(hand) if strength[a] >= need]
        return out

    def _five_card_plays(self, hand: int) -> tuple[Action, ...]:
        """The 5-card plays (FY-R4, FY-D1..D5, ``moves.five_card_plays``) in ``hand``, the mover's, ascending.

        A seat's hand only loses cards between its turns in a hand, and a 5-card play of a hand's cards is one
        of every larger hand's: the seat's last answer is filtered when ``hand`` is a part of the hand it was
        for, and computed afresh otherwise (a new deal, the exchange).
        """
        seen = self._fives
        p = self.to_move
        known, plays = seen[p]
        if known & hand == hand:
            if plays and known != hand:
                gone = known ^ hand
                plays = tuple([a for a in plays if not A_MASK[a] & gone])
                seen[p] = (hand, plays)
            return plays
        game = self.game
        found = five_card_plays(hand, game.ace_high, game.any_trump)
        found.sort()
        plays = tuple(found)
        seen[p] = (hand, plays)
        return plays

    def _lead(self) -> list[Action]:
        """FY-R3, FY-R4, FY-R8, FY-R9: every play of the hand (no pass, no Fool); trumps only from a hand without
        suit cards."""
        hand = self.hands[self.to_move]
        h = hand & SUIT_MASK
        if not h:  # FY-R8, FY-D10: only trumps (and maybe the Fool) left
            trumps = hand & TRUMP_MASK
            return trump_sets(trumps, 1) + trump_sets(trumps, 2) + trump_sets(trumps, 3)
        t0, t1, t2, t3, t4, t5, t6 = LEAD_TABLES  # the plays of one rank, two ranks (a byte of the hand) at a time
        b0, b1, b2, b3, b4, b5, b6 = h.to_bytes(7, "little")
        out = [*t0[b0], *t1[b1], *t2[b2], *t3[b3], *t4[b4], *t5[b5], *t6[b6]]
        known, fives = self._fives[self.to_move]
        if fives or known & hand != hand:  # else no 5-card play in a larger hand, none in this one
            fives = self._five_card_plays(hand)
            if fives:
                out += fives  # 5-card ids come after every other play's
        return out

    def _gives(self) -> list[Action]:
        """The exchange's ``give CARD`` actions (FY-R13, FY-D15, FY-D17, FY-D26); none once the game is over."""
        if self.phase == OVER:
            return []
        giver, _, _, rule = self.steps[self.step_index]
        cards = self.highest_candidates(giver) if rule == HIGHEST else cards_of(self.hands[giver] & ~FOOL_BIT)
        return [GIVE_BASE + c for c in cards]

    def action_to_string(self, action: Action) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise InvalidMoveError(action, f"unknown action id; actions are 0..{NUM_ACTIONS - 1}")
        return A_TEXT[action]

    def _parse_move(self, text: str) -> Action:
        words = split_codes(text)
        if not words:
            raise InvalidMoveError(text, "empty move; play card codes joined by spaces, 'pass', or 'give CODE'")
        if words == ["PASS"]:
            return PASS
        if words[0] == "GIVE":
            if len(words) != 2:
                raise InvalidMoveError(text, "give one card at a time: 'give CODE' (FY-R13)")
            card = CODE_INDEX.get(words[1])
            if card is None:
                raise InvalidMoveError(text, f"unknown card code {words[1]!r}")
            return GIVE_BASE + card
        cards = []
        for w in words:
            card = CODE_INDEX.get(w)
            if card is None:
                raise InvalidMoveError(text, f"unknown card code {w!r} (suit cards like 7S, CH, 10D; trumps I..XXI; "
                                             "FOOL)")
            if card in cards:
                raise InvalidMoveError(text, f"{w} is named twice")
            cards.append(card)
        action = MASK_TO_ACTION.get(mask_of(cards))
        if action is None:
            raise IllegalMoveError(text, shape_problem(cards))
        return action

    def why_illegal(self, action: Action) -> str:
        reason = self.problem(action)
        return reason if reason is not None else "not a legal move now"

    def problem(self, action: Action) -> str | None:
        """Why ``action`` is illegal now, citing the rule, or None when it is legal (independent of the
        fast generator, which the tests check against it)."""
        if self.phase == OVER:
            return "the game is over"
        if not 0 <= action < NUM_ACTIONS:
            return f"unknown action id; actions are 0..{NUM_ACTIONS - 1}"
        p = self.to_move
        hand = self.hands[p]
        kind = A_KIND[action]
        game = self.game
        if self.phase == EXCHANGE:
            giver, receiver, _, rule = self.steps[self.step_index]
            if kind != K_GIVE:
                return f"it is the card exchange: you give seat {receiver} a card with 'give CODE' (FY-R13)"
            card = action - GIVE_BASE
            if card == FOOL:
                return "the Fool can never be passed (FY-R13)"
            if not (hand >> card) & 1:
                return f"you do not hold {CODES[card]}"
            if rule == HIGHEST and card not in self.highest_candidates(giver):
                names = " or ".join(CODES[c] for c in self.highest_candidates(giver))
                return f"you must give your highest card: {names} (FY-R13, FY-D15)"
            return None
        if kind == K_GIVE:
            return "there is no card exchange now: play cards or pass"
        top = self.top
        if kind == K_PASS:
            return "you lead this trick: you cannot pass (FY-R10)" if top < 0 else None
        missing = A_MASK[action] & ~hand
        if missing:
            return "you do not hold " + " ".join(CODES[c] for c in cards_of(missing))
        if kind == K_FOOL:
            return "the Fool cannot be led (FY-R9)" if top < 0 else None
        if kind == K_FIVE:
            shape = self._five_shape_problem(action)
            if shape:
                return shape
        strength = game.strength
        if top < 0:
            if kind == K_TRUMP and hand & SUIT_MASK:
                return "you may lead trumps only when you hold no suit cards (FY-R8)"
            return None
        table = f"the table ({A_TEXT[top]})"
        top_kind, top_size, size = A_KIND[top], A_SIZE[top], A_SIZE[action]
        if top_kind == K_TRUMP:
            if kind != K_TRUMP:
                return f"normal cards cannot beat trumps; {table} needs trumps, the Fool, or a pass (FY-D8)"
            want = top_size if game.params["trump_variation"] else (1 if top_size <= 2 else 2)
            if size != want:
                rid = "FY-R14" if game.params["trump_variation"] else "FY-R7"
                return f"to beat {top_size} trump(s) play exactly {want} trump(s) ({rid}, FY-D9)"
            if A_TOP[action] <= A_TOP[top]:
                return f"your highest trump must exceed {ROMAN[A_TOP[top] - 1]} on {table} (FY-R7)"
            return None
        if kind == K_TRUMP:
            want = 1 if top_size <= 2 else 2 if top_size <= 4 else 3
            if size != want:
                return f"to trump a {top_size}-card play use exactly {want} trump(s) (FY-R7, FY-D9)"
            if top_kind == K_FIVE and A_TOP[action] <= A_TOP[top]:
                return (f"your highest trump must exceed trump {ROMAN[A_TOP[top] - 1]} of the five of a kind on "
                        f"{table} (FY-R7)")
            return None
        if size != top_size:
            return f"{table} has {top_size} card(s): play {top_size} card(s), trumps, the Fool, or pass (FY-R5)"
        if strength[action] < strength[top]:
            return f"{A_TEXT[action]} does not beat {table} (FY-R5, FY-D4)"
        return None

    def _five_shape_problem(self, action: Action) -> str | None:
        game = self.game
        if game.category[action] < 0:
            return "J C Q K A is not a straight: the Ace is low (FY-D2; option ace_high_straight)"
        if A_CAT[action] == FIVE_KIND and not game.any_trump:
            rank = (action - FIVE_KIND_BASE) // 21
            if A_TOP[action] != rank + 1:
                return (f"five of a kind of rank {RANK_CODES[rank]} needs trump {ROMAN[rank]} "
                        "(FY-D3; option five_kind_trump)")
        return None

    def _apply(self, action: Action) -> None:
        """Apply a legal action: a pass (FY-R10), a give (FY-R13) or a play; then give the turn to the next seat
        that may act, ending the trick when it comes back to the top play's seat (FY-D7); an equal single or
        pair skips the next such seat (FY-R6, FY-D6, FY-D24)."""
        self._legal = None
        p = self.to_move
        if not action:  # PASS, never an exchange action
            self.log.append(_PASS_EVENTS[p])
            after = self._next
            if after is not None:  # the seats holding cards, the top play's seat among them
                q = after[p]
                if q == self.top_seat:
                    self._end_trick(q)
                else:
                    self.to_move = q
                return
            skip = False
            if self.game.locks_out:
                self._locked |= 1 << p
        elif self.phase == EXCHANGE:
            self._give(action - GIVE_BASE)
            self._run_exchange()
            return
        else:
            cards = A_MASK[action]
            self.hands[p] ^= cards
            sizes = self.sizes
            left = sizes[p] = sizes[p] - A_SIZE[action]
            self.played |= cards
            self.log.append((EV_PLAY, p, action))
            top = self.top
            self.top, self.top_seat = action, p
            if left == 0:
                self._next = None  # the turn passes over p, but the trick still ends at p (FY-D12)
                if self._go_out(p):  # FY-R11, FY-D11
                    return
            if action == PLAY_FOOL:  # FY-R9: beats everything and ends the trick at once
                self._end_trick(p)
                return
            # FY-R6: a legal play on a single or pair has its shape, so equal ranks mean an equal single or pair;
            # no table (top -1) reads _SKIP_KEY's extra last entry, equal to none
            skip = _SKIP_KEY[action] == _SKIP_KEY[top] and self.game.skip_rule
            after = self._next
            if after is not None:
                q = after[p]  # not p: a play leaves p's turn to the others
                if skip:
                    self.log.append((EV_SKIP, q, 0))
                    q = after[q]
                    if q == p:
                        self._end_trick(p)
                        return
                self.to_move = q
                return
        game = self.game
        sizes, top_seat = self.sizes, self.top_seat
        locked = self._locked  # FY-D7: seats that passed are out of this trick
        for q in game.seats_after[p]:  # the seats after p, p last (the top play's seat comes first, at the latest)
            if q == top_seat:
                self._end_trick(q)
                return
            if sizes[q] and not locked >> q & 1:
                if not skip:
                    self.to_move = q
                    return
                skip = False
                self.log.append((EV_SKIP, q, 0))

    def _ring(self) -> tuple[Seat, ...] | None:
        """The next seat after each seat among those holding cards (``_next``); None under ``pass_locks_out``."""
        game = self.game
        if game.locks_out:
            return None
        live = 0
        for q, size in enumerate(self.sizes):
            if size:
                live |= 1 << q
        return game.next_holding[live]

    def _end_trick(self, winner: Seat) -> None:
        """FY-R10: the winner leads; FY-D12: or the next seat with cards; FY-D13: a leader holding only the
        Fool is the Peasant at once."""
        n = self.game.num_players
        self.top, self.top_seat, self._locked = -1, -1, 0
        leader = winner
        while True:
            while self.sizes[leader] == 0:
                leader = leader + 1 if leader + 1 < n else 0
            if self.hands[leader] != FOOL_BIT:
                break
            self.hands[leader] = 0
            self.sizes[leader] = 0
            self._next = None
            self.played |= FOOL_BIT
            self.places[leader] = n - 1
            self.log.append((EV_STUCK, leader, n - 1))
            if self._check_hand_end():
                return
        self.log.append((EV_TRICK, winner, leader))
        self.to_move = leader
        if self._next is None:
            self._next = self._ring()

    def _go_out(self, p: Seat) -> bool:
        """FY-R11: ``p`` played its last card and takes the next place; True if the hand ended."""
        self.places[p] = self.next_place
        self.log.append((EV_OUT, p, self.next_place))
        self.next_place += 1
        return self._check_hand_end()

    def _check_hand_end(self) -> bool:
        """FY-D13, FY-D14: when one seat still holds cards it takes the last free place and the hand ends."""
        left = [q for q in range(self.game.num_players) if self.sizes[q] > 0]
        if len(left) > 1:
            return False
        if left:
            self.places[left[0]] = self.next_place
            self.log.append((EV_OUT, left[0], self.next_place))
        self._end_hand()
        return True

    def _end_hand(self) -> None:
        """FY-D21 points, FY-D22/FY-D27 match end, else the next deal (FY-R12, FY-D18, FY-D29)."""
        game = self.game
        n = game.num_players
        places = list(self.places)
        points = hand_points(places, game.params["scoring"])
        self.totals = [s + d for s, d in zip(self.totals, points, strict=True)]
        self.results.append(places)
        total = game.hands_total
        if (game.params["match_end"] == "target" and max(self.totals) >= game.params["target_score"]) or (
                total and self.hand_number >= total):
            self.phase = OVER
            self.to_move = TERMINAL
            self.top, self.top_seat = -1, -1
            return
        by_place = {pl: q for q, pl in enumerate(places)}
        if n >= 4:
            dealer = by_place[n - 2]  # FY-R12: the Merchant deals
        elif game.params["dealer_3p"] == "peasant":
            dealer = by_place[n - 1]  # FY-D18
        else:
            dealer = (self.dealer + 1) % n  # FY-D29
        self.titles = [title_of(pl, n) for pl in places]
        self.hand_number += 1
        if self.stops_at_deal_end:  # a search world: nobody looks at the next deal
            return
        self.start_hand(self.shuffle_deal(dealer), dealer, first=False)

    # ---- results ----------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == OVER

    def scores(self) -> list[int]:
        """Running match totals per seat (FY-D21)."""
        return list(self.totals)

    def ranking(self) -> list[Seat]:
        """Seats best first: highest total, ties broken by the better place in the last hand (FY-D22)."""
        last = self.results[-1] if self.results else list(range(self.game.num_players))
        return sorted(range(self.game.num_players), key=lambda q: (-self.totals[q], last[q]))

    def returns(self) -> list[float]:
        """FY-D28: 0 until the end; then rank ``i`` of :meth:`ranking` gets ``1 - 2 i / (N - 1)`` (winner +1)."""
        n = self.game.num_players
        if self.phase != OVER:
            return [0.0] * n
        out = [0.0] * n
        for i, q in enumerate(self.ranking()):
            out[q] = 1.0 - 2.0 * i / (n - 1)
        return out

    # ---- copies and persistence -----------------------------------------------------------------
    def clone(self) -> Self:
        cls = type(self)
        new = cls.__new__(cls)
        self._clone_base(new)
        new.hands, new.sizes = list(self.hands), list(self.sizes)
        new.phase, new.to_move, new.top, new.top_seat = self.phase, self.to_move, self.top, self.top_seat
        new.places, new.next_place, new.played = list(self.places), self.next_place, self.played
        new.log, new.hand_number, new.dealer = list(self.log), self.hand_number, self.dealer
        new.titles, new.totals = list(self.titles), list(self.totals)
        new.results = [list(r) for r in self.results]
        new.steps, new.step_index, new.step_given = list(self.steps), self.step_index, self.step_given
        new.gave = [list(g) for g in self.gave]
        new.received = [list(r) for r in self.received]
        new._legal = self._legal
        new._fives = list(self._fives)
        new._next = self._next
        new._locked = self._locked
        return new

    def _to_dict(self) -> dict[str, Any]:
        return {"observation": self.observation(0), "origin": self.origin, "hands": list(self.hands),
                "gave": self.gave, "received": self.received, "history": self.history(),
                "rng": self.rng_json()}


#: The methods the compiled core (``_native.c``) replaces, as the Python engine has them (``apply_action`` is the
#: core's, :meth:`State.apply_action` on both engines: it asks ``_is_legal``, calls ``_apply`` and records the
#: move in the core's history, which no compiled method writes): the pure-Python engine, which the compiled one
#: falls back on for its rare paths and which the tests compare it with.
PYTHON_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(FooleryRules, name)
    for name in ("legal_actions", "_is_legal", "_apply", "is_terminal", "legal_mask_bytes", "observation_bytes",
                 "shuffle_deal")}


def _install_native() -> bool:
    """Set the compiled core's methods on :class:`FooleryRules` when its extension module is built and
    ``MOTLEY_PURE_PYTHON`` is not ``1``; True if it did. The state, its slots and every other method stay as
    above: the compiled methods read and write the same slots, path for path as the Python ones, and draw the
    same numbers from the state's generator."""
    native = compiled("motley.games.foolery._native")
    if native is None:  # not built, or MOTLEY_PURE_PYTHON=1: the Python engine, the same game
        return False
    tables = {"A_MASK": A_MASK, "A_KIND": A_KIND, "A_SIZE": A_SIZE, "A_TOP": A_TOP, "A_STR": A_STR,
              "SKIP_RANK": SKIP_RANK, "PASS_EVENTS": _PASS_EVENTS, "PASS_ONLY": _PASS_ONLY,
              "STR_ACE_HIGH": STR_ACE_HIGH, "FLUSH_OFFSET": moves._FLUSH_OFFSET,
              "FLUSH_SUIT_BASE": moves._FLUSH_SUIT_BASE, "ACE_HIGH_FLUSH": moves._ACE_HIGH_FLUSH,
              "BASES": (moves.FIVE_BASE, moves.MASK_TO_ACTION[7 | 3 << 4], FIVE_KIND_BASE)}
    for name, method in native.install(FooleryRules, tables).items():
        setattr(FooleryRules, name, method)
    python_deal = PYTHON_METHODS["shuffle_deal"]
    deal = native.deal

    def shuffle_deal(self: FooleryRules, dealer: Seat) -> list[int]:
        rng = self.own_rng()
        if type(rng) is random.Random:  # the numbers shuffle_as_random draws, drawn in C
            hands: list[int] = deal(rng, self.game.num_players, dealer)
            return hands
        return python_deal(self, dealer)  # type: ignore[no-any-return]

    shuffle_deal.__doc__ = python_deal.__doc__
    FooleryRules.shuffle_deal = shuffle_deal  # type: ignore[method-assign]
    return True


#: Whether the compiled core plays (``MOTLEY_PURE_PYTHON=1`` forces the Python engine; docs/design.md).
NATIVE: bool = _install_native()
