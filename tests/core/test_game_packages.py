"""Inside each game package the modules import one another without a circle, and ``rules.py`` knows nothing of
what a seat sees (``observe.py``), the determinizer (``sample.py``) or the heuristic (``policy.py``): the public
State and Game are assembled from those parts in ``game.py``.

Every import counts, wherever it is written (at the top, inside a function, under ``TYPE_CHECKING``), so an
import cannot be moved out of sight to hide a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import motley.games

GAMES_DIR = Path(motley.games.__file__).parent
GAMES = sorted(p.name for p in GAMES_DIR.iterdir() if (p / "__init__.py").is_file())
#: What the rules of a game must not import (they are built on the rules, not the other way round).
NOT_FROM_RULES = {"observe", "sample", "policy"}


def package_imports(package: str) -> dict[str, set[str]]:
    """Per module of ``motley.games.<package>`` (``__init__`` included), the package's modules it imports.

    Reads every ``import`` and ``from ... import`` statement of the module's syntax tree, at any depth; a name
    imported from the package itself (``from motley.games.fool import observe``) counts as that module.
    """
    base = f"motley.games.{package}"
    folder = GAMES_DIR / package
    modules = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.py")):
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # a relative import: resolved against the package
                    source = base if node.level == 1 and not node.module else f"{base}.{node.module or ''}"
                else:
                    source = node.module or ""
                names = [source] + [f"{source}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith(base + "."):
                    module = name[len(base) + 1:].split(".")[0]
                    if module in modules and module != path.stem:
                        edges.add(module)
        graph[path.stem] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports in ``graph`` (the modules along it, the first repeated at the end), or ``None``."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        for other in sorted(graph.get(module, ())):
            found = visit(other)
            if found:
                return found
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        found = visit(module)
        if found:
            return found
    return None


def test_every_game_package_is_found() -> None:
    assert {"fools_errand", "fool", "foolery"} <= set(GAMES)


@pytest.mark.parametrize("package", GAMES)
def test_no_import_circle_inside_a_game_package(package: str) -> None:
    cycle = find_cycle(package_imports(package))
    assert cycle is None, f"motley.games.{package} imports in a circle: {' -> '.join(cycle or [])}"


@pytest.mark.parametrize("package", GAMES)
def test_rules_import_neither_observation_nor_determinizer_nor_heuristic(package: str) -> None:
    graph = package_imports(package)
    assert "rules" in graph, f"motley.games.{package} has no rules.py"
    assert not graph["rules"] & NOT_FROM_RULES, f"{package}/rules.py imports {sorted(graph['rules'] & NOT_FROM_RULES)}"


@pytest.mark.parametrize("package", GAMES)
def test_the_package_registers_the_assembled_classes(package: str) -> None:
    """``SPEC.game`` and the states it makes are the classes of ``game.py``, not the rules' bases."""
    module = __import__(f"motley.games.{package}", fromlist=["SPEC"])
    game = module.SPEC.game()
    state = game.new_initial_state(seed=1)
    assert type(game).__module__ == type(state).__module__ == f"motley.games.{package}.game"
    assert type(state.clone()) is type(state)
    assert type(game.deserialize_state(state.serialize())) is type(state)


def test_the_walk_sees_hidden_imports(tmp_path: Path) -> None:
    """An import inside a function or under TYPE_CHECKING is an edge too: the check cannot be dodged."""
    tree = ast.parse("if TYPE_CHECKING:\n    from motley.games.fool.rules import X\n"
                     "def f():\n    from motley.games.fool import sample\n")
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert len(found) == 2
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
