"""Observation tensors of many Fool! states at once, kept up to date move by move (``SPEC.batch_observer``).

Where the compiled tensor writer is built (``observe.NATIVE_WRITE``), :meth:`BatchTensors.write` writes each row
with it instead, from its state at once (about three times faster than a slot's update, and nothing is kept); the
rest of this module is the path without it (``MOTLEY_PURE_PYTHON=1``).

:class:`BatchTensors` gives exactly ``state.observation_tensor(seat)`` (``observe.observation_tensor``, byte
for byte) for a batch of slots, each holding one state. Per slot it keeps the tensor's fields in *absolute*
seat order (seat ``s``'s hand, cards played, trick card, hand size, ... at fixed places: ``_Layout``) and
updates them from the plays made since the previous write; a few NumPy copies per batch then turn each slot's
row into the relative order of the seat asked for (index ``r`` is seat ``(seat + r) % n``): one window of its
card blocks per kind (hand, played, trick; the played and trick blocks are kept twice so that any seat's are
one slice) and one gather of the other fields.

A slot's row is rebuilt from the state when it holds another state object than at its previous write, a
new round began (FL-R12, FL-R14: the state's list of completed tricks is a new one), the match is over, or
the state's trick lists do not extend what was read (a state is never taken back, but a rebuild is always
exact). A slot's state that only moved forward by ``apply_action`` since its previous write costs a few
element writes per card played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from motley.core.tensors import TensorLayout
from motley.games.fool import observe
from motley.games.fool.cards import COLOUR, W1, W
from motley.games.fool.observe import H, observation_tensor, tensor_layout

if TYPE_CHECKING:
    from motley.core.game import Game, State
    from motley.games.fool.rules import FoolGameRules, FoolRules


def _w1_sums(count: int) -> list[float]:
    """``k`` W1 cards in a played or trick block, as the tensor holds it: ``1/6`` added ``k`` times in float32
    (``observe._add``), ``k = 0 .. count``."""
    cell = np.zeros(1, dtype=np.float32)
    sums = [0.0]
    for _ in range(count):
        cell[0] += 1.0 / 6.0
        sums.append(float(cell[0]))
    return sums


#: ``W1_SUM[k]``: the block value of ``k`` W1 cards played (exact float32 values as Python floats).
W1_SUM = _w1_sums(8)


#: The card-block pieces of the tensor (its first pieces): the absolute row keeps them per seat (``hand``) or
#: twice over (``played``, ``trick``) so that the blocks of any seat's relative order are one window.
_CARD_PIECES = ("hand", "played", "trick")


class _Layout:
    """Places of the absolute row of ``n`` seats and, per seat, where its relative tensor's entries are in it.

    Derived from ``observe.tensor_layout(n)`` (:attr:`relative`): the absolute row (:attr:`absolute`) has the
    same pieces in the same order, with the hand kept per seat (n blocks, seat order) and the n played blocks
    twice (seat 0 .. n-1, then again), so that the n blocks in relative order of any seat are one slice (a
    window); the n trick blocks likewise; the *small* pieces after them (from ``lead`` on) are the same size,
    each per-seat piece in absolute seat order.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.relative = relative = tensor_layout(n)
        if relative.offsets(*_CARD_PIECES) != (0, H, H * (1 + n)):
            raise AssertionError("the card blocks are the tensor's first pieces: hand, played, trick")
        copies = {"hand": n, "played": 2 * n, "trick": 2 * n}
        self.absolute = absolute = TensorLayout(
            [replace(p, shape=(copies[p.name], H)) if p.name in copies else p for p in relative])
        self.hand, self.played, self.trick = absolute.offsets(*_CARD_PIECES)
        self.small = self.lead = absolute.offset("lead")
        self.sizes, self.out, self.move, self.dealer, self.leader, self.voids = absolute.offsets(
            "hand_sizes", "sitting_out", "to_move", "dealer", "leader", "voids")
        self.totals, self.bonuses, self.last, self.deck = absolute.offsets(
            "totals", "bonus_counts", "last_round", "deck")
        self.round, self.tricks_done, self.over, self.deck_assumed, self.two_fools = absolute.offsets(
            "round", "tricks_done", "over", "deck_assumed", "two_fools")
        self.size = absolute.size
        #: ``index[seat]``: intp (relative.size,), the absolute place of each relative tensor entry.
        self.index = np.stack([self._gather(seat) for seat in range(n)])
        #: ``small_index[seat]``: intp, the same for the entries after the card blocks (from ``lead`` on).
        self.small_index = self.index[:, relative.offset("lead"):]

    def _gather(self, seat: int) -> npt.NDArray[np.intp]:
        """The absolute place of each entry of ``seat``'s relative tensor, piece by piece."""
        n = self.n
        order = [(seat + r) % n for r in range(n)]
        parts = []
        for piece in self.relative:
            at = self.absolute.offset(piece.name)
            if piece.name in _CARD_PIECES:  # seat's own block, or the window of n blocks from seat's on
                parts.append(at + seat * H + np.arange(piece.size))
            elif piece.per_seat:
                width = piece.size // n
                parts += [at + width * s + np.arange(width) for s in order]
            else:
                parts.append(at + np.arange(piece.size))
        index = np.concatenate(parts).astype(np.intp)
        assert len(index) == self.relative.size
        return index


class _Slot:
    """What a slot's row holds: the state it was read from and how far (completed tricks, plays of the trick
    after them), the one-hot fields last written (lead, to move, leader, sitting out: cleared when they change),
    the voids and W1 cards played this round per seat, and the row's places in the batch's flat array
    (``base`` its start; ``hand`` ... ``tricks_done_at`` the start of the pieces it updates, ``_Layout``'s)."""

    __slots__ = ("base", "done", "hand", "k", "lead", "lead_at", "leader", "leader_at", "move", "move_at", "nt",
                 "out", "out_at", "played", "row", "sizes", "state", "trick", "trick_at", "trick_blocks", "tricks",
                 "tricks_done_at", "voids", "voids_at", "w1_played")

    def __init__(self, layout: _Layout, base: int, flat: npt.NDArray[np.float32]) -> None:
        self.base = base
        #: Views of the batch's flat array: the slot's row, and its trick blocks (both copies), set to 0 at once.
        self.row = flat[base:base + layout.size]
        self.trick_blocks = flat[base + layout.trick:base + layout.trick + 2 * layout.n * H]
        self.hand, self.played, self.trick_at = base + layout.hand, base + layout.played, base + layout.trick
        self.lead_at, self.sizes, self.out_at = base + layout.lead, base + layout.sizes, base + layout.out
        self.move_at, self.leader_at = base + layout.move, base + layout.leader
        self.voids_at, self.tricks_done_at = base + layout.voids, base + layout.tricks_done
        self.state: Any = None
        self.tricks: Any = None
        self.trick: Any = None
        self.nt = self.k = 0
        self.done = False  # the row was read from a finished match (which never changes again)
        self.lead = self.move = self.leader = -1
        self.out: tuple[int, ...] = ()
        self.voids: list[int] = []
        self.w1_played: list[int] = []


#: The compiled tensor writer (``observe.NATIVE_WRITE``), or None: :class:`BatchTensors` keeps its rows up to date.
_NATIVE_WRITE = observe.NATIVE_WRITE


class BatchTensors:
    """Observation tensors of up to ``slots`` Fool! states of one game (:data:`motley.core.spec.BatchObserver`).

    Args:
        game: the :class:`~motley.games.fool.rules.Fool` game the states belong to.
        slots: the number of slots (>= 1).
    """

    #: A single state's own ``observation_tensor`` keeps its tensor up to date itself (:class:`StateTensors`,
    #: the same slots), so an environment of one state asks the state (``motley.envs.tensors.game_observer``), or
    #: this observer's :meth:`tensor` with one slot (``motley.envs.tensors.one_state_observer``: one frame shorter).
    one_slot_from_state = True
    #: The state's own ``observation_tensor`` is written by the compiled writer (``observe.NATIVE_WRITE``), faster
    #: than a slot kept up to date: an environment of one state asks the state (``one_state_observer`` gives None).
    state_is_fastest = observe.NATIVE_WRITE is not None

    def __init__(self, game: Game, slots: int) -> None:
        self.game: FoolGameRules = cast("FoolGameRules", game)
        n = self.n = game.num_players
        self.layout = layout = _Layout(n)
        self.rows = np.zeros((slots, layout.size), dtype=np.float32)
        self.flat = self.rows.reshape(-1)
        #: Element writes through a float32 memoryview cost less than NumPy scalar writes (typed Any: typeshed
        #: types a memoryview's items as int).
        self.view: Any = memoryview(self.flat.data)
        self.slots = [_Slot(layout, i * layout.size, self.flat) for i in range(slots)]
        self.slot_ids = np.arange(slots)
        row, item = self.rows.strides
        #: ``windows[k][i, seat]``: the card blocks of slot i in seat's relative order (k: hand, played, trick).
        self.windows = [np.lib.stride_tricks.as_strided(self.rows[:, at:], shape=(slots, n, width),
                                                        strides=(row, H * item, item), writeable=False)
                        for at, width in ((layout.absolute.offset(name), layout.relative.piece(name).size)
                                          for name in _CARD_PIECES)]
        #: ``small_places[seat, i]``: intp, the places in ``flat`` of slot i's entries after the card blocks.
        self.small_places = layout.small_index[:, None, :] + (self.slot_ids * layout.size)[None, :, None]
        self.totals_scale = float(game.params["end_bonus_count"])
        self.twice = n * H  # from a played or trick block to its second copy
        self._take: Any = self.flat.take

    def tensor(self, state: State, seat: int) -> npt.NDArray[np.float32]:
        """``state.observation_tensor(seat)`` (a new array) of one state held in slot 0, brought up to it from the
        moves made since the previous call: the single-state environments' path
        (``motley.envs.tensors.one_state_observer``; the state's own ``observation_tensor`` does the same through
        a per-thread cache of several states).

        Raises:
            motley.MotleyError: for a seat out of range (as ``observation_tensor``).
        """
        if type(seat) is not int or not 0 <= seat < self.n:
            state.check_seat(seat)  # raises for anything but a seat (a NumPy integer seat passes)
            seat = int(seat)
        self._sync(self.slots[0], cast("FoolRules", state))
        tensor: npt.NDArray[np.float32] = self._take(self.layout.index[seat], None, None, "wrap")  # in range
        return tensor

    def write(self, states: Sequence[State], seats: Sequence[int], out: npt.NDArray[np.float32]) -> None:
        """Set ``out[i]`` to ``states[i].observation_tensor(seats[i])`` for every i (slot i holds ``states[i]``).

        Args:
            states: FoolStates of this game, at most ``slots``; slot i is told ``states[i]`` at every write.
            seats: the seat whose view each row is (0..n-1).
            out: float32 (len(states), observe.tensor_size(n)), C-contiguous.
        Raises:
            motley.MotleyError: for a seat out of range (as ``observation_tensor``).
        """
        write = _NATIVE_WRITE
        if write is not None:  # the compiled writer: each row written from its state at once (nothing kept)
            for i, state in enumerate(cast("Sequence[FoolRules]", states)):
                row = out[i]
                if not write(state, seats[i], row):  # not an int of 0..n-1: the game's error, or a NumPy integer
                    observe.native_write_refused(state, seats[i], row)
            return
        n = self.n
        sync = self._sync
        slots = self.slots
        for i, state in enumerate(cast("Sequence[FoolRules]", states)):
            seat = seats[i]
            if type(seat) is not int or not 0 <= seat < n:
                state.check_seat(seat)  # raises for anything but a seat (a NumPy integer seat passes)
            sync(slots[i], state)
        count = len(states)
        if count == 1:  # one state (the PettingZoo environment): its seat's index alone
            np.take(self.flat, self.layout.index[int(seats[0])], out=out[0])
            return
        seat_index = np.asarray(seats, dtype=np.intp)
        ids = self.slot_ids[:count]
        at = 0
        for window in self.windows:
            width = window.shape[2]
            out[:, at:at + width] = window[ids, seat_index]
            at += width
        out[:, at:] = np.take(self.flat, self.small_places[seat_index, ids])

    # ---- one slot ---------------------------------------------------------------------------
    def _sync(self, slot: _Slot, state: FoolRules) -> None:
        """Bring ``slot``'s absolute row up to ``state``."""
        trick = state.trick
        if trick is slot.trick and state is slot.state:  # the trick read before (a new trick is a new list)
            k = slot.k
            if len(trick) == k:  # no card played since
                return
            if len(trick) > k:
                self._plays(slot, state, trick[k:], state.lead, True)
                slot.k = len(trick)
                self._turn(slot, state)
                return
        tricks = state.tricks
        nt = len(tricks)
        k = slot.k
        if state is not slot.state or tricks is not slot.tricks:  # another state, or a new round: read anew
            self._rebuild(slot, state)
            return
        if state.done:  # the match ended in this round (a finished match is read once)
            if not slot.done and not self._completed(slot, state, nt):
                self._end(slot, state)
            return
        view = self.view
        if nt == slot.nt:
            if trick is not slot.trick or len(trick) < k:  # not the trick read before: read the state anew
                self._rebuild(slot, state)
                return
            if len(trick) == k:
                return
            self._plays(slot, state, trick[k:], state.lead, True)
        else:
            if self._completed(slot, state, nt):
                return
            self._plays(slot, state, trick, state.lead, True)
            leader = state.order[0]
            if leader != slot.leader:
                view[slot.leader_at + slot.leader] = 0.0
                view[slot.leader_at + leader] = 1.0
                slot.leader = leader
            slot.nt, slot.trick = nt, trick
        slot.k = len(trick)
        self._turn(slot, state)

    def _completed(self, slot: _Slot, state: FoolRules, nt: int) -> bool:
        """Tricks were completed since ``slot`` was read (``nt`` of them now, more than it read): write the rest of
        the trick it read and the tricks after it, clear the trick blocks, and write the tricks done and the seats
        sitting out. True if the state does not extend what was read: then the row was rebuilt instead."""
        tricks, previous, done = state.tricks, slot.trick, slot.nt
        if nt <= done or len(tricks[done][0]) != len(previous):
            self._rebuild(slot, state)
            return True
        self._plays(slot, state, previous[slot.k:], tricks[done][1], False)
        for plays, lead, _, _ in tricks[done + 1:]:
            self._plays(slot, state, plays, lead, False)
        slot.trick_blocks.fill(0.0)  # the trick blocks, both copies
        view = self.view
        view[slot.tricks_done_at] = min(1.0, nt / 12.0)
        if state.out != slot.out:
            for s in slot.out:
                view[slot.out_at + s] = 0.0
            for s in state.out:
                view[slot.out_at + s] = 1.0
            slot.out = state.out
        return False

    def _end(self, slot: _Slot, state: FoolRules) -> None:
        """The match ended (FL-R14) after ``slot``'s plays were written (:meth:`_completed`): the fields the end
        of its last round changes (FL-R13: totals, +10 bonus counts, the round's scores; nobody to move, no
        leader or lead colour; over), as :meth:`_rebuild` writes them."""
        view, base, layout = self.view, slot.base, self.layout
        for at, old in ((slot.lead_at, slot.lead), (slot.move_at, slot.move), (slot.leader_at, slot.leader)):
            if old >= 0:
                view[at + old] = 0.0
        slot.lead = slot.move = slot.leader = -1
        self._scores(base, state)
        view[base + layout.over] = 1.0
        slot.nt, slot.trick, slot.k, slot.done = len(state.tricks), state.trick, len(state.trick), True

    def _scores(self, base: int, state: FoolRules) -> None:
        """Write the match totals, bonus counts and last round's scores of ``state`` into the row at ``base``."""
        view, layout = self.view, self.layout
        for s in range(self.n):
            view[base + layout.totals + s] = max(-1.0, min(1.0, state.totals[s] / 100.0))
            view[base + layout.bonuses + s] = min(1.0, state.bonuses[s] / self.totals_scale)
        if state.last is not None:
            last = state.last["scores"]
            for s in range(self.n):
                view[base + layout.last + s] = max(-1.0, min(1.0, last[s] / 100.0))

    def _turn(self, slot: _Slot, state: FoolRules) -> None:
        """Write ``state``'s lead colour and seat to move into ``slot``'s row where they changed."""
        view = self.view
        lead = state.lead
        if lead != slot.lead:
            if slot.lead >= 0:
                view[slot.lead_at + slot.lead] = 0.0
            if lead >= 0:
                view[slot.lead_at + lead] = 1.0
            slot.lead = lead
        move = state.order[state.pos]
        if move != slot.move:
            view[slot.move_at + slot.move] = 0.0
            view[slot.move_at + move] = 1.0
            slot.move = move

    def _plays(self, slot: _Slot, state: FoolRules, plays: Sequence[int], lead: int, current: bool) -> None:
        """Write ``plays`` (``seat << 7 | card``, one trick's, whose lead colour is ``lead``): hands, played
        blocks (both copies), hand sizes, voids (FL-R6: a non-1 card off the lead colour), and the trick blocks
        (both copies) when ``current`` (the trick still on the table)."""
        view = self.view
        sizes = state.sizes
        twice = self.twice
        hand, played, trick_at, voids = slot.hand, slot.played, slot.trick_at, slot.voids
        for t in plays:
            p, c = t >> 7, t & 127
            at = p * H + c
            if c < W1:
                view[hand + at] = 0.0
                view[played + at] = view[played + twice + at] = 1.0
                if current:
                    place = trick_at + at
                    view[place] = view[place + twice] = 1.0
                if COLOUR[c] != lead and lead >= 0:  # lead >= 0: set by an earlier card (FL-R7)
                    bit = 1 << lead
                    if not voids[p] & bit:
                        voids[p] |= bit
                        view[slot.voids_at + 4 * p + lead] = 1.0
            else:
                view[hand + at] = len(state.hands[p][W]) / 6.0
                count = slot.w1_played[p] = slot.w1_played[p] + 1
                view[played + at] = view[played + twice + at] = W1_SUM[count]
                if current:
                    place = trick_at + at
                    view[place] = view[place + twice] = W1_SUM[1]
            view[slot.sizes + p] = sizes[p] / 12.0

    def _rebuild(self, slot: _Slot, state: FoolRules) -> None:
        """Write ``slot``'s whole row from ``state`` (``observe.observation_tensor``'s fields, absolute)."""
        game = self.game
        n = self.n
        layout = self.layout
        base = slot.base
        slot.row.fill(0.0)
        view = self.view
        slot.state, slot.tricks, slot.done = state, state.tricks, state.done
        slot.voids, slot.w1_played = [0] * n, [0] * n
        for s, hand in enumerate(state.hands):
            at = slot.hand + s * H
            for colour in (hand[0], hand[1], hand[2], hand[3]):
                for c in colour:
                    view[at + c] = 1.0
            view[at + W1] = len(hand[W]) / 6.0
        for plays, lead, _, _ in state.tricks:
            self._plays(slot, state, plays, lead, False)
        self._plays(slot, state, state.trick, state.lead, True)
        for s in range(n):
            view[slot.sizes + s] = state.sizes[s] / 12.0
        slot.nt, slot.trick, slot.k = len(state.tricks), state.trick, len(state.trick)
        slot.lead = state.lead
        if state.lead >= 0:
            view[slot.lead_at + state.lead] = 1.0
        slot.out = state.out
        for s in state.out:
            view[slot.out_at + s] = 1.0
        slot.move = slot.leader = -1
        if not state.done:
            slot.move, slot.leader = state.order[state.pos], state.order[0]
            view[slot.move_at + slot.move] = 1.0
            view[slot.leader_at + slot.leader] = 1.0
        view[base + layout.dealer + state.dealer] = 1.0
        self._scores(base, state)
        self.flat[base + layout.deck:base + layout.deck + H] = game.deck_block
        view[base + layout.round] = min(1.0, state.round_number / 20.0)
        view[base + layout.tricks_done] = min(1.0, len(state.tricks) / 12.0)
        view[base + layout.over] = float(state.done)
        view[base + layout.deck_assumed] = float(game.deck_assumed)
        view[base + layout.two_fools] = float(game.num_fools == 2)


class StateTensors:
    """``FoolState.observation_tensor``: the tensors of single states, kept up to date move by move.

    A few slots of a :class:`BatchTensors` (:attr:`SLOTS`) hold the states whose tensors were asked for more
    than once, each slot brought up to its state's position at every call (a few element writes per card
    played since, as in the batch) and read in the seat's relative order by one gather (``ndarray.take``, a
    new array). A state seen for the first time is read from scratch (``observe.observation_tensor``, the
    reference: cheaper than a slot's rebuild), so a search or a batch of many states asking once for each pays
    no rebuild; the second call for the same state object takes a slot (the one used least recently), and so
    does the first in a round's first trick when that slot holds nothing or a finished match (an environment's
    new match: little to read). Byte for byte ``observe.observation_tensor`` either way.

    Not shared between threads (``Fool.state_tensors`` keeps one per thread).

    Args:
        game: the :class:`~motley.games.fool.game.Fool` game the states belong to.
    """

    #: The states kept up to date at once (an environment's state, a few more for callers alternating).
    SLOTS = 4

    def __init__(self, game: Game) -> None:
        self.tensors = tensors = BatchTensors(game, self.SLOTS)
        self.n = game.num_players
        self.slots = tensors.slots
        self.sync = tensors._sync
        self.take: Any = tensors.flat.take
        index = tensors.layout.index
        #: ``places[i][seat]``: intp, the places in the batch's flat array of slot i's tensor for ``seat``.
        self.places = [[index[seat] + slot.base for seat in range(self.n)] for slot in tensors.slots]
        #: Slot numbers by ``id`` of the state they hold (checked against ``_Slot.state``, which keeps it alive).
        self.where: dict[int, int] = {}
        self.used = list(range(self.SLOTS))  # slot numbers, the least recently used first
        self.once: object = None  # the last state read from scratch

    def tensor(self, state: FoolRules, seat: int) -> npt.NDArray[np.float32]:
        """``state.observation_tensor(seat)``: float32 (``observe.tensor_size(n)``,), a new array.

        Raises:
            motley.MotleyError: for a seat that is not one of the game's.
        """
        if type(seat) is not int or not 0 <= seat < self.n:
            state.check_seat(seat)  # raises for anything but a seat (a NumPy integer seat passes)
            seat = int(seat)
        i = self.where.get(id(state))
        if i is None or self.slots[i].state is not state:
            if state is not self.once and (state.tricks or not self._spare()):  # first sight: from scratch
                self.once = state
                return observation_tensor(state, seat)
            i = self._adopt(state)
        elif self.used[-1] != i:
            self.used.remove(i)
            self.used.append(i)
        self.sync(self.slots[i], state)
        tensor: npt.NDArray[np.float32] = self.take(self.places[i][seat], None, None, "wrap")  # in range: no check
        return tensor

    def _spare(self) -> bool:
        """Does the least recently used slot hold no state, or a finished match (nothing to keep)?"""
        held = self.slots[self.used[0]].state
        return held is None or bool(held.done)

    def _adopt(self, state: FoolRules) -> int:
        """Give ``state`` the least recently used slot (its row is rebuilt at the next sync); its number."""
        self.once = None
        i = self.used.pop(0)
        self.used.append(i)
        self.where.pop(id(self.slots[i].state), None)
        self.where[id(state)] = i
        return i
