"""Fixtures shared by the tests: the stores the server tests run on (SQLite, and PostgreSQL on a throwaway server
of the tests' own, :mod:`tests.postgres`), and for the browser tests (``tests/test_browser_*.py``) Debian's
Chromium through Playwright and where their screenshots go."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.postgres import PostgresServer, binaries
from tests.support import CHROMIUM, CHROMIUM_ARGS

#: The stores every storage and server test runs on.
STORES = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole run (started on first use), removed at the end; skips the test where
    the server binaries or psycopg are missing."""
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed: apt-get install postgresql "
                    "(./scripts/setup does)")
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install 'motley[postgres]'")
    server = PostgresServer(bin_dir)
    yield server
    server.remove()


def _store(kind: str, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
    """A fresh, empty store's URL: a SQLite file in ``folder``, or a new database on :func:`postgres`."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'motley.db'}"
        return
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.create_database()
    yield url
    server.drop_database(url)


@pytest.fixture(params=STORES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty store for one test, once on SQLite and once on PostgreSQL."""
    yield from _store(request.param, request, tmp_path)


@pytest.fixture(scope="module", params=STORES)
def module_store_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of an empty store shared by a module's tests, once on SQLite and once on PostgreSQL."""
    yield from _store(request.param, request, tmp_path_factory.mktemp("store"))

#: Screenshots go to docs/screenshots/ with MOTLEY_SCREENSHOTS=1 (to refresh the README's pictures), else to a
#: temporary directory, so a test run leaves the working tree clean.
DOCS_SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (a Playwright ``Browser``) for the module's tests."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: docs/screenshots/ with MOTLEY_SCREENSHOTS=1, else a temporary directory."""
    if os.environ.get("MOTLEY_SCREENSHOTS") == "1":
        DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
        return DOCS_SHOTS
    return tmp_path_factory.mktemp("screenshots")
