"""Imports inside ``cfrlab/`` point one way (docs/architecture.md, "Layers") and form no circle.

Every ``import`` statement is read from the source, function-level and
``TYPE_CHECKING`` ones included, so a lazy import that crosses a layer fails
here just like a module-level one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import cfrlab

ROOT = Path(cfrlab.__file__).parent

# Lowest first; a module may import its own layer or a lower one. A prefix names a module and
# everything under it, except the bare package "cfrlab" (the public facade), which names itself only;
# "*" stands for one name, so a game family's package (cfrlab.games.NAME) holds modules of several layers, one room
# (subpackage) per role: rules/ (and neural/, abstraction/) at the game layer, solvers/, players/ (agents) and eval/,
# learn/ (training loops, at the driver layer), ui/ (views, CLI extras) above; ``FAMILY_ROOMS`` orders them inside.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("cfrlab.seeding", "cfrlab.file_checks", "cfrlab.checkpoint", "cfrlab.runlog", "cfrlab.distributed",
              "cfrlab.jit_timing", "cfrlab.numba_cache", "cfrlab.numba_stamp", "cfrlab.extras",
              "cfrlab.suggest")),
    ("game", ("cfrlab.game", "cfrlab.game_spec", "cfrlab.games", "cfrlab.registry", "cfrlab.efg")),
    ("tree", ("cfrlab.tree",)),
    ("policy", ("cfrlab.policy", "cfrlab.policy_file", "cfrlab.policy_tabulate")),
    ("solvers", ("cfrlab.solvers", "cfrlab.games.*.solvers")),
    ("eval", ("cfrlab.eval", "cfrlab.agents", "cfrlab.games.*.players", "cfrlab.games.*.eval")),
    ("driver", ("cfrlab", "cfrlab.driver", "cfrlab.schedule", "cfrlab.testing", "cfrlab.experiments", "cfrlab.plot",
                "cfrlab.games.*.learn")),
    ("cli/web", ("cfrlab.cli", "cfrlab.web", "cfrlab.games.*.ui", "cfrlab.games.ui", "cfrlab.envs")),
]

Graph = dict[str, set[str]]


def layer_of(module: str) -> int | None:
    """Index in ``LAYERS`` of the longest prefix naming ``module``; None when no layer names it."""
    best, best_len = None, -1
    parts = module.split(".")
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            names = prefix.split(".")
            named = (len(parts) == len(names) or (prefix != "cfrlab" and len(parts) > len(names))) and all(
                n in ("*", p) for n, p in zip(names, parts))
            if named and len(names) > best_len:
                best, best_len = rank, len(names)
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The cfrlab modules that module ``name`` imports (parents a dotted import runs implicitly are not counted)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # ``from pkg import mod`` names the submodule; any other name comes from ``pkg`` itself.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
    return found - {name}


def import_graph() -> Graph:
    paths = {module_name(p): p for p in ROOT.rglob("*.py")}
    modules = set(paths)
    return {
        name: imported_modules(path.read_text(), name, path.name == "__init__.py", modules)
        for name, path in paths.items()
    }


def upward_imports(graph: Graph) -> list[str]:
    """Every edge from a module to a module of a higher layer, as readable lines."""
    return [
        f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})"
        for m, deps in sorted(graph.items())
        for d in sorted(deps)
        if (layer_of(d) or 0) > (layer_of(m) or 0)
    ]


def import_cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan, 1972): each is a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


GRAPH = import_graph()


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(m for m in GRAPH if layer_of(m) is None)
    assert not unplaced, f"modules missing from LAYERS (and from docs/architecture.md): {unplaced}"


def test_no_module_imports_a_higher_layer() -> None:
    upward = upward_imports(GRAPH)
    assert not upward, "imports pointing up:\n" + "\n".join(upward)


def test_no_import_cycles() -> None:
    assert not import_cycles(GRAPH)


def test_the_graph_sees_lazy_relative_and_type_checking_imports() -> None:
    source = """
from typing import TYPE_CHECKING
import numpy
from cfrlab.tree import kernels
from cfrlab import distributed
from . import base
from .regret import regret_matching
if TYPE_CHECKING:
    from cfrlab.policy import TabularPolicy
def f():
    import cfrlab.eval.metrics
    from cfrlab.tree import GameTree
"""
    modules = {"cfrlab", "cfrlab.tree", "cfrlab.tree.kernels", "cfrlab.distributed", "cfrlab.policy",
               "cfrlab.eval", "cfrlab.eval.metrics", "cfrlab.solvers", "cfrlab.solvers.base",
               "cfrlab.solvers.regret", "cfrlab.solvers.cfr"}
    assert imported_modules(source, "cfrlab.solvers.cfr", False, modules) == {
        "cfrlab.tree.kernels", "cfrlab.distributed", "cfrlab.solvers.base", "cfrlab.solvers.regret",
        "cfrlab.policy", "cfrlab.eval.metrics", "cfrlab.tree",
    }
    assert GRAPH["cfrlab"] >= {"cfrlab.driver", "cfrlab.game", "cfrlab.eval"}


def test_the_checks_report_what_they_should() -> None:
    bad: Graph = {
        "cfrlab.tree.states": {"cfrlab.policy"},
        "cfrlab.policy": {"cfrlab.tree.states"},
        "cfrlab.game": {"cfrlab.registry"},
        "cfrlab.registry": {"cfrlab.game"},
    }
    assert upward_imports(bad) == ["cfrlab.tree.states (tree) imports cfrlab.policy (policy)"]
    assert import_cycles(bad) == [["cfrlab.game", "cfrlab.registry"], ["cfrlab.policy", "cfrlab.tree.states"]]
    assert layer_of("cfrlab.nonexistent") is None and layer_of("cfrlab") == layer_of("cfrlab.driver")
    assert layer_of("cfrlab.games.toy.ui.view") == layer_of("cfrlab.web") > layer_of("cfrlab.games.toy.game")


# Generic modules never name a particular game (docs/architecture.md, "Game families"): they reach a game's
# agents, views, terminal loop and commands through its family (cfrlab.registry.GameFamily), never by name.
GENERIC = ("cfrlab.agents", "cfrlab.web", "cfrlab.cli", "cfrlab.eval", "cfrlab.solvers", "cfrlab.driver",
           "cfrlab.envs")
GAME_NAME = re.compile(r"koikoi|koi_koi|holdem|leduc|kuhn", re.IGNORECASE)
"""A game's name inside an identifier (a name, attribute, argument, function, class or imported module) or as a
whole string (``"koikoi"``, ``"holdem_ehs2"``); prose that cites a game (docstrings, help, messages) is fine."""


def is_generic(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in GENERIC)


def game_names(source: str) -> list[str]:
    """Each identifier or whole string of ``source`` that names a game, as ``line: text``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        texts: list[str] = []
        if isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts = [node.name]
        elif isinstance(node, ast.arg):
            texts = [node.arg]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            texts = [getattr(node, "module", None) or ""] + [a.name for a in node.names] + [
                a.asname or "" for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            texts = [node.value] if re.fullmatch(r"[\w.:]+", node.value) else []
        found += [(node.lineno, t) for t in texts if GAME_NAME.search(t)]
    return [f"{line}: {text}" for line, text in sorted(found)]


def naming_modules(graph: Graph, source_of: dict[str, str]) -> dict[str, list[str]]:
    """Generic modules that name a game or import a game package's module, with what they name."""
    out: dict[str, list[str]] = {}
    for module in sorted(graph):
        if not is_generic(module):
            continue
        hits = (["its own name"] if GAME_NAME.search(module.rpartition(".")[2]) else []) + game_names(
            source_of[module]) + [f"imports {d}" for d in sorted(graph[module]) if d.startswith("cfrlab.games.")]
        if hits:
            out[module] = hits
    return out


def package_of(module: str, packages: set[str]) -> str:
    """The folder a module sits in (a package is its own); a top-level module of cfrlab is its own unit."""
    if module in packages:
        return module
    parent = module.rpartition(".")[0]
    return module if parent == "cfrlab" else parent


def package_graph(graph: Graph, packages: set[str]) -> Graph:
    out: Graph = {}
    for module, deps in graph.items():
        here = package_of(module, packages)
        out.setdefault(here, set()).update(package_of(d, packages) for d in deps)
        out[here].discard(here)
    return out


SOURCES = {module_name(p): p.read_text() for p in ROOT.rglob("*.py")}
PACKAGES = {module_name(p) for p in ROOT.rglob("__init__.py")}


def test_no_generic_module_names_a_game() -> None:
    naming = naming_modules(GRAPH, SOURCES)
    assert not naming, "generic modules naming a game (use its family: cfrlab.registry.family_of):\n" + "\n".join(
        f"{m}: {', '.join(hits[:4])}" for m, hits in naming.items())


def test_no_package_cycles() -> None:
    assert not import_cycles(package_graph(GRAPH, PACKAGES))


def test_the_game_name_check_catches_a_planted_module() -> None:
    bad = '''"""A generic module; Koi-Koi and Kuhn in prose are fine."""
from cfrlab.games.koikoi.players.greedy import GreedyAgent
def pick(game, kind="greedy"):
    if game.name.startswith("koikoi"):
        return GreedyAgent()
    return holdem_agent(game) or game.leduc_deck
'''
    graph = {"cfrlab.agents.planted": {"cfrlab.games.koikoi.players.greedy"}, "cfrlab.games.toy": {"cfrlab.game"},
             "cfrlab.web.kuhn_view": set()}
    sources = {"cfrlab.agents.planted": bad, "cfrlab.games.toy": 'NAME = "kuhn"\n', "cfrlab.web.kuhn_view": ""}
    assert naming_modules(graph, sources) == {"cfrlab.agents.planted": [
        "2: cfrlab.games.koikoi.players.greedy", "4: koikoi", "6: holdem_agent", "6: leduc_deck",
        "imports cfrlab.games.koikoi.players.greedy"], "cfrlab.web.kuhn_view": ["its own name"]}
    assert game_names('"""Kuhn poker."""\nHELP = "e.g. cfrlab play koikoi"\n') == []


def test_package_cycles_are_found() -> None:
    graph = {"cfrlab.games.toy.game": {"cfrlab.games.toy.ui.view"}, "cfrlab.games.toy.ui.view": {"cfrlab.game"},
             "cfrlab.game": set()}
    packages = {"cfrlab.games.toy", "cfrlab.games.toy.ui"}
    assert package_graph(graph, packages) == {"cfrlab.games.toy": {"cfrlab.games.toy.ui"},
                                              "cfrlab.games.toy.ui": {"cfrlab.game"}, "cfrlab.game": set()}
    graph["cfrlab.games.toy.ui.view"].add("cfrlab.games.toy.rules")
    assert import_cycles(package_graph(graph, packages)) == [["cfrlab.games.toy", "cfrlab.games.toy.ui"]]


# Short functions (issue 21): no plain-Python function of cfrlab/ over MAX_FUNCTION_LINES lines (its ``def`` line
# to its last, nested functions counted in their parent); a numba kernel (``@njit``/``@nb.njit``/``@kernel``) may be
# longer where inlining needs it.
MAX_FUNCTION_LINES = 80


def is_numba_kernel(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(re.fullmatch(r"(nb\.|numba\.)?njit|kernel", ast.unparse(d.func if isinstance(d, ast.Call) else d))
               for d in node.decorator_list)


def long_functions(source_of: dict[str, str], limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``module.function: N lines`` for each plain-Python function of ``source_of`` longer than ``limit`` lines."""
    out = []
    for module, source in sorted(source_of.items()):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not is_numba_kernel(node):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    out.append(f"{module}.{node.name}: {lines} lines")
    return out


def test_no_plain_python_function_is_long() -> None:
    long = long_functions(SOURCES)
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps):\n" + "\n".join(long)


def test_the_length_check_catches_a_long_function_and_spares_a_kernel() -> None:
    def body(n: int, indent: str = "    ") -> str:
        return "".join(f"{indent}x{i} = {i}\n" for i in range(n))

    source = (f"def short():\n{body(3)}\n@nb.njit(cache=True)\ndef kernel():\n{body(4)}\n@njit\ndef bare():\n"
              f"{body(4)}\n@kernel(inline='always')\ndef inlined():\n{body(4)}\n@kernel\ndef plain():\n"
              f"{body(4)}\n@app.command('x')\ndef command():\n{body(4)}\nclass A:\n    def method(self):\n"
              f"{body(4, ' ' * 8)}")  # with its def line, a body of 4 is 5 lines: over the limit 4
    assert long_functions({"cfrlab.planted": source}, limit=4) == ["cfrlab.planted.command: 5 lines",
                                                                   "cfrlab.planted.method: 5 lines"]


# Inside a family package (cfrlab.games.NAME, a folder), each module sits in a room named for its role, and rooms
# import only rooms of their own rank or lower; the package's __init__ and family.py (its declaration) rank with rules.
FAMILY_ROOMS = {"rules": 0, "neural": 1, "abstraction": 1, "solvers": 2, "players": 3, "eval": 3, "learn": 4, "ui": 5}
FAMILY_ROOT = ("", "family")
MAX_LINES = 400


def family_of(module: str) -> tuple[str, str] | None:
    """(family package, room) of a module inside a family package (one with a ``family.py``); the room is "" for
    the package's own root."""
    parts = module.split(".")
    if len(parts) < 3 or parts[:2] != ["cfrlab", "games"] or f"cfrlab.games.{parts[2]}.family" not in SOURCES:
        return None
    return ".".join(parts[:3]), (parts[3] if len(parts) > 3 else "")


def room_rank(room: str) -> int:
    return 0 if room in FAMILY_ROOT else FAMILY_ROOMS[room]


def family_violations(graph: Graph) -> list[str]:
    """Modules of a family package outside every room, and imports from a room to a higher one of the same family."""
    out = []
    for module, deps in sorted(graph.items()):
        here = family_of(module)
        if here is None:
            continue
        if here[1] not in FAMILY_ROOMS and here[1] not in FAMILY_ROOT:
            out.append(f"{module} sits in no room ({', '.join(FAMILY_ROOMS)})")
            continue
        for dep in sorted(deps):
            there = family_of(dep)
            if there and there[0] == here[0] and there[1] in FAMILY_ROOMS and room_rank(there[1]) > room_rank(here[1]):
                out.append(f"{module} ({here[1] or 'root'}) imports {dep} ({there[1]})")
    return out


def test_every_family_package_is_laid_out_by_room() -> None:
    assert not family_violations(GRAPH), "\n".join(family_violations(GRAPH))


def test_the_room_check_reports_what_it_should() -> None:
    bad: Graph = {"cfrlab.games.koikoi.rules.flow": {"cfrlab.games.koikoi.players.search"},
                  "cfrlab.games.koikoi.players.search": {"cfrlab.games.koikoi.rules.flow"},
                  "cfrlab.games.koikoi.stray": set(), "cfrlab.games.koikoi.family": set()}
    assert family_violations(bad) == [
        "cfrlab.games.koikoi.rules.flow (rules) imports cfrlab.games.koikoi.players.search (players)",
        f"cfrlab.games.koikoi.stray sits in no room ({', '.join(FAMILY_ROOMS)})"]


def test_no_module_is_over_the_line_cap() -> None:
    long = {name: n for name, source in SOURCES.items() if (n := len(source.splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them by step): {long}"
