"""OpenSpiel's ISMCTS (through the motley OpenSpiel adapter) against motley's ISMCTS, equal simulations per move.

Each deal (its chance outcomes drawn from a seed) is played twice with the sides swapped: in the first match
the even seats are OpenSpiel's ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``, random-rollout
evaluator, one rollout, max-visit final policy) and the odd seats motley's ``ismcts`` bot with the same
algorithm (``rollout=random, opponents=search``); in the second the other way round. Both run
``--simulations`` iterations per decision with the same UCT constant; a decision with one legal
move is played at once by both. Reported per side: mean match return, win share (return > 0), seconds
per searched decision and simulations per second.

The default configurations are one-deal ones (``fool`` one round, ``foolery`` one hand), where both
bots roll out to the end of the match, so they optimise the same return (motley's bot stops its rollouts
at the end of a deal in longer matches).

    .venv/bin/python benchmarks/openspiel_ismcts.py                          # every registered game
    .venv/bin/python benchmarks/openspiel_ismcts.py "fools_errand" --deals 100 --simulations 100
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module
from open_spiel.python.algorithms import ismcts, mcts

import motley
from motley.bots import make_bot
from motley.envs import openspiel

DEFAULTS = {"fools_errand": "fools_errand", "fool": "fool(players=4,rounds=1)", "foolery": "foolery(players=3,hands=1)"}


def play(spec: str, deals: int, simulations: int, uct_c: float, seed: int) -> dict[str, Any]:
    """Play ``2 * deals`` matches of ``spec`` and return the figures of both sides."""
    mgame = motley.load_game(spec)
    openspiel.register([mgame.name])
    game = pyspiel.load_game(openspiel.spiel_game_string(mgame))
    sides = ("openspiel", "motley")
    stats: dict[str, dict[str, float]] = {
        s: {"return": 0.0, "wins": 0.0, "seats": 0.0, "decisions": 0.0, "seconds": 0.0} for s in sides}
    rs = np.random.RandomState(seed)
    os_bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=uct_c,
                              max_simulations=simulations, random_state=rs, use_observation_string=True)
    np.random.seed(seed)  # resample_from_infostate draws from numpy's global generator
    # The same algorithm on both sides: random rollouts, every seat searched by UCB1.
    m_bot = make_bot(f"ismcts(simulations={simulations},uct_c={uct_c},rollout=random,opponents=search)", mgame)
    rng = random.Random(seed)
    deal_seeds = random.Random(seed + 1).sample(range(2**16), deals)
    for deal_seed in deal_seeds:
        for swap in (0, 1):
            state = game.new_initial_state()
            chance = random.Random(deal_seed)  # the same deal for both sides (and the same later draws while
            openspiel.deal_from(state, chance)  # the play is the same)
            side_of = [sides[(seat + swap) % 2] for seat in range(mgame.num_players)]
            while not state.is_terminal():
                if state.is_chance_node():  # a later deal, or a Joker going back (The Fool's Errand)
                    openspiel.deal_from(state, chance)
                    continue
                seat = state.current_player()
                legal = state.legal_actions()
                side = side_of[seat]
                if len(legal) == 1:
                    state.apply_action(legal[0])
                    continue
                start = time.perf_counter()
                if side == "openspiel":
                    action = os_bot.step(state)
                else:
                    mstate = state.motley_state
                    action = m_bot.act(mstate.observation(seat), legal, rng)
                stats[side]["seconds"] += time.perf_counter() - start
                stats[side]["decisions"] += 1
                state.apply_action(int(action))
            for seat, r in enumerate(state.returns()):
                s = stats[side_of[seat]]
                s["return"] += r
                s["wins"] += r > 0
                s["seats"] += 1
    out: dict[str, Any] = {"game": str(mgame), "deals": deals, "matches": 2 * deals, "simulations": simulations,
                           "uct_c": uct_c}
    for side in sides:
        s = stats[side]
        share = s["wins"] / s["seats"]
        out[side] = {
            "mean_return": round(s["return"] / s["seats"], 4),
            "win_share": round(share, 4),
            "win_share_ci95": round(1.96 * math.sqrt(share * (1 - share) / s["seats"]), 4),
            "seat_matches": int(s["seats"]),
            "seconds_per_decision": round(s["seconds"] / max(s["decisions"], 1), 4),
            "simulations_per_second": round(simulations * s["decisions"] / max(s["seconds"], 1e-9), 1),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", help="game strings (default: one configuration per registered game)")
    parser.add_argument("--deals", type=int, default=30, help="deals per game; each is played twice, sides swapped")
    parser.add_argument("--simulations", type=int, default=100, help="ISMCTS iterations per decision, both bots")
    parser.add_argument("--uct-c", type=float, default=1.0, help="UCT exploration constant, both bots")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    specs = args.games or [DEFAULTS.get(name, name) for name in motley.registered_games()]
    results = []
    print(f"{'game':<30} {'side':<10} {'mean return':>11} {'win share':>14} {'s/decision':>10} {'sims/s':>8}")
    for spec in specs:
        r = play(spec, args.deals, args.simulations, args.uct_c, args.seed)
        results.append(r)
        for side in ("openspiel", "motley"):
            f = r[side]
            print(f"{r['game']:<30} {side:<10} {f['mean_return']:>11.3f} "
                  f"{f['win_share']:>7.3f} ± {f['win_share_ci95']:.3f} {f['seconds_per_decision']:>10.3f} "
                  f"{f['simulations_per_second']:>8.0f}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
