"""Evaluation: simulation of many games with seat rotation, and statistics with confidence intervals."""

from motley.eval.simulate import EntryStats, SimulationSummary, play_game, simulate
from motley.eval.stats import mean_ci, wilson_ci

__all__ = ["EntryStats", "SimulationSummary", "mean_ci", "play_game", "simulate", "wilson_ci"]
