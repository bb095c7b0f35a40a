"""Import direction: protocol/ and search/ are leaves that bots/ builds on, never the reverse;
no import cycles inside bots/go and bots/hex; no game imports another.

Imports are read with `ast` (comments and strings never count), including imports nested
in functions, try blocks and `if TYPE_CHECKING:`, and literal importlib/__import__ calls.
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


def imported(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute top-level-qualified module name) of every import in a file.

    Relative imports are resolved against the file's package, so `from .budget import x`
    in search/minimax.py is reported as `search.budget`.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = list(path.relative_to(root).with_suffix("").parts)[:-1]  # the file's package
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                if node.level - 1 > len(package):
                    base = ["<outside the source tree>"]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            out.append((node.lineno, name))
            # `from . import twilight` imports bots.twilight: each name may be a module
            out += [(node.lineno, f"{name}.{alias.name}") for alias in node.names if alias.name != "*"]
        elif isinstance(node, ast.Call):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if fname in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                out.append((node.lineno, node.args[0].value))
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


# -- the game registry: shared layers read it, games never reach back up (issue 9) -------------------

SHARED_PACKAGES = ("tournament",)  # packages of shared code: they reach the games through the registry
GAME_PACKAGES = sorted(p.name for p in (ROOT / "bots").iterdir()
                       if (p / "__init__.py").exists() and p.name not in SHARED_PACKAGES)
SHARED = sorted(p for p in (ROOT / "bots").glob("*.py")) + sorted(
    p for name in SHARED_PACKAGES for p in (ROOT / "bots" / name).glob("*.py"))
FORBIDDEN_FOR_GAMES = {"bots.cli", "bots.daemon", "bots.settings"}


def test_every_registered_game_is_a_package_here():
    from bots import registry

    packages = {name.split(".")[1] for name in registry.PACKAGES}
    assert packages <= set(GAME_PACKAGES)
    assert set(registry.names()) == {"twilight", "gopher", "dodo", "go", "hex"}


@pytest.mark.parametrize("package", GAME_PACKAGES)
def test_game_packages_never_import_the_cli_daemon_or_settings(package):
    bad = [(path.relative_to(ROOT), line, name) for path in modules_of(f"bots/{package}")
           for line, name in imported(path)
           if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_FOR_GAMES)]
    assert bad == []


@pytest.mark.parametrize("package", ["twilight", "gopher", "dodo", "go", "hex"])
def test_a_game_never_imports_another_game(package):
    """A game reuses what is shared (bots/*.py, search/, protocol/), never another game: Hex
    reuses Go's tree and GTP runtime through search.uct and bots.gtp_runtime."""
    others = tuple(f"bots.{p}" for p in ("twilight", "gopher", "dodo", "go", "hex") if p != package)
    bad = [(path.relative_to(ROOT), line, name) for path in modules_of(f"bots/{package}")
           for line, name in imported(path) if name in others or name.startswith(tuple(o + "." for o in others))]
    assert bad == []


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_modules_import_no_game(path):
    """Only the registry knows the games (by name, never by import); the runner and every other
    shared module reach a game through it."""
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


# -- no import cycles inside a game package (issue 9) ---------------------------------------------

def package_graph(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """{module: the package's modules it imports}, read with `imported` (so imports inside
    functions count too), for every module of `package` ("bots/go"); the package itself is
    the module named by its __init__.py.  An import of `pkg.mod.name` counts as one of
    `pkg.mod`, the longest prefix that is a module of the package."""
    base = package.replace("/", ".")
    names = {}
    for path in sorted((root / package).glob("*.py")):
        names[base if path.stem == "__init__" else f"{base}.{path.stem}"] = path
    graph = {}
    for name, path in names.items():
        deps = set()
        for _, imp in imported(path, root):
            parts = imp.split(".")
            for k in range(len(parts), 0, -1):
                prefix = ".".join(parts[:k])
                if prefix in names:
                    deps.add(prefix)
                    break
        deps.discard(name)
        graph[name] = deps
    return graph


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


def test_go_modules_import_one_another_without_cycles():
    graph = package_graph("bots/go")
    assert {"bots.go.board", "bots.go.players", "bots.go.mcts", "bots.go.book"} <= set(graph)
    assert "bots.go.kernel" in graph["bots.go.mcts"]  # the reader sees `from . import kernel as K`
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in bots/go: " + " -> ".join(cycle)


def test_hex_modules_import_one_another_without_cycles():
    graph = package_graph("bots/hex")
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
    graph = package_graph("bots/game", tmp_path)
    assert graph["bots.game.a"] == {"bots.game.b"} and graph["bots.game.b"] == {"bots.game", "bots.game.c"}
    assert find_cycle(graph) == ["bots.game.a", "bots.game.b", "bots.game.c", "bots.game.a"]
    (pkg / "c.py").write_text("def g():\n    return 2\n", encoding="utf-8")
    assert find_cycle(package_graph("bots/game", tmp_path)) is None
