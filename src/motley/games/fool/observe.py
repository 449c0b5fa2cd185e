"""What a seat of Fool! sees: the observation dict, the observation tensor and the voids shown by play.

``FoolState.observation``, ``FoolState.observation_tensor`` and ``FoolState.voids`` (the core API) hand
their state to the functions here; the tensor's pieces are declared once, per player count, by
:func:`tensor_layout` (the batch observer and the docs' table read them there too). ``Fool`` takes its deck's
tensor block (:func:`deck_block`) and the tensor length (:func:`tensor_size`) from here too. Nothing here
changes a state.

:func:`observation_tensor` is the tensor's definition, in Python; the compiled writer (``_native.c``, built with the
package where a C compiler is found) writes the same bytes from a state's slots: :data:`NATIVE_WRITE`, which
``FoolState.observation_tensor`` calls (``MOTLEY_PURE_PYTHON=1`` leaves it out).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Literal, NotRequired, cast

import numpy as np
import numpy.typing as npt
from typing_extensions import TypedDict

from motley.core.native import compiled
from motley.core.tensors import Piece, TensorLayout
from motley.games.fool.cards import CODES, COLOUR, COLOUR_NAMES, W1, Card, Seat, W
from motley.games.fool.rules import FoolGameRules, FoolRules

H = 83  # tensor block per card set: 82 coloured one-hot + W1 count / 6

#: ``_RELATIVE[n][seat][s]``: seat ``s``'s index relative to ``seat`` at ``n`` players, ``(s - seat) % n``.
_RELATIVE = [[[(s - seat) % n for s in range(n)] for seat in range(n)] for n in range(9)]

#: A completed trick as a state keeps it: (plays ``seat << 7 | card``, lead colour, winner, Fool takers).
Trick = tuple[tuple[int, ...], int, int, tuple[int, ...]]


class FoolPlay(TypedDict):
    """One card played into a trick: the seat and the card's code."""

    seat: int
    card: str


class FoolTrick(TypedDict):
    """The trick in play: its leader (None between rounds), the seats playing it in turn, the lead colour's
    name (None while unset), the plays so far, and the seat whose card wins it so far (FL-R8; None before its
    first card)."""

    leader: int | None
    order: list[int]
    lead: str | None
    plays: list[FoolPlay]
    winning: int | None


class FoolDoneTrick(TypedDict):
    """A completed trick of this round: leader, lead colour, plays, winner and the seats the Fools took."""

    leader: int
    lead: str | None
    plays: list[FoolPlay]
    winner: int
    fools: list[int]


class FoolLastRound(TypedDict):
    """The round that ended last (FL-R13): its number, the points per seat, who went out (+10 bonus), who went
    out fooled, the Fool takers and the final trick."""

    round_number: int
    scores: list[int]
    bonus: list[int]
    went_out_fooled: list[int]
    fools: list[int]
    final_trick: list[FoolPlay]


class FoolObservation(TypedDict):
    """The information state of a seat of Fool! (:func:`observation` says what each key holds); ``hand`` is the
    seat's own and absent from the public view (``GameSpec.private_fields``), where ``seat`` is None."""

    game: Literal["fool"]
    players: int
    seat: int | None
    current_player: int
    dealer: int
    round_number: int
    hand: NotRequired[list[str]]
    hand_sizes: list[int]
    trick: FoolTrick
    tricks: list[FoolDoneTrick]
    sitting_out: list[int]
    discs: list[int]
    num_fools: int
    voids: list[list[str]]
    scores: list[int]
    bonus_counts: list[int]
    round_scores: list[list[int]]
    last_round: FoolLastRound | None
    deck: dict[str, int]
    deck_table_assumed: bool
    terminal: bool
    winners: list[int]
    returns: list[float]


@cache
def tensor_layout(players: int) -> TensorLayout:
    """The observation tensor's pieces at ``players`` seats, from the observer's point of view.

    Per-seat pieces are in relative order (index ``r`` is seat ``(seat + r) % n``: 0 is me, then clockwise).
    A *card block* is H = 83 floats: 82 one-hot coloured cards (card id order), then the number of W1 / 6.
    The batch observer (``batch.py``) keeps the same pieces in absolute seat order.
    """
    n = players
    return TensorLayout([
        Piece("hand", (H,), "card block: my hand", "[0, 1]"),
        Piece("played", (n, H), "card block per relative seat: cards it played this round (completed tricks "
              "and the current trick)", "[0, 1]", per_seat=True),
        Piece("trick", (n, H), "card block per relative seat: the card it played in the current trick", "[0, 1]",
              per_seat=True),
        Piece("lead", (4,), "lead colour one-hot (G R Y B; all 0 = not set)"),
        Piece("hand_sizes", (n,), "hand sizes / 12", "[0, 1]", per_seat=True),
        Piece("sitting_out", (n,), "sitting out this round (holds a Fool disc, FL-R10)", per_seat=True),
        Piece("to_move", (n,), "to move, one-hot (all 0 when the match is over)", per_seat=True),
        Piece("dealer", (n,), "dealer, one-hot", per_seat=True),
        Piece("leader", (n,), "leader of the current trick, one-hot (all 0 when the match is over)", per_seat=True),
        Piece("voids", (n, 4), "known voids per relative seat, colours G R Y B (revealed by not following, FL-R6)",
              per_seat=True),
        Piece("totals", (n,), "match totals / 100, clipped", "[-1, 1]", per_seat=True),
        Piece("bonus_counts", (n,), "+10 bonus counts / `end_bonus_count`, clipped", "[0, 1]", per_seat=True),
        Piece("last_round", (n,), "last round's scores / 100, clipped (0 before the first round ends)", "[-1, 1]",
              per_seat=True),
        Piece("deck", (H,), "card block: the deck in use at this player count (1 per coloured card present, "
              "W1 count / 6)", "[0, 1]"),
        Piece("round", (1,), "round number / 20, clipped", "[0, 1]"),
        Piece("tricks_done", (1,), "completed tricks this round / 12", "[0, 1]"),
        Piece("over", (1,), "the match is over"),
        Piece("deck_assumed", (1,), "the deck table is the ASSUMED default (FL-D1)"),
        Piece("two_fools", (1,), "two Fools in play"),
    ])


def tensor_size(players: int) -> int:
    """Length of the observation tensor at ``players`` seats (the size of :func:`tensor_layout`)."""
    return tensor_layout(players).size


#: ``_OFFSETS[n]``: the offsets the tensor functions write at, at ``n`` players (see :func:`_offsets`).
_OFFSETS: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
#: The pieces :func:`observation_tensor` writes, whose offsets it reads (after the tensor's size).
_TENSOR_FIELDS = ("hand", "played", "trick", "lead", "hand_sizes", "sitting_out", "to_move", "leader", "voids",
                  "tricks_done", "over")
#: The pieces of a round base (:func:`_round_base`), whose offsets it takes from the ``lead`` piece on.
_BASE_FIELDS = ("dealer", "totals", "bonus_counts", "last_round", "deck", "round", "deck_assumed", "two_fools")


def _offsets(players: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """At ``players`` seats: the tensor's size and the offsets of ``_TENSOR_FIELDS``; the offsets of
    ``_BASE_FIELDS`` less the ``lead`` piece's, and the length of a round base (computed once per player count)."""
    found = _OFFSETS.get(players)
    if found is None:
        layout = tensor_layout(players)
        lead = layout.offset("lead")
        found = _OFFSETS[players] = ((layout.size, *layout.offsets(*_TENSOR_FIELDS)),
                                     (*(at - lead for at in layout.offsets(*_BASE_FIELDS)), layout.size - lead))
    return found


def deck_block(deck: Sequence[Card]) -> npt.NDArray[np.float32]:
    """The tensor's card block of a deck (FL-R3): 1 per coloured card present, the number of W1 / 6."""
    block = np.zeros(H, dtype=np.float32)
    for c in deck:
        if c < W1:
            block[c] = 1.0
    block[W1] = deck.count(W1) / 6.0
    return block


def voids(state: FoolRules) -> list[int]:
    """Per seat a bitmask of colours (bit 0..3 = G R Y B) the seat is known to lack this round.

    A non-1 card of another colour played after the lead colour was set shows a void (FL-R6); the card
    that sets the colour after a led 1 shows nothing, nor does a W1 (FL-R7).
    """
    found = list(_completed_tricks(state).voids)
    _mark_voids(state.trick, found)
    return found


def plays_voids(state: FoolRules) -> list[int]:
    """:func:`voids` read from the round's plays alone, without the tensor fields cached beside them (for the
    many short-lived copies of one position that inference makes: ``sample.perturb``)."""
    found = [0] * len(state.hands)
    for plays, _, _, _ in state.tricks:
        _mark_voids(plays, found)
    _mark_voids(state.trick, found)
    return found


class _Completed:
    """What this round's completed tricks show, per absolute seat: the cards each seat played (card blocks in
    seat order, written twice: a (2n, H) array, so that any seat's relative order is one slice) and the
    colours it is known to lack; kept for the tricks list it was read from, with
    each seat's tensor fields that stay the same through the round (the round's "bases")."""

    __slots__ = ("bases", "count", "last", "played", "result", "tricks", "voids")

    def __init__(self, tricks: list[Trick], n: int) -> None:
        self.tricks = tricks  # held, so its id is not reused while the entry lives
        self.count = 0
        self.last: Trick | None = None
        self.played = np.zeros((2 * n, H), dtype=np.float32)
        self.voids = [0] * n
        self.result: object = None  # ``state.last`` the bases were made with (a new dict when a round ends)
        self.bases: list[npt.NDArray[np.float32] | None] = [None] * n

    def round_base(self, state: FoolRules, seat: Seat) -> npt.NDArray[np.float32]:
        """``_round_base(state, seat)``, kept until the round's result (``state.last``) changes."""
        if state.last is not self.result:
            self.result, self.bases = state.last, [None] * len(self.bases)
        base = self.bases[seat]
        if base is None:
            base = self.bases[seat] = _round_base(state, seat)
        return base

    def extend(self) -> None:
        """Read the tricks appended since the last reading."""
        tricks = self.tricks
        played = self.played
        n = len(self.voids)
        for plays, _, _, _ in tricks[self.count:]:
            for t in plays:
                _add(played[t >> 7], 0, t & 127)
                _add(played[n + (t >> 7)], 0, t & 127)
            _mark_voids(plays, self.voids)
        self.count = len(tricks)
        self.last = tricks[-1] if tricks else None


#: Readings of the completed tricks by ``id`` of the state's tricks list (a state's list only grows during a
#: round; a new round, a clone or a restored state has a new list). Emptied when it grows past the limit, which
#: bounds the memory it holds (an entry is at most 12 KB: 8 players' cards played, twice, and round bases) while keeping
#: every match of a large batch of environments.
_COMPLETED: dict[int, _Completed] = {}
_COMPLETED_LIMIT = 1024


def _completed_tricks(state: FoolRules) -> _Completed:
    """The reading of ``state``'s completed tricks this round, brought up to date (cached, see ``_COMPLETED``)."""
    tricks = state.tricks
    entry = _COMPLETED.get(id(tricks))
    if entry is None or entry.tricks is not tricks or len(tricks) < entry.count or (
            entry.count and tricks[entry.count - 1] is not entry.last):
        if len(_COMPLETED) >= _COMPLETED_LIMIT:
            _COMPLETED.clear()
        entry = _COMPLETED[id(tricks)] = _Completed(tricks, state.game.num_players)
    if entry.count != len(tricks):
        entry.extend()
    return entry


def observation(state: FoolRules, seat: Seat) -> FoolObservation:
    """The information state of ``seat``: its hand and everything public (FL-D11: hand sizes).

    Keys: ``game``, ``players``, ``seat``, ``current_player`` (TERMINAL = -4 at the end), ``dealer``,
    ``round_number`` (1-based), ``hand`` (own codes, by colour G R Y B then value, W1 last), ``hand_sizes``,
    ``trick`` (``{"leader", "order", "lead", "plays": [{"seat", "card"}], "winning"}``; ``order`` = the seats
    playing it in turn; ``lead`` a colour name or None; ``winning`` the seat whose card wins it so far, the
    card to beat, FL-R8, or None before its first card), ``tricks`` (this round's completed tricks,
    ``{"leader", "lead", "plays", "winner", "fools"}``), ``sitting_out`` and ``discs`` (the seats holding
    a Fool disc: they sit out the current trick, FL-R10), ``num_fools``, ``voids`` (colour names each
    seat is known to lack), ``scores`` (totals), ``bonus_counts``, ``round_scores`` (each finished round's
    points per seat, in order: the score sheet, FL-R13), ``last_round`` (None, or
    ``{"round_number", "scores", "bonus", "went_out_fooled", "fools", "final_trick"}``), ``deck`` (the table
    entry in use), ``deck_table_assumed``, ``terminal``, ``winners``, ``returns``.
    """
    state.check_seat(seat)
    game = state.game
    hand = state.hands[seat]
    void_bits = voids(state)
    order = state.order
    return {
        "game": "fool",
        "players": game.num_players,
        "seat": seat,
        "current_player": state.current_player(),
        "dealer": state.dealer,
        "round_number": state.round_number,
        "hand": [CODES[c] for col in hand for c in col],
        "hand_sizes": list(state.sizes),
        "trick": {"leader": order[0] if order else None, "order": list(order), "lead": _colour_of(state.lead),
                  "plays": [{"seat": t >> 7, "card": CODES[t & 127]} for t in state.trick],
                  "winning": state.winning_seat()},
        "tricks": [{"leader": plays[0] >> 7, "lead": _colour_of(lc),
                    "plays": [{"seat": t >> 7, "card": CODES[t & 127]} for t in plays],
                    "winner": winner, "fools": list(fools)} for plays, lc, winner, fools in state.tricks],
        "sitting_out": list(state.out),
        "discs": list(state.out),
        "num_fools": game.num_fools,
        "voids": [[COLOUR_NAMES[c] for c in range(4) if v >> c & 1] for v in void_bits],
        "scores": list(state.totals),
        "bonus_counts": list(state.bonuses),
        "round_scores": [list(r) for r in state.rounds],
        "last_round": cast("FoolLastRound | None", _copy_last(state.last)),  # the keys of a FoolLastRound
        "deck": dict(game.params["deck_table"][str(game.num_players)]),
        "deck_table_assumed": game.deck_assumed,
        "terminal": state.done,
        "winners": state.winners(),
        "returns": state.returns(),
    }


def observation_tensor(state: FoolRules, seat: Seat) -> npt.NDArray[np.float32]:
    """float32 vector of ``tensor_size(players)`` from ``seat``'s view: the pieces of :func:`tensor_layout`
    (table in docs/observation_tensors.md)."""
    state.check_seat(seat)
    n = state.game.num_players
    completed = _completed_tricks(state)
    (size, hand_at, played_base, trick_base, lead, sizes_at, out_at, move_at, leader_at, voids_at, tricks_at,
     over) = _offsets(n)[0]
    out = np.zeros(size, dtype=np.float32)
    out[lead:] = completed.round_base(state, seat)  # the pieces from the lead on, as they stand this round
    rel = _RELATIVE[n][seat]
    hand = state.hands[seat]
    for colour in (hand[0], hand[1], hand[2], hand[3]):
        for c in colour:  # scalar writes: cheaper than one fancy-indexed write for a dozen cards
            out[hand_at + c] = 1.0
    out[hand_at + W1] = len(hand[4]) / 6.0
    out[played_base:played_base + n * H] = completed.played[seat:seat + n].reshape(n * H)  # seat, seat + 1, ...
    for t in state.trick:
        c = t & 127
        r = H * rel[t >> 7]
        if c >= W1:
            out[played_base + r + W1] += 1.0 / 6.0
            out[trick_base + r + W1] += 1.0 / 6.0
        else:
            out[played_base + r + c] = 1.0
            out[trick_base + r + c] = 1.0
    if state.lead >= 0:
        out[lead + state.lead] = 1.0
    sizes = state.sizes
    for s in range(n):
        out[sizes_at + rel[s]] = sizes[s] / 12.0
    for s in state.out:
        out[out_at + rel[s]] = 1.0
    if not state.done:
        out[move_at + rel[state.order[state.pos]]] = 1.0
        out[leader_at + rel[state.order[0]]] = 1.0
    found = list(completed.voids)
    _mark_voids(state.trick, found)
    for s, v in enumerate(found):
        if v:
            for c in range(4):
                if v >> c & 1:
                    out[voids_at + 4 * rel[s] + c] = 1.0
    out[tricks_at] = min(1.0, len(state.tricks) / 12.0)
    out[over] = float(state.done)
    return out


def _round_base(state: FoolRules, seat: Seat) -> npt.NDArray[np.float32]:
    """The part of ``seat``'s tensor from the ``lead`` piece on (after the card blocks) with the fields that stay
    the same through a round (the rest 0): dealer, totals, bonus counts, last round's scores, the deck block,
    round number, deck table assumed, two Fools. (Only this part: a batch of matches keeps every seat's.)"""
    game = state.game
    n = game.num_players
    dealer, totals, bonuses, last_round, deck, round_at, assumed, two_fools, size = _offsets(n)[1]
    out = np.zeros(size, dtype=np.float32)
    order = [(seat + r) % n for r in range(n)]  # relative seat r -> seat
    out[dealer + (state.dealer - seat) % n] = 1.0
    bonus_scale = float(game.params["end_bonus_count"])
    out[totals:totals + n] = [max(-1.0, min(1.0, state.totals[s] / 100.0)) for s in order]
    out[bonuses:bonuses + n] = [min(1.0, state.bonuses[s] / bonus_scale) for s in order]
    if state.last is not None:
        last = state.last["scores"]
        out[last_round:last_round + n] = [max(-1.0, min(1.0, last[s] / 100.0)) for s in order]
    out[deck:deck + H] = game.deck_block
    out[round_at] = min(1.0, state.round_number / 20.0)
    out[assumed] = float(game.deck_assumed)
    out[two_fools] = float(game.num_fools == 2)
    out.setflags(write=False)
    return out


def _colour_of(lead: int) -> str | None:
    return None if lead < 0 else COLOUR_NAMES[lead]


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


def _add(out: npt.NDArray[np.float32], base: int, c: int) -> None:
    if c >= W1:
        out[base + W1] += 1.0 / 6.0
    else:
        out[base + c] = 1.0


#: The pieces whose offsets the compiled writer reads, in its order (``_native.c``: ``L_HAND`` ... ``L_TWO_FOOLS``),
#: after the tensor's size.
_NATIVE_PIECES = ("hand", "played", "trick", "lead", "hand_sizes", "sitting_out", "to_move", "dealer", "leader",
                  "voids", "totals", "bonus_counts", "last_round", "deck", "round", "tricks_done", "over",
                  "deck_assumed", "two_fools")


def _native_writer() -> Callable[[FoolRules, int, npt.NDArray[np.float32]], bool] | None:
    """The compiled tensor writer, ``write(state, seat, out) -> bool``: :func:`observation_tensor` of ``seat``
    written into ``out`` (a writable C-contiguous float32 vector of :func:`tensor_size`; ValueError otherwise),
    False and nothing written for a seat that is no ``int`` of 0..n-1. None when the extension is not built or
    ``MOTLEY_PURE_PYTHON`` is ``1``."""
    native = compiled("motley.games.fool._native")
    if native is None:  # not built, or MOTLEY_PURE_PYTHON=1: the Python tensor, the same bytes
        return None
    layouts = {n: (tensor_size(n), *tensor_layout(n).offsets(*_NATIVE_PIECES))
               for n in range(FoolGameRules.min_players, FoolGameRules.max_players + 1)}
    write: Callable[[FoolRules, int, npt.NDArray[np.float32]], bool] = native.install(
        FoolRules, {"COLOUR": COLOUR, "LAYOUT": layouts})["_write_tensor"]
    return write


#: The compiled tensor writer (:func:`_native_writer`), or None: the Python tensor alone.
NATIVE_WRITE = _native_writer()


def native_write_refused(state: FoolRules, seat: Any, out: npt.NDArray[np.float32]) -> None:
    """What follows :data:`NATIVE_WRITE` returning False for ``seat`` (no ``int`` of 0..n-1): the game's own error
    for a seat that is not one of the game's, else (a NumPy integer) the tensor written for ``int(seat)`` into
    ``out``. Kept apart so the callers' path for an ``int`` seat is the writer's call alone.

    Raises:
        MotleyError: for a seat that is not one of the game's (``state.check_seat``).
    """
    state.check_seat(seat)
    assert NATIVE_WRITE is not None
    NATIVE_WRITE(state, int(seat), out)
