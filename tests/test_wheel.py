"""The package as a user gets it: the wheel builds, installs with its core dependencies alone into a clean
virtual environment, and there the command line plays, lists, serves, and names the extras it lacks.

Slow-ish (a wheel build and a ``pip install`` of the core dependencies, from pip's cache when warm), but it is
the only test that sees the package outside this checkout, so it runs with the rest of the suite.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The environment of every command here: this checkout's PYTHONPATH (or venv) must not leak into the clean one.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def run(args: list[str | Path], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command to its end (10 minutes at most) with a wide terminal; its output as text."""
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, input=stdin,
                          env={**CLEAN_ENV, "COLUMNS": "200"}, cwd="/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean venv (no system site-packages) with the freshly built wheel and its core dependencies; its bin/."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"  # a copy, so the build leaves nothing in the checkout
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    built = run([sys.executable, "-m", "build", "--wheel", "--outdir", tmp / "dist", source])
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels = list((tmp / "dist").glob("motley-*.whl"))
    assert len(wheels) == 1
    venv.create(tmp / "venv", with_pip=True, system_site_packages=False)
    bin_dir = tmp / "venv" / "bin"
    pip = run([bin_dir / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", wheels[0]])
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    return bin_dir


def test_the_wheel_holds_only_core_dependencies(installed: Path) -> None:
    for module in ("ray", "matplotlib", "pettingzoo", "gymnasium", "httpx", "pytest"):
        probe = run([installed / "python", "-c", f"import {module}"])
        assert probe.returncode != 0, f"{module} came with the core install"
    probe = run([installed / "python", "-c", "import motley, numpy, fastapi, sqlalchemy, uvicorn, openskill"])
    assert probe.returncode == 0, probe.stderr


def test_the_installed_command_lists_plays_and_names_missing_extras(installed: Path, tmp_path: Path) -> None:
    motley = installed / "motley"
    help_ = run([motley, "--help"])
    assert help_.returncode == 0 and "play" in help_.stdout and "serve" in help_.stdout, help_.stderr
    games = run([motley, "games"])
    assert games.returncode == 0 and "fools_errand" in games.stdout, games.stderr
    rules = run([motley, "rules", "fool"])
    assert rules.returncode == 0 and "How to play" in rules.stdout, rules.stderr  # the packaged rules files
    played = run([motley, "play", "fools_errand", "--seed", "1"], stdin="quit\n")
    assert played.returncode == 0 and "Scores so far" in played.stdout, played.stderr
    ray = run([motley, "simulate", "fools_errand", "-n", "2", "--backend", "ray"])
    assert ray.returncode == 2 and ray.stdout == ""
    assert "pip install 'motley[ray]'" in " ".join(ray.stderr.split()), ray.stderr
    report = run([motley, "simulate", "fools_errand", "-n", "2", "--report", tmp_path / "r.html"])
    assert report.returncode == 2 and "pip install 'motley[report]'" in " ".join(report.stderr.split())
    simulated = run([motley, "simulate", "fools_errand", "-n", "4", "--workers", "1", "--json"])
    assert simulated.returncode == 0 and '"games": 4' in simulated.stdout, simulated.stderr


def test_the_installed_server_listens(installed: Path, tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen([str(installed / "motley"), "serve", "--port", str(port), "--db",
                               f"sqlite:///{tmp_path / 'm.db'}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=CLEAN_ENV, cwd="/")
    try:
        deadline = time.monotonic() + 60
        while not listening(port):
            assert server.poll() is None, server.communicate()
            assert time.monotonic() < deadline, "the server did not listen within a minute"
            time.sleep(0.2)
    finally:
        server.terminate()
        out, err = server.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/" in out, (out, err)
