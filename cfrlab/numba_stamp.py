"""numba's on-disk cache made to notice edits to the kernels a kernel calls from other modules.

numba keys a cached kernel by its own source file's content (``_SourceFileBackedLocatorMixin.get_source_stamp``)
and its bytecode. A kernel that calls, or inlines, a kernel of another module keeps that callee's machine code in
its own cache entry, so after the callee's module changes, the caller's stale entry is still loaded (numba#6845):
a ``git pull`` that edits a module of kernels leaves its callers in other modules running the old code.

``closure_stamp`` widens the stamp of a kernel whose file lies in a watched package (``watch``; ``numba_cache.install``
watches cfrlab) to the contents of every package module its file imports at the top level, transitively: a
kernel can only call what its module's globals name, and those come from top-level imports. An edit to one of
those modules gives a new stamp, and numba compiles the caller afresh and rewrites its index.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
from pathlib import Path
from typing import Any

_PACKAGES: dict[str, str] = {}
"""Watched package folders (real paths) and their import names."""


def watch(folder: str | os.PathLike[str], name: str) -> None:
    """Stamp the kernels of the package in ``folder`` (imported as ``name``) with their import closure."""
    _PACKAGES[os.path.realpath(folder)] = name
    import_closure.cache_clear()
    closure_digest.cache_clear()


STAMP_MARK = "cfrlab import closure"
"""First item of a widened stamp: ``(STAMP_MARK, numba's stamp, closure digest)``."""


def closure_stamp(cache: Any) -> tuple[str, Any, str] | None:  # a numba ``Cache``
    """``cache``'s source stamp widened to its file's import closure; None when the file is in no watched package
    (another package's kernel: numba's stamp is kept)."""
    path = getattr(getattr(getattr(cache, "_impl", None), "locator", None), "_py_file", None)
    files = import_closure(os.path.realpath(path)) if isinstance(path, str) else ()
    if not files:
        return None
    return STAMP_MARK, cache._cache_file._source_stamp, closure_digest(files)


@functools.cache
def closure_digest(files: tuple[str, ...]) -> str:
    """A digest of the contents of ``files`` (once a process: numba's stamps too are taken once)."""
    h = hashlib.sha256()
    for file in files:
        h.update(os.path.basename(file).encode() + b"\0" + hashlib.sha256(Path(file).read_bytes()).digest())
    return h.hexdigest()


@functools.cache
def import_closure(path: str) -> tuple[str, ...]:
    """``path`` and every module file of its watched package that it imports at the top level, transitively,
    sorted; empty when ``path`` lies in no watched package."""
    package = _package_of(path)
    if package is None:
        return ()
    seen, todo = {path}, [path]
    while todo:
        for found in _imported_files(todo.pop(), *package):
            if found not in seen:
                seen.add(found)
                todo.append(found)
    return tuple(sorted(seen))


def _package_of(path: str) -> tuple[str, str] | None:
    for folder, name in _PACKAGES.items():
        if path.startswith(folder + os.sep):
            return folder, name
    return None


@functools.cache
def _imported_files(path: str, folder: str, name: str) -> tuple[str, ...]:
    """The files of the package's modules that ``path`` imports at the top level (its own package's included:
    ``from pkg import module``)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    here = _module_name(path, folder, name)
    modules: list[str] = []
    for node in _top_level(tree.body):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, here, path)
            modules += [base] + [f"{base}.{alias.name}" for alias in node.names]
    files = (_module_file(m, folder, name) for m in modules if m == name or m.startswith(name + "."))
    return tuple(f for f in files if f is not None)


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run at import: ``body`` and the blocks of its ``try`` and ``if`` statements, but not the
    body of ``if TYPE_CHECKING:``."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            type_checking = isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            out += ([] if type_checking else _top_level(node.body)) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            out += _top_level(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                out += _top_level(handler.body)
        else:
            out.append(node)
    return out


def _module_name(path: str, folder: str, name: str) -> str:
    parts = list(Path(os.path.relpath(path, folder)).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([name, *parts])


def _absolute(node: ast.ImportFrom, here: str, path: str) -> str:
    """The module an ``import from`` names, relative imports resolved against the module ``here``."""
    if not node.level:
        return node.module or ""
    package = here.split(".")
    if not path.endswith("__init__.py"):
        package.pop()
    package = package[:len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _module_file(module: str, folder: str, name: str) -> str | None:
    """The file of package module ``module`` (``a/b.py`` or ``a/b/__init__.py``), None when there is none."""
    base = os.path.join(folder, *module.split(".")[1:])
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None
