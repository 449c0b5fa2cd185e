"""A game's spec: everything the adapters (bots, server, drawing, command line, evaluation) may know of a game.

Each game package (``motley/games/<name>/``) builds one :class:`GameSpec` and registers it
(:func:`motley.core.registry.register_spec`). Nothing outside ``motley/games/`` names a game or imports a
game's modules: it asks the registry for the spec (``game_spec(game.name)``) and uses what the spec holds.
A new game is therefore one package and one line in ``motley/games/__init__.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any, Protocol

from motley.core.game import Game, Observation, State

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from motley.core.chance import DealModel
    from motley.core.inference import InferenceSupport
    from motley.core.search import SearchPolicy
    from motley.core.tensors import TensorLayout


class Heuristic(Protocol):
    """The heuristic player of a game, on what a player sees: ``heuristic(game, observation, legal, rng)``.

    Args:
        game: the game (options such as the number of Fools).
        observation: ``state.observation(seat)`` of the seat to move.
        legal: ``state.legal_actions()`` (non-empty, sorted).
        rng: the only source of randomness it may use.
    Returns:
        One of ``legal``.
    """

    def __call__(self, game: Game, observation: Observation, legal: Sequence[int], rng: random.Random) -> int: ...


#: ``decider(final observation, final scores) -> bool``: did the game's special card decide the match?
Decider = Callable[[Observation, Sequence[int]], bool]

#: Terminal view: ``view(observation, legal move strings) -> Rich markup``.
TerminalView = Callable[[Observation, Sequence[str]], str]

#: Terminal log: ``log_lines(observation, cursor, neutral=False) -> (lines, new cursor)``; what happened
#: since ``cursor`` (``None`` at the start) as Rich markup lines.
LogLines = Callable[..., tuple[list[str], Any]]

#: SVG of a whole table from one observation.
TableDrawing = Callable[[Observation], str]

#: SVG of one card face at the origin: ``face(code, width, height) -> SVG elements``.
CardFace = Callable[[str, float, float], str]

#: Action features: ``table(game) -> float32 array (game.num_distinct_actions(), F)``, row ``a`` the features of
#: action id ``a`` at the game's options (F fixed per configuration, values in [0, 1]; see
#: docs/observation_tensors.md). Built once per configuration; the RL environments gather the legal rows.
ActionFeatures = Callable[[Game], "npt.NDArray[np.float32]"]


class BatchObserver(Protocol):
    """Observation tensors of a batch of states at once, for the RL environments (:mod:`motley.envs.tensors`:
    the batch stepper with one slot per match, the PettingZoo and Gymnasium environments with one slot).

    Made for ``slots`` slots (:data:`BatchObserverFactory`); slot ``i`` is told ``states[i]`` at every write and
    may keep what it read of it, so a game can update a slot's tensors from the moves made since its previous
    write instead of encoding its state anew (it must still be exact for any states it is given).

    An observer may also give ``tensor(state, seat) -> float32 array`` (a new array, ``state.observation_tensor(seat)``
    byte for byte) for an observer of one slot that holds the state of an environment playing one state at a time
    (:func:`motley.envs.tensors.one_state_observer`: the PettingZoo environment).
    """

    def write(self, states: Sequence[State], seats: Sequence[int], out: npt.NDArray[np.float32]) -> None:
        """Set ``out[i]`` to ``states[i].observation_tensor(seats[i])``, byte for byte, for every i.

        Args:
            states: states of the observer's game, at most ``slots``.
            seats: the seat whose view each row is.
            out: float32 ``(len(states), *game.observation_tensor_shape())``, C-contiguous.
        Raises:
            MotleyError: for a seat that is not a seat of the game.
        """


#: ``batch_observer(game, slots) -> BatchObserver`` for the game's states at ``game``'s options.
BatchObserverFactory = Callable[[Game, int], BatchObserver]
#: ``tensor_layout(players) -> TensorLayout``: the game's observation tensor as named pieces at ``players`` seats
#: (:mod:`motley.core.tensors`; docs/observation_tensors.md is rendered from it).
TensorLayoutOf = Callable[[int], "TensorLayout"]
#: Why a finished match ended, one sentence in words: ``end_reason(state) -> str`` for a terminal state. A seat's
#: name is written ``{seat N}`` (seat N from 0), for the reader to put the name in: ``"{seat 6} reached −82 points."``
EndReason = Callable[[State], str]
#: How a card is shown and read out: ``card_info(code) -> {"name": spoken name ("green 5", "7 of spades"),
#: "short": the label printed on it ("5", "7"), "suit": suit or colour name ("green", "spades", "trump"),
#: "rank": its rank or value (int), "order": sort key (int; by suit/colour, then rank)}``.
CardInfo = Callable[[str], dict[str, Any]]
#: How many steps a viewer's page shows one move in: ``shown_steps(before, after) -> int`` (at least 1), ``before``
#: a copy of the state before the move, ``after`` the state after it; ``before`` None: the opening of the match, what
#: the deal played by itself before the first decision (shown once every person is at the table). A game whose move
#: plays on by itself (The Fool's Errand's draws) shows each automatic play as a step, one per table ``pace``; the
#: table's next automatic move waits for them.
ShownSteps = Callable[[State | None, State], int]


def _always_public(move: str) -> bool:
    return True


@dataclass(frozen=True)
class GameSpec:
    """What a game package tells the rest of motley about its game.

    Attributes:
        game: the :class:`~motley.core.game.Game` subclass (its ``name`` is the registry key).
        card_codes: every card code of the game's pack (notation of rules/README.md).
        private_fields: the paths (key tuples) of an observation that belong to its seat alone; the
            public (spectator) view is any seat's observation without them.
        observation_type: the ``TypedDict`` of the game's observation (what ``state.observation`` returns, its
            private fields not required), named after the game (``FoolObservation``); the server's JSON Schema
            of a state message takes it from here (:mod:`motley.server.play.schema`). None: undeclared.
        public_move: ``public_move(move string) -> bool``: is the move seen by every viewer when it is made
            (cards played face up, draws, passes)? A move that is not public is shown to a viewer only
            when every card code in it is in that viewer's own observation after the move.
        heuristic: the game's heuristic player (the ``heuristic`` bot), or ``None``.
        search_policy: the same heuristic played on full states, for fast search rollouts and the
            other seats' moves in the tree (:class:`motley.core.search.SearchPolicy`), or ``None``.
        model_policy: the heuristic on full states of a game whose search does not roll out by it (The Fool's
            Errand: random rollouts measured stronger), for the model of each seat learned from its play (the
            analysis's search: :attr:`motley.bots.ismcts.ISMCTSBot.seat_epsilons`); ``None``: ``search_policy``.
        inference: what inference from play needs of the game (:class:`motley.core.inference.InferenceSupport`:
            replaying a sampled world's deal, the heuristic's move and move scores on full states), or ``None``:
            search then samples worlds uniformly over the hard constraints only.
        special_card: the card whose decisive matches are counted ("Joker", "Fool"), or ``None``.
        decider: ``decider(final observation, final scores) -> bool`` for ``special_card``.
        terminal_view: the seat's view as Rich markup; ``log_lines``: the terminal log since a cursor.
        drawing: SVG of a table from an observation; ``card_face``: SVG of one card face.
        action_features: the game's action feature table (:data:`ActionFeatures`), or ``None``: the RL
            environments then use the action id one-hot (``F = num_distinct_actions``).
        tensor_layout: the game's observation tensor declared as named pieces, per player count
            (:data:`TensorLayoutOf`), or ``None``.
        batch_observer: the game's own :class:`BatchObserver` factory (faster than a tensor per state), or
            ``None``: the RL environments then call ``state.observation_tensor(seat)`` for each tensor.
        card_info: how each card is shown and read out in the browser (:data:`CardInfo`), or ``None``.
        summary: one sentence of what the game is, for a player choosing a game (the lobby's first page, the
            table's help, the first line of ``motley rules``).
        usual_players: the player count a table starts with when nobody chooses (the lobby's "Play with
            bots", its friends' screen), or None: the game's least.
        typical_match: how long a match usually takes, in words ("about 15 minutes").
        match_options: the options that set how long a match is (the lobby groups them under "Match length";
            the others are variants).
        sample_moves: moves the heuristic plays from a seeded deal at :attr:`usual_players` to reach the position
            the game's picture shows (the lobby's picture of each game: its :attr:`drawing` of that position).
        end_reason: why a finished match ended, in words (:data:`EndReason`), or ``None``: no reason given.
        shown_steps: how many steps a page shows a move in (:data:`ShownSteps`), or ``None``: one step each.
        how_to_play: the rules as a player reads them, in short plain-text paragraphs without rule ids (the
            table page's help, the start of ``motley rules``); the binding text is the game's rules file.
        networks: the trained Q networks the package ships (``games/<game>/networks/``), each file by game string
            (:meth:`shipped_networks` locates them in the package: ``{"fool(rounds=1)": <.../fool-5-round.npz>}``):
            the ``network`` bot's default weights.
        best_bot: the bot spec of the game's strongest bot as measured (docs/reports/), which ``best`` plays; None:
            :data:`motley.bots.best.BEST_DEFAULT`.
        deal_model: the game's deals (and its engine's draws) as explicit chance nodes, for one game with its
            options fixed (:class:`motley.core.chance.DealModel`; the OpenSpiel adapter's chance model), or ``None``.
        legacy_options: option values that reproduce the engine as it was before each option existed. A
            record or stored table holds every option of its game (``game.params``), so one that lacks an
            option was made before it: it is loaded with the value here, and so replays as it was played
            (:func:`motley.core.registry.load_recorded_game`).
    """

    game: type[Game]
    card_codes: frozenset[str]
    private_fields: tuple[tuple[str, ...], ...] = ()
    observation_type: type | None = None
    public_move: Callable[[str], bool] = _always_public
    heuristic: Heuristic | None = None
    search_policy: SearchPolicy | None = None
    model_policy: SearchPolicy | None = None
    inference: InferenceSupport | None = None
    special_card: str | None = None
    decider: Decider | None = None
    terminal_view: TerminalView | None = None
    log_lines: LogLines | None = None
    drawing: TableDrawing | None = None
    card_face: CardFace | None = None
    action_features: ActionFeatures | None = None
    batch_observer: BatchObserverFactory | None = None
    tensor_layout: TensorLayoutOf | None = None
    card_info: CardInfo | None = None
    end_reason: EndReason | None = None
    shown_steps: ShownSteps | None = None
    how_to_play: tuple[str, ...] = ()
    summary: str = ""
    usual_players: int | None = None
    typical_match: str = ""
    match_options: tuple[str, ...] = ()
    sample_moves: int = 0
    legacy_options: Mapping[str, Any] = field(default_factory=dict)
    networks: Mapping[str, Traversable] = field(default_factory=dict)
    best_bot: str | None = None
    deal_model: Callable[[Game], DealModel] | None = None

    @property
    def name(self) -> str:
        """The game's registry name."""
        return self.game.name

    def move_cards(self, move: str) -> list[str]:
        """The card codes a move string of the game uses, in order (``"II X XII"`` -> ``["II", "X", "XII"]``,
        ``"give 7S"`` -> ``["7S"]``, ``"pass"`` / ``"draw"`` -> ``[]``): its words (upper-cased) that are codes of
        :attr:`card_codes`."""
        codes = self.card_codes
        return [word for word in move.upper().split() if word in codes]

    @property
    def players_usually(self) -> int:
        """:attr:`usual_players`, or the game's least player count when it declares none."""
        return self.usual_players if self.usual_players is not None else self.game.min_players

    def players_words(self) -> str:
        """The player counts in words: "2 players", "4 to 8 players"."""
        low, high = self.game.min_players, self.game.max_players
        return f"{low} players" if low == high else f"{low} to {high} players"

    def at_a_glance(self) -> str:
        """Players and match length in one line, as the lobby and ``motley rules`` say them: "4 to 8 players
        (usually 5), a match takes about 20 minutes" (the parts the game declares)."""
        usual = "" if self.game.min_players == self.game.max_players else f" (usually {self.players_usually})"
        length = f", a match takes {self.typical_match}" if self.typical_match else ""
        return f"{self.players_words()}{usual}{length}"

    @staticmethod
    def shipped_networks(package: str, files: Mapping[str, str]) -> dict[str, Traversable]:
        """The ``networks`` of a game package: each file name of ``files`` (by game string) located in the package's
        ``networks/`` folder. A game package calls it with its own ``__name__``, so nothing else of motley builds
        the path of a game's package.

        Args:
            package: the game package's module name (``__name__`` in its ``__init__.py``).
            files: file name under ``networks/`` by game string (``{"fool(rounds=1)": "fool-5-round.npz"}``).
        Returns:
            The files as ``importlib.resources`` Traversables, by game string (nothing is read).
        """
        root = resources.files(package).joinpath("networks")
        return {key: root.joinpath(name) for key, name in files.items()}
