"""How often a bot plays the heuristic's move: the share the player model of inference trusts.

Every seat of ``--deals`` deals is the bot; at each of its decisions with more than one legal move, its move is
compared with the heuristic's move on the full state (``GameSpec.inference.move``, the deterministic player model
of ``motley.core.inference``). The fixed model assumes every other seat agrees ``1 - infer_epsilon`` of the time
(0.95 by default); a table whose seats agree far less is what ``infer_trust=per_seat`` / ``table`` are for. The
interval is over deals (a deal's decisions are not independent), 95%, normal approximation.

Where the bot's move is not the heuristic's, its rank among the other legal moves in the heuristic's order
(:func:`deviation_rank` of the game's move scores: 1 = the heuristic's next choice) is counted, and the ``decay``
that makes those ranks most likely if the ``k``-th other move is played in proportion to ``decay ** (k - 1)``:
1 means the moves off the heuristic are spread evenly over the others, as the learned trust of
``core.inference.PlayerModel`` assumes, less that they lean to the heuristic's next choices.

    .venv/bin/python benchmarks/agreement.py "fool(players=5,rounds=1)" --bot "ismcts(simulations=1000)" --deals 6
    .venv/bin/python benchmarks/agreement.py "foolery(players=5,hands=1)" --bot heuristic --deals 20
"""

from __future__ import annotations

import argparse
import math
import random
from collections import Counter
from collections.abc import Mapping

import motley
from motley.bots import make_bot
from motley.core.play import choose
from motley.core.registry import game_spec

#: The decays tried for the fit of the ranks.
DECAYS = [round(0.05 * k, 2) for k in range(1, 21)]


def deviation_rank(scores: Mapping[int, float], move: int, action: int) -> int:
    """Where ``action`` stands among the legal moves other than the heuristic's ``move``, in the heuristic's order:
    1 for its next choice. The order is by ``scores`` (``core.inference.MoveScores``), higher first, equal scores
    by the smaller action id."""
    score = scores[action]
    return 1 + sum(1 for a, s in scores.items()
                   if a != move and a != action and (s > score or (s == score and a < action)))


def deal_agreements(game: motley.Game, bot: str, seed: int) -> tuple[int, int, list[tuple[int, int]]]:
    """(decisions where the bot played the heuristic's move, decisions, ``(legal moves, rank)`` of each other
    move) of one deal, the bot in every seat."""
    support = game_spec(game.name).inference
    if support is None:
        raise SystemExit(f"{game.name} has no inference support (GameSpec.inference): no heuristic move to compare")
    players = [make_bot(bot, game) for _ in range(game.num_players)]
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    agreed = decisions = 0
    off: list[tuple[int, int]] = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = choose(state, players[state.current_player()], rng)
        if len(legal) > 1:
            decisions += 1
            move = support.move(state)
            if move == action:
                agreed += 1
            else:
                off.append((len(legal), deviation_rank(support.scores(state), move, action)))
        state.apply_action(action)
    return agreed, decisions, off


def rank_log_likelihood(off: list[tuple[int, int]], decay: float) -> float:
    """The log-likelihood of the ranks ``off`` (``(legal moves n, rank k)``) if the ``k``-th of the ``n - 1`` other
    moves is played with probability ``decay ** (k - 1) * (1 - decay) / (1 - decay ** (n - 1))`` (evenly at 1)."""
    if decay == 1.0:
        return -sum(math.log(n - 1) for n, _ in off)
    return sum((rank - 1) * math.log(decay) + math.log1p(-decay) - math.log1p(-decay ** (n - 1)) for n, rank in off)


def main() -> None:
    parser = argparse.ArgumentParser(description="how often a bot plays the heuristic's move")
    parser.add_argument("game", help="game spec, e.g. 'fool(players=5,rounds=1)'")
    parser.add_argument("--bot", default="ismcts(simulations=1000)")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0, help="the first deal's seed; deal i is seed + i")
    args = parser.parse_args()
    game = motley.load_game(args.game)
    shares, total_agreed, total = [], 0, 0
    off: list[tuple[int, int]] = []
    for i in range(args.deals):
        agreed, decisions, deal_off = deal_agreements(game, args.bot, args.seed + i)
        total_agreed, total = total_agreed + agreed, total + decisions
        off += deal_off
        if decisions:
            shares.append(agreed / decisions)
        print(f"deal {i}: {agreed} of {decisions}", flush=True)
    if not shares:
        raise SystemExit("no decisions with more than one legal move")
    mean = sum(shares) / len(shares)
    spread = math.sqrt(sum((s - mean) ** 2 for s in shares) / max(1, len(shares) - 1) / len(shares))
    print(f"{args.bot} in {args.game}: plays the heuristic's move at {total_agreed} of {total} decisions "
          f"({total_agreed / total:.3f}); per deal {mean:.3f} [{mean - 1.96 * spread:.3f}, {mean + 1.96 * spread:.3f}] "
          f"over {len(shares)} deals")
    if off:
        ranks = Counter(min(rank, 4) for _, rank in off)
        by_rank = ", ".join(f"{'4+' if k == 4 else k}: {ranks[k] / len(off):.2f}" for k in range(1, 5))
        even = sum(1 / (n - 1) for n, _ in off) / len(off)
        fit = max(DECAYS, key=lambda decay: rank_log_likelihood(off, decay))
        best, flat = rank_log_likelihood(off, fit) / len(off), rank_log_likelihood(off, 1.0) / len(off)
        print(f"its {len(off)} other moves by rank in the heuristic's order: {by_rank} (the next choice's share if "
              f"they were even: {even:.2f}); the most likely decay {fit}, log-likelihood per move {best:+.3f} "
              f"against {flat:+.3f} at 1")


if __name__ == "__main__":
    main()
