"""Fixtures shared by the browser tests (``tests/test_browser_*.py``): Debian's Chromium through Playwright,
and where their screenshots go."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import CHROMIUM, CHROMIUM_ARGS

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
