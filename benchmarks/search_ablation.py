"""Search variants side by side: one seat of each against the same table, over the same deals, paired.

Each row is ``NAME=BOT``: an ``ismcts(...)`` spec, optionally followed by ``+network``, in which case the
searcher's *own* moves in its rollouts are played by the game's shipped Q network (the ``network`` bot's policy,
on the seat's tensor, with the heuristic's choice as its hint) instead of the heuristic; the other seats' moves
in the rollouts stay the heuristic's, the table's model. Every row plays every deal once per seating (duplicate
deals) against ``--table`` in the other seats; the games and their randomness are those of ``motley simulate``
with the same seed, so a row without ``+network`` reproduces ``motley simulate ... --duplicate`` game for game.

Win share of the searching seat (shared wins split) with 95% intervals over deals, its mean points beside the
table's, and each row's paired difference from the first row over the same deals.

    .venv/bin/python benchmarks/search_ablation.py --deals 40 --workers 2 \\
        --rows 'best=ismcts(simulations=1000,infer_chain=2,points=0.5)' \\
        --rows 'sims3000=ismcts(simulations=3000,infer_chain=2,points=0.5)' \\
        --rows 'network=ismcts(simulations=1000,infer_chain=2,points=0.5)+network'
"""

from __future__ import annotations

import argparse
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

import motley
from motley.bots import BotSpec, make_bot
from motley.bots.base import Bot
from motley.bots.ismcts import ISMCTSBot
from motley.bots.network import NetworkBot
from motley.core import MotleyError, game_spec
from motley.core.play import play_match
from motley.core.search import SearchPolicy, SearchState
from motley.eval.simulate import game_seed
from world_value import report, seat_result


class NetworkRollouts(ISMCTSBot):
    """ISMCTS whose own rollout moves are the game's shipped Q network's (module docstring); epsilon random
    moves as before, for every seat."""

    def __init__(self, game: motley.Game, **options: Any) -> None:
        super().__init__(game, **options)
        policy = game_spec(game.name).search_policy
        if policy is None:
            raise MotleyError(f"{game.name} has no heuristic on full states for the other seats' rollout moves")
        self.policy: SearchPolicy = policy
        self.network = NetworkBot(game)

    def _roll_out(self, world: SearchState, rng: random.Random, deal: int, observer: int) -> None:
        move, net, table = self.policy.move, self.network.net, self.network.table
        while not world.is_terminal() and world.deal_number() == deal:
            legal = world.legal_actions()
            seat = world.current_player()
            if len(legal) > 1 and self.epsilon and rng.random() < self.epsilon:
                action = legal[rng.randrange(len(legal))]
            elif len(legal) > 1 and seat == observer:
                hints = net.hints_for(legal, move(world))
                q = net.q_values(world.observation_tensor(seat), legal, table, hints)
                action = legal[int(np.argmax(q))]
            else:
                action = legal[0] if len(legal) == 1 else move(world)
            world.apply_legal(action)


def make_searcher(game: motley.Game, bot: str) -> Bot:
    """The searching seat of a row's ``BOT`` (module docstring)."""
    spec, network = (bot[: -len("+network")], True) if bot.endswith("+network") else (bot, False)
    parsed = BotSpec.parse(spec)
    if parsed.kind != "ismcts":
        raise SystemExit(f"a row must be an ismcts(...) spec, optionally with +network; got {bot!r}")
    return NetworkRollouts(game, **parsed.options) if network else ISMCTSBot(game, **parsed.options)


def play_one(job: tuple[str, str, str, str, int, int, int]) -> tuple[str, int, float, float, float]:
    """One game: ``(game spec, row name, row bot, table bot, deal seed, deal, searching seat)`` ->
    ``(row, deal, win share, points, the others' mean points)`` of the searching seat."""
    spec, row, bot, table, seed, deal, me = job
    game = motley.load_game(spec)
    searcher, other = make_searcher(game, bot), make_bot(table, game)
    state = play_match(game, [searcher if seat == me else other for seat in range(game.num_players)], seed)
    return (row, deal, *seat_result(state, me))


def main() -> None:
    parser = argparse.ArgumentParser(description="search variants paired over the same deals")
    parser.add_argument("--game", default="fool(players=5,rounds=1)")
    parser.add_argument("--rows", action="append", required=True, help="NAME=BOT (module docstring); repeat")
    parser.add_argument("--table", default="heuristic", help="the bot in every other seat")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--first-deal", type=int, default=0, help="play deals FIRST .. FIRST+DEALS-1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = dict(r.split("=", 1) for r in args.rows if "=" in r)
    if len(rows) != len(args.rows):
        raise SystemExit("give each row as NAME=BOT, with distinct names")
    game = motley.load_game(args.game)
    for bot in rows.values():
        make_searcher(game, bot)  # a bad spec fails here, with its reason
    players = game.num_players
    deals = range(args.first_deal, args.first_deal + args.deals)
    jobs = [(args.game, name, bot, args.table, game_seed(args.seed, deal), deal, me)
            for name, bot in rows.items() for deal in deals for me in range(players)]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(play_one, jobs, chunksize=4))
    print(f"{args.game}, one seat against {args.table}, {args.deals} deals x {players} seatings, seed {args.seed}")
    for name, bot in rows.items():
        print(f"  {name}: {bot}")
    report(list(rows), results, label="row")


if __name__ == "__main__":
    main()
