"""Single-observer information-set MCTS (SO-ISMCTS), one implementation for every game.

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012,
Algorithm 2, with the multi-player extension of their section VI (each node keeps the reward of the
seat that made the move into it, so every seat maximises its own return).

Each iteration samples one determinization with ``game.determinizer(observation)`` (distributed as
``game.sample_state(observation, rng)``) -- the bot is given the seat's observation and the legal
actions only, never the State -- and walks one tree of
*actions* shared by all determinizations. Selection is UCB1 with availability counts (a child's
exploration term uses the number of iterations in which it was legal, not its parent's visits).

Rollouts (``rollout``). By default (``"auto"``) a game with a search policy (``GameSpec.search_policy``: Fool!,
Foolery, their heuristic written once in the game's ``policy.py``) is rolled out by that heuristic played on the
sampled state, with ``epsilon`` of the moves random; other games roll out uniformly at random (``"random"``, the
game's fast ``playout``).

Opponent model (``opponents``). With ``"search"`` (SO-ISMCTS as published) every seat's moves are tree nodes and
each seat picks by UCB1 on its own reward. With ``"policy"`` the other seats move by the rollout policy
(epsilon-greedy heuristic) in the tree as well, so the tree is keyed by the observer's own decisions alone and every
iteration refines them (a heuristic opponent model). ``"auto"`` (the default) is ``"policy"`` when the game has a
fast heuristic policy and ``"search"`` otherwise.

Inference (``infer=K``, off by default). Each determinization is drawn by importance resampling from ``K``
worlds of the game's sampler, weighted by how likely the other seats' plays of the deal so far are in each
under a model of those seats: the game's heuristic, deterministic (``infer_temperature=0``: the heuristic's
move has probability ``1 - infer_epsilon``) or a softmax over its move scores (``infer_temperature > 0``)
(:mod:`motley.core.inference`; the game needs ``GameSpec.inference``). ``K = 1`` is the plain sampler.
With ``infer_chain=M`` the determinizations of one decision come from a Metropolis-Hastings chain instead:
it starts from one world (of ``K`` candidates), and each iteration's world is the chain's after ``M`` more
proposed swaps of hidden cards, accepted by the same likelihood (:class:`motley.core.inference.InferredChain`).

Rewards. A rollout runs until the match ends or, in matches of several deals, until the current deal
ends (the next shuffle is not searched). At the end of the match the reward is ``state.returns()``; at the end of
a deal it is each seat's score gain over the deal, centred on the mean gain and scaled by the largest deviation, so
it lies in [-1, 1] (``reward`` shapes it otherwise). With ``points=W`` the reward at the end of the match is
``(1 - W) * returns + W * gain``, the gain of the last deal centred and scaled by the mean largest deviation of the
decision's rollouts (as ``reward="linear"``).

Why the defaults are what they are, and the options measured and taken out:
docs/reports/README.md#ismcts-the-reasons-for-its-defaults.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from motley.bots.base import Bot
from motley.bots.spec import make_bot, register_bot_kind
from motley.core import Game, MotleyError, Observation, State
from motley.core.errors import OptionError
from motley.core.inference import TRUSTS, InferredChain, InferredSampler, PlayerModel
from motley.core.options import Option
from motley.core.registry import game_spec
from motley.core.rewards import centre, rollout_rewards, score_gains, shape_gains, with_points
from motley.core.search import SearchState, roll_out_seats


class Node:
    """A node of the action tree: statistics of the move that leads to it."""

    __slots__ = ("avail", "children", "player", "value", "visits")

    def __init__(self, player: int) -> None:
        self.player = player  # seat that made the move into this node (-1 at the root)
        self.visits = 0
        self.avail = 0
        self.value = 0.0  # sum of rewards of ``player``
        self.children: dict[int, Node] = {}


class ISMCTSBot(Bot):
    """SO-ISMCTS with a budget in simulations or seconds.

    Args:
        game: the game to play.
        simulations: iterations per decision (used when ``seconds`` is not given); >= 1.
        seconds: time per decision instead of a fixed number of iterations; > 0.
        uct_c: the exploration constant of UCB1 (rewards lie in [-1, 1]).
        rollout: ``"random"`` (uniformly random rollouts), ``"heuristic"``: the game's fast rollout policy
            (``GameSpec.search_policy``, the heuristic played on the sampled state), or for a game without one
            its heuristic bot on observations (much slower), or ``"auto"`` (the default): the fast policy
            when the game has one, else random.
        epsilon: with heuristic rollouts, the share of rollout moves played at random instead; 0..1.
        reward: shaping of a deal end, ``"spread"``, ``"linear"`` or ``"rank"`` (see :func:`deal_rewards`).
        opponents: ``"search"`` (the other seats' moves are tree nodes chosen by UCB1), ``"policy"`` (they
            move by the rollout policy; the tree holds the observer's moves only) or ``"auto"`` (the
            default: ``"policy"`` for a game with a fast heuristic policy, else ``"search"``).
        final: ``"visits"`` (most visited move, the usual choice) or ``"value"`` (best mean).
        points: the weight of the last deal's points in the reward at the end of the match (module
            docstring), 0..1; 0 (the default): the match outcome alone.
        infer: candidate worlds per determinization for inference from play (module docstring); 0 (the
            default) or 1 samples uniformly over the hard constraints as before; >= 0.
        infer_chain: Metropolis-Hastings steps per determinization (module docstring); 0 (the default): none.
        infer_temperature: the player model's softmax temperature; 0 (the default) is the deterministic model.
        infer_epsilon: the player model's share of uniformly random play, in (0, 1).
        infer_trust: ``"fixed"`` (the default: every other seat plays the heuristic's move with ``1 -
            infer_epsilon``), ``"per_seat"`` (each seat's share of other moves is its own and learned from its
            plays) or ``"table"`` (one share learned from all the other seats' plays): a table of searchers or
            people is not read as heuristics (``PlayerModel.trust``); the deterministic model only.
        seat_model: ``"fixed"`` (the default: every seat's model moves and rollouts by ``epsilon``) or
            ``"learned"``: where a caller has learned each seat's share of random moves from its play
            (:attr:`seat_epsilons`, the analysis: :mod:`motley.bots.analysis`), each seat is played by its own.

    The values are checked by the declaration (:data:`OPTIONS`, through :func:`motley.bots.make_bot`).

    Raises:
        MotleyError: for inference the game does not support, or ``infer_trust`` other than ``"fixed"`` with
            ``infer_temperature`` above 0.
    """

    name = "ismcts"

    def __init__(self, game: Game, simulations: int = 1000, seconds: float | None = None, uct_c: float = 1.0,
                 rollout: str = "auto", epsilon: float = 0.1, reward: str = "spread", points: float = 0.0,
                 opponents: str = "auto", final: str = "visits", infer: int = 0, infer_chain: int = 0,
                 infer_temperature: float = 0.0, infer_epsilon: float = 0.05, infer_trust: str = "fixed",
                 seat_model: str = "fixed") -> None:
        super().__init__(game)
        self._model = _player_model(game, infer, infer_chain, infer_temperature, infer_epsilon, infer_trust)
        self.infer, self.infer_chain = infer, infer_chain
        self.simulations, self.seconds, self.uct_c = simulations, seconds, uct_c
        self.epsilon, self.points = epsilon, points
        self.rollout = rollout
        self.reward = reward
        self._spread_sum, self._spread_count = 0.0, 0
        self.final = final
        spec = game_spec(game.name)
        fast = spec.search_policy if rollout != "random" else None
        seats_policy = spec.search_policy or spec.model_policy
        self._seat_move = None if seats_policy is None else seats_policy.move
        #: Per seat, the share of its moves played at random, learned from its play (set by the analysis,
        #: :mod:`motley.bots.analysis`; None: ``epsilon`` for every seat, as in play). Under ``seat_model="learned"``,
        #: where set and the game has a heuristic on full states (``GameSpec.search_policy``, else
        #: ``GameSpec.model_policy``), the rollouts play each seat by it with its own share
        #: (:func:`motley.core.search.roll_out_seats`), and so do the other seats' moves in the tree under
        #: ``opponents="policy"``; under ``"search"`` another seat's move in the tree is a uniformly random one with
        #: its share, else chosen by UCB1.
        self.seat_epsilons: Sequence[float] | None = None
        self.seat_model = seat_model
        self._policy = None if fast is None else fast.rollout
        self._move = None if fast is None else fast.move
        self._rollout_bot: Bot | None = None
        if rollout == "heuristic" and self._policy is None:
            heuristic = make_bot("heuristic", game)
            self._rollout_bot = _EpsilonBot(heuristic, self.epsilon) if self.epsilon else heuristic
        if opponents == "auto":
            opponents = "policy" if self._move is not None else "search"
        self.opponents = opponents
        self._last: list[dict[str, Any]] = []
        self._root = Node(-1)  # the tree of the last decision
        self.last_iterations = 0
        #: A move every iteration begins with (None: the root's moves are chosen by UCB1, as in play): the
        #: analysis's re-search of one move (:mod:`motley.bots.analysis`).
        self.root_move: int | None = None

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        if len(legal_actions) == 1:
            self._last = []
            return legal_actions[0]
        root = self._root = Node(-1)
        self._spread_sum, self._spread_count = 0.0, 0
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        names: dict[int, str] = {}
        iterations = 0
        sample = self._sampler(observation)
        while (iterations < self.simulations) if deadline is None else (time.perf_counter() < deadline):
            world = sample(rng)
            if not isinstance(world, SearchState):
                raise MotleyError(f"ismcts needs states with search support (motley.core.search); "
                                  f"{self.game.name} has none")
            if not names:
                names = {a: world.action_to_string(a) for a in legal_actions}
            self._iterate(root, world, rng)
            iterations += 1
        self.last_iterations = iterations
        legal = set(legal_actions)
        stats = [(a, child) for a, child in root.children.items() if a in legal]
        self._last = sorted(
            ({"move": names.get(a, str(a)), "action": a, "visits": c.visits, "mean": c.value / max(c.visits, 1)}
             for a, c in stats),
            key=lambda d: (-d["visits"], -d["mean"]),
        )
        if not stats:
            return legal_actions[rng.randrange(len(legal_actions))]
        if self.final == "value":
            return max(stats, key=lambda ac: (ac[1].value / max(ac[1].visits, 1), ac[1].visits))[0]
        return max(stats, key=lambda ac: (ac[1].visits, ac[1].value))[0]

    def _sampler(self, observation: Observation) -> Callable[[random.Random], State]:
        """The determinizations of one decision: the game's sampler, or inferred worlds (module docstring)."""
        sample: Callable[[random.Random], State] = self.game.determinizer(observation)
        if self._model is not None:
            if self.infer > 1:
                sample = InferredSampler(sample, None, self._model, self.infer)
            if self.infer_chain:
                sample = InferredChain(sample, None, self._model, self.infer_chain)
        return sample

    def _iterate(self, root: Node, world: SearchState, rng: random.Random) -> None:
        """One iteration: select/expand in ``world``, roll out, back up (Algorithm 2 of the paper)."""
        world.stop_at_deal_end()  # the iteration ends with the deal: no need to deal the next one
        deal = world.deal_number()
        start_scores = world.scores()
        node = root
        path: list[Node] = []
        c = self.uct_c
        log = math.log
        sqrt = math.sqrt
        observer = world.current_player()
        me = observer if self.opponents == "policy" else -1
        # bound methods: this loop runs for every move of every iteration
        is_terminal, deal_number, current_player = world.is_terminal, world.deal_number, world.current_player
        legal_actions, apply_legal, model_move = world.legal_actions, world.apply_legal, self._model_move
        shares = self.seat_epsilons if self.seat_model == "learned" else None
        if self.root_move is not None:
            node = root.children.get(self.root_move) or root.children.setdefault(self.root_move, Node(observer))
            node.avail += 1
            apply_legal(self.root_move)
            path.append(node)
        while not is_terminal() and deal_number() == deal:
            if me >= 0 and current_player() != me:
                apply_legal(model_move(world, rng))
                continue
            children = node.children
            unexpanded = []
            best_score = -math.inf
            if shares is not None and me < 0 and current_player() != observer and rng.random() < shares[
                    current_player()]:
                legal = legal_actions()
                action = legal[rng.randrange(len(legal))]  # a seat's random move (seat_epsilons)
                child = children.get(action)
                if child is not None:
                    child.avail += 1
            else:
                for a in legal_actions():
                    child = children.get(a)
                    if child is None:
                        unexpanded.append(a)
                        continue
                    child.avail += 1  # available in this world (the UCB of Cowling et al. counts these)
                    if not unexpanded:  # scores matter only while every legal move has a child
                        score = child.value / child.visits + c * sqrt(log(child.avail) / child.visits)
                        if score > best_score:
                            best_action, best_score, best = a, score, child
                if unexpanded:
                    action, child = unexpanded[rng.randrange(len(unexpanded))], None
                else:
                    action, child = best_action, best
            if child is None:  # a move without a node yet: expanded, and the rollout starts after it
                child = Node(current_player())
                child.avail = 1
                children[action] = child
                apply_legal(action)
                path.append(child)
                break
            node = child
            apply_legal(action)
            path.append(node)
        self._roll_out(world, rng, deal, observer)
        rewards = self._rewards(world, start_scores)
        for n in path:
            n.visits += 1
            n.value += rewards[n.player]

    def _rewards(self, world: SearchState, start_scores: Sequence[int]) -> list[float]:
        """Each seat's reward at the end of an iteration's rollout (module docstring, ``reward``, ``points``)."""
        terminal = world.is_terminal()
        linear = self.reward == "linear" and not terminal
        if linear or (terminal and self.points):
            gains = score_gains(start_scores, world.scores())
            self._spread_sum += centre(gains)[1]
            self._spread_count += 1
            shaped = shape_gains(gains, "linear", self._spread_sum / self._spread_count or 1.0)
            if linear:
                return shaped
            return with_points(world.returns(), shaped, self.points)
        if terminal:
            return world.returns()
        return rollout_rewards(world, start_scores, self.reward)

    def _roll_out(self, world: SearchState, rng: random.Random, deal: int, observer: int) -> None:
        """Plays ``world`` on to the end of ``deal`` by the rollout policy; ``observer`` is the seat the iteration
        searches for (a searcher whose rollouts play that seat apart from the others overrides this)."""
        if world.is_terminal() or world.deal_number() != deal:
            return
        if self.seat_model == "learned" and self.seat_epsilons is not None and self._seat_move is not None:
            roll_out_seats(world, rng, self._seat_move, self.seat_epsilons)
            return
        if self._policy is not None:
            self._policy(world, rng, self.epsilon)
            return
        if self._rollout_bot is None:
            world.playout(rng)
            return
        bot = self._rollout_bot
        while not world.is_terminal() and world.deal_number() == deal:
            legal = world.legal_actions()
            seat = world.current_player()
            action = legal[0] if len(legal) == 1 else bot.act(world.observation(seat), legal, rng)
            world.apply_legal(action)

    def _model_move(self, world: State, rng: random.Random) -> int:
        """Another seat's move in the tree under ``opponents="policy"``: the rollout policy, epsilon-greedy."""
        shares = self.seat_epsilons if self.seat_model == "learned" else None
        epsilon = self.epsilon if shares is None else shares[world.current_player()]
        if self._move is not None and not (epsilon and rng.random() < epsilon):
            return self._move(world)
        legal = world.legal_actions()
        if len(legal) > 1 and self._rollout_bot is not None:
            return self._rollout_bot.act(world.observation(world.current_player()), legal, rng)
        return legal[rng.randrange(len(legal))]

    def explain(self) -> list[dict[str, Any]]:
        """For the last decision: each move with its visits and mean reward, most visited first."""
        return list(self._last)


def _player_model(game: Game, candidates: int, steps: int, temperature: float, epsilon: float,
                  trust: str = "fixed") -> PlayerModel | None:
    """The player model of the inference options (None when inference is off).

    Raises:
        MotleyError: for a learned trust with a softmax model, or inference in a game without its support.
    """
    if trust != "fixed" and temperature != 0.0:
        raise MotleyError(f"ismcts infer_trust={trust} is the deterministic model: it takes no infer_temperature")
    if candidates <= 1 and not steps:
        return None
    support = game_spec(game.name).inference
    if support is None or (steps and support.perturb is None):
        raise MotleyError(f"ismcts infer{'_chain' if steps else ''} needs a game with inference support "
                          f"(GameSpec.inference{' with perturb' if steps else ''}); {game.name} has none")
    return PlayerModel(support, temperature, epsilon, trust)


class _EpsilonBot(Bot):
    """A bot that plays a uniformly random legal move with probability ``epsilon``, else asks ``inner``."""

    def __init__(self, inner: Bot, epsilon: float) -> None:
        super().__init__(inner.game)
        self.inner = inner
        self.epsilon = epsilon

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        if rng.random() < self.epsilon:
            return legal_actions[rng.randrange(len(legal_actions))]
        return self.inner.act(observation, legal_actions, rng)


def _positive(value: float) -> float:
    """``value`` if it is above 0 (``seconds``)."""
    if not value > 0.0:
        raise OptionError(f"option 'seconds' must be above 0; got {value!r}")
    return value


def _open_unit(value: float) -> float:
    """``value`` if it lies strictly between 0 and 1 (``infer_epsilon``)."""
    if not 0.0 < value < 1.0:
        raise OptionError(f"option 'infer_epsilon' must be in (0, 1), both ends excluded; got {value!r}")
    return value


#: The options of ``ismcts(...)``, checked before a bot is built (``served``: what a web table's bot may use).
OPTIONS = (
    Option("simulations", 1000, "iterations per decision (when seconds is not given)", kind="int", minimum=1,
           served=(10, 5000), label="Simulations per move"),
    Option("seconds", None, "time per decision instead of a number of simulations; none: simulations",
           kind="float", check=_positive),
    Option("uct_c", 1.0, "the exploration constant of UCB1 (rewards lie in [-1, 1])", kind="float", minimum=0.0),
    Option("rollout", "auto", "rollout policy: the game's fast heuristic where it has one (auto), random, or the "
           "heuristic", choices=("auto", "random", "heuristic")),
    Option("epsilon", 0.1, "share of heuristic rollout and model moves played at random", kind="float",
           minimum=0.0, maximum=1.0),
    Option("reward", "spread", "shaping of a deal end inside a match (deal_rewards)",
           choices=("spread", "linear", "rank")),
    Option("points", 0.0, "weight of the last deal's points in the reward at the end of the match", kind="float",
           minimum=0.0, maximum=1.0),
    Option("opponents", "auto", "the other seats: tree nodes chosen by UCB1 (search), moved by the rollout policy "
           "(policy), or policy where the game has a fast heuristic (auto)", choices=("auto", "search", "policy")),
    Option("final", "visits", "the move played: most visited, or best mean value", choices=("visits", "value")),
    Option("infer", 0, "candidate worlds per determinization, weighted by the other seats' plays (0, 1: off)",
           kind="int", minimum=0),
    Option("infer_chain", 0, "Metropolis-Hastings swaps of hidden cards per determinization (0: off)", kind="int",
           minimum=0),
    Option("infer_temperature", 0.0, "the player model's softmax temperature (0: deterministic)", kind="float",
           minimum=0.0),
    Option("infer_epsilon", 0.05, "the player model's share of uniformly random play", kind="float",
           check=_open_unit),
    Option("infer_trust", "fixed", "the other seats' share of moves off the heuristic: fixed (infer_epsilon), "
           "learned per seat or for the table", choices=TRUSTS),
    Option("seat_model", "fixed", "each seat's share of random moves in the search: epsilon for every seat (fixed), "
           "or its own learned from its play where the analysis gives it (learned)", choices=("fixed", "learned")),
)

register_bot_kind("ismcts", ISMCTSBot, OPTIONS, doc="single-observer information-set MCTS (Cowling et al. 2012)",
                  web=True)
