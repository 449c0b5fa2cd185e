"""No game touches the core state's private data: the history of applied actions and the search state's generator
bookkeeping are written by the core alone (``State.apply_action``, ``SearchState.apply_legal``) and by the
protected methods it gives games for that (``_set_history``, ``_extend_history``, ``_copy_history_to``,
``_clone_base``).

The walk reads every module under ``src/motley/games`` with ``ast``: an attribute of any object named as one of the
private slots of :class:`motley.core.State` or :class:`motley.core.search.SearchState` (``x._history``), or such a
name as a string (``getattr(x, "_history")``), fails with its file and line. The compiled cores (``*.c`` under the
games) reach slots only by name, as strings that ``install`` looks up: such a string naming a private slot fails too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from motley.core import State
from motley.core.search import SearchState

GAMES = Path(__file__).resolve().parents[2] / "src" / "motley" / "games"


def private_slots() -> set[str]:
    """The core state's private data: the slots of its base classes whose names start with an underscore."""
    return {name for cls in (State, SearchState) for name in cls.__slots__ if name.startswith("_")}


def touches(source: str, names: set[str]) -> list[tuple[int, str]]:
    """Each line of ``source`` that names one of ``names`` as an attribute or as a string, with the name."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in names:
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
            found.append((node.lineno, node.value))
    return found


def test_the_private_slots_are_the_cores_history_and_generator_bookkeeping() -> None:
    assert "_history" in private_slots()
    assert not private_slots() & {"game", "origin", "rng"}, "public attributes are not private"


def test_the_walk_finds_an_append_to_the_private_history() -> None:
    """The check can fail: the fast path Foolery's engine once had is found, and so is a getattr."""
    names = private_slots()
    assert touches("def f(self):\n    self._history.append(3)\n", names) == [(2, "_history")]
    assert touches("getattr(state, '_history')\n", names) == [(1, "_history")]
    assert touches("self._extend_history([1])\nself.history()\n", names) == []


def c_strings(source: str, names: set[str]) -> list[tuple[int, str]]:
    """Each line of C ``source`` holding a string literal that is exactly one of ``names``, with the name."""
    return [(source.count("\n", 0, m.start()) + 1, m.group(1)) for m in re.finditer(r'"([A-Za-z_]\w*)"', source)
            if m.group(1) in names]


def test_the_walk_finds_a_slot_named_in_compiled_code() -> None:
    names = private_slots()
    assert c_strings('static const char *SLOTS[] = {"_legal",\n "_history", "game"};', names) == [(2, "_history")]
    assert c_strings('PyErr_SetString(e, "the _history list");', names) == []


def test_no_compiled_core_names_the_core_states_private_data() -> None:
    names = private_slots()
    sources = sorted(GAMES.rglob("*.c"))
    assert sources, "Foolery's compiled core is among the games' sources"
    found = [f"{path.relative_to(GAMES.parent)}:{line}: {name}"
             for path in sources for line, name in c_strings(path.read_text(encoding="utf-8"), names)]
    assert not found, "compiled cores must leave the core's private slots to the core:\n" + "\n".join(found)


def test_no_game_touches_the_core_states_private_data() -> None:
    names = private_slots()
    modules = sorted(GAMES.rglob("*.py"))
    assert len(modules) > 10
    found = [f"{path.relative_to(GAMES.parent)}:{line}: {name}"
             for path in modules for line, name in touches(path.read_text(encoding="utf-8"), names)]
    assert not found, "games must use the core's methods, not its private slots:\n" + "\n".join(found)
