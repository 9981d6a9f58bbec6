"""The registered algorithms' names and papers, read from the solver modules' source without importing them.

``cfrlab algorithms`` lists every algorithm; importing the solvers for it would load numba and torch (seconds, and
hundreds of megabytes) to print a table. Each class's ``algorithm`` and ``citation`` are literals in its class
body, so they are read here with ``ast`` from the files ``SOLVERS`` names (following a package's re-export to the
module that defines the class). A module whose own top-level imports name a package that is not installed is
reported unavailable, as ``unavailable()`` reports it after trying the import. ``tests/solvers/test_catalog.py``
checks that the catalogue agrees with the imported classes.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]  # the cfrlab package folder


def read_catalog(refs: Sequence[str]) -> list[dict[str, str | None]]:
    """``[{"name", "class", "description", "missing"}]`` for the solvers ``refs`` name (``"module:Class"``), in
    order; ``missing`` is the package a module needs that is not installed here, or None."""
    rows = []
    for ref in refs:
        module, attr = ref.split(":")
        found = _class_node(module, attr)
        if found is None:
            raise TypeError(f"{ref}: class {attr} not found in the source of {module}")
        defining, fields = found
        if "algorithm" not in fields:
            raise TypeError(f"{ref} must set its own `algorithm` name as a literal in its class body")
        citation = fields.get("citation")
        if citation:
            description = f"{citation[0]} ({citation[1]})"
        else:
            description = (fields.get("doc") or "").strip().split("\n\n")[0].replace("\n", " ")
        rows.append({"name": fields["algorithm"], "class": attr, "description": description,
                     "missing": _missing_package(defining)})
    return rows


def _source(module: str) -> Path:
    """The file of ``module``: cfrlab's found under the package folder, a game family's of another package by
    ``importlib.util.find_spec`` (which imports its parent packages, not the module)."""
    parts = module.split(".")
    if parts[0] != "cfrlab":
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            raise TypeError(f"{module}: no source file found")
        return Path(spec.origin)
    base = _ROOT.joinpath(*parts[1:])
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


@cache
def _tree(module: str) -> ast.Module:
    return ast.parse(_source(module).read_text(encoding="utf-8"))


def _class_node(module: str, name: str) -> tuple[str, dict] | None:
    """The module that defines class ``name`` (``module`` itself, or the one it re-exports it from) and the
    class's literal ``algorithm``, ``citation`` and ``doc``."""
    for stmt in _tree(module).body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return module, {**_literal_fields(stmt), "doc": ast.get_docstring(stmt)}
        if (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)):
            return module, _preset_fields(stmt.value)
        if (isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and (stmt.module or "").startswith("cfrlab.")
                and any(alias.name == name and alias.asname is None for alias in stmt.names)):
            return _class_node(stmt.module or "", name)
    return None


def _literal_fields(node: ast.ClassDef) -> dict:
    fields = {}
    for stmt in node.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in ("algorithm", "citation"):
                    fields[target.id] = ast.literal_eval(stmt.value)
    return fields


def _preset_fields(call: ast.Call) -> dict:
    """A class made by a call such as MCCFR's ``_preset("Name", "external", (what, source), doc, ...)``: its
    positional arguments after the class name are the algorithm, the citation and the docstring."""
    values = [ast.literal_eval(arg) for arg in call.args[1:4]]
    return dict(zip(("algorithm", "citation", "doc"), values))


def _missing_package(module: str) -> str | None:
    """The first package that ``module`` imports at its top level and that cannot be imported here."""
    for stmt in _tree(module).body:
        names = ([alias.name for alias in stmt.names] if isinstance(stmt, ast.Import)
                 else [stmt.module or ""] if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 else [])
        for name in names:
            top = name.split(".")[0]
            if top not in ("cfrlab", "__future__") and not _importable(top):
                return top
    return None


def _importable(package: str) -> bool:
    if package in sys.modules:
        return sys.modules[package] is not None
    return importlib.util.find_spec(package) is not None
