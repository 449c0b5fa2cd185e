"""``motley train``: a Q(s, a) network by self-play (Deep Monte-Carlo, :mod:`motley.learn.dmc`; the ``train`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from motley.cli.common import GameArg, OptionOpt, PlayersOpt, checked, console, errors, fail, load


def train(
    game: GameArg,
    out: Annotated[Path, typer.Option("--out", help="Folder for network.npz, checkpoint.pt, curve.csv/png.")],
    option: OptionOpt = None,
    players: PlayersOpt = None,
    minutes: Annotated[float, typer.Option(min=0.1, help="Wall-clock budget, evaluations included.")] = 30.0,
    seed: Annotated[int, typer.Option(help="Seed of the deals, seatings and initial weights.")] = 0,
    actors: Annotated[int, typer.Option(min=0, help="Actor processes (0: in this process, reproducible).")] = 1,
    hidden: Annotated[str, typer.Option(help="Hidden layer sizes, comma-separated.")] = "256,256",
    eval_every: Annotated[float, typer.Option(min=1.0, help="Seconds between evaluations.")] = 240.0,
    eval_deals: Annotated[int, typer.Option(min=1, help="Fixed deals per evaluation, each seat once.")] = 100,
    device: Annotated[str, typer.Option(help="'cpu' or 'cuda'.")] = "cpu",
    resume: Annotated[bool, typer.Option(help="Continue from OUT/checkpoint.pt.")] = False,
    init: Annotated[Path | None, typer.Option(help="Start from this network (.npz) instead of new weights.")] = None,
    continuation: Annotated[Path | None, typer.Option(
        help="In the rollouts the seat plays on by this network (.npz) instead of the heuristic.")] = None,
    worlds: Annotated[int, typer.Option(min=1, help="Worlds each rollout target is averaged over.")] = 1,
    teach: Annotated[int, typer.Option(min=0, help="Decisions learned from the heuristic's play first.")] = 200_000,
) -> None:
    """Train a Q network for a single-deal game (e.g. 'fool(players=5,rounds=1)') against itself and the heuristic;
    it plays as the bot network(weights=OUT/network.npz)."""
    from motley.learn.dmc import TrainConfig
    from motley.learn.dmc import train as run

    loaded = load(game, option, players)
    try:
        sizes = tuple(int(x) for x in hidden.split(","))
    except ValueError:
        fail(f"--hidden must be whole numbers separated by commas, got {hidden!r}")
    if not sizes or min(sizes) < 1:
        fail(f"--hidden needs at least one layer of at least 1 unit, got {hidden!r}")
    if device not in ("cpu", "cuda"):
        fail(f"--device must be 'cpu' or 'cuda', got {device!r}")
    from motley.core.extras import require

    checked(lambda: require("torch", "train", "motley train"))  # before the progress bar
    config = TrainConfig(game=str(loaded), minutes=minutes, seed=seed, hidden=sizes, actors=actors,
                         eval_every=eval_every, eval_deals=eval_deals, device=device, teach_samples=teach,
                         init=str(init or ""), continuation=str(continuation or ""), worlds=worlds)
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("training"), BarColumn(), TimeElapsedColumn(), TextColumn("{task.fields[status]}"),
                  console=errors) as bar:
        task = bar.add_task("train", total=1.0, status="")

        def progress(share: float, status: str) -> None:
            bar.update(task, completed=share, status=escape(status))
            if status.startswith("evaluation"):
                bar.console.print(escape(status))

        curve = checked(lambda: run(config, out, progress, resume=resume))
    last = curve[-1]
    console.print(f"network written to {escape(str(out / 'network.npz'))}: win share {last.win_share:.3f} ± "
                  f"{last.win_share_ci:.3f} against the heuristic, mean points {last.mean_points:.2f} vs "
                  f"{last.others_points:.2f}; curve in {escape(str(out / 'curve.csv'))}")
