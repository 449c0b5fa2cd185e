"""A small game written the way a new game of motley is written, to show that the rest of motley needs no
change for it: ``High card`` -- every player is dealt three of the cards 1..9, and in turn plays one face up;
after three turns the highest total of played cards wins. Only :data:`SPEC` reaches the rest of motley.

Rules (cited as HC-R1..HC-R3 in the code): HC-R1 each of 2-4 players is dealt 3 cards of the nine; HC-R2 from
the first seat on, in turn, each plays any card of their hand face up, three rounds of turns; HC-R3 the highest
total of played cards wins (+1 to every winner, -1 to the others).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from motley.core import Game, GameSpec, IllegalMoveError, MotleyError, Observation, Option
from motley.core.game import TERMINAL, rng_from_json
from motley.core.search import SearchState

CODES = tuple(str(v) for v in range(1, 10))


class HighCard(Game):
    """High card (module docstring), seats 0..players-1."""

    name = "high_card"
    title = "High card"
    rules_file = "high_card.md"
    min_players = 2
    max_players = 4
    options = (Option("players", 2, "number of players, 2-4 (HC-R1)", kind="int", minimum=2, maximum=4),)

    def _new_state(self, seed: int, deal: Mapping[str, Any] | None) -> HighCardState:
        rng = random.Random(seed)
        cards = list(range(9))
        rng.shuffle(cards)  # HC-R1
        state = HighCardState(self, {"seed": seed, "deal": None}, rng)
        state.hands = [sorted(cards[3 * s:3 * s + 3]) for s in range(self.num_players)]
        return state

    def sample_state(self, observation: Observation, rng: random.Random) -> HighCardState:
        """The other hands dealt at random from the cards neither in the observer's hand nor played."""
        if observation.get("game") != self.name:
            raise MotleyError(f"not a {self.name} observation")
        me = int(observation["seat"])
        state = HighCardState(self, None)
        state.played = [[CODES.index(c) for c in cards] for cards in observation["played"]]
        mine = [CODES.index(c) for c in observation["hand"]]
        seen = set(mine) | {c for cards in state.played for c in cards}
        hidden = [c for c in range(9) if c not in seen]
        rng.shuffle(hidden)
        state.hands = []
        for seat, size in enumerate(observation["hand_sizes"]):
            state.hands.append(sorted(mine) if seat == me else sorted(hidden[:size]))
            hidden = hidden if seat == me else hidden[size:]
        state.use_seed(rng.getrandbits(64))
        return state

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (18,)

    def num_distinct_actions(self) -> int:
        return 9

    def _state_from_dict(self, data: Mapping[str, Any]) -> HighCardState:
        state = HighCardState(self, data["origin"])
        state.use_rng(rng_from_json(data["rng"]))
        state.hands, state.played = data["hands"], data["played"]
        state._set_history(data["history"])
        return state


class HighCardState(SearchState):
    """A position: the hands and the cards each seat played."""

    __slots__ = ("hands", "played")

    def __init__(self, game: HighCard, origin: dict[str, Any] | None, rng: random.Random | None = None) -> None:
        super().__init__(game, origin, rng)
        self.hands: list[list[int]] = [[] for _ in range(game.num_players)]
        self.played: list[list[int]] = [[] for _ in range(game.num_players)]

    def current_player(self) -> int:
        turns = sum(len(p) for p in self.played)  # HC-R2: in turn, from the first seat
        return TERMINAL if turns == 3 * self.game.num_players else turns % self.game.num_players

    def legal_actions(self) -> list[int]:
        seat = self.current_player()
        return [] if seat == TERMINAL else list(self.hands[seat])

    def action_to_string(self, action: int) -> str:
        return CODES[action]

    def _parse_move(self, text: str) -> int:
        if text.strip() not in CODES:
            raise IllegalMoveError(text, "a move is a card 1..9")
        return CODES.index(text.strip())

    def _apply(self, action: int) -> None:
        seat = self.current_player()
        self.hands[seat].remove(action)
        self.played[seat].append(action)

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def scores(self) -> list[int]:
        return [sum(c + 1 for c in cards) for cards in self.played]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.game.num_players
        best = max(self.scores())  # HC-R3
        return [1.0 if s == best else -1.0 for s in self.scores()]

    def observation(self, seat: int) -> Observation:
        self.check_seat(seat)
        return {"game": self.game.name, "seat": seat, "current_player": self.current_player(),
                "hand": [CODES[c] for c in self.hands[seat]], "hand_sizes": [len(h) for h in self.hands],
                "played": [[CODES[c] for c in cards] for cards in self.played], "scores": self.scores()}

    def observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        self.check_seat(seat)
        out = np.zeros(18, dtype=np.float32)
        for c in self.hands[seat]:
            out[c] = 1.0
        for cards in self.played:
            for c in cards:
                out[9 + c] = 1.0
        return out

    def clone(self) -> HighCardState:
        new = HighCardState.__new__(HighCardState)
        self._clone_base(new)
        new.hands, new.played = [list(h) for h in self.hands], [list(p) for p in self.played]
        return new

    def _to_dict(self) -> dict[str, Any]:
        return {"origin": self.origin, "rng": self.rng_json(), "hands": self.hands, "played": self.played,
                "history": self.history()}


def heuristic(game: Game, observation: Observation, legal: Sequence[int], rng: random.Random) -> int:
    """Play the highest card."""
    return max(legal)


SPEC = GameSpec(game=HighCard, card_codes=frozenset(CODES), private_fields=(("hand",),), heuristic=heuristic)
