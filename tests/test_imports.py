"""Import direction: protocol/ and search/ are leaves that bots/ builds on, never the reverse;
no import cycle anywhere in bots/; no game imports another, and the shared layers (bots/*.py,
bots/gnd, bots/tournament) import no game: they reach a game through bots.registry.

Imports are read with `ast` (comments and strings never count), including imports nested
in functions, try blocks and `if TYPE_CHECKING:`, and literal importlib/__import__ calls.  An
import by a computed name is not read: that is how bots.registry reaches the games, by
name (`Game.module`), and so the one way a shared layer may.

What an import depends on (`dependencies`, the edges of the cycle check) is what Python
runs for it: `from pkg import name` needs pkg.name when that is a module (`from . import
registry` is an import of bots.registry, not of bots/__init__.py), else pkg's own module
(its __init__.py when pkg is a package: a name taken from a package's face); and importing
a module first runs the __init__.py of each package above it, except the packages the
importing module is itself inside, which Python initialised before that module began.  So
a module that takes a name from its own package's __init__.py is an edge to it, reported
only when that __init__.py leads back to the module: a real cycle.
"""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules_of(package: str) -> list[Path]:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no modules found in {package}/"
    return files


def statements(path: Path, root: Path = ROOT) -> list[tuple[int, str, list[str] | None]]:
    """(line, absolute module, names) of every import in a file: `names` is None for `import m`
    and importlib calls, else the names of `from m import a, b` ("*" included).

    Relative imports are resolved against the file's package, so `from .budget import x`
    in search/minimax.py names `search.budget`.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = list(path.relative_to(root).with_suffix("").parts)[:-1]  # the file's package
    out: list[tuple[int, str, list[str] | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                if node.level - 1 > len(package):
                    base = ["<outside the source tree>"]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            out.append((node.lineno, name, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Call):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if fname in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                out.append((node.lineno, node.args[0].value, None))
    return out


def imported(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute top-level-qualified module name) of every import in a file: for
    `from m import a` both `m` and `m.a` (`from . import twilight` imports bots.twilight:
    each name may be a module)."""
    out = []
    for line, name, names in statements(path, root):
        out.append((line, name))
        out += [(line, f"{name}.{alias}") for alias in names or () if alias != "*"]
    return out


def top(name: str) -> str:
    return name.split(".")[0]


def test_the_import_reader_sees_every_kind_of_import(tmp_path):
    # The reader itself must not miss nested or relative imports, or the tests below prove nothing.
    source = '''
"""import bots  -- a docstring, not an import"""
# import protocol  -- a comment, not an import
from .budget import Budget
from . import minimax
import json, os.path
try:
    import numpy
except ImportError:
    pass
def f():
    from bots.players import think
    import importlib
    importlib.import_module("protocol.twilight")
if False:
    from ..bots import cli
'''
    (tmp_path / "search").mkdir()
    fake = tmp_path / "search" / "fake.py"
    fake.write_text(source, encoding="utf-8")
    names = [name for _, name in imported(fake, root=tmp_path)]
    assert set(names) == {"search.budget", "search.budget.Budget", "search", "search.minimax", "json", "os.path",
                          "numpy", "bots.players", "bots.players.think", "importlib", "protocol.twilight", "bots",
                          "bots.cli"}
    assert names.count("bots") == 1  # from ..bots import cli; the docstring does not count
    assert "protocol" not in names  # nor does the comment


@pytest.mark.parametrize("path", modules_of("protocol"), ids=lambda p: str(p.relative_to(ROOT)))
def test_protocol_imports_only_the_standard_library(path):
    bad = [(line, name) for line, name in imported(path)
           if top(name) not in sys.stdlib_module_names and top(name) != "protocol"]
    assert bad == [], f"{path.relative_to(ROOT)} imports outside the stdlib: {bad}"
    assert not [(line, name) for line, name in imported(path) if top(name) in ("bots", "search")]


@pytest.mark.parametrize("path", modules_of("search"), ids=lambda p: str(p.relative_to(ROOT)))
def test_search_does_not_import_bots_or_protocol(path):
    bad = [(line, name) for line, name in imported(path) if top(name) in ("bots", "protocol")]
    assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


def test_the_packages_import_on_their_own():
    """protocol and search load in a fresh interpreter without pulling in bots."""
    import subprocess

    code = ("import sys, protocol.twilight, search.minimax, search.budget; "
            "print(sorted(m for m in sys.modules if m == 'bots' or m.startswith('bots.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# -- the game registry: shared layers read it, games never reach back up (issues 9, 29) -------------

# Packages of shared code: they reach the games through the registry.  gnd is what Gopher and
# Dodo share (the server, the session, the players, the hexagon): they import it, it imports
# neither of them.
SHARED_PACKAGES = ("gnd", "tournament")
GAME_PACKAGES = sorted(p.name for p in (ROOT / "bots").iterdir()
                       if (p / "__init__.py").exists() and p.name not in SHARED_PACKAGES)
SHARED = sorted((ROOT / "bots").glob("*.py")) + sorted(
    p for name in SHARED_PACKAGES for p in (ROOT / "bots" / name).rglob("*.py"))
FORBIDDEN_FOR_GAMES = {"bots.cli", "bots.daemon", "bots.settings"}


def test_every_registered_game_is_a_package_here():
    """...and every package here is a registered game or a shared one (the checks below cover it)."""
    from bots import registry

    packages = {name.split(".")[1] for name in registry.PACKAGES}
    assert packages == set(GAME_PACKAGES)
    assert set(registry.names()) == {"twilight", "gopher", "dodo", "go", "hex"}


@pytest.mark.parametrize("package", GAME_PACKAGES + ["gnd"])
def test_game_packages_never_import_the_cli_daemon_or_settings(package):
    bad = [(path.relative_to(ROOT), line, name) for path in modules_of(f"bots/{package}")
           for line, name in imported(path)
           if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_FOR_GAMES)]
    assert bad == []


@pytest.mark.parametrize("package", GAME_PACKAGES)
def test_a_game_never_imports_another_game(package):
    """A game reuses what is shared (bots/*.py, bots/gnd, search/, protocol/), never another
    game: Hex reuses Go's tree and GTP runtime through search.uct and bots.gtp_runtime, Gopher
    and Dodo their players and hexagon through bots.gnd."""
    others = tuple(f"bots.{p}" for p in GAME_PACKAGES if p != package)
    bad = [(path.relative_to(ROOT), line, name) for path in modules_of(f"bots/{package}")
           for line, name in imported(path) if name in others or name.startswith(tuple(o + "." for o in others))]
    assert bad == []


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_modules_import_no_game(path):
    """Only the registry knows the games (by name, never by import); the runner, bots/gnd and
    every other shared module reach a game through it (bots.gnd: `Game.rules`)."""
    games = tuple(f"bots.{p}" for p in GAME_PACKAGES)
    bad = [(line, name) for line, name in imported(path)
           if name in games or name.startswith(tuple(g + "." for g in games))]
    assert bad == [], f"{path.relative_to(ROOT)} imports a game: {bad}"


def test_the_import_rule_sees_a_game_import(tmp_path):
    """The check above can fail: a shared module importing a game is reported."""
    (tmp_path / "bots").mkdir()
    fake = tmp_path / "bots" / "shared.py"
    fake.write_text("from .twilight.rules import State\nfrom . import registry\n", encoding="utf-8")
    names = [name for _, name in imported(fake, root=tmp_path)]
    assert "bots.twilight.rules" in names and "bots.registry" in names


# -- no import cycle anywhere in bots/ (issues 9, 29) ---------------------------------------------

def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def dependencies(path: Path, modules: dict[str, Path], root: Path = ROOT) -> set[str]:
    """The modules of `modules` that importing `path` runs (see the module docstring): for
    each import its module, or for `from pkg import name` pkg.name when that is a module, and
    the packages above it that `path` is not inside.  An import of `pkg.mod.name` counts as
    one of `pkg.mod`, the longest prefix that is a module."""
    me = module_name(path, root)
    deps = set()
    for _, module, names in statements(path, root):
        wanted = [module] if names is None else [f"{module}.{n}" for n in names if f"{module}.{n}" in modules]
        if names is not None and len(wanted) < len(names):  # a name (or *) from `module`'s own namespace
            wanted.append(module)
        for target in wanted:
            parts = target.split(".")
            found = next((".".join(parts[:k]) for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in modules),
                         None)
            if found is None:  # outside the tree read (the stdlib, search/, ...)
                continue
            deps.add(found)
            above = found.split(".")[:-1]
            for k in range(1, len(above) + 1):
                package = ".".join(above[:k])
                if package in modules and not (me == package or me.startswith(package + ".")):
                    deps.add(package)
    deps.discard(me)
    return deps


def module_graph(package: str = "bots", root: Path = ROOT) -> dict[str, set[str]]:
    """{module: the modules of `package` ("bots", "bots/go") it depends on}, read with
    `dependencies` (so imports inside functions count too); a package is the module named by
    its __init__.py."""
    modules = {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}
    return {name: dependencies(path, modules, root) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None when the graph is acyclic."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each group of modules that import one another (a cycle broken,
    the next one shows), so that a failure lists them all."""
    out, graph = [], {node: set(deps) for node, deps in graph.items()}
    while (cycle := find_cycle(graph)) is not None:
        out.append(cycle)
        graph[cycle[-2]].discard(cycle[-1])
    return out


def test_no_import_cycle_anywhere_in_bots():
    graph = module_graph("bots")
    assert {"bots", "bots.decide", "bots.human", "bots.registry", "bots.gnd.session", "bots.go.mcts",
            "bots.tournament.command"} <= set(graph)
    assert "bots.registry" in graph["bots.decide"] and "bots" not in graph["bots.decide"]  # `from . import registry`
    found = cycles(graph)
    assert found == [], "import cycles in bots/:\n" + "\n".join(" -> ".join(c) for c in found)


def test_go_modules_import_one_another_without_cycles():
    graph = module_graph("bots/go")
    assert {"bots.go.board", "bots.go.players", "bots.go.mcts", "bots.go.book"} <= set(graph)
    assert "bots.go.kernel" in graph["bots.go.mcts"]  # the reader sees `from . import kernel as K`
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in bots/go: " + " -> ".join(cycle)


def test_hex_modules_import_one_another_without_cycles():
    graph = module_graph("bots/hex")
    assert {"bots.hex.board", "bots.hex.players", "bots.hex.mcts", "bots.hex.kernel"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in bots/hex: " + " -> ".join(cycle)


def test_the_cycle_check_sees_a_function_level_cycle(tmp_path):
    """The check above can fail: a cycle closed by an import inside a function is found."""
    pkg = tmp_path / "bots" / "game"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("from .b import f\n", encoding="utf-8")
    (pkg / "b.py").write_text("from . import c\ndef f():\n    return 1\n", encoding="utf-8")
    (pkg / "c.py").write_text("def g():\n    from bots.game.a import f\n    return f\n", encoding="utf-8")
    graph = module_graph("bots/game", tmp_path)
    assert graph["bots.game.a"] == {"bots.game.b"} and graph["bots.game.b"] == {"bots.game.c"}
    assert find_cycle(graph) == ["bots.game.a", "bots.game.b", "bots.game.c", "bots.game.a"]
    assert cycles(graph) == [["bots.game.a", "bots.game.b", "bots.game.c", "bots.game.a"]]
    (pkg / "c.py").write_text("def g():\n    return 2\n", encoding="utf-8")
    assert find_cycle(module_graph("bots/game", tmp_path)) is None


def test_the_cycle_check_reads_a_package_face_as_python_does(tmp_path):
    """`from . import b` needs the module b, not the package's __init__.py; `import x.y` runs
    x/__init__.py too, except where the importer lives; a name taken from the package's own
    __init__.py is a cycle only when that __init__.py leads back."""
    (tmp_path / "bots" / "game").mkdir(parents=True)
    (tmp_path / "bots" / "other").mkdir()
    for empty in ("__init__.py", "other/__init__.py", "other/c.py"):
        (tmp_path / "bots" / empty).write_text("", encoding="utf-8")
    pkg = tmp_path / "bots" / "game"
    (pkg / "__init__.py").write_text("from .a import f\nNAME = 1\n", encoding="utf-8")
    (pkg / "a.py").write_text("from . import b\ndef f():\n    return b\n", encoding="utf-8")
    (pkg / "b.py").write_text("import bots.other.c\n", encoding="utf-8")
    graph = module_graph("bots", tmp_path)
    assert graph["bots.game"] == {"bots.game.a"} and graph["bots.game.a"] == {"bots.game.b"}
    assert graph["bots.game.b"] == {"bots.other", "bots.other.c"}  # not bots: b is inside it
    assert find_cycle(graph) is None
    (pkg / "b.py").write_text("from . import NAME\n", encoding="utf-8")  # the face, which imports a, which imports b
    graph = module_graph("bots", tmp_path)
    assert graph["bots.game.b"] == {"bots.game"}
    assert cycles(graph) == [["bots.game", "bots.game.a", "bots.game.b", "bots.game"]]
    (pkg / "__init__.py").write_text("NAME = 1\n", encoding="utf-8")  # the same import, no cycle
    assert find_cycle(module_graph("bots", tmp_path)) is None
