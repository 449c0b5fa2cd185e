"""Single-observer information-set MCTS (SO-ISMCTS), one implementation for every game.

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012,
Algorithm 2, with the multi-player extension of their section VI (each node keeps the reward of the
seat that made the move into it, so every seat maximises its own return).

Each iteration samples one determinization with ``game.determinizer(observation)`` (distributed as
``game.sample_state(observation, rng)``) -- the bot is given the seat's observation and the legal
actions only, never the State -- and walks one tree of
*actions* shared by all determinizations. Selection is UCB1 with availability counts (a child's
exploration term uses the number of iterations in which it was legal, not its parent's visits).

Rollouts. By default (``rollout="auto"``) a game with a search policy (``GameSpec.search_policy``: Fool!,
Foolery, their heuristic written once in the game's ``policy.py``) is rolled out by that heuristic played on
the sampled state, with ``epsilon`` of the moves random:
uniformly random rollouts model the table as random players, and with them the search was weaker than the
heuristic bot it plays against; other games roll out uniformly at random (``rollout="random"``, the game's
fast ``playout``).

Opponent model. With ``opponents="search"`` (SO-ISMCTS as published) every seat's moves are tree nodes and
each seat picks by UCB1 on its own reward. With a budget of ~1,000 iterations the other seats' nodes near
the root see a handful of visits each, so in the tree they play close to uniformly at random -- the same
poor model of the table as random rollouts, one trick deep. With ``opponents="policy"`` the other seats
move by the rollout policy (epsilon-greedy heuristic) in the tree as well, so the tree holds only the
observer's own decisions and every iteration refines them (a heuristic opponent model). ``"auto"`` (the default) is
``"policy"`` when the game has a fast heuristic policy and ``"search"`` otherwise.

Tree keys. Under ``opponents="policy"`` the tree is keyed by the observer's moves alone by default
(``tree="own"``): the node of the observer's next decision is the same whatever the other seats played
before it, so that decision is searched as if their moves were unseen. With ``tree="public"`` the other
seats' moves are edges too (chosen by the model, not by UCB1): a node is the observer's information state,
the sequence of moves it saw, and its statistics gather only the worlds in which the table played so. A
move the observer does not see (``GameSpec.public_move``: cards given in Foolery's exchange) is one edge
whatever it was.

Inference (``infer=K``, off by default). Each determinization is drawn by importance resampling from ``K``
worlds of the game's sampler, weighted by how likely the other seats' plays of the deal so far are in each
under a model of those seats: the game's heuristic, deterministic (``infer_temperature=0``: the heuristic's
move has probability ``1 - infer_epsilon``) or a softmax over its move scores (``infer_temperature > 0``)
(:mod:`motley.core.inference`; the game needs ``GameSpec.inference``). ``K = 1`` is the plain sampler.
With ``infer_chain=M`` the determinizations of one decision come from a Metropolis-Hastings chain instead:
it starts from one world (of ``K`` candidates), and each iteration's world is the chain's after ``M`` more
proposed swaps of hidden cards, accepted by the same likelihood (:class:`motley.core.inference.InferredChain`).

Rewards. A rollout runs until the match ends or, in matches of several deals, until the current deal
ends (searching past the deal would mostly measure the next shuffle). At the end of the match the
reward is ``state.returns()``; at the end of a deal it is each seat's score gain over the deal, centred
on the mean gain and scaled by the largest deviation, so it lies in [-1, 1]. With ``points=W`` the reward
at the end of the match is ``(1 - W) * returns + W * gain``, the gain of the last deal centred and scaled
by the mean largest deviation of the decision's rollouts (as ``reward="linear"``): a win/loss reward alone
says nothing about the points of a deal that is lost anyway, and in a one-round match of Fool! the search
then gave away more points than the heuristic (docs/reports: "Points in the reward").

Shared wins. A game's returns may give every seat of a shared win the winner's return (Fool!: +1 to each, FL-D8,
FL-D15), so the search is indifferent between winning alone and sharing the win, while a win share counts a win
shared by ``k`` seats as ``1/k`` (``motley.eval.simulate.outcome_shares``). With ``ties="split"`` the ``k`` seats
tied on the best return get ``lowest + (best - lowest) / k`` instead (:func:`split_ties`): the reward is then
affine in the seat's win share wherever the returns are +1/-1, and a round the searcher would share is worth
playing on to win alone.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from motley.bots.base import Bot, make_bot, register_bot_kind
from motley.core import Game, MotleyError, Observation, State
from motley.core.inference import TRUSTS, InferredChain, InferredSampler, PlayerModel
from motley.core.registry import game_spec
from motley.core.rewards import centre, match_outcome, rollout_rewards, score_gains, shape_gains, with_points
from motley.core.search import SearchState

#: The one tree edge of every move the observer does not see (``tree="public"``).
HIDDEN_EDGE = -(1 << 40)


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
        tree: ``"own"`` (the default: under ``opponents="policy"`` the tree is keyed by the observer's moves
            alone) or ``"public"`` (every move the observer sees is an edge; module docstring).
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
        ties: ``"returns"`` (the default: the game's returns at the end of the match as they are) or ``"split"``
            (a win shared by ``k`` seats is worth ``1/k`` of a win: :func:`split_ties`).
    Raises:
        MotleyError: for a bad parameter.
    """

    name = "ismcts"

    def __init__(self, game: Game, simulations: int | str = 1000, seconds: float | str | None = None,
                 uct_c: float | str = 1.0, rollout: str = "auto", epsilon: float | str = 0.1,
                 reward: str = "spread", opponents: str = "auto", final: str = "visits", infer: int | str = 0,
                 infer_chain: int | str = 0, infer_temperature: float | str = 0.0,
                 infer_epsilon: float | str = 0.05, infer_trust: str = "fixed", points: float | str = 0.0,
                 tree: str = "own", ties: str = "returns") -> None:
        super().__init__(game)
        self._model = _player_model(game, infer, infer_chain, infer_temperature, infer_epsilon, infer_trust)
        self.infer, self.infer_chain = int(infer), int(infer_chain)
        try:
            self.simulations = int(simulations)
            self.seconds = None if seconds in (None, "", "none") else float(str(seconds))
            self.uct_c = float(uct_c)
            self.epsilon = float(epsilon)
            self.points = float(points)
        except ValueError as exc:
            raise MotleyError(f"bad ismcts parameter: {exc}") from None
        if self.simulations < 1 or (self.seconds is not None and self.seconds <= 0) or self.uct_c < 0:
            raise MotleyError("ismcts needs simulations >= 1, seconds > 0 and uct_c >= 0")
        if not 0.0 <= self.epsilon <= 1.0 or not 0.0 <= self.points <= 1.0:
            raise MotleyError("ismcts epsilon and points must be in 0..1")
        if rollout not in ("auto", "random", "heuristic") or final not in ("visits", "value") \
                or reward not in ("spread", "linear", "rank") or opponents not in ("auto", "search", "policy") \
                or tree not in ("own", "public") or ties not in ("returns", "split"):
            raise MotleyError("ismcts rollout must be 'auto', 'random' or 'heuristic', reward 'spread', 'linear' or "
                              "'rank', opponents 'auto', 'search' or 'policy', final 'visits' or 'value', tree "
                              "'own' or 'public', ties 'returns' or 'split'")
        self.rollout = rollout
        self.reward = reward
        self._spread_sum, self._spread_count = 0.0, 0
        self.final = final
        fast = game_spec(game.name).search_policy if rollout != "random" else None
        self._policy = None if fast is None else fast.rollout
        self._move = None if fast is None else fast.move
        self._rollout_bot: Bot | None = None
        if rollout == "heuristic" and self._policy is None:
            heuristic = make_bot("heuristic", game)
            self._rollout_bot = _EpsilonBot(heuristic, self.epsilon) if self.epsilon else heuristic
        if opponents == "auto":
            opponents = "policy" if self._move is not None else "search"
        self.opponents = opponents
        self.tree = tree
        self.ties = ties
        self._public_move = game_spec(game.name).public_move
        self._edges: dict[int, int] = {}  # another seat's action -> its edge in a tree="public" tree
        self._last: list[dict[str, Any]] = []
        self._root = Node(-1)  # the tree of the last decision
        self.last_iterations = 0

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        if len(legal_actions) == 1:
            self._last = []
            return legal_actions[0]
        root = self._root = Node(-1)
        self._edges = {}
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
        public = self.tree == "public"
        # bound methods: this loop runs for every move of every iteration
        is_terminal, deal_number, current_player = world.is_terminal, world.deal_number, world.current_player
        legal_actions, apply_legal, model_move = world.legal_actions, world.apply_legal, self._model_move
        while not is_terminal() and deal_number() == deal:
            if me >= 0 and current_player() != me:
                action = model_move(world, rng)
                if public:
                    node = self._descend(node, world, action)
                apply_legal(action)
                continue
            children = node.children
            unexpanded = []
            best_score = -math.inf
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
                action = unexpanded[rng.randrange(len(unexpanded))]
                child = Node(current_player())
                child.avail = 1
                children[action] = child
                apply_legal(action)
                path.append(child)
                break
            node = best
            apply_legal(best_action)
            path.append(node)
        self._roll_out(world, rng, deal, observer)
        rewards = self._rewards(world, start_scores)
        for n in path:
            n.visits += 1
            n.value += rewards[n.player]

    def _descend(self, node: Node, world: State, action: int) -> Node:
        """The child of ``node`` along another seat's ``action`` in a ``tree="public"`` tree (made if new).

        Its key is ``-1 - action`` (the observer's own moves are keys >= 0), or :data:`HIDDEN_EDGE` for a move
        the observer does not see; its statistics are never read (the other seats move by the model).
        """
        key = self._edges.get(action)
        if key is None:
            seen = self._public_move(world.action_to_string(action))
            key = self._edges[action] = -1 - action if seen else HIDDEN_EDGE
        child = node.children.get(key)
        if child is None:
            child = node.children[key] = Node(-1)
        return child

    def _rewards(self, world: SearchState, start_scores: Sequence[int]) -> list[float]:
        """Each seat's reward at the end of an iteration's rollout (module docstring, ``reward``, ``points``,
        ``ties``)."""
        terminal = world.is_terminal()
        linear = self.reward == "linear" and not terminal
        if linear or (terminal and self.points):
            gains = score_gains(start_scores, world.scores())
            self._spread_sum += centre(gains)[1]
            self._spread_count += 1
            shaped = shape_gains(gains, "linear", self._spread_sum / self._spread_count or 1.0)
            if linear:
                return shaped
            return with_points(self._outcome(world), shaped, self.points)
        if terminal:
            return self._outcome(world)
        return rollout_rewards(world, start_scores, self.reward)

    def _outcome(self, world: SearchState) -> list[float]:
        """The outcome of a finished ``world`` in the reward: its returns, a shared win split if ``ties="split"``."""
        return match_outcome(world.returns(), self.ties)

    def _roll_out(self, world: SearchState, rng: random.Random, deal: int, observer: int) -> None:
        """Plays ``world`` on to the end of ``deal`` by the rollout policy; ``observer`` is the seat the iteration
        searches for (a searcher whose rollouts play that seat apart from the others overrides this)."""
        if world.is_terminal() or world.deal_number() != deal:
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
        if self._move is not None and not (self.epsilon and rng.random() < self.epsilon):
            return self._move(world)
        legal = world.legal_actions()
        if len(legal) > 1 and self._rollout_bot is not None:
            return self._rollout_bot.act(world.observation(world.current_player()), legal, rng)
        return legal[rng.randrange(len(legal))]

    def explain(self) -> list[dict[str, Any]]:
        """For the last decision: each move with its visits and mean reward, most visited first."""
        return list(self._last)


def _player_model(game: Game, infer: int | str, chain: int | str, temperature: float | str,
                  epsilon: float | str, trust: str = "fixed") -> PlayerModel | None:
    """The player model of the inference options (None when inference is off), or MotleyError for a bad one."""
    try:
        candidates, steps, t, eps = int(infer), int(chain), float(temperature), float(epsilon)
    except ValueError as exc:
        raise MotleyError(f"bad ismcts inference parameter: {exc}") from None
    if candidates < 0 or steps < 0 or not t >= 0.0 or not 0.0 < eps < 1.0:
        raise MotleyError(f"ismcts needs infer >= 0, infer_chain >= 0, infer_temperature >= 0 and infer_epsilon "
                          f"in (0, 1); got {candidates}, {steps}, {t}, {eps}")
    if trust not in TRUSTS:
        raise MotleyError(f"ismcts infer_trust must be one of {', '.join(TRUSTS)}, got {trust!r}")
    if trust != "fixed" and t != 0.0:
        raise MotleyError(f"ismcts infer_trust={trust} is the deterministic model: it takes no infer_temperature")
    if candidates <= 1 and not steps:
        return None
    support = game_spec(game.name).inference
    if support is None or (steps and support.perturb is None):
        raise MotleyError(f"ismcts infer{'_chain' if steps else ''} needs a game with inference support "
                          f"(GameSpec.inference{' with perturb' if steps else ''}); {game.name} has none")
    return PlayerModel(support, t, eps, trust)


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


def _factory(game: Game, **options: Any) -> Bot:
    return ISMCTSBot(game, **options)


register_bot_kind("ismcts", _factory)
