"""What a seat of Foolery sees: the observation dict, the observation tensor, and the reading of an
observation back into a state.

``FooleryState.observation`` and ``FooleryState.observation_tensor`` (the core API) hand their state to the
functions here; the tensor's pieces are declared once, per player count, by :func:`tensor_layout`;
``Foolery`` takes the tensor length (:func:`tensor_size`) from here, and fills the states
of its determinizer and of stored text with :func:`read_observation`. Only :func:`read_observation` changes
a state (a new one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, NotRequired

import numpy as np
import numpy.typing as npt
from typing_extensions import TypedDict

from motley.core.cards import split_codes
from motley.core.tensors import Piece, TensorLayout
from motley.games.foolery.cards import (
    CODE_INDEX,
    CODES,
    EV_PLAY,
    EV_STUCK,
    EVENTS,
    FOOL,
    FOOL_BIT,
    HIGHEST,
    NUM_CARDS,
    OVER,
    PHASES,
    TITLES,
    Action,
    Event,
    Seat,
    cards_of,
    mask_of,
)
from motley.games.foolery.moves import A_KIND, A_MASK, A_SIZE, A_TEXT, K_FIVE, K_NORMAL, MASK_TO_ACTION, play_kind
from motley.games.foolery.rules import FooleryRules

#: The card sets at the head of the tensor, in order: one-hot (multi-hot) over the 78 card ids each.
CARD_BLOCKS = ("hand", "played", "top", "gave", "received")
_MASK_BYTES = (NUM_CARDS + 7) // 8  # a card bitmask as little-endian bytes
#: The title one-hot of the seat block (none, King, Prince, Noble, Merchant, Peasant) by title + 1.
_TITLE_ONE_HOT = tuple(tuple(1.0 if k == t else 0.0 for k in range(len(TITLES) + 1)) for t in range(len(TITLES) + 1))


class FooleryEvent(TypedDict):
    """One event of this hand: ``event`` play / pass / skip / trick / out / stuck, its seat, the cards (the
    play's text, "FOOL" when stuck, else ""), and ``value`` (trick: the next leader; out: the place)."""

    event: str
    seat: int
    cards: str
    value: int


class FooleryTopPlay(TypedDict):
    """The play on top of the trick: its seat, its cards (text) and its kind."""

    seat: int
    cards: str
    kind: str


class FooleryHandResult(TypedDict):
    """A finished hand: the finishing place per seat and the points they scored."""

    places: list[int]
    points: list[int]


class FooleryExchangeStep(TypedDict):
    """One step of the exchange: who gives how many cards to whom, by which rule, and how many are given."""

    giver: int
    receiver: int
    cards: int
    rule: str
    given: int


class FooleryExchange(TypedDict):
    """The exchange: its public steps and progress, and the seat's own ``gave``, ``received`` and ``partner``
    (absent from the public view)."""

    steps: list[FooleryExchangeStep]
    step_index: int
    step_given: int
    partner: NotRequired[int | None]
    gave: NotRequired[list[str]]
    received: NotRequired[list[str]]


class FooleryObservation(TypedDict):
    """The information state of a seat of Foolery (:func:`observation` says what each key holds); ``hand`` and
    ``hand_groups`` are the seat's own and absent from the public view, where ``seat`` is None."""

    game: str
    seat: int | None
    phase: str
    current_player: int
    hand_number: int
    hands_total: int
    dealer: int
    hand: NotRequired[list[str]]
    hand_groups: NotRequired[list[list[str]]]
    hand_sizes: list[int]
    table: FooleryTopPlay | None
    passed: list[int]
    log: list[FooleryEvent]
    places: list[int | None]
    next_place: int
    finishing_order: list[int]
    titles: list[str | None]
    scores: list[int]
    hand_results: list[FooleryHandResult]
    exchange: FooleryExchange
    terminal: bool
    returns: list[float]


@cache
def tensor_layout(players: int) -> TensorLayout:
    """The observation tensor's pieces at ``players`` seats (N), from the observer's point of view.

    Per-seat pieces are in relative order (index ``i`` is seat ``(seat + i) % N``: 0 is me). The card sets
    (:data:`CARD_BLOCKS`) are one-hot over the 78 card ids.
    """
    n = players
    return TensorLayout([
        Piece("hand", (NUM_CARDS,), "my hand"),
        Piece("played", (NUM_CARDS,), "cards out (played) this hand"),
        Piece("top", (NUM_CARDS,), "cards of the play on top of the trick"),
        Piece("gave", (NUM_CARDS,), "cards I gave in the exchange"),
        Piece("received", (NUM_CARDS,), "cards I received in the exchange"),
        Piece("seats", (n, 13), "block per relative seat `i`: +0 hand size / 28 (26 dealt + 2 from the exchange "
              "at most); +1 finished; +2 finishing place / (N - 1) (0 if not finished); +3..+8 title one-hot "
              "(none, King, Prince, Noble, Merchant, Peasant); +9 passed this trick; +10 made the top play; "
              "+11 to move; +12 dealer", "[0, 1]", per_seat=True),
        Piece("scores", (n,), "match scores / (2N²), clipped, per relative seat", "[-1, 1]", per_seat=True),
        Piece("phase", (3,), "phase one-hot: exchange, play, match over"),
        Piece("hand_number", (1,), "hand number / hands in the match (1 when the match ends at a target score)",
              "[0, 1]"),
        Piece("top_kind", (9,), "kind of the top play, one-hot: none, 1, 2, 3, 4 cards of a rank, 5-card hand, "
              "1, 2, 3 trumps (the Fool never stays on the table)"),
        Piece("top_strength", (1,), "strength of the top play / 80 (0 when none)", "[0, 1]"),
    ])


def tensor_size(players: int) -> int:
    """Length of the observation tensor for ``players`` seats (the size of :func:`tensor_layout`)."""
    return tensor_layout(players).size


#: ``_SEATS_OFFSET[n]``: :func:`_seats_offset` at ``n`` players.
_SEATS_OFFSET: dict[int, tuple[int, int]] = {}


def _seats_offset(players: int) -> tuple[int, int]:
    """The tensor's size and where its ``seats`` piece starts, after the card sets (computed once per count)."""
    found = _SEATS_OFFSET.get(players)
    if found is None:
        layout = tensor_layout(players)
        if layout.offsets(*CARD_BLOCKS) != tuple(k * NUM_CARDS for k in range(len(CARD_BLOCKS))):
            raise AssertionError("the card sets are the tensor's first pieces, in CARD_BLOCKS order")
        found = _SEATS_OFFSET[players] = (layout.size, layout.offset("seats"))
    return found


def observation(state: FooleryRules, seat: Seat) -> FooleryObservation:
    """The information state of ``seat``.

    Keys: ``game``, ``seat``, ``phase`` (``exchange``/``play``/``over``), ``current_player``,
    ``hand_number``, ``hands_total`` (0 with a target score), ``dealer``, ``hand`` (own codes, ascending),
    ``hand_groups`` (own cards grouped: one list per suit rank, then trumps, then the Fool),
    ``hand_sizes``, ``table`` (``None`` or ``{"seat", "cards", "kind"}``, the top play), ``passed`` (seats
    that passed in this trick), ``log`` (this hand's events ``{"event", "seat", "cards", "value"}``:
    play / pass / skip / trick (value: next leader) / out (value: place) / stuck), ``places`` (per seat,
    None until finished), ``next_place``, ``finishing_order``, ``titles`` (in force this hand, None in
    the first), ``scores`` (the running match totals), ``hand_results`` (``{"places", "points"}`` per
    finished hand), ``exchange`` (public ``steps`` with progress, and only this seat's own ``gave`` /
    ``received`` cards and partner), ``terminal``, ``returns``.
    """
    state.check_seat(seat)
    n = state.game.num_players
    hand = cards_of(state.hands[seat])
    groups: list[list[str]] = []
    last = -1
    for c in hand:
        key = c >> 2 if c < 56 else 100 if c < FOOL else 200  # a suit rank, the trumps, the Fool
        if key == last:
            groups[-1].append(CODES[c])
        else:
            groups.append([CODES[c]])
        last = key
    log: list[FooleryEvent] = []
    for kind, q, value in state.log:
        if kind == EV_PLAY:
            log.append({"event": "play", "seat": q, "cards": A_TEXT[value], "value": 0})
        else:
            log.append({"event": EVENTS[kind], "seat": q, "cards": "FOOL" if kind == EV_STUCK else "",
                        "value": value})
    top = state.top
    order = sorted((p, q) for q, p in enumerate(state.places) if p >= 0)
    steps: list[FooleryExchangeStep] = [
        {"giver": g, "receiver": r, "cards": k, "rule": "highest" if rule == HIGHEST else "any",
         "given": k if i < state.step_index else (state.step_given if i == state.step_index else 0)}
        for i, (g, r, k, rule) in enumerate(state.steps)]
    partner = state.partner_of(seat)
    passed = state.passed  # read from the log
    return {
        "game": state.game.name,
        "seat": seat,
        "phase": PHASES[state.phase],
        "current_player": state.current_player(),
        "hand_number": state.hand_number,
        "hands_total": state.game.hands_total,
        "dealer": state.dealer,
        "hand": [CODES[c] for c in hand],
        "hand_groups": groups,
        "hand_sizes": list(state.sizes),
        "table": None if top < 0 else {"seat": state.top_seat, "cards": A_TEXT[top], "kind": play_kind(top)},
        "passed": [q for q in range(n) if passed >> q & 1],
        "log": log,
        "places": [None if p < 0 else p for p in state.places],
        "next_place": state.next_place,
        "finishing_order": [q for _, q in order],
        "titles": [None if t < 0 else TITLES[t] for t in state.titles],
        "scores": list(state.totals),
        "hand_results": [{"places": list(r), "points": state.game.points(r)} for r in state.results],
        "exchange": {"steps": steps, "step_index": state.step_index, "step_given": state.step_given,
                     "partner": None if partner < 0 else partner,
                     "gave": [CODES[c] for c in state.gave[seat]],
                     "received": [CODES[c] for c in state.received[seat]]},
        "terminal": state.phase == OVER,
        "returns": state.returns(),
    }


#: The compiled core's tensor writer (``FooleryRules._write_tensor``, ``_native.c``) when it plays, else None:
#: ``write(state, seat, out) -> bool`` fills ``out`` with :func:`reference_tensor`'s values, byte for byte.
_NATIVE_WRITE: Callable[[FooleryRules, int, npt.NDArray[np.float32]], bool] | None = getattr(
    FooleryRules, "_write_tensor", None)


def observation_tensor(state: FooleryRules, seat: Seat) -> npt.NDArray[np.float32]:
    """float32 vector of ``tensor_size(N)`` from ``seat``'s point of view: the pieces of :func:`tensor_layout`
    (table in docs/observation_tensors.md), the card sets at once, then the pieces from ``seats`` on in order.

    Written by the compiled core when it plays (``_native.c``), else by :func:`reference_tensor`: the same
    bytes (tests/envs/test_envs_fast_tensors.py).

    Raises:
        motley.MotleyError: for a seat that is not a seat of the game.
    """
    write = _NATIVE_WRITE
    if write is None:
        return reference_tensor(state, seat)
    out = np.empty(_seats_offset(len(state.sizes))[0], dtype=np.float32)
    if not write(state, seat, out):  # not an int of 0..N-1: the game's own error, or a NumPy integer seat
        state.check_seat(seat)
        write(state, int(seat), out)
    return out


def write_tensor(state: FooleryRules, seat: Seat, out: npt.NDArray[np.float32]) -> None:
    """Write :func:`observation_tensor` of ``seat`` into ``out`` (a writable C-contiguous float32 vector of
    ``tensor_size(N)``) without allocating: the batch observer's and the environments' path.

    Raises:
        motley.MotleyError: for a seat that is not a seat of the game.
        ValueError: for an ``out`` of another dtype, layout or length.
    """
    write = _NATIVE_WRITE
    if write is not None and write(state, seat, out):
        return
    if write is None:
        if out.dtype != np.float32 or out.shape != (_seats_offset(state.game.num_players)[0],):
            raise ValueError(f"out must be float32 of shape ({_seats_offset(state.game.num_players)[0]},)")
        out[...] = reference_tensor(state, seat)
        return
    state.check_seat(seat)
    write(state, int(seat), out)


class BatchTensors:
    """Foolery's batch observer (``SPEC.batch_observer``, :class:`motley.core.spec.BatchObserver`): each row
    written in place by :func:`write_tensor` (the compiled core's writer where it plays), without a tensor per
    state; nothing is kept between writes (the compiled writer reads a state in well under a microsecond), so a
    single-seat environment asks the state itself (``keeps_state``, :func:`motley.envs.tensors.game_observer`)."""

    #: Nothing is kept between writes: with one slot, ``state.observation_tensor`` is as fast.
    keeps_state = False

    def __init__(self, game: Any, slots: int) -> None:
        self.game = game
        self.slots = slots

    def write(self, states: Sequence[Any], seats: Sequence[int], out: npt.NDArray[np.float32]) -> None:
        """Set ``out[i]`` to ``states[i].observation_tensor(seats[i])`` for every i (``out`` C-contiguous).

        Raises:
            motley.MotleyError: for a seat that is not a seat of the game.
        """
        for i, (state, seat) in enumerate(zip(states, seats, strict=True)):
            write_tensor(state, seat, out[i])


def reference_tensor(state: FooleryRules, seat: Seat) -> npt.NDArray[np.float32]:
    """:func:`observation_tensor` computed in Python from the state's fields: the definition the compiled
    writer is tested against, and the path without the compiled core.

    Raises:
        motley.MotleyError: for a seat that is not a seat of the game.
    """
    state.check_seat(seat)
    n = state.game.num_players
    size, base = _seats_offset(n)
    out = np.empty(size, dtype=np.float32)
    top = state.top
    masks = (state.hands[seat], state.played, A_MASK[top] if top >= 0 else 0, mask_of(state.gave[seat]),
             mask_of(state.received[seat]))
    raw = np.frombuffer(b"".join(m.to_bytes(_MASK_BYTES, "little") for m in masks), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little").reshape(len(masks), 8 * _MASK_BYTES)
    out[:base] = bits[:, :NUM_CARDS].ravel()
    to_move = state.current_player()
    sizes, places, titles, passed = state.sizes, state.places, state.titles, state.passed
    top_seat, dealer = state.top_seat, state.dealer
    tail: list[float] = []  # the pieces from ``seats`` on: seats, scores, phase, hand number, top kind, strength
    for i in range(n):
        q = (seat + i) % n
        place = places[q]
        tail += (sizes[q] / 28.0,  # 26 dealt + 2 from the exchange at most
                 1.0 if place >= 0 else 0.0, place / (n - 1) if place >= 0 else 0.0)
        tail += _TITLE_ONE_HOT[titles[q] + 1]
        tail += (1.0 if passed >> q & 1 else 0.0, 1.0 if top_seat == q else 0.0, 1.0 if to_move == q else 0.0,
                 1.0 if dealer == q else 0.0)
    scale = 2.0 * n * n
    tail += [max(-1.0, min(1.0, state.totals[(seat + i) % n] / scale)) for i in range(n)]
    phase = [0.0, 0.0, 0.0]
    phase[state.phase] = 1.0
    total = state.game.hands_total
    kind = [0.0] * 9
    if top < 0:
        kind[0] = 1.0
    elif A_KIND[top] == K_NORMAL:
        kind[A_SIZE[top]] = 1.0
    elif A_KIND[top] == K_FIVE:
        kind[5] = 1.0
    else:
        kind[5 + A_SIZE[top]] = 1.0
    tail += [*phase, min(1.0, state.hand_number / total) if total else 1.0, *kind,
             state.game.strength[top] / 80.0 if top >= 0 else 0.0]
    out[base:] = tail
    return out


def _play_action(text: str) -> Action:
    """The action id of a play string of an observation (``"9S 9H"``)."""
    cards = [CODE_INDEX[c] for c in split_codes(text)]
    return MASK_TO_ACTION[mask_of(cards)]


def read_observation(state: FooleryRules, obs: Mapping[str, Any]) -> None:
    """Set every field of a new ``state`` that an observation shows (the inverse of :func:`observation`);
    the other seats' hands are left empty, and so are the exchange records of the seats not observing.

    ``Foolery.determinizer`` builds its template with it, ``Foolery`` a state read back from text.
    """
    n = state.game.num_players
    me = int(obs["seat"])
    state.phase = PHASES.index(obs["phase"])
    state.to_move = int(obs["current_player"])
    state.hand_number = int(obs["hand_number"])
    state.dealer = int(obs["dealer"])
    state.sizes = [int(s) for s in obs["hand_sizes"]]
    state.hands = [0] * n
    state.hands[me] = mask_of([CODE_INDEX[c] for c in obs["hand"]])
    table = obs["table"]
    state.top = -1 if table is None else _play_action(table["cards"])
    state.top_seat = -1 if table is None else int(table["seat"])
    state.places = [-1 if p is None else int(p) for p in obs["places"]]
    state.next_place = int(obs["next_place"])
    state.titles = [-1 if t is None else TITLES.index(t) for t in obs["titles"]]
    state.totals = [int(s) for s in obs["scores"]]
    state.results = [[int(p) for p in r["places"]] for r in obs["hand_results"]]
    log: list[Event] = []
    played = 0
    for e in obs["log"]:
        kind = EVENTS.index(e["event"])
        if kind == EV_PLAY:
            a = _play_action(e["cards"])
            played |= A_MASK[a]
            log.append((kind, int(e["seat"]), a))
        else:
            if kind == EV_STUCK:
                played |= FOOL_BIT
            log.append((kind, int(e["seat"]), int(e["value"])))
    state.log = log
    state._locked = state.passed if state.game.locks_out else 0  # the seats out of this trick (FY-D7)
    state.played = played
    ex = obs["exchange"]
    state.steps = [(int(s["giver"]), int(s["receiver"]), int(s["cards"]), 0 if s["rule"] == "highest" else 1)
                   for s in ex["steps"]]
    state.step_index = int(ex["step_index"])
    state.step_given = int(ex["step_given"])
    state.gave = [[] for _ in range(n)]
    state.received = [[] for _ in range(n)]
    state.gave[me] = [CODE_INDEX[c] for c in ex["gave"]]
    state.received[me] = [CODE_INDEX[c] for c in ex["received"]]
