"""Single-observer information-set MCTS (SO-ISMCTS), one implementation for every game.

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012,
Algorithm 2, with the multi-player extension of their section VI (each node keeps the reward of the
seat that made the move into it, so every seat maximises its own return).

Each iteration samples one determinization with ``game.determinizer(observation)`` (distributed as
``game.sample_state(observation, rng)``) -- the bot is given the seat's observation and the legal
actions only, never the State -- and walks one tree of
*actions* shared by all determinizations. Selection is UCB1 with availability counts (a child's
exploration term uses the number of iterations in which it was legal, not its parent's visits).

Rewards. A rollout runs until the match ends or, in matches of several deals, until the current deal
ends (searching past the deal would mostly measure the next shuffle). At the end of the match the
reward is ``state.returns()``; at the end of a deal it is each seat's score gain over the deal, centred
on the mean gain and scaled by the largest deviation, so it lies in [-1, 1].
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

from motley.bots.base import Bot, make_bot, register_bot_kind
from motley.core import Game, MotleyError, Observation, State


class Node:
    """A node of the action tree: statistics of the move that leads to it."""

    __slots__ = ("avail", "children", "player", "value", "visits")

    def __init__(self, player: int) -> None:
        self.player = player  # seat that made the move into this node (-1 at the root)
        self.visits = 0
        self.avail = 0
        self.value = 0.0  # sum of rewards of ``player``
        self.children: dict[int, Node] = {}


def deal_rewards(state: State, start_scores: Sequence[int]) -> list[float]:
    """Rewards in [-1, 1] at the end of a rollout (see the module docstring)."""
    if state.is_terminal():
        return list(state.returns())
    gains = [b - a for a, b in zip(start_scores, state.scores(), strict=True)]
    mean = sum(gains) / len(gains)
    spread = max(abs(g - mean) for g in gains) or 1.0
    return [(g - mean) / spread for g in gains]


class ISMCTSBot(Bot):
    """SO-ISMCTS with a budget in simulations or seconds.

    Args:
        game: the game to play.
        simulations: iterations per decision (used when ``seconds`` is not given); >= 1.
        seconds: time per decision instead of a fixed number of iterations; > 0.
        uct_c: the exploration constant of UCB1 (rewards lie in [-1, 1]).
        rollout: ``"random"`` or ``"heuristic"`` (the game's heuristic bot plays the rollouts, slower).
        final: ``"visits"`` (most visited move, the usual choice) or ``"value"`` (best mean).
    Raises:
        MotleyError: for a bad parameter.
    """

    name = "ismcts"

    def __init__(self, game: Game, simulations: int | str = 1000, seconds: float | str | None = None,
                 uct_c: float | str = 1.0, rollout: str = "random", final: str = "visits") -> None:
        super().__init__(game)
        try:
            self.simulations = int(simulations)
            self.seconds = None if seconds in (None, "", "none") else float(str(seconds))
            self.uct_c = float(uct_c)
        except ValueError as exc:
            raise MotleyError(f"bad ismcts parameter: {exc}") from None
        if self.simulations < 1 or (self.seconds is not None and self.seconds <= 0) or self.uct_c < 0:
            raise MotleyError("ismcts needs simulations >= 1, seconds > 0 and uct_c >= 0")
        if rollout not in ("random", "heuristic") or final not in ("visits", "value"):
            raise MotleyError("ismcts rollout must be 'random' or 'heuristic', final 'visits' or 'value'")
        self.rollout = rollout
        self.final = final
        self._rollout_bot = make_bot("heuristic", game) if rollout == "heuristic" else None
        self._last: list[dict[str, Any]] = []
        self.last_iterations = 0

    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        if len(legal_actions) == 1:
            self._last = []
            return legal_actions[0]
        root = Node(-1)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        names: dict[int, str] = {}
        iterations = 0
        sample = self.game.determinizer(observation)
        while (iterations < self.simulations) if deadline is None else (time.perf_counter() < deadline):
            world = sample(rng)
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

    def _iterate(self, root: Node, world: State, rng: random.Random) -> None:
        """One iteration: select/expand in ``world``, roll out, back up (Algorithm 2 of the paper)."""
        deal = world.deal_number()
        start_scores = world.scores()
        node = root
        path: list[Node] = []
        c = self.uct_c
        log = math.log
        sqrt = math.sqrt
        while not world.is_terminal() and world.deal_number() == deal:
            legal = world.legal_actions()
            children = node.children
            unexpanded = []
            for a in legal:
                child = children.get(a)
                if child is None:
                    unexpanded.append(a)
                else:
                    child.avail += 1
            player = world.current_player()
            if unexpanded:
                action = unexpanded[rng.randrange(len(unexpanded))]
                child = Node(player)
                child.avail = 1
                children[action] = child
                world.apply_legal(action)
                path.append(child)
                break
            best_action, best_score = legal[0], -math.inf
            for a in legal:
                child = children[a]
                score = child.value / child.visits + c * sqrt(log(child.avail) / child.visits)
                if score > best_score:
                    best_action, best_score = a, score
            node = children[best_action]
            world.apply_legal(best_action)
            path.append(node)
        self._roll_out(world, rng, deal)
        rewards = deal_rewards(world, start_scores)
        for n in path:
            n.visits += 1
            n.value += rewards[n.player]

    def _roll_out(self, world: State, rng: random.Random, deal: int) -> None:
        if self._rollout_bot is None:
            if world.deal_number() == deal:
                world.playout(rng, stop_at_deal_end=True)
            return
        bot = self._rollout_bot
        while not world.is_terminal() and world.deal_number() == deal:
            legal = world.legal_actions()
            seat = world.current_player()
            action = legal[0] if len(legal) == 1 else bot.act(world.observation(seat), legal, rng)
            world.apply_legal(action)

    def explain(self) -> list[dict[str, Any]]:
        """For the last decision: each move with its visits and mean reward, most visited first."""
        return list(self._last)


def _factory(game: Game, **options: Any) -> Bot:
    return ISMCTSBot(game, **options)


register_bot_kind("ismcts", _factory)
