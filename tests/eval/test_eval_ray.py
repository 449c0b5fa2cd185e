"""The Ray backend plays exactly the games the process pool plays (a local Ray instance, 2 CPUs)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

import motley
from motley.cli.main import app
from motley.eval import simulate

ray = pytest.importorskip("ray")
runner = CliRunner()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_results_equal_the_process_pool_and_one_process(local_ray: None) -> None:
    game = motley.load_game("fools_errand")
    bots = ["heuristic", "random"]
    one = simulate(game, bots, 130, seed=21, duplicate=True, workers=1)
    two = simulate(game, bots, 130, seed=21, duplicate=True, workers=2)
    on_ray = simulate(game, bots, 130, seed=21, duplicate=True, backend="ray")
    assert one.results == two.results == on_ray.results
    assert one.as_dict() == two.as_dict() == on_ray.as_dict()
    assert [r.index for r in on_ray.results] == list(range(130))


def test_cli_backend_ray_prints_the_same_summary(local_ray: None) -> None:
    args = ["simulate", "fools_errand", "-n", "50", "--bots", "heuristic,random", "--seed", "2", "--json"]
    pooled = runner.invoke(app, [*args, "--workers", "2"])
    on_ray = runner.invoke(app, [*args, "--backend", "ray"])
    assert pooled.exit_code == 0 and on_ray.exit_code == 0, on_ray.output
    assert json.loads(pooled.output) == json.loads(on_ray.output)
    bad = runner.invoke(app, [*args, "--backend", "carrier-pigeon"])
    assert bad.exit_code == 2 and "unknown backend" in bad.output
