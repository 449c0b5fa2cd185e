"""What a seat of The Fool's Errand sees: the observation dict, the observation tensor, and the reading of
an observation back into a state.

``FoolsErrandState.observation`` and ``FoolsErrandState.observation_tensor`` (the core API) hand their state
to the functions here; the tensor's pieces are declared once in :data:`LAYOUT`; ``FoolsErrand`` takes the
tensor length (``OBSERVATION_SIZE``) from here, and fills
the states of its determinizer and of stored text with :func:`read_observation`. Only
:func:`read_observation` changes a state (a new one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import TypedDict

from motley.core.game import TERMINAL
from motley.core.tensors import Piece, TensorLayout
from motley.games.fools_errand.cards import (
    CODE_INDEX,
    CODES,
    DECK_SIZE,
    JOKER_A,
    JOKER_PLACES,
    SET_ASIDE,
    TOTAL_POINTS,
    Card,
    Seat,
)
from motley.games.fools_errand.rules import FoolsErrandRules

#: The observation tensor, from the observer's point of view ("me" first, then the opponent). Card ids:
#: ``suit * 13 + rank``; everything but the order and split of the two decks is public (FE-R1, FE-R9).
LAYOUT = TensorLayout([
    Piece("scale", (1,), "the scale from my side / 50, clipped (positive = tipped towards me)", "[-1, 1]"),
    Piece("places", (52, 5), "per card (id order) a one-hot of its public place: in play by me, in play by the "
          "opponent, in my score pile, in the opponent's pile, unclaimed (discarded at the end); all 0 = unseen "
          "(still in a deck)"),
    Piece("deck_sizes", (2,), "cards left in each deck / 27: mine, the opponent's", "[0, 1]", per_seat=True),
    Piece("jokers", (2, 3), "Joker place one-hot (in deck, set aside, drawn): mine, then the opponent's",
          per_seat=True),
    Piece("phase", (3,), "one-hot: my turn decision (draw / play my set-aside Joker), my drawn-Joker "
          "decision (play / keep), match over; all 0 while the opponent is to move"),
    Piece("pile_points", (2,), "points in each score pile / 340: mine, the opponent's", "[0, 1]", per_seat=True),
])
OBSERVATION_SIZE = LAYOUT.size


def tensor_layout(players: int = 2) -> TensorLayout:
    """:data:`LAYOUT` (the one player count, 2: the same call as the other games')."""
    return LAYOUT

_SCALE, _PLACES, _DECK_SIZES, _JOKERS, _PHASE, _PILE_POINTS = LAYOUT.offsets(
    "scale", "places", "deck_sizes", "jokers", "phase", "pile_points")


class FoolsErrandCard(TypedDict):
    """A card face up in play: the seat that played it and its code."""

    seat: int
    card: str


class FoolsErrandEvent(TypedDict):
    """One event of the match (FE-R9 announcements): its kind, seat, card code (None when no card), value and
    the scale after it."""

    event: str
    seat: int
    card: str | None
    value: int
    scale: int


class FoolsErrandObservation(TypedDict):
    """The information state of a seat of Fool's Errand (:func:`observation` says what each key holds; nothing
    in it is private, so the public view differs only in ``seat``, None)."""

    game: str
    seat: int | None
    current_player: int
    phase: str
    scale: int
    scale_for_you: int
    in_play: list[FoolsErrandCard]
    piles: list[list[str]]
    pile_points: list[int]
    unclaimed: list[str]
    deck_sizes: list[int]
    jokers: list[str]
    log: list[FoolsErrandEvent]
    actions: list[int]
    terminal: bool
    returns: list[float]


def observation(state: FoolsErrandRules, seat: Seat) -> FoolsErrandObservation:
    """The information state of ``seat`` (FE-R9 announcements in the log).

    Everything but the order and split of the decks is public: cards are played face up, scooped
    cards were seen, set-aside Jokers lie face up. Keys: ``game``, ``seat``, ``current_player``,
    ``phase`` (``"turn"``, ``"joker_drawn"``, ``"over"``), ``scale`` (seat 0's view),
    ``scale_for_you``, ``in_play`` (``[{"seat", "card"}]`` in order), ``piles`` (codes per seat),
    ``pile_points``, ``unclaimed``, ``deck_sizes``, ``jokers`` (``"deck"``, ``"set_aside"`` or
    ``"drawn"`` per seat), ``log`` (events ``{"event", "seat", "card", "value", "scale"}``),
    ``actions`` (decision history), ``terminal``, ``returns``.
    """
    state.check_seat(seat)
    to_move = state.to_move
    phase = "over" if to_move == TERMINAL else ("turn" if state.joker[to_move] == SET_ASIDE else "joker_drawn")
    return {
        "game": state.game.name,
        "seat": seat,
        "current_player": to_move,
        "phase": phase,
        "scale": state.scale,
        "scale_for_you": state.scale if seat == 0 else -state.scale,
        "in_play": [{"seat": t >> 6, "card": CODES[t & 63]} for t in state.table],
        "piles": [[CODES[c] for c in state.piles[q]] for q in range(2)],
        "pile_points": state.scores(),
        "unclaimed": [CODES[c] for c in state.unclaimed],
        "deck_sizes": [len(state.decks[0]), len(state.decks[1])],
        "jokers": [JOKER_PLACES[place] for place in state.joker],
        "log": [{"event": k, "seat": q, "card": None if c < 0 else CODES[c], "value": v, "scale": a}
                for k, q, c, v, a in state.log],
        "actions": state.history(),
        "terminal": to_move == TERMINAL,
        "returns": state.returns(),
    }


def shown_steps(before: Any, after: Any) -> int:
    """How many steps a viewer's page shows a move in (``GameSpec.shown_steps``): one per event the move added to
    the log (each draw, scoop, Joker; the page shows them one at a time), at least 1; ``before`` None: the events
    of the opening, the draws before the first decision (FE-R4)."""
    return max(1, len(after.log) - (0 if before is None else len(before.log)))


def observation_tensor(state: FoolsErrandRules, seat: Seat) -> npt.NDArray[np.float32]:
    """float32 vector of ``OBSERVATION_SIZE`` (274) from ``seat``'s point of view: the pieces of :data:`LAYOUT`
    (table in docs/observation_tensors.md)."""
    state.check_seat(seat)
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    me = seat
    places, jokers = _PLACES, _JOKERS
    out[_SCALE] = max(-1.0, min(1.0, (state.scale if me == 0 else -state.scale) / 50.0))
    for t in state.table:
        out[places + (t & 63) * 5 + (0 if t >> 6 == me else 1)] = 1.0
    for q in range(2):
        for c in state.piles[q]:
            out[places + c * 5 + (2 if q == me else 3)] = 1.0
    for c in state.unclaimed:
        out[places + c * 5 + 4] = 1.0
    for i, q in enumerate((me, 1 - me)):
        out[_DECK_SIZES + i] = len(state.decks[q]) / DECK_SIZE
        out[jokers + 3 * i + state.joker[q]] = 1.0
    if state.to_move == TERMINAL:
        out[_PHASE + 2] = 1.0
    elif state.to_move == me:
        out[_PHASE if state.joker[me] == SET_ASIDE else _PHASE + 1] = 1.0
    points = state.scores()
    out[_PILE_POINTS], out[_PILE_POINTS + 1] = points[me] / TOTAL_POINTS, points[1 - me] / TOTAL_POINTS
    return out


def read_observation(state: FoolsErrandRules, obs: Mapping[str, Any]) -> None:
    """Set every field of a new ``state`` that an observation shows (the inverse of :func:`observation`):
    all but the decks, which are left empty.

    ``FoolsErrand.sample_state`` builds its world with it, ``FoolsErrand`` a state read back from text.
    """
    state.scale = int(obs["scale"])
    state.table = [CODE_INDEX[e["card"]] | (e["seat"] << 6) for e in obs["in_play"]]
    state.piles = [[CODE_INDEX[c] for c in obs["piles"][q]] for q in range(2)]
    state.unclaimed = [CODE_INDEX[c] for c in obs["unclaimed"]]
    state.joker = [JOKER_PLACES.index(place) for place in obs["jokers"]]
    state.to_move = int(obs["current_player"])
    state.log = [(e["event"], e["seat"], -1 if e["card"] is None else _code_to_card(e["card"], e["seat"]),
                  e["value"], e["scale"]) for e in obs["log"]]
    state._set_history(obs["actions"])


def _code_to_card(code: str, seat: Seat) -> Card:
    """The card of a code in seat ``seat``'s log entry (``JK``: that seat's Joker)."""
    return JOKER_A + seat if code == "JK" else CODE_INDEX[code]
