"""Imports inside ``cfrlab/`` point one way (docs/architecture.md, "Layers") and form no circle.

Every ``import`` statement is read from the source, function-level and
``TYPE_CHECKING`` ones included, so a lazy import that crosses a layer fails
here just like a module-level one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cfrlab

ROOT = Path(cfrlab.__file__).parent

# Lowest first; a module may import its own layer or a lower one. A prefix names a module and
# everything under it, except the bare package "cfrlab" (the public facade), which names itself only;
# "*" stands for one name, so a game family's package (cfrlab.games.NAME) holds modules of several layers:
# its game and rules at the game layer, its solvers/, players/ (agents) and eval/, ui/ (views, CLI extras) above.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("cfrlab.seeding", "cfrlab.file_checks", "cfrlab.checkpoint", "cfrlab.runlog", "cfrlab.distributed",
              "cfrlab.jit_timing", "cfrlab.extras")),
    ("game", ("cfrlab.game", "cfrlab.games", "cfrlab.registry")),
    ("tree", ("cfrlab.tree",)),
    ("policy", ("cfrlab.policy", "cfrlab.policy_file", "cfrlab.policy_tabulate")),
    ("solvers", ("cfrlab.solvers", "cfrlab.games.*.solvers")),
    ("eval", ("cfrlab.eval", "cfrlab.agents", "cfrlab.games.*.players", "cfrlab.games.*.eval")),
    ("driver", ("cfrlab", "cfrlab.driver", "cfrlab.testing", "cfrlab.experiments", "cfrlab.plot")),
    ("cli/web", ("cfrlab.cli", "cfrlab.web", "cfrlab.games.*.ui")),
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
