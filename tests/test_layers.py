"""The layers of motley as a checked contract: every import of every module under ``src/motley`` points down.

The walk reads each module's source with ``ast`` and checks ALL its imports: at the top level, inside functions
and inside ``if TYPE_CHECKING:`` blocks. :data:`LAYERS` is the one table of the layers; a failure names the file,
the line and the import that breaks it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "motley"

#: The layers from the bottom up, each a tuple of the top-level packages of ``motley`` in it (``motley`` itself is the
#: package root, ``motley/__init__.py``: it re-exports the core API and imports ``games`` and ``drawing`` to
#: register them). A module may import its own package and the packages of every layer below its own, never a
#: package of a layer above nor another package of its own layer: ``bots`` and ``drawing`` are independent, and so
#: are ``learn`` (training only), ``eval``, ``envs`` and ``server``, none of which imports another; ``cli`` sits on
#: top of them all.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("games",),
    ("bots", "drawing"),
    (ROOT,),
    ("learn", "eval", "envs", "server"),
    ("cli",),
)

#: The package of the games' registration (its ``__init__`` imports every game package) and of the game packages.
GAMES = f"{ROOT}.games"


def _layer_of() -> dict[str, int]:
    return {package: level for level, packages in enumerate(LAYERS) for package in packages}


def _layer_text(level: int) -> str:
    return f"layer {level + 1} of {len(LAYERS)}: {', '.join(LAYERS[level])}"


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is made."""

    importer: str  # dotted module name of the importing module
    path: Path
    line: int
    target: str  # dotted module name imported (``from a import b``: ``a.b`` when that is a module, else ``a``)
    text: str  # the statement as written

    def where(self) -> str:
        return f"{self.path.relative_to(SRC.parent)}:{self.line}: `{self.text}`"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    base = SRC.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _modules() -> list[Path]:
    return sorted((SRC / ROOT).rglob("*.py"))


def _imports(path: Path) -> list[Import]:
    """Every import of ``motley`` in the module at ``path`` (anywhere in the module, relative ones resolved)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    source = path.read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                origin = f"{base}.{node.module}" if node.module else base
            else:
                origin = node.module or ""
            for alias in node.names:
                sub = f"{origin}.{alias.name}"
                targets.append(sub if _is_module(sub) else origin)
        else:
            continue
        text = (ast.get_source_segment(source, node) or "").replace("\n", " ")
        found += [Import(module, path, node.lineno, t, text) for t in dict.fromkeys(targets)
                  if t == ROOT or t.startswith(ROOT + ".")]
    return found


def _package(module: str) -> str:
    """The top-level package of ``motley`` a module belongs to (``motley`` for the package root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def _game_package(module: str) -> str | None:
    """``motley.games.<name>`` for a module of a game's package, else None."""
    parts = module.split(".")
    return ".".join(parts[:3]) if len(parts) >= 3 and ".".join(parts[:2]) == GAMES else None


def _all_imports() -> list[Import]:
    return [imp for path in _modules() for imp in _imports(path)]


def _fail(problems: list[str], rule: str) -> None:
    if problems:
        pytest.fail(f"{rule} ({len(problems)}):\n  " + "\n  ".join(problems), pytrace=False)


def test_the_walk_sees_imports_everywhere() -> None:
    """The walk finds imports at the top level, in functions and under ``if TYPE_CHECKING:`` (the check is only as
    good as what it reads)."""
    seen = {(imp.importer, imp.target) for imp in _all_imports()}
    assert ("motley.core.spec", "motley.core.search") in seen  # under TYPE_CHECKING
    assert ("motley.cli.train", "motley.learn.dmc") in seen  # inside a function
    assert ("motley", "motley.drawing") in seen  # ``from motley import drawing``: the module, not the root


def test_every_package_has_a_layer() -> None:
    layer = _layer_of()
    missing = sorted({_package(_module_name(path)) for path in _modules()} - set(layer))
    assert not missing, f"packages of src/motley in no layer: {missing}; add them to LAYERS in {__file__}"


def test_every_import_points_down() -> None:
    """A module imports only its own package and the packages of lower layers (:data:`LAYERS`)."""
    layer = _layer_of()
    problems = []
    for imp in _all_imports():
        here, there = _package(imp.importer), _package(imp.target)
        if here == there or layer[there] < layer[here]:
            continue
        how = "a sibling in the same layer" if layer[there] == layer[here] else "a layer above"
        problems.append(f"{imp.where()}: {here} ({_layer_text(layer[here])}) imports {there}, {how} "
                        f"({_layer_text(layer[there])})")
    order = " <- ".join(", ".join(packages) for packages in LAYERS)
    _fail(problems, f"imports that do not point down the layers {order} (LAYERS in tests/test_layers.py)")


def test_only_the_games_import_a_game_package() -> None:
    """Nothing outside ``motley/games/`` imports a game's package or its modules: the rest reads the game's
    ``GameSpec`` through the registry (``game_spec(name)``)."""
    problems = [f"{imp.where()} imports {imp.target}, a game's package" for imp in _all_imports()
                if _game_package(imp.target) is not None and _package(imp.importer) != "games"]
    _fail(problems, "imports of a game's package from outside motley/games/ (use the registry's GameSpec)")


def test_a_game_imports_only_core_and_its_own_package() -> None:
    problems = []
    for imp in _all_imports():
        own = _game_package(imp.importer)
        if own is None:
            continue
        if _package(imp.target) == "core" or imp.target == own or imp.target.startswith(own + "."):
            continue
        problems.append(f"{imp.where()} imports {imp.target}, outside core and {own}")
    _fail(problems, "imports of a game package beyond motley.core and its own package")


def _built_game_paths(path: Path) -> list[str]:
    """Lines of ``path`` that build a string starting ``motley.games.`` (an f-string or a ``+`` / ``%``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr | ast.BinOp):
            pieces = node.values if isinstance(node, ast.JoinedStr) else [node.left]
            first = pieces[0] if pieces else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith(GAMES):
                lines.append(f"{path.relative_to(SRC.parent)}:{node.lineno}: `{ast.unparse(node)}`")
    return lines


def test_no_module_path_of_a_game_is_built_outside_the_games() -> None:
    """A game's shipped files are found through its spec (``GameSpec.networks``, built in the game package), never
    by building ``f"motley.games.{name}"``."""
    problems = [line for path in _modules() if _package(_module_name(path)) != "games"
                for line in _built_game_paths(path)]
    _fail(problems, "module paths of a game built outside motley/games/ (find the game's files through its spec)")


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_cycles_are_found() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_circle_between_modules() -> None:
    """No module imports, through any chain of imports (package ``__init__`` modules included), a module that
    imports it: the import graph of ``src/motley`` has no circle."""
    edges: dict[str, set[str]] = {}
    for imp in _all_imports():
        if imp.target != imp.importer:
            edges.setdefault(imp.importer, set()).add(imp.target)
    problems = [" -> ".join(group) for group in _cycles(edges)]
    _fail(problems, "circles of imports between modules of src/motley")


#: The rooms of ``motley.server`` from the bottom up, each a subpackage with one job (``motley/server/__init__.py``
#: names them): a module of a room imports its own room and the rooms below it, never one above.
SERVER = f"{ROOT}.server"
SERVER_ROOMS: tuple[str, ...] = ("store", "play", "site", "web")
#: The most lines a module of the server may have, and the set of tables' class (``Service``): past that, a module
#: does more than one job and is split by job (docs/design.md, The server).
MODULE_LINES = 600
SERVICE_LINES = 400


def _room(module: str) -> str | None:
    """The room of ``motley.server`` a module belongs to (None: not in the server, or its package root)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and ".".join(parts[:2]) == SERVER else None


def test_every_server_module_is_in_a_room() -> None:
    loose = [str(path.relative_to(SRC.parent)) for path in _modules()
             if _package(_module_name(path)) == "server" and _module_name(path) != SERVER
             and _room(_module_name(path)) not in SERVER_ROOMS]
    assert not loose, f"server modules in no room of SERVER_ROOMS ({__file__}): {loose}"


def test_the_server_rooms_point_down() -> None:
    """Inside the server a module imports its own room and the rooms below it (:data:`SERVER_ROOMS`), nothing
    above."""
    order = {room: level for level, room in enumerate(SERVER_ROOMS)}
    problems = []
    for imp in _all_imports():
        here, there = _room(imp.importer), _room(imp.target)
        if here is None or there is None or order[there] <= order[here]:
            continue
        problems.append(f"{imp.where()}: room {here} imports room {there}, above it")
    _fail(problems, f"imports inside the server that do not point down the rooms {' <- '.join(SERVER_ROOMS)}")


def test_no_server_module_is_over_its_size() -> None:
    """Every module of the server is at most :data:`MODULE_LINES` lines, each one job."""
    server = SRC / ROOT / "server"
    sizes = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in sorted(server.rglob("*.py"))}
    assert len(sizes) > 20  # the walk sees the rooms' modules
    problems = [f"{path.relative_to(SRC.parent)}: {lines} lines" for path, lines in sizes.items()
                if lines > MODULE_LINES]
    _fail(problems, f"server modules over {MODULE_LINES} lines (split them by job)")


def test_the_set_of_tables_is_a_small_class() -> None:
    """``Service`` (the set of tables) is at most :data:`SERVICE_LINES` lines: what a site adds is its membership's
    (``motley.server.site.membership``), not the set of tables'."""
    path = SRC / ROOT / "server" / "play" / "service.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Service"]
    assert len(classes) == 1, f"no class Service in {path}"
    service = classes[0]
    assert service.end_lineno is not None
    lines = service.end_lineno - service.lineno + 1
    assert lines <= SERVICE_LINES, f"{path.relative_to(SRC.parent)}: class Service is {lines} lines, over " \
                                   f"{SERVICE_LINES}"
