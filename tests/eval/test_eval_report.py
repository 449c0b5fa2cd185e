"""The HTML report: one self-contained file holding the figures and the table."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from typer.testing import CliRunner

from motley.cli.main import app
from motley.eval.report import FIGURE_IDS

runner = CliRunner()


def test_report_is_self_contained_and_holds_every_figure(tmp_path: Path) -> None:
    report = tmp_path / "out.html"
    result = runner.invoke(app, ["simulate", "fools_errand", "-n", "40", "--bots", "heuristic,random",
                                 "--workers", "1", "--report", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    images = dict(re.findall(r'<img id="([^"]+)"[^>]*src="data:image/png;base64,([^"]+)"', text))
    assert set(images) == set(FIGURE_IDS)
    for data in images.values():
        assert base64.b64decode(data).startswith(b"\x89PNG\r\n\x1a\n")
    # nothing fetched from elsewhere: no external sources, scripts or style sheets
    assert not re.search(r'(src|href)="(?!data:)', text)
    assert "<script" not in text and "<link" not in text
    assert "heuristic" in text and "random" in text and "95%" in text and "the Joker decides" in text


def test_report_to_an_unwritable_place_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "fools_errand", "-n", "4", "--workers", "1",
                                 "--report", str(tmp_path / "missing" / "out.html")])
    assert result.exit_code == 2 and result.stdout == ""
    assert "cannot write" in result.stderr and "does not exist" in result.stderr  # refused before any game
