"""Evaluation: simulation (seat rotation, duplicate deals, process pool or Ray), statistics with 95%
intervals, per-game rows (JSON/CSV), HTML reports, OpenSkill ratings and variant comparisons."""

from motley.eval.simulate import SimulationSummary, simulate
from motley.eval.stats import mean_ci, share_ci, wilson_ci
from motley.eval.worker import GameResult, play_game

__all__ = ["GameResult", "SimulationSummary", "mean_ci", "play_game", "share_ci", "simulate", "wilson_ci"]
