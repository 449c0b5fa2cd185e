"""The command line follows the usual conventions: results on stdout, errors on stderr with a non-zero exit,
every argument checked before any work, ``--version``, ``--json`` on every listing, one KEY=VALUE parser,
and optional libraries asked for by the name of their extra."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import motley
import motley.cli.common
import motley.eval.compare
from motley.bots import bot_kinds
from motley.cli.main import app
from motley.core import extras, options
from motley.core.extras import MissingExtraError, require
from motley.core.registry import game_class

runner = CliRunner()

REFUSED = [
    ["play", "nothing"],
    ["play", "fools_errand", "--bots", "nobot"],
    ["play", "fools_errand", "--seat", "5"],
    ["play", "fools_errand", "-o", "after_scoop=never"],
    ["play", "fools_errand", "-o", "after_scoop=alternate", "-o", "after_scoop=never"],
    ["play", "fool", "-o", "players=4", "--players", "5"],
    ["simulate", "fools_errand", "--json", "-n", "-5"],
    ["simulate", "fools_errand", "--json", "-n", "0"],
    ["simulate", "fools_errand", "--json", "--bots", "nobot"],
    ["simulate", "fools_errand", "--json", "--bots", "random,random,random"],
    ["simulate", "fools_errand", "--json", "--bots", "ismcts(simulations=5"],
    ["simulate", "fools_errand", "--json", "--backend", "warp"],
    ["simulate", "fools_errand", "--json", "--workers", "-1"],
    ["simulate", "fools_errand", "--json", "-o", "nonsense"],
    ["tournament", "fools_errand", "--json", "--bots", "random,random"],
    ["tournament", "fools_errand", "--json", "--bots", "random"],
    ["compare", "fools_errand", "--json", "--options", "", "--vs", "after_scoop"],
    ["compare", "fools_errand", "--json", "--options", "", "--vs", "", "--bots", "nobot"],
    ["compare", "fool", "--json", "--options", "players=4", "--vs", "players=5"],
    ["rules", "nothing"],
    ["train", "fool(rounds=1)", "--out", "/tmp/never-written", "--hidden", "64,x"],
    ["train", "fool(rounds=1)", "--out", "/tmp/never-written", "--hidden", "0"],
    ["train", "fool(rounds=1)", "--out", "/tmp/never-written", "--device", "tpu"],
    ["train", "nothing", "--out", "/tmp/never-written"],
    ["replay", "/nonexistent/record.json"],
    ["verify", "/nonexistent/record.json"],
]


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any game played from here on fails the test: a refused command must refuse before playing."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a game was played before the arguments were checked")

    for module in ("motley.eval.simulate", "motley.eval.ratings"):  # (motley.eval.simulate is also a function)
        monkeypatch.setattr(importlib.import_module(module), "run_jobs", refuse)
    monkeypatch.setattr(importlib.import_module("motley.core.play"), "play", refuse)


@pytest.mark.parametrize("args", REFUSED, ids=[" ".join(a) for a in REFUSED])
@pytest.mark.usefixtures("no_games")
def test_bad_arguments_are_refused_on_stderr_before_any_work(args: list[str], tmp_path: Path) -> None:
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    assert result.stderr.strip(), "the refusal says why"
    assert "games/s" not in result.stderr and "0/" not in result.stderr, "no progress bar before a refusal"
    assert "Traceback" not in result.stderr


@pytest.mark.usefixtures("no_games")
def test_output_files_are_checked_before_any_game(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "folder"
    for option in ("--out-json", "--out-csv", "--report"):
        result = runner.invoke(app, ["simulate", "fools_errand", "-n", "5", option, str(missing / "x")])
        assert result.exit_code == 2 and result.stdout == ""
        assert f"folder {missing} does not exist" in result.stderr.replace("\n", "")
    result = runner.invoke(app, ["tournament", "fools_errand", "--bots", "random,heuristic", "--ratings",
                                 str(tmp_path)])
    assert result.exit_code == 2 and "it is a folder" in result.stderr


def test_json_output_is_only_json_even_with_errors_around_it() -> None:
    result = runner.invoke(app, ["simulate", "fools_errand", "-n", "6", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 6
    assert "games/s" not in result.stderr  # --json turns the bar off


def test_version_is_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"motley {motley.__version__}"
    assert motley.__version__.count(".") == 2


def test_games_json_lists_every_game_with_its_options_and_their_defaults() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0, result.stderr
    listing = json.loads(result.stdout)
    assert [g["name"] for g in listing] == motley.registered_games()
    for entry in listing:
        cls = game_class(entry["name"])
        assert (entry["title"], entry["min_players"], entry["max_players"]) == (
            cls.title, cls.min_players, cls.max_players)
        assert [o["name"] for o in entry["options"]] == [o.name for o in cls.options]
        game = motley.load_game(entry["name"])
        for option in entry["options"]:  # the listed default is the value a game loaded without options has
            assert json.dumps(game.params[option["name"]]) == json.dumps(option["default"])
            if option["choices"]:
                assert option["default"] in option["choices"]
    plain = runner.invoke(app, ["games"]).stdout
    for entry in listing:
        assert entry["title"] in plain and all(o["name"] in plain for o in entry["options"])


def test_bots_json_lists_the_bot_kinds() -> None:
    result = runner.invoke(app, ["bots", "--json"])
    assert result.exit_code == 0
    assert [kind["name"] for kind in json.loads(result.stdout)] == list(bot_kinds())
    plain = runner.invoke(app, ["bots"]).stdout
    assert all(f"{kind}:" in plain for kind in bot_kinds())


def test_one_key_value_parser_for_every_command() -> None:
    assert vars(motley.cli.common)["parse_options"] is options.parse_options
    assert motley.eval.compare.parse_options is options.parse_options
    parsed = options.parse_options(' deck_table={"4": [17, 13, 11, 8, 3]} , tie_break = most_bonuses,')
    assert parsed == {"deck_table": '{"4": [17, 13, 11, 8, 3]}', "tie_break": "most_bonuses"}
    for bad, reason in (("a=1,a=2", "given twice"), ("=1", "no name"), ("a", "no '=value'"), ("a=[1,2", "unbalanced")):
        with pytest.raises(motley.OptionError, match=reason):
            options.parse_options(bad)
    # --option takes the same forms as the game string and as compare --options
    direct = motley.load_game("fool(players=5,tie_break=most_bonuses)")
    result = runner.invoke(app, ["simulate", "fool", "-o", "players=5,tie_break=most_bonuses", "-n", "5",
                                 "--workers", "1", "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["game"] == str(direct)


def test_require_names_the_extra_and_hides_no_other_import_error(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert require("json", extra="none") is json
    with pytest.raises(MissingExtraError, match=r"pip install 'motley\[ray\]'") as info:
        require("motley_no_such_module.part", extra="ray", feature="the Ray backend")
    assert info.value.extra == "ray" and isinstance(info.value, motley.MotleyError)
    assert str(info.value).startswith("the Ray backend needs the 'ray' extra")
    broken = tmp_path / "broken_pkg"
    broken.mkdir()
    (broken / "__init__.py").write_text("import motley_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="motley_missing_dependency"):
        require("broken_pkg", extra="x")  # installed but broken: the real error, not "install the extra"
    assert extras.__all__ == ["MissingExtraError", "require"]


@pytest.mark.usefixtures("no_games")
def test_a_missing_extra_is_named_before_any_game(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.delitem(sys.modules, "motley.eval.report", raising=False)
    for args, extra in ((["--backend", "ray"], "ray"), (["--report", str(tmp_path / "r.html")], "report")):
        result = runner.invoke(app, ["simulate", "fools_errand", "-n", "5", *args])
        assert result.exit_code == 2 and result.stdout == ""
        assert f"pip install 'motley[{extra}]'" in result.stderr.replace("\n", "")
    result = runner.invoke(app, ["tournament", "fools_errand", "--bots", "random,heuristic", "--backend", "ray",
                                 "--ratings", str(tmp_path / "t.json")])
    assert result.exit_code == 2 and "pip install 'motley[ray]'" in result.stderr.replace("\n", "")
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize(("module", "missing"), [("motley.envs.pettingzoo", "pettingzoo"),
                                                 ("motley.envs.pettingzoo", "gymnasium"),
                                                 ("motley.envs.gymnasium", "gymnasium"),
                                                 ("motley.envs.openspiel", "pyspiel")])
def test_the_rl_environments_name_their_extra(module: str, missing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # as if the library were not installed
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingExtraError, match=rf"{module}.*'rl' extra.*pip install 'motley\[rl\]'"):
        importlib.import_module(module)


def test_verify_shows_control_characters_of_a_record_escaped(tmp_path: Path) -> None:
    """A record's fields reach the terminal escaped: a table id carrying terminal control sequences (erase the
    line, move up, a bidirectional override) can neither hide the FAILED line nor forge an OK line."""
    from motley.server.play.table import commitment

    game = motley.load_game("fools_errand")
    state = game.new_initial_state(seed=3)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    record = json.loads(motley.records.dump(state))
    hostile = "t1\x1b[2K\x1b[1A\rOK: all good\u202e\n"
    record.update(table=hostile, commitment=commitment("another", record["seed"]))
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 1
    out = result.stdout
    assert "FAILED:" in out
    assert not any(char in out for char in "\x1b\r\u202e"), repr(out)
    assert "\\x1b[2K" in out and "\\u202e" in out
    assert not any(line.startswith("OK") for line in out.splitlines())
