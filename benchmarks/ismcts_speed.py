"""ISMCTS simulations per second, one process (issue: strong bots; bar 5,000/s for Fool! at 5 players).

Decisions are taken at positions drawn uniformly from the first deal of several seeds (reached by random
play); the figure is iterations (determinize + select/expand + rollout + back-up) per second of the
process's CPU time, so other load on the machine does not count against it. Wall-clock figures are
printed too.

Each game is timed with the bot's defaults (heuristic rollouts and, in Fool! and Foolery, the other
seats' moves in the tree played by that policy). Fool! is also timed as plain SO-ISMCTS (uniformly random
rollouts, every seat's moves searched): the algorithm OpenSpiel's Python ISMCTS runs, and the one the bar
is checked on. Where OpenSpiel is installed, that ISMCTS over its C++ ``hearts`` is timed in the same run,
the same way (positions drawn uniformly from the play of a deal, the same simulations per decision), and
the ratio printed: machines differ, the ratio travels.

    .venv/bin/python benchmarks/ismcts_speed.py                    # every game
    .venv/bin/python benchmarks/ismcts_speed.py "fool(players=5)"
    .venv/bin/python benchmarks/ismcts_speed.py --options rollout=random   # one configuration only
"""

from __future__ import annotations

import argparse
import random
import time

import motley
from motley.bots import BotSpec
from motley.bots.ismcts import ISMCTSBot
from motley.core.search import SearchState

DEFAULTS = {"fools_errand": "fools_errand", "fool": "fool(players=5)", "foolery": "foolery(players=5)"}
BARS = {"fool": 5000.0}
#: plain SO-ISMCTS: uniformly random rollouts, every seat's moves searched (what OpenSpiel's ISMCTS does)
PLAIN = "rollout=random,opponents=search"


def measure(spec: str, decisions: int, simulations: int, options: str = "") -> tuple[float, float]:
    """(simulations per CPU second, per wall second) over ``decisions`` decisions.

    ``options``: more ISMCTS options, ``"rollout=random,opponents=search"`` (default: the bot's defaults).
    """
    game = motley.load_game(spec)
    extra = BotSpec.parse(f"ismcts({options})").options
    bot = ISMCTSBot(game, **{**extra, "simulations": simulations})
    rng = random.Random(0)
    total = 0
    cpu = wall = 0.0
    for seed in range(decisions):
        # A decision point drawn uniformly from the moves of the first deal.
        probe = game.new_initial_state(seed=seed)
        assert isinstance(probe, SearchState)
        probe.stop_at_deal_end()
        probe.playout(random.Random(seed))
        state = game.new_initial_state(seed=seed)
        for _ in range(rng.randrange(len(probe.history()))):
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        while not state.is_terminal() and len(state.legal_actions()) < 2:
            state.apply_action(state.legal_actions()[0])
        if state.is_terminal():
            continue
        obs = state.observation(state.current_player())
        c0, w0 = time.process_time(), time.perf_counter()
        bot.act(obs, state.legal_actions(), rng)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        total += bot.last_iterations
    return total / cpu, total / wall


def measure_openspiel(decisions: int, simulations: int) -> float | None:
    """Simulations per CPU second of OpenSpiel's Python ISMCTS on its C++ ``hearts``, or None without it."""
    try:
        import numpy as np
        import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module
        from open_spiel.python.algorithms import ismcts, mcts
    except ImportError:
        return None
    game = pyspiel.load_game("hearts(pass_cards=false)")  # every decision is a play of the deal
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=1.0,
                           max_simulations=simulations, random_state=rs)
    rng = random.Random(0)
    total, cpu, skipped = 0, 0.0, 0
    for _ in range(decisions):
        state = game.new_initial_state()
        plays = rng.randrange(52)  # a decision point drawn uniformly from the 52 plays of the deal
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            legal = state.legal_actions()
            if plays <= 0 and len(legal) > 1:
                break
            plays -= 1
            state.apply_action(legal[rng.randrange(len(legal))])
        if state.is_terminal():
            continue
        c0 = time.process_time()
        try:
            bot.step(state)
        except ValueError:  # hearts' resampler can build a world where a seat holds no legal card
            skipped += 1
            continue
        cpu += time.process_time() - c0
        total += simulations
    if skipped:
        print(f"(OpenSpiel: {skipped} of {decisions} decisions failed in its hearts resampler and are left out)")
    return total / cpu if cpu else None


def main() -> None:
    parser = argparse.ArgumentParser(description="ISMCTS simulations per second")
    parser.add_argument("games", nargs="*")
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--options", default="", help="more ismcts options, e.g. rollout=random,opponents=search")
    parser.add_argument("--no-peer", action="store_true", help="skip OpenSpiel's ISMCTS on hearts")
    args = parser.parse_args()
    specs = args.games or [DEFAULTS[g] for g in motley.registered_games() if g in DEFAULTS]
    for spec in specs:
        name = motley.load_game(spec).name
        configs = [("", args.options)] if args.options else [("defaults", "")]
        if name in BARS and not args.options:
            configs.append(("plain", PLAIN))
        for label, options in configs:
            cpu, wall = measure(spec, args.decisions, args.simulations, options)
            bar = BARS.get(name) if options == PLAIN or args.options else None
            verdict = f"  bar {bar:,.0f}: {'met' if cpu >= bar else 'NOT met'}" if bar else ""
            print(f"{spec + ' ' + label:28} {cpu:>8,.0f} simulations/s (CPU)  {wall:>8,.0f} /s (wall){verdict}",
                  flush=True)
        if name == "fool" and not args.no_peer:
            peer = measure_openspiel(args.decisions, args.simulations)
            if peer is not None:
                print(f"{'openspiel hearts (Python ISMCTS)':28} {peer:>8,.0f} simulations/s (CPU)  "
                      f"(motley fool plain / this = {cpu / peer:.2f})", flush=True)

if __name__ == "__main__":
    main()
