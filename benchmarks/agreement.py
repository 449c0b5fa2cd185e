"""How often a bot plays the heuristic's move: the share the player model of inference trusts.

Every seat of ``--deals`` deals is the bot; at each of its decisions with more than one legal move, its move is
compared with the heuristic's move on the full state (``GameSpec.inference.move``, the deterministic player model
of ``motley.core.inference``). The fixed model assumes every other seat agrees ``1 - infer_epsilon`` of the time
(0.95 by default); a table whose seats agree far less is what ``infer_trust=per_seat`` / ``table`` are for. The
interval is over deals (a deal's decisions are not independent), 95%, normal approximation.

    .venv/bin/python benchmarks/agreement.py "fool(players=5,rounds=1)" --bot "ismcts(simulations=1000)" --deals 6
    .venv/bin/python benchmarks/agreement.py "foolery(players=5,hands=1)" --bot heuristic --deals 20
"""

from __future__ import annotations

import argparse
import math
import random

import motley
from motley.bots import make_bot
from motley.core.play import choose
from motley.core.registry import game_spec


def deal_agreements(game: motley.Game, bot: str, seed: int) -> tuple[int, int]:
    """(decisions where the bot played the heuristic's move, decisions) of one deal, the bot in every seat."""
    support = game_spec(game.name).inference
    if support is None:
        raise SystemExit(f"{game.name} has no inference support (GameSpec.inference): no heuristic move to compare")
    players = [make_bot(bot, game) for _ in range(game.num_players)]
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    agreed = decisions = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        action = choose(state, players[state.current_player()], rng)
        if len(legal) > 1:
            decisions += 1
            agreed += support.move(state) == action
        state.apply_action(action)
    return agreed, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description="how often a bot plays the heuristic's move")
    parser.add_argument("game", help="game spec, e.g. 'fool(players=5,rounds=1)'")
    parser.add_argument("--bot", default="ismcts(simulations=1000)")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0, help="the first deal's seed; deal i is seed + i")
    args = parser.parse_args()
    game = motley.load_game(args.game)
    shares, total_agreed, total = [], 0, 0
    for i in range(args.deals):
        agreed, decisions = deal_agreements(game, args.bot, args.seed + i)
        total_agreed, total = total_agreed + agreed, total + decisions
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


if __name__ == "__main__":
    main()
