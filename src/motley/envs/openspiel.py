"""OpenSpiel adapter: every motley game as a Python ``pyspiel`` game.

::

    import pyspiel
    from motley.envs import openspiel
    openspiel.register()                                    # once per process
    game = pyspiel.load_game("motley_foolery(players=5)")
    state = game.new_initial_state()                        # a chance node: the first dealer
    while state.is_chance_node():                           # then one chance node per card dealt
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(np.random.choice(outcomes, p=probs)))

Chance model. Every deal is drawn by chance nodes, as OpenSpiel's own card games (``hearts``, ``bridge``,
``leduc_poker``) deal: **one chance node per card dealt**, whose outcomes are the cards left (card ids,
each physical card equally likely: Fool!'s identical W1 cards make one outcome with their share), in the
engine's dealing order (Fool!: ``hand_size`` cards to seat 0, then seat 1, ...; Foolery: one card at a time
from the dealer's left; The Fool's Errand: 26 cards into deck 0, top first, then 26 into deck 1). Before
the first deal, one node draws the first dealer (uniform over the seats) where the rules draw it (Foolery
always, FY-D20; Fool! under ``first_dealer=random``, FL-D7); later dealers follow the rules. After the
cards of The Fool's Errand, one node per deck draws where its Joker is shuffled in (0..26: the cards above
it), and every Joker going back into its deck during play (FE-D13) is a node of its own (the cards below
it: 0..the deck's size; none when the deck is empty). Every deal of a match is drawn so: each round of
Fool! and each hand of Foolery starts with its own chance nodes, after the move that ended the deal before.
The engine then plays the drawn cards as it would have dealt them (``new_initial_state(deal=...)`` for the
first deal, the game's own dealing step for the later ones), so the rest of the game is motley's, move for
move. A deal of Fool! at 5 players is 60 chance nodes, of Foolery 78 (OpenSpiel's ``dou_dizhu`` has 51
to 54, ``hearts`` 52). The game is ``SEQUENTIAL``, ``EXPLICIT_STOCHASTIC``, ``IMPERFECT_INFORMATION``,
``GENERAL_SUM`` (Fool!'s returns do not sum to 0) with a ``TERMINAL`` reward model: returns are
``state.returns()``, in [-1, 1]. ``max_game_length`` counts decisions, not chance nodes (OpenSpiel's
convention).

Game parameters: every option of the motley game (``int``/``bool``/``str`` as such, JSON options as their
JSON text with ``% , ( ) =`` percent-escaped, see :func:`encode_json`), with motley's defaults; ``players``
is the player count.

Information. The games declare an **observation only**, no information state: ``observation_string`` is
the JSON text of ``state.observation(player)`` (sorted keys) and ``observation_tensor`` is
``state.observation_tensor(player)`` (``"{}"`` and zeros at a chance node). A motley observation holds
the current deal as the seat saw it (its hand, the tricks or plays of this deal, exchanges, scores) but
not every earlier deal, so it is not a perfect-recall information state, and the game type says so
(``provides_information_state_string`` and ``..._tensor`` are False; asking for a perfect-recall observer
raises ValueError). OpenSpiel's Python ``ISMCTSBot`` keys its tree by the observation with
``use_observation_string=True``.

Search. ``resample_from_infostate(player, sampler)`` returns a state of the same match whose hidden cards
are drawn by ``game.sample_state(observation, rng)``, reached by a history of this game: the earlier deals
as played (as the state it is called on holds them: nothing of them carries into the current deal but
public scores, titles and dealers), the current deal's card outcomes (and The Fool's Errand's Joker places)
as the sampled world holds them, the moves as played (a Foolery exchange's gives hidden from the seat as
the world made them).
Every chance outcome of that history has non-zero probability, and the state gives the seat the same
observation (checked; the sampler is tried again otherwise). Each world is replayed from the start of the
current deal (the match up to it is replayed once per deal and shared): about 4-7 ms a world in a 5-player
Foolery match, where ``sample_state`` alone takes 0.2-0.5 ms. OpenSpiel's Python ``ISMCTSBot``
(``open_spiel.python.algorithms.ismcts``) plays these games. The C++ ``pyspiel.ISMCTSBot`` cannot be used:
it calls the C++ ``ResampleFromInfostate``, which pyspiel does not forward to Python games (it crashes the
process).

Serialization (``pyspiel.serialize_game_and_state``) and ``clone`` go through motley's own
``State.serialize`` / ``State.clone``; the motley state's ``origin`` names the first deal only (seed 0: the
later deals are the chance nodes').
"""

from __future__ import annotations

from motley.core.extras import require

require("pyspiel", extra="rl", feature="the OpenSpiel adapter (motley.envs.openspiel)")

import functools
import json
import random
import urllib.parse
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module

from motley.core import Game, State, load_game, registered_games
from motley.core.chance import DEAL, DRAW, FIRST, ChanceEvent, ChanceNeeded, DealModel, Rewrite, ScriptedRandom
from motley.core.errors import MotleyError
from motley.core.registry import game_class, game_spec
from motley.core.search import SearchState

__all__ = [
    "PREFIX",
    "UNBOUNDED_GAME_LENGTH",
    "MotleySpielGame",
    "MotleySpielState",
    "deal_from",
    "decode_json",
    "encode_json",
    "max_game_length",
    "register",
    "short_name",
    "spiel_game_string",
]

#: Short names are ``PREFIX + motley name``.
PREFIX = "motley_"
#: Declared length of a match whose rules set no finite bound (``Game.max_decisions()`` is None: The Fool's
#: Errand, where a Joker may come back on top of its deck any number of times; Foolery played to a target
#: with ``president`` scoring and no ``hands`` cap). Random play of The Fool's Errand takes about 10 decisions.
UNBOUNDED_GAME_LENGTH = 100_000

_REGISTERED: dict[str, pyspiel.GameType] = {}


def max_game_length(game: Game) -> int:
    """OpenSpiel's ``max_game_length`` of ``game``: the bound its rules give (``Game.max_decisions()``), or
    :data:`UNBOUNDED_GAME_LENGTH` where they give none. Chance nodes are not decisions."""
    bound = game.max_decisions()
    return UNBOUNDED_GAME_LENGTH if bound is None else bound


def short_name(motley_name: str) -> str:
    """OpenSpiel short name of a motley game: ``"fool"`` -> ``"motley_fool"``."""
    return PREFIX + motley_name


def spiel_game_string(game: Game) -> str:
    """The ``pyspiel.load_game`` string of a motley game with its options (call :func:`register` first).

    ``spiel_game_string(motley.load_game("fool", players=4, rounds=1))`` -> ``"motley_fool(players=4,rounds=1)"``;
    only options that differ from their defaults are listed (plus ``players``).
    """
    cls = game_class(game.name)
    items = []
    for option in cls.options:
        value = game.params[option.name]
        if value == option.default and option.name != "players":
            continue
        if option.kind == "json":
            items.append(f"{option.name}={encode_json(value)}")
        elif isinstance(value, bool):
            items.append(f"{option.name}={'true' if value else 'false'}")
        else:
            items.append(f"{option.name}={value}")
    return f"{short_name(game.name)}({','.join(items)})" if items else short_name(game.name)


def _parameter_spec(name: str) -> dict[str, Any]:
    """pyspiel parameter specification (name -> default) of a motley game's options."""
    cls = game_class(name)
    spec: dict[str, Any] = {}
    for option in cls.options:
        default = option.default
        if option.kind == "json":
            spec[option.name] = encode_json(default)
        elif (option.kind == "bool" and isinstance(default, bool)) or (
                option.kind == "int" and isinstance(default, int)) or isinstance(default, str):
            spec[option.name] = default
    if "players" not in spec:
        spec["players"] = cls.min_players
    return spec


def encode_json(value: Any) -> str:
    """A JSON option value as an OpenSpiel parameter string.

    OpenSpiel's game-string parser splits on ``,`` and treats ``(``, ``)`` and ``=`` specially, so those
    (and ``%``) are percent-escaped: ``{"a":1,"b":2}`` -> ``{"a":1%2C"b":2}``. :func:`decode_json` inverts it.
    """
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def decode_json(value: Any) -> Any:
    """The JSON text of an OpenSpiel parameter made by :func:`encode_json` (non-strings pass through)."""
    return urllib.parse.unquote(value) if isinstance(value, str) else value


_ESCAPES = {ch: f"%{ord(ch):02X}" for ch in "%,()="}


def _motley_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """motley options from OpenSpiel parameters (JSON options decoded)."""
    kinds = {option.name: option.kind for option in game_class(name).options}
    return {key: decode_json(value) if kinds.get(key) == "json" else value for key, value in params.items()}


#: Worlds ``resample_from_infostate`` draws before it gives up, and worlds it replays (each replayed one is
#: checked against the observation).
_RESAMPLE_TRIES = 1000
_REPLAY_TRIES = 20


def deal_from(state: MotleySpielState, rng: random.Random) -> None:
    """Resolve ``state``'s chance nodes with outcomes drawn by ``rng`` (by their probabilities) until a
    decision or the end: ``deal_from(game.new_initial_state(), random.Random(seed))`` is the same deal for the
    same seed (for duplicate deals and benchmarks)."""
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])


def _game_type(name: str) -> pyspiel.GameType:
    cls = game_class(name)
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"motley {cls.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=False,  # not perfect recall: see the module docstring
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_spec(name),
    )


def register(names: list[str] | None = None) -> list[str]:
    """Register motley games with ``pyspiel.register_game`` (idempotent).

    Args:
        names: motley game names; every registered motley game when None.
    Returns:
        The OpenSpiel short names now registered (``["motley_fools_errand", ...]``).
    Raises:
        motley.OptionError: for an unknown motley game name.
    """
    for name in registered_games() if names is None else names:
        if name in _REGISTERED:
            continue
        game_type = _game_type(name)
        pyspiel.register_game(game_type, _creator(name))
        _REGISTERED[name] = game_type
    return [short_name(n) for n in _REGISTERED]


def _creator(name: str) -> type[MotleySpielGame]:
    """A MotleySpielGame subclass bound to ``name``: OpenSpiel calls it with the game parameters.

    A class rather than a closure: the C++ registry keeps the creator until after the interpreter has
    finalized, and a class (held in a reference cycle through its ``__mro__``) is never freed then,
    where a closure would be, without the GIL, aborting the process at exit.
    """

    def __init__(self: MotleySpielGame, params: dict[str, Any] | None = None) -> None:
        MotleySpielGame.__init__(self, name, params or {})

    return type(f"MotleySpielGame_{name}", (MotleySpielGame,), {"__init__": __init__})


@functools.lru_cache(maxsize=64)
def _deals_of(game: Game) -> DealModel:
    """The chance model of ``game`` (its ``GameSpec.deal_model``; cached: games hash by their string).

    Raises:
        ValueError: for a game that declares none.
    """
    factory = game_spec(game.name).deal_model
    if factory is None:
        raise ValueError(f"{game.name} declares no deal model (GameSpec.deal_model): it has no OpenSpiel chance model")
    return factory(game)


class _Holder:
    """What an OpenSpiel state holds: the motley State (None before the first deal is drawn), the chance
    event in progress, and the bookkeeping that ``resample_from_infostate`` reads.

    OpenSpiel clones a Python state by deep-copying its attributes and serializes it by pickling them;
    this holder makes both go through motley's ``clone`` and ``serialize``.
    """

    __slots__ = ("deal_start", "deals", "event", "game", "inserts", "n", "root", "state")

    def __init__(self, game: Game, state: State | None) -> None:
        self.game = game
        self.deals = _deals_of(game)
        self.state = state
        self.event: ChanceEvent | None = ChanceEvent(FIRST) if state is None else None
        #: History index of the current deal's first chance node.
        self.deal_start = 0
        #: Actions applied so far (the OpenSpiel history's length).
        self.n = 0
        #: What the engine's draws placed (``DealModel.note_draws``).
        self.inserts = self.deals.initial_inserts()
        #: The OpenSpiel state at ``deal_start`` (made by the first resample of the deal, shared by clones, never
        #: changed: worlds are clones of it), or None.
        self.root: MotleySpielState | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Holder:
        new = _Holder.__new__(_Holder)
        new.game, new.deals, new.n, new.deal_start = self.game, self.deals, self.n, self.deal_start
        new.state = None if self.state is None else self.state.clone()
        new.event = None if self.event is None else self.event.__deepcopy__(memo)
        new.inserts = list(self.inserts)
        new.root = self.root
        return new

    def __reduce__(self) -> tuple[Any, tuple[str, str, str | None, str]]:
        extra = json.dumps({"event": None if self.event is None else self.event.to_json(), "n": self.n,
                            "deal_start": self.deal_start, "inserts": self.inserts})
        return (_restore_holder, (self.game.name, json.dumps(self.game.params),
                                  None if self.state is None else self.state.serialize(), extra))


def _restore_holder(name: str, params: str, text: str | None, extra: str = "{}") -> _Holder:
    game = load_game(name, **json.loads(params))
    holder = _Holder(game, None if text is None else game.deserialize_state(text))
    data = json.loads(extra)
    if "event" in data:
        holder.event = None if data["event"] is None else ChanceEvent.from_json(data["event"])
        holder.n, holder.deal_start = int(data["n"]), int(data["deal_start"])
        holder.inserts = [int(i) for i in data["inserts"]]
    return holder


class MotleySpielGame(pyspiel.Game):  # type: ignore[misc]
    """A motley game as a ``pyspiel.Game`` (see the module docstring).

    Args:
        name: the motley game name.
        params: OpenSpiel game parameters (motley options; JSON options as text).
    Raises:
        motley.OptionError: for a bad option value.
    """

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        full = {**_parameter_spec(name), **params}
        game = load_game(name, **_motley_params(name, full))
        deals = _deals_of(game)
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_distinct_actions(),
            max_chance_outcomes=deals.max_outcomes(),
            num_players=game.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=max_game_length(game),
        )
        super().__init__(_REGISTERED[name] if name in _REGISTERED else _game_type(name), info, full)
        self.motley_game: Game = game

    def new_initial_state(self, *args: Any) -> MotleySpielState:
        """The first chance node of the match (the first dealer, or the first card dealt)."""
        return MotleySpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """The observer of observations (the seat's motley observation).

        Raises:
            ValueError: for observation parameters, or a perfect-recall observer (an information state),
                which these games do not provide.
        """
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and getattr(iig_obs_type, "perfect_recall", False):
            raise ValueError("motley games provide no perfect-recall information state, only the observation "
                             "(the current deal as the seat saw it)")
        return _Observer(self.motley_game)


class MotleySpielState(pyspiel.State):  # type: ignore[misc]
    """A position of a motley match as a ``pyspiel.State``: motley's state, with the deals (and The Fool's
    Errand's Joker draws) as chance nodes (see the module docstring)."""

    def __init__(self, game: MotleySpielGame) -> None:
        super().__init__(game)
        self._m = _Holder(game.motley_game, None)

    @property
    def motley_state(self) -> State | None:
        """The motley State (None before the first deal is drawn). At a chance node it is not the match's yet:
        the state before the move being applied (The Fool's Errand's draws), or the new deal as the engine's
        own shuffle made it, which the drawn cards replace. Do not modify it."""
        return self._m.state

    def current_player(self) -> int:
        """``pyspiel.PlayerId.CHANCE`` while a deal (or a draw) is in progress, then the seat to move, or
        ``TERMINAL``."""
        holder = self._m
        if holder.event is not None:
            return int(pyspiel.PlayerId.CHANCE)
        state = holder.state
        assert state is not None
        if state.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        state = self._m.state
        assert state is not None and player == state.current_player()
        return state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of this chance node with their probabilities: seats (the first dealer, uniform), the
        cards left (each physical card equally likely), a Joker's place or a draw (uniform)."""
        holder = self._m
        assert holder.event is not None, "not a chance node"
        return holder.deals.outcomes(holder.event)

    def _apply_action(self, action: int) -> None:
        holder = self._m
        event = holder.event
        if event is None:
            self._apply_move(int(action))
        else:
            holder.deals.draw(event, int(action))
            self._advance(event)
        holder.n += 1

    def _apply_move(self, action: int) -> None:
        holder = self._m
        state = holder.state
        assert state is not None
        if holder.deals.draws:
            holder.event = ChanceEvent(DRAW, action)
            self._attempt(holder.event)
            return
        before = state.deal_number()
        state.apply_action(action)
        if state.deal_number() != before and not state.is_terminal():  # the engine dealt: redraw it by chance
            holder.event = ChanceEvent(DEAL)
            holder.deal_start = holder.n + 1
            holder.root = None

    def _advance(self, event: ChanceEvent) -> None:
        holder, deals = self._m, self._m.deals
        if event.kind == DRAW:
            self._attempt(event)
            return
        steps = deals.steps(event.kind)
        if len(event.outcomes) < steps:
            return
        state = holder.state
        if event.kind == DEAL:
            assert state is not None
            deals.redeal(state, event.outcomes)
            holder.event = None
        elif not deals.draws:
            dealer, cards, slots = deals.split(FIRST, event.outcomes)
            holder.state = deals.start(dealer, cards, slots, random.Random(0))
            holder.event = None
        else:
            self._attempt(event)

    def _attempt(self, event: ChanceEvent) -> None:
        """Run ``event`` (a move, or the first deal and its opening) with its draws so far (The Fool's Errand):
        done, or its next draw is this state's chance node (``event.size`` outcomes)."""
        holder, deals = self._m, self._m.deals
        if event.kind == FIRST:
            steps = deals.steps(FIRST)
            dealer, cards, slots = deals.split(FIRST, event.outcomes[:steps])
            rng = ScriptedRandom(event.outcomes[steps:])
            logged = 0
            try:
                state = deals.start(dealer, list(cards), list(slots), rng)
            except ChanceNeeded as need:
                event.size = need.size
                return
        else:
            assert holder.state is not None
            rng = ScriptedRandom(event.outcomes)
            state = holder.state.clone()
            logged = deals.log_size(state)
            cast(SearchState, state).use_rng(rng)
            try:
                state.apply_action(event.action)
            except ChanceNeeded as need:
                event.size = need.size
                return
        deals.note_draws(state, rng, logged, holder.n + 1 - rng.used, holder.inserts)
        holder.state = state
        holder.event = None

    def _action_to_string(self, player: int, action: int) -> str:
        holder = self._m
        if holder.event is not None or player == pyspiel.PlayerId.CHANCE:
            assert holder.event is not None
            return holder.deals.outcome_string(holder.event, int(action))
        assert holder.state is not None
        return holder.state.action_to_string(int(action))

    def is_terminal(self) -> bool:
        """True when the match is over."""
        holder = self._m
        return holder.event is None and holder.state is not None and holder.state.is_terminal()

    def returns(self) -> list[float]:
        """``state.returns()`` (0 for every seat until the end)."""
        holder = self._m
        if holder.event is not None or holder.state is None:
            return [0.0] * holder.game.num_players
        return [float(r) for r in holder.state.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> MotleySpielState:
        """A state of the same match whose hidden cards are drawn by ``game.sample_state`` from ``player_id``'s
        observation (which keeps every constraint the seat knows of: voids, exchanges), reached by a history
        of this game: the earlier deals as played, the current deal's cards (and The Fool's Errand's Joker
        places) as the sampled world holds them, the moves as played (an exchange's hidden gives as the
        world made them). Its chance nodes have non-zero probability and it gives ``player_id`` the same
        observation.

        Randomness comes from numpy's global generator (as OpenSpiel's Python bots seed it);
        ``probability_sampler`` is accepted for API compatibility and not used.

        Raises:
            ValueError: at a chance node (nothing to resample from).
        """
        holder = self._m
        real = holder.state
        if holder.event is not None or real is None:
            raise ValueError("no information state at a chance node")
        observation = real.observation(player_id)
        rng = random.Random(int(np.random.randint(0, 2**31 - 1)))
        history = self.history()
        replays = 0
        for _ in range(_RESAMPLE_TRIES):
            world = holder.game.sample_state(observation, rng)
            made = holder.deals.world_history(history, holder.deal_start, holder.inserts, real, world, player_id, rng)
            if made is None:
                continue
            new = self._replay(*made)
            if new is not None and new.motley_state is not None and \
                    new.motley_state.observation(player_id) == observation:
                return new
            replays += 1
            if replays == _REPLAY_TRIES:
                break
        raise RuntimeError(f"no world of this history reproduced seat {player_id}'s observation")

    def _replay(self, hist: list[int], rewrite_from: int, rewrite: Rewrite) -> MotleySpielState | None:
        """The state ``hist`` reaches, its moves from ``rewrite_from`` on through ``rewrite`` (None if a step of
        it fails)."""
        holder = self._m
        start = holder.deal_start
        if holder.root is None:  # the match up to the current deal, replayed once per deal
            root = MotleySpielState(self.get_game())
            for action in hist[:start]:
                root.apply_action(action)
            holder.root = root
        new: MotleySpielState = holder.root.clone()
        try:
            for i in range(start, len(hist)):
                action = hist[i]
                replay = new._m.state
                if i >= rewrite_from and new._m.event is None and replay is not None:
                    action = rewrite(replay, action)
                new.apply_action(action)
        except (ValueError, MotleyError, pyspiel.SpielError):
            return None
        return new

    def __str__(self) -> str:
        holder = self._m
        if holder.state is None:
            return f"chance: dealing, outcomes {holder.event.outcomes if holder.event else []}"
        text = holder.state.serialize()
        return text if holder.event is None else f"{text} chance: {holder.event.to_json()}"


class _Observer:
    """PyObserver: ``tensor`` is the seat's observation tensor, strings the JSON observation."""

    def __init__(self, game: Game) -> None:
        self.tensor: npt.NDArray[np.float32] = np.zeros(game.observation_tensor_shape(), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MotleySpielState, player: int) -> None:
        motley_state = state.motley_state
        if motley_state is None or state.is_chance_node():
            self.tensor.fill(0.0)
        else:
            self.tensor[...] = motley_state.observation_tensor(player)

    def string_from(self, state: MotleySpielState, player: int) -> str:
        motley_state = state.motley_state
        if motley_state is None or state.is_chance_node():
            return "{}"
        return json.dumps(motley_state.observation(player), sort_keys=True, separators=(",", ":"))
